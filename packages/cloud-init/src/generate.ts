import { type Artifact, type BurstPlan, generatedMarker, userDataPaths } from "@clusterspec/core";
import { CONTRACT_PATH, renderContract } from "./contract.js";
import { planUserData } from "./limit.js";
import { RBAC_PATH, renderRbac } from "./rbac.js";

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
