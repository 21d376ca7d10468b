import {
  type Artifact,
  type BurstGeneratorModule,
  type BurstPlan,
  generatedMarker,
  OutputLimitError,
  type PlannedPool,
  userDataPaths,
} from "@clusterspec/core";
import { CONTRACT_PATH, renderContract } from "./contract.js";
import { base64, byteLength, gzipText } from "./encode.js";
import { RBAC_PATH, renderRbac } from "./rbac.js";
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

export function planUserData(plan: BurstPlan, pool: PlannedPool, limit = USER_DATA_LIMIT): UserDataPlan {
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

/**
 * `cloud/<pool>/user-data.yaml`, plus `user-data.gz.b64` (what Terraform then uploads) when the YAML is too large,
 * the provisioner contract the user data relies on, and the RBAC of the provisioner's node lifecycle.
 */
export function generateCloudInit(plan: BurstPlan): Artifact[] {
  if (!plan.cloud) return [];
  const userData = plan.cloud.pools.flatMap((pool) => {
    const u = planUserData(plan, pool);
    const paths = userDataPaths(pool.name);
    const out: Artifact[] = [{ path: paths.yaml, content: u.yaml, schema: "cloud-config" }];
    if (u.gzipBase64 !== undefined) out.push({ path: paths.gzipBase64, content: u.gzipBase64 });
    return out;
  });
  const contract = renderContract(plan, generatedMarker(plan));
  const rbac = renderRbac(plan, generatedMarker(plan));
  return [
    ...userData,
    ...(contract === undefined ? [] : [{ path: CONTRACT_PATH, content: contract }]),
    ...(rbac === undefined ? [] : [{ path: RBAC_PATH, content: rbac }]),
  ];
}

export const cloudInitModule: BurstGeneratorModule = {
  name: "cloud-init",
  burst: true,
  generate: generateCloudInit,
  summarize: summarizeCloudInit,
};
