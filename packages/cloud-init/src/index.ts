export {
  bootstrapTokenTtlSeconds,
  SNS_ANSWER_SECONDS,
} from "./contract.js";
export {
  DISCOVERY_KUBECONFIG_PATH,
  IDENTITY_HEADERS,
  PACKAGE_RETRY,
  PROVISIONER_RETRY,
  RETRIED_STATUSES,
} from "./join-script.js";
export { cloudInitModule } from "./module.js";
export {
  BOOTSTRAP_TOKEN_TYPE,
  BURST_PROVIDER_PREFIX,
  NODE_VERBS,
  PROVISIONER_SERVICE_ACCOUNT,
  provisionerRbacName,
} from "./rbac.js";
