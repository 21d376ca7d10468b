// A spec with existingCluster: describes only the cloud burst of a cluster that clusterspec does not generate.
import type { SpecIssue } from "../issues.js";
import { ON_PREM_SECTIONS } from "./schema.js";

export const isCloudBurstInput = (input: unknown): input is Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input) && "existingCluster" in input;

/** Sections of a generated cluster that were written beside existingCluster: each is an error naming both paths. */
export function conflictingSections(input: Record<string, unknown>): SpecIssue[] {
  return ON_PREM_SECTIONS.filter((k) => input[k] !== undefined).map((k) => ({
    path: [k],
    message: `${k} cannot be combined with existingCluster: a spec either generates a cluster (${k}, …) or bursts an existing one (existingCluster)`,
    severity: "error",
    code: "rule",
  }));
}
