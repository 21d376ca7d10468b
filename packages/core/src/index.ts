export { type Artifact, type Generator, type GeneratorModule, generatedMarker } from "./artifact.js";
export { shellDoubleQuoted, shellQuote, withoutControlCharacters } from "./escape.js";
export { ASG_TAG_LIMITS, type AsgTag, autoscalerTags, kubeletMaySetLabel } from "./facts/cloud.js";
export {
  defaultMonitorGracePeriod,
  KUBELET_PATCHES_SINCE_MINOR,
  type KubeadmApiVersion,
  kubeadmApiVersionFor,
  type StorageIsolationOff,
} from "./facts/kubernetes.js";
export { shellVar } from "./facts/spec.js";
export { allocateVrids, priorityOrders, type VipId, type VipKey, vipKey } from "./facts/vrrp.js";
export { tunnelMtuOf, WIREGUARD_OVERHEAD } from "./facts/wireguard.js";
export {
  addressAt,
  addressCount,
  type Cidr,
  canonicalIp,
  cidrContains,
  cidrsOverlap,
  compareIps,
  hostPart,
  type IpFamily,
  ipEquals,
  ipFamily,
  isCidr,
  isIp,
  isNetworkCidr,
  lastAddress,
  networkAddress,
  networkOf,
  parseCidr,
} from "./ip.js";
export {
  formatIssues,
  InternalError,
  type IssuePath,
  OutputLimitError,
  Reporter,
  type SpecIssue,
  toDotPath,
  type Validated,
} from "./issues.js";
export { renderSpecReference, specJsonSchema } from "./json-schema.js";
export { type Escape, lineTemplate } from "./line-template.js";
export { type ExtraArgs, formatExtraArgs } from "./plan/kubeadm-api.js";
export { TERRAFORM_DIR, userDataPaths } from "./plan/paths.js";
export { CLOUD_NODE_DEVICES, type ResolveOptions, resolvePlan } from "./plan/resolve.js";
export { mdCell, mdTable, summarizeCore } from "./plan/summary.js";
export type {
  CiliumPlan,
  CloudPlan,
  ClusterPlan,
  HostPlan,
  NodeHealthPlan,
  PlannedInterface,
  PlannedNode,
  PlannedPool,
  PolicyRoute,
  VrrpPlan,
} from "./plan/types.js";
export { mastersWith, type PlannedVip, planVips, type VipKind } from "./plan/vrrp.js";
export {
  checkSecretValues,
  type ResolvedSecret,
  resolveSecrets,
  SECRET_KINDS,
  type SecretId,
  type SecretValues,
  secretReferences,
} from "./secrets.js";
export { stableJson } from "./serialize/json.js";
export { parseYamlDocuments, toYaml, toYamlDocuments } from "./serialize/yaml.js";
export { type Rule, rules } from "./spec/rules/index.js";
export {
  type ClusterSpec,
  type ClusterSpecInput,
  ClusterSpecSchema,
  type InterfaceSpec,
  MIN_KUBERNETES_MINOR,
  type NodeSpec,
  type PoolSpec,
  type SecretRef,
  type SegmentSpec,
} from "./spec/schema.js";
export { loadSpec, locateIssues, validateSpec } from "./spec/validate.js";
export { durationSeconds, parseKubernetesVersion, parseSemver, type Semver } from "./spec/version.js";
