import {
  type Artifact,
  type ClusterPlan,
  type GeneratorModule,
  mdTable,
  OutputLimitError,
  type PlannedPool,
  userDataPaths,
} from "@clusterspec/core";
import { base64, byteLength, gzipText } from "./encode.js";
import { fedoraPackages, renderUserData } from "./user-data.js";

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

export function summarizeCloudInit(plan: ClusterPlan): string | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const rows = cloud.pools.map((pool) => {
    const u = planUserData(plan, pool);
    return [
      pool.name,
      fedoraPackages(plan).join(", "),
      `${u.bytes} of ${USER_DATA_LIMIT} bytes`,
      u.gzipBytes === undefined ? "no" : `yes, ${u.gzipBytes} bytes (user-data.gz.b64)`,
    ];
  });
  return [
    "## Cloud user data",
    "",
    `Burst nodes boot Fedora with cloud-init, fetch their WireGuard config and kubeadm discovery kubeconfig from ${cloud.provisioner.url} (\`/wireguard/config/<instance-id>\`, \`/kubeadm/kubeconfig/<instance-id>\`), bring up \`${cloud.wireguard.interface}\` (tunnel ${cloud.wireguard.tunnelSubnet}, MTU ${cloud.tunnelMtu}), keep only the on-prem nameservers (${plan.network.nameservers.join(", ")}) and join with \`node-ip\` = their tunnel address and \`provider-id\` = \`aws:///<az>/<instance-id>\`. No per-instance secret is in the user data.`,
    "",
    mdTable(["pool", "packages", "user data", "gzipped"], rows),
  ].join("\n");
}

export const cloudInitModule: GeneratorModule = {
  name: "cloud-init",
  generate: generateCloudInit,
  summarize: summarizeCloudInit,
};
