export {
  type Artifact,
  type BurstGeneratorModule,
  type Generator,
  type GeneratorModule,
  generatedMarker,
  isBurstModule,
} from "./artifact.js";
export { shellDoubleQuoted, shellQuote } from "./escape.js";
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
export {
  type BurstKubernetes,
  type BurstPlan,
  burstPackages,
  PEER_SECRET_DATA_KEY,
  PEER_SECRET_TYPE,
  type PeerSecretLayout,
  type PlannedCloud,
  type PlannedHub,
  type PlannedPackage,
  type PlannedPool,
  type PlannedSlot,
  PROVISIONER_SNS_PATH,
} from "./plan/burst.js";
export { ASG_TAG_LIMITS, type AsgTag, autoscalerTags, kubeletMaySetLabel } from "./plan/cloud.js";
export { type ExtraArgs, formatExtraArgs } from "./plan/kubeadm-api.js";
export { TERRAFORM_DIR, userDataPaths } from "./plan/paths.js";
export {
  CLOUD_NODE_DEVICES,
  defaultMonitorGracePeriod,
  kubeadmApiVersionFor,
  type ResolveOptions,
  resolvePlan,
  tunnelMtuOf,
  WIREGUARD_OVERHEAD,
} from "./plan/resolve.js";
export { mdCell, mdTable, summarizeCloudBurstCore, summarizeCore } from "./plan/summary.js";
export type {
  AnyPlan,
  CloudBurstPlan,
  ClusterPlan,
  KubeadmApiVersion,
  NodeHealthPlan,
  PlannedInterface,
  PlannedNode,
  PolicyRoute,
} from "./plan/types.js";
export { isCloudBurstPlan } from "./plan/types.js";
export { allocateVrids, mastersWith, type PlannedVip, planVips, priorityOrders, type VipKind } from "./plan/vrrp.js";
export {
  checkSecretValues,
  peerKeyLines,
  type ResolvedSecret,
  resolveSecrets,
  SECRET_KINDS,
  type SecretId,
  type SecretReference,
  type SecretValues,
  secretReferences,
} from "./secrets.js";
export { stableJson } from "./serialize/json.js";
export { parseYamlDocuments, toYaml, toYamlDocuments } from "./serialize/yaml.js";
export { cloudBurstRules, sharedCloudRules, slotCount } from "./spec/cloud-burst.js";
export { shellVar } from "./spec/derive.js";
export { type CloudRule, type Rule, rules } from "./spec/rules.js";
export {
  type AnySpec,
  AnySpecSchema,
  type CloudBurstSpec,
  type CloudBurstSpecInput,
  CloudBurstSpecSchema,
  type CloudSpec,
  type ClusterSpec,
  type ClusterSpecInput,
  ClusterSpecSchema,
  type InterfaceSpec,
  isCloudBurstSpec,
  MIN_KUBERNETES_MINOR,
  type NodeSpec,
  ON_PREM_SECTIONS,
  type PoolSpec,
  type SecretRef,
  type SegmentSpec,
  WIREGUARD_KEY,
} from "./spec/schema.js";
export { loadSpec, locateIssues, validateSpec } from "./spec/validate.js";
export { durationSeconds, parseKubernetesVersion, parseSemver, type Semver } from "./spec/version.js";
