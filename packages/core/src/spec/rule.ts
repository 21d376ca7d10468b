// The Rule type and the small helper rules share to name the first user of a duplicated value.
import type { IssuePath, Reporter } from "../issues.js";
import type { CloudSpec, ClusterSpec } from "./schema.js";

export type Rule = (spec: ClusterSpec, report: Reporter) => void;

/** A rule over the cloud section only: it holds for a generated cluster and for the cloud burst of an existing one. */
export type CloudRule = (spec: CloudRuleInput, report: Reporter) => void;
export interface CloudRuleInput {
  readonly name: string;
  readonly cloud?: CloudSpec | undefined;
}

/** Paths already reported by earlier occurrences, for "also used by …" messages. */
export function firstSeen<K>(): (key: K, path: IssuePath) => IssuePath | undefined {
  const seen = new Map<K, IssuePath>();
  return (key, path) => {
    const prior = seen.get(key);
    if (prior === undefined) seen.set(key, path);
    return prior;
  };
}
