import {
  type Artifact,
  type ClusterPlan,
  type GeneratorModule,
  OutputLimitError,
  type PlannedPool,
  userDataPaths,
} from "@clusterspec/core";
import { base64, byteLength, gzipText } from "./encode.js";
import { summarizeCloudInit } from "./summary.js";
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

export class UserDataTooLargeError extends OutputLimitError {}

export function planUserData(plan: ClusterPlan, pool: PlannedPool, limit = USER_DATA_LIMIT): UserDataPlan {
  const yaml = renderUserData(plan, pool);
  const bytes = byteLength(yaml);
  if (bytes <= limit) return { pool, yaml, bytes, gzipBase64: undefined, gzipBytes: undefined };
  const gz = gzipText(yaml);
  if (gz.length > limit)
    throw new UserDataTooLargeError(
      pool.specPath,
      `user data of pool ${pool.name} is ${bytes} bytes, ${gz.length} gzipped; EC2 accepts ${limit}: drop labels, taints or resources`,
    );
  return { pool, yaml, bytes, gzipBase64: `${base64(gz)}\n`, gzipBytes: gz.length };
}

/** `cloud/<pool>/user-data.yaml`, plus `user-data.gz.b64` (what Terraform then uploads) when the YAML is too large. */
export function generateCloudInit(plan: ClusterPlan): Artifact[] {
  if (!plan.cloud) return [];
  return plan.cloud.pools.flatMap((pool) => {
    const u = planUserData(plan, pool);
    const paths = userDataPaths(pool.name);
    const out: Artifact[] = [{ path: paths.yaml, content: u.yaml }];
    if (u.gzipBase64 !== undefined) out.push({ path: paths.gzipBase64, content: u.gzipBase64 });
    return out;
  });
}

export const cloudInitModule: GeneratorModule = {
  name: "cloud-init",
  generate: generateCloudInit,
  summarize: summarizeCloudInit,
};
