// The PLAN.md section: what burst nodes do when they boot, and how large their user data is.
import { type ClusterPlan, mdTable } from "@clusterspec/core";
import { planUserData, USER_DATA_LIMIT } from "./generate.js";
import { fedoraPackages } from "./user-data.js";

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
