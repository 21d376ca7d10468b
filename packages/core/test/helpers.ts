import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterSpecInput, formatIssues, validateSpec } from "@clusterspec/core";
import { parse } from "yaml";

export const repoRoot = join(import.meta.dirname, "..", "..", "..");

/** Reference cluster 1 as a plain object, fresh on every call so tests may mutate it. */
export function referenceSpec(): ClusterSpecInput & Record<string, unknown> {
  return parse(readFileSync(join(repoRoot, "examples", "bare-metal-ha", "cluster.yaml"), "utf8"));
}

/** Formatted errors of a spec after `mutate` broke it, for inline snapshots. */
export function errorsAfter(mutate: (spec: any) => void): string {
  const spec = referenceSpec();
  mutate(spec);
  const result = validateSpec(spec);
  if (result.ok) return "(valid)";
  return formatIssues(result.errors);
}

export function warningsOf(mutate: (spec: any) => void): string {
  const spec = referenceSpec();
  mutate(spec);
  return formatIssues(validateSpec(spec).warnings);
}
