// cloud-init's own cloud-config schema (newest upstream; strict at the top level), draft-04 like its validator.
import type { SchemaProblem } from "@clusterspec/core";
import schema from "../data/cloud-init/schema-cloud-config-v1.json" with { type: "json" };
import { ajv04, problemsOf, type ValidateFunction } from "./ajv.js";

let validate: ValidateFunction | undefined;

export function checkCloudConfig(doc: unknown): SchemaProblem[] {
  validate ??= ajv04().compile(schema as Record<string, unknown>);
  return validate(doc) ? [] : problemsOf(0, validate.errors);
}
