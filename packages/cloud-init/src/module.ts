import type { BurstGeneratorModule } from "@clusterspec/core";
import { generateCloudInit } from "./generate.js";
import { checkPatchedUserData } from "./limit.js";
import { summarizeCloudInit } from "./summary.js";

/** Each pool's user data, the provisioner contract and its RBAC; patched user data must keep EC2's limit. */
export const cloudInitModule: BurstGeneratorModule = {
  name: "cloud-init",
  burst: true,
  generate: generateCloudInit,
  summarize: summarizeCloudInit,
  check: checkPatchedUserData,
};
