// EC2's limit on user data, the one place it is stated: the generator gzips user data over it, and a patch made
// afterwards by an overlay must keep it.
import {
  type Artifact,
  type BurstPlan,
  InternalError,
  OutputLimitError,
  type PlannedPool,
  type Shipped,
  type SpecIssue,
  userDataPaths,
} from "@clusterspec/core";
import { base64, byteLength, gzipText } from "./encode.js";
import { renderUserData } from "./user-data.js";

/** EC2 accepts at most 16 KiB of user data before base64. */
export const USER_DATA_LIMIT = 16384;

export interface UserDataPlan {
  readonly pool: PlannedPool;
  readonly yaml: string;
  readonly bytes: number;
  /** Set when the YAML is over the limit: base64 of its gzip, which cloud-init unpacks. */
  readonly gzipBase64: string | undefined;
  readonly gzipBytes: number | undefined;
}

export function planUserData(plan: BurstPlan, pool: PlannedPool, limit = USER_DATA_LIMIT): UserDataPlan {
  const yaml = renderUserData(plan, pool);
  const bytes = byteLength(yaml);
  if (bytes <= limit) return { pool, yaml, bytes, gzipBase64: undefined, gzipBytes: undefined };
  const gz = gzipText(yaml);
  if (gz.length > limit)
    throw new OutputLimitError(
      pool.specPath,
      `user data of pool ${pool.name} is ${bytes} bytes, ${gz.length} gzipped; EC2 accepts ${limit}: drop labels, taints or resources`,
    );
  return { pool, yaml, bytes, gzipBase64: `${base64(gz)}\n`, gzipBytes: gz.length };
}

/** A pool's user data as it ships: the YAML's size and, when it is gzipped, the gzip's. */
export interface ShippedUserData {
  readonly yaml: Artifact;
  readonly bytes: number;
  readonly gzipBytes: number | undefined;
}

export function shippedUserData(pool: PlannedPool, byPath: ReadonlyMap<string, Artifact>): ShippedUserData {
  const paths = userDataPaths(pool.name);
  const yaml = byPath.get(paths.yaml);
  if (!yaml) throw new InternalError(`the user data of pool ${pool.name} is not among the artifacts`);
  const gz = byPath.get(paths.gzipBase64);
  return {
    yaml,
    bytes: byteLength(yaml.content),
    gzipBytes: gz === undefined ? undefined : atob(gz.content.trim()).length,
  };
}

/**
 * Patched user data must still reach EC2 as it is: the generator gzips what exceeds the limit, which a patch made
 * afterwards would leave stale, so a patched file must stay under the limit and never have a gzipped twin.
 */
export function checkPatchedUserData(plan: BurstPlan, shipped: Shipped): SpecIssue[] {
  if (!plan.cloud) return [];
  const byPath = new Map(shipped.artifacts.map((a) => [a.path, a]));
  return plan.cloud.pools.flatMap((pool) => {
    const paths = userDataPaths(pool.name);
    const last = shipped.applied.get(paths.yaml)?.at(-1);
    if (!last) return [];
    const u = shippedUserData(pool, byPath);
    const twin = u.gzipBytes !== undefined;
    if (!twin && u.bytes <= USER_DATA_LIMIT) return [];
    return [
      {
        path: ["overlays", last.overlay, "target"],
        severity: "error" as const,
        code: "output_limit" as const,
        message: twin
          ? `${paths.yaml} ships gzipped as ${paths.gzipBase64} (over the ${USER_DATA_LIMIT} bytes EC2 accepts plain), which a patch would leave stale: user data this large cannot be patched`
          : `${paths.yaml} is ${u.bytes} bytes after overlays, over the ${USER_DATA_LIMIT} bytes EC2 accepts as plain user data: patch less`,
      },
    ];
  });
}
