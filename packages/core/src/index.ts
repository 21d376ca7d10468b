export { type Artifact, type Generator, type GeneratorModule, generatedMarker } from "./artifact.js";
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
export { ASG_TAG_LIMITS, type AsgTag, autoscalerTags, kubeletMaySetLabel } from "./plan/cloud.js";
export { DIAGRAM_MAX_NODES, DIAGRAM_MAX_SINGLE_VIPS, failoverDiagram } from "./plan/diagram.js";
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
export {
  AT_REST,
  effectivePriority,
  type FailureState,
  holderMap,
  loadSpread,
  masterDownSeconds,
  type NodeLoad,
  type Simulation,
  simulateFailover,
  type TakeoverBound,
  takeoverBounds,
  type VipHolding,
  worstTwoCarrierFailure,
} from "./plan/simulate.js";
export { mdCell, mdTable, summarizeCore } from "./plan/summary.js";
export type {
  ClusterPlan,
  KubeadmApiVersion,
  NodeHealthPlan,
  PlannedInterface,
  PlannedNode,
  PolicyRoute,
} from "./plan/types.js";
export { allocateVrids, mastersWith, type PlannedVip, planVips, priorityOrders, type VipKind } from "./plan/vrrp.js";
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
export { shellVar } from "./spec/derive.js";
export { type Rule, rules } from "./spec/rules.js";
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
