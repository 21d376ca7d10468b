// core's spec functions under the plain public types, so clusterspec's declarations never load zod's.
import {
  formatIssues as coreFormatIssues,
  IDENTITIES_FILE as coreIdentitiesFile,
  identitiesPath as coreIdentitiesPath,
  loadSpec as coreLoadSpec,
  parseIdentities as coreParseIdentities,
  validateSpec as coreValidateSpec,
} from "@clusterspec/core";
import type {
  AnySpec,
  FormatOptions,
  IdentitiesIssue,
  ParsedIdentities,
  SpecIssue,
  Validated,
} from "@clusterspec/core/types";

/** Parses YAML text and validates it; issues carry `line`/`column`. Never throws on user input. */
export const loadSpec: (text: string) => Validated<AnySpec> = coreLoadSpec;
/** Validates any JSON-like value. Never throws on user input. */
export const validateSpec: (input: unknown) => Validated<AnySpec> = coreValidateSpec;
/** `✖ message` then `  → at path (file:line:col)`, and a code frame when given the source. */
export const formatIssues: (issues: readonly SpecIssue[], fileName?: string, options?: FormatOptions) => string =
  coreFormatIssues;

/** Checks an untrusted identities.json value (JSON-parsed); each issue names its field. Never throws. */
export const parseIdentities: (value: unknown) => ParsedIdentities = coreParseIdentities;
/** An identities issue's path as text: `vips["10.118.11.20"][1]`. */
export const identitiesPath: (path: IdentitiesIssue["path"]) => string = coreIdentitiesPath;
/** `identities.json`, at the top of the output folder. */
export const IDENTITIES_FILE: "identities.json" = coreIdentitiesFile;
