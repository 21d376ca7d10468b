export { CONTRACT_PATH, nodeLifecycleText, provisionerContract, renderContract, SNS_PATH } from "./contract.js";
export { base64, byteLength, gzipText } from "./encode.js";
export {
  cloudInitModule,
  generateCloudInit,
  planUserData,
  USER_DATA_LIMIT,
  type UserDataPlan,
} from "./generate.js";
export {
  CRIO_DEFAULT_CNI_CONFIGS,
  DISCOVERY_KUBECONFIG_PATH,
  IDENTITY_HEADERS,
  JOIN_ENV_KEYS,
  JOIN_ENV_PATH,
  JOIN_SCRIPT_PATH,
  JOIN_TEMPLATE_PATH,
  type JoinEnv,
  joinScript,
  NODE_IP_PLACEHOLDER,
  NODE_NAME_PLACEHOLDER,
  PACKAGE_RETRY,
  PROVIDER_ID_PLACEHOLDER,
  PROVISIONER_RETRY,
  REQUIRED_BINARIES,
  RETRIED_STATUSES,
} from "./join-script.js";
export {
  NODE_VERBS,
  PROVISIONER_SERVICE_ACCOUNT,
  provisionerRbac,
  provisionerRbacName,
  RBAC_PATH,
  renderRbac,
} from "./rbac.js";
export { summarizeCloudInit } from "./summary.js";
export {
  BURST_CGROUP_DRIVER,
  BURST_KUBELET_PATCH_FILE,
  BURST_PATCHES_DIRECTORY,
  burstKubeletSettings,
  CRIO_SOCKET,
  fedoraPackages,
  joinConfiguration,
  joinEnvFor,
  renderJoinEnv,
  renderUserData,
  userDataObject,
} from "./user-data.js";
