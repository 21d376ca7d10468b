export {
  CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR,
  carriesSecret,
  clusterConfiguration,
  controlPlaneTaints,
  initConfiguration,
  joinConfiguration,
  KUBELET_API_VERSION,
  KUBELET_PATCH_FILE,
  type KubeadmDocument,
  kubeadmDocuments,
  kubeletConfiguration,
  kubeletPatch,
  kubeletRegistrationArgs,
  type NodeKind,
  nodeKind,
  nodeTaints,
  PATCHES_DIRECTORY,
} from "./documents.js";
export { generateKubeadm, kubeadmModule } from "./generate.js";
export {
  apiServerArgs,
  controllerManagerArgs,
  LEASE_RENEW_SECONDS,
  type NodeHealthTiming,
  nodeHealthTiming,
} from "./node-health.js";
export { summarizeKubeadm } from "./summary.js";
