// identities.json: the priority orders a generated tree carries forward to the next run (DESIGN-27, decision 2).
// The file is read back from an output folder, so it is untrusted: parseIdentities checks every field and names it.
import { canonicalIp, isIp } from "../ip.js";

/** What identities.json holds: each VIP's priority order (node names, best first) by its address. */
export interface Identities {
  readonly schemaVersion: 1;
  readonly vips: Readonly<Record<string, readonly string[]>>;
}

/** The file's name, at the top of the output folder. */
export const IDENTITIES_FILE = "identities.json";

export interface IdentitiesIssue {
  /** Where in the file: `vips`, `"10.0.0.1"`, 2 → `vips["10.0.0.1"][2]`. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

export type ParsedIdentities =
  | { readonly ok: true; readonly value: Identities }
  | { readonly ok: false; readonly issues: readonly IdentitiesIssue[] };

/** A path into identities.json as JavaScript would write it: `vips["10.0.0.1"][2]`. */
export function identitiesPath(path: readonly (string | number)[]): string {
  return path.map((p, i) => (typeof p === "number" ? `[${p}]` : i === 0 ? p : `[${JSON.stringify(p)}]`)).join("");
}

/** A node name longer than this is no node name (Kubernetes names stop at 253). */
const MAX_NAME = 253;

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const describe = (v: unknown): string =>
  v === null ? "null" : Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : `a ${typeof v}`;

/** Checks an untrusted identities.json value (already JSON-parsed); every problem names its field. */
export function parseIdentities(value: unknown): ParsedIdentities {
  const issues: IdentitiesIssue[] = [];
  const fail = (path: readonly (string | number)[], message: string) => issues.push({ path, message });
  if (!isPlainObject(value)) {
    fail([], `expected an object with schemaVersion and vips, found ${describe(value)}`);
    return { ok: false, issues };
  }
  for (const key of Object.keys(value))
    if (key !== "schemaVersion" && key !== "vips") fail([key], "unknown field (expected schemaVersion and vips)");
  if (!Object.hasOwn(value, "schemaVersion")) fail(["schemaVersion"], "missing (expected 1)");
  else if (value.schemaVersion !== 1)
    fail(
      ["schemaVersion"],
      `${JSON.stringify(value.schemaVersion)} is not a version this clusterspec reads (expected 1)`,
    );
  const vips = value.vips;
  if (!Object.hasOwn(value, "vips")) fail(["vips"], "missing (expected an object of VIP address → node names)");
  else if (!isPlainObject(vips))
    fail(["vips"], `expected an object of VIP address → node names, found ${describe(vips)}`);
  else
    for (const [address, order] of Object.entries(vips)) {
      const at = ["vips", address];
      if (!isIp(address) || canonicalIp(address) !== address)
        fail(
          at,
          "the key is not a VIP address as clusterspec writes it (an IP address without prefix, canonical form)",
        );
      if (!Array.isArray(order) || order.length === 0) {
        fail(
          at,
          `expected a non-empty list of node names, found ${Array.isArray(order) ? "an empty list" : describe(order)}`,
        );
        continue;
      }
      const seen = new Set<string>();
      order.forEach((name, i) => {
        if (typeof name !== "string" || name.length === 0 || name.length > MAX_NAME)
          fail(
            [...at, i],
            `expected a node name, found ${typeof name === "string" ? `a string of ${name.length} characters` : describe(name)}`,
          );
        else if (seen.has(name)) fail([...at, i], `node ${name} is listed twice`);
        else seen.add(name);
      });
    }
  if (issues.length > 0) return { ok: false, issues };
  return { ok: true, value: value as unknown as Identities };
}
