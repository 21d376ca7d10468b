// The migration to VRIDs that follow the address: the VRIDs a spec has today under the old positional rule
// (`legacyPositionalVrids`), checked so that a spec with them written in is valid. `clusterspec pin-vrids` writes
// them into the spec's text; this module only computes them (no IO).
import { legacyPositionalVrids } from "../facts/vrrp.js";
import type { IssuePath, SpecIssue, Validated } from "../issues.js";
import { ClusterSpecSchema, isCloudBurstSpec, OnPremSpecSchema } from "./schema.js";
import { validateSpec } from "./validate.js";

/** Each VIP's VRID as the spec allocates it today: the control-plane VIP's, and each external address's in order. */
export interface VridPins {
  /** Undefined for the cloud burst of an existing cluster, which has no VIPs (nothing to pin). */
  readonly controlPlane: number | undefined;
  readonly external: readonly number[];
}

const isJsonMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const FIRST_VRID_PATH: IssuePath = ["externalVips", "firstVrid"];

const error = (path: IssuePath, message: string): SpecIssue => ({ path, message, severity: "error", code: "rule" });

/**
 * The VRIDs to pin in `input` (a parsed spec, which may still set the removed `externalVips.firstVrid`): every
 * VIP's VRID under the old positional rule. The spec with them written in (and firstVrid removed) must validate;
 * its problems come back at their paths, and nothing is pinned.
 */
export function pinnedVrids(input: unknown): Validated<VridPins> {
  if (!isJsonMap(input)) return failed(validateSpec(input));
  const pool = input.externalVips;
  const firstVrid = isJsonMap(pool) ? pool.firstVrid : undefined;
  if (
    firstVrid !== undefined &&
    !(Number.isInteger(firstVrid) && (firstVrid as number) >= 1 && (firstVrid as number) <= 255)
  )
    return {
      ok: false,
      errors: [
        error(
          FIRST_VRID_PATH,
          `firstVrid must be an integer in 1..255 to pin the VRIDs it gave, got ${JSON.stringify(firstVrid)}`,
        ),
      ],
      warnings: [],
    };
  const current = isJsonMap(pool) && firstVrid !== undefined ? withoutFirstVrid(input, pool) : input;
  if ("existingCluster" in current) {
    const valid = validateSpec(current);
    if (!valid.ok) return valid;
    if (isCloudBurstSpec(valid.value))
      return { ok: true, value: { controlPlane: undefined, external: [] }, warnings: valid.warnings };
  }
  // The schema alone: the rules would already apply the new VRID rule, which the pinned spec is checked against.
  const schema = Object.hasOwn(current, "cloud") ? ClusterSpecSchema : OnPremSpecSchema;
  const parsed = schema.safeParse(current, { jitless: true });
  if (!parsed.success) return failed(validateSpec(current));
  const legacy = legacyPositionalVrids(parsed.data, firstVrid as number | undefined);
  if (legacy.issues.length > 0)
    return { ok: false, errors: legacy.issues.map((i) => error(i.path, i.message)), warnings: [] };
  const controlPlane = legacy.controlPlane;
  const external = legacy.external.filter((v): v is number => v !== undefined);
  if (controlPlane === undefined || external.length !== legacy.external.length)
    return { ok: false, errors: [error([], "no VRID for every VIP")], warnings: [] };
  const pins: VridPins = { controlPlane, external };
  const checked = validateSpec(withPins(current, pins));
  return checked.ok ? { ok: true, value: pins, warnings: checked.warnings } : checked;
}

function failed(result: Validated<unknown>): Validated<VridPins> {
  return result.ok ? { ok: false, errors: [error([], "expected a cluster spec")], warnings: result.warnings } : result;
}

function withoutFirstVrid(spec: Record<string, unknown>, pool: Record<string, unknown>): Record<string, unknown> {
  const { firstVrid: _removed, ...rest } = pool;
  return { ...spec, externalVips: rest };
}

/** The spec with every VIP's VRID written in, as `clusterspec pin-vrids` writes it into the text. */
export function withPins(spec: Record<string, unknown>, pins: VridPins): Record<string, unknown> {
  const cp = spec.controlPlane;
  const pool = spec.externalVips;
  const addresses = isJsonMap(pool) && Array.isArray(pool.addresses) ? pool.addresses : undefined;
  return {
    ...spec,
    ...(isJsonMap(cp) && pins.controlPlane !== undefined ? { controlPlane: { ...cp, vrid: pins.controlPlane } } : {}),
    ...(isJsonMap(pool) && addresses
      ? {
          externalVips: {
            ...pool,
            addresses: addresses.map((entry, i) =>
              isJsonMap(entry) ? { ...entry, vrid: pins.external[i] } : { address: entry, vrid: pins.external[i] },
            ),
          },
        }
      : {}),
  };
}
