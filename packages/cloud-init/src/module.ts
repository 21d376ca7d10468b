import { type BurstGeneratorModule, burstInputs, narrowedModule } from "@clusterspec/core";
import { generateCloudInit } from "./generate.js";
import { checkPatchedUserData } from "./limit.js";
import { summarizeCloudInit } from "./summary.js";

/** Each pool's user data, the provisioner contract and its RBAC; patched user data must keep EC2's limit. */
export const cloudInitModule: BurstGeneratorModule = {
  ...narrowedModule({
    name: "cloud-init",
    inputs: burstInputs,
    generateFrom: generateCloudInit,
    summarize: summarizeCloudInit,
    check: checkPatchedUserData,
  }),
  burst: true,
};
