import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterSpecInput, formatIssues, loadSpec, validateSpec } from "@clusterspec/core";
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

/** A spec fixture of packages/testkit/fixtures, as text. */
export const testkitFixture = (name: string): string =>
  readFileSync(join(repoRoot, "packages", "testkit", "fixtures", `${name}.yaml`), "utf8");

/** The spec text with each [from, to] replaced once (each must occur), validated: its errors with lines. */
export function errorsOfEdited(text: string, ...edits: (readonly [string, string])[]): string {
  let t = text;
  for (const [from, to] of edits) {
    if (!t.includes(from)) throw new Error(`fixture has no ${from}`);
    t = t.replace(from, to);
  }
  const r = loadSpec(t);
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml");
}
