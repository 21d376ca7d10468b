// core's spec functions under the plain public types, so clusterspec's declarations never load zod's.
import {
  formatIssues as coreFormatIssues,
  loadSpec as coreLoadSpec,
  validateSpec as coreValidateSpec,
} from "@clusterspec/core";
import type { AnySpec, FormatOptions, SpecIssue, Validated } from "@clusterspec/core/types";

/** Parses YAML text and validates it; issues carry `line`/`column`. Never throws on user input. */
export const loadSpec: (text: string) => Validated<AnySpec> = coreLoadSpec;
/** Validates any JSON-like value. Never throws on user input. */
export const validateSpec: (input: unknown) => Validated<AnySpec> = coreValidateSpec;
/** `✖ message` then `  → at path (file:line:col)`, and a code frame when given the source. */
export const formatIssues: (issues: readonly SpecIssue[], fileName?: string, options?: FormatOptions) => string =
  coreFormatIssues;
