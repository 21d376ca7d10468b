export {
  type Artifact,
  type BurstGeneratorModule,
  type Generator,
  type GeneratorModule,
  generatedMarker,
  isBurstModule,
} from "./artifact.js";
export { shellDoubleQuoted, shellQuote, withoutControlCharacters } from "./escape.js";
export { ASG_TAG_LIMITS, type AsgTag } from "./facts/cloud.js";
export type {
  KubeadmApiVersion,
  StorageIsolationOff,
} from "./facts/kubernetes.js";
export { shellVar } from "./facts/spec.js";
export type { VipId, VipKey } from "./facts/vrrp.js";
export { WIREGUARD_OVERHEAD } from "./facts/wireguard.js";
export { type Cidr, type IpFamily, ipFamily } from "./ip.js";
export {
  type FormatOptions,
  formatIssues,
  InternalError,
  type IssuePath,
  OutputLimitError,
  type SpecIssue,
  toDotPath,
  type Validated,
} from "./issues.js";
export { specJsonSchema } from "./json-schema.js";
export { type Escape, lineTemplate } from "./line-template.js";
export {
  burstPackages,
  PEER_SECRET_DATA_KEY,
  PEER_SECRET_TYPE,
  PROVISIONER_SNS_PATH,
} from "./plan/burst.js";
export { type ExtraArgs, formatExtraArgs } from "./plan/kubeadm-api.js";
export { TERRAFORM_DIR, userDataPaths } from "./plan/paths.js";
export { type ResolveOptions, resolvePlan } from "./plan/resolve.js";
export { mdTable, summarizeCloudBurstCore, summarizeCore } from "./plan/summary.js";
export type {
  AnyPlan,
  BurstKubernetes,
  BurstPlan,
  CiliumPlan,
  CloudBurstPlan,
  CloudPlan,
  ClusterPlan,
  HostPlan,
  NodeHealthPlan,
  PeerSecretLayout,
  PlannedHub,
  PlannedInterface,
  PlannedNode,
  PlannedPackage,
  PlannedPool,
  PlannedSlot,
  PolicyRoute,
  VrrpPlan,
} from "./plan/types.js";
export { isCloudBurstPlan } from "./plan/types.js";
export { mastersWith, type PlannedVip, type VipKind } from "./plan/vrrp.js";
export {
  checkSecretValues,
  peerKeyLines,
  type ResolvedSecret,
  SECRET_KINDS,
  type SecretId,
  type SecretReference,
  type SecretValues,
  secretReferences,
} from "./secrets.js";
export { stableJson } from "./serialize/json.js";
export { toYaml, toYamlDocuments } from "./serialize/yaml.js";
export { didYouMean, editDistance } from "./spec/messages.js";
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
  type NodeSpec,
  ON_PREM_SECTIONS,
  type PoolSpec,
  type SecretRef,
  type SegmentSpec,
  WIREGUARD_KEY,
} from "./spec/schema.js";
export { loadSpec, locateIssues, validateSpec } from "./spec/validate.js";
export type { Semver } from "./spec/version.js";
