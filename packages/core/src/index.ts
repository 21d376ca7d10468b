export {
  type Artifact,
  type ArtifactBlock,
  type ArtifactChecker,
  type ArtifactSchemaId,
  blockArtifact,
  contentLength,
  type EqualParts,
  type Generator,
  generatedMarker,
  type LinePart,
  linePart,
  type SchemaProblem,
  sameContent,
  samePart,
  sameParts,
} from "./artifact.js";
export {
  type CatalogEntry,
  ERROR_CATALOG,
  EXIT_DRIFT,
  EXIT_INTERNAL,
  EXIT_INVALID,
  EXIT_OK,
  type ExitCode,
  exitCodeOf,
  type FailureCode,
  ISSUE_CODES,
  type IssueCode,
  isIssueCode,
  type SpecIssueCode,
} from "./error-catalog.js";
export {
  shellDoubleQuoted,
  shellQuote,
  terraformLiteral,
  terraformLiterals,
  withoutControlCharacters,
} from "./escape.js";
export {
  ASG_TAG_LIMITS,
  type AsgTag,
  AUTOSCALER_TAG_PREFIX,
  AUTOSCALER_TIMINGS,
  BURST_NODES_REPORT_EPHEMERAL_STORAGE,
  BURST_ROOT_FILESYSTEM,
  DATA_VOLUME_LAYOUT,
} from "./facts/cloud.js";
export {
  AUTOSCALER_SCALE_FROM_ZERO_MINOR,
  CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR,
  fedoraPastEol,
  type KubeadmUpgradePath,
  type KubernetesContract,
  kubeadmUpgradePath,
  kubernetesContract,
} from "./facts/contract.js";
export {
  FEDORA_EOL_AS_OF,
  FEDORA_EOL_SOURCE,
  FEDORA_VERSIONED_KUBERNETES_SINCE,
  type FedoraEol,
  fedoraNameSpansReleases,
  fedoraReleaseOf,
} from "./facts/fedora.js";
export { GENTOO_ATOMS, KEEPALIVED_MIN_VERSION } from "./facts/gentoo.js";
export {
  IDENTITIES_FILE,
  type Identities,
  type IdentitiesIssue,
  identitiesPath,
  type ParsedIdentities,
  parseIdentities,
} from "./facts/identities.js";
export { type KubeadmApiVersion, type StorageIsolationOff, storageIsolationOff } from "./facts/kubernetes.js";
export { shellVar } from "./facts/spec.js";
export type { VipId, VipKey } from "./facts/vrrp.js";
export { tunnelOverheadOf, WIREGUARD_OVERHEAD, WIREGUARD_OVERHEAD_IPV6 } from "./facts/wireguard.js";
export { type Cidr, canonicalIp, cidrContains, type IpFamily, ipFamily } from "./ip.js";
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
export { type Escape, flatten, lineTemplate } from "./line-template.js";
export {
  type ArtifactScope,
  type BurstGeneratorModule,
  burstInputs,
  type FreeFormPart,
  type GenerationMemo,
  type GeneratorModule,
  isBurstModule,
  ModuleOutputs,
  narrowedModule,
  nodesInScope,
  type SchemaParameters,
  type SchemaParametersOf,
  type Shipped,
  sameInputs,
  scopeNode,
} from "./module.js";
export { type AppliedPatch, applyOverlays, blameOverlay, type OverlayOutcome } from "./overlay/apply.js";
export { isJsonMap, mergePatch, toPointer } from "./overlay/merge-patch.js";
export {
  CILIUM_PORTS,
  HUB_FIREWALL_FILE,
  HUB_SYSCTL_FILE,
  KUBELET_PORT,
  PROVISIONER_EVENT_STATES,
} from "./plan/burst.js";
export { failoverDiagram } from "./plan/diagram.js";
export { type ExtraArgs, formatExtraArgs } from "./plan/kubeadm-api.js";
export { userDataPaths } from "./plan/paths.js";
export { type ResolveOptions, resolvePlan } from "./plan/resolve.js";
export {
  AT_REST,
  apiserverShutdownDelay,
  effectivePriority,
  externalCheck,
  type FailureState,
  holderMap,
  holdingOf,
  loadSpread,
  type NodeLoad,
  preemptDelayFor,
  type Simulation,
  simulateFailover,
  type TakeoverBound,
  type TakeoverBounds,
  takeoverBounds,
  type VipHolding,
  worstTwoCarrierFailure,
} from "./plan/simulate.js";
export { mdTable, summarizeCloudBurstCore, summarizeCore } from "./plan/summary.js";
export type {
  AnyPlan,
  BootstrapPlan,
  BurstKubernetes,
  BurstPlan,
  CiliumPlan,
  CloudBurstPlan,
  CloudPlan,
  ClusterPlan,
  HostPlan,
  HubFirewallAllow,
  InterfaceSysctl,
  KubeadmKnobs,
  NodeHealthPlan,
  PeerSecretLayout,
  PlannedFirewall,
  PlannedHub,
  PlannedHubHost,
  PlannedInterface,
  PlannedNode,
  PlannedPackage,
  PlannedPool,
  PlannedSlot,
  PolicyRoute,
  VrrpCheckPlan,
  VrrpPlan,
} from "./plan/types.js";
export { isCloudBurstPlan } from "./plan/types.js";
export {
  identitiesOf,
  instanceAddresses,
  instanceFamilies,
  mastersWith,
  type PlannedVip,
  type VipKind,
  vipCarriers,
  vipLabel,
} from "./plan/vrrp.js";
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
export { parseYamlDocuments, toYaml, toYamlDocuments } from "./serialize/yaml.js";
export type { ExtraVolume, NodeTaint, Overlay } from "./spec/knob-types.js";
export { didYouMean } from "./spec/messages.js";
export { type PinnedText, pinnedVrids, pinVridsInText, type VridPins } from "./spec/pin-vrids.js";
export {
  type AnySpec,
  type CloudBurstSpec,
  type CloudBurstSpecInput,
  CloudBurstSpecSchema,
  type CloudSpec,
  type ClusterSpec,
  type ClusterSpecInput,
  ClusterSpecSchema,
  type InterfaceSpec,
  type NodeSpec,
  type PoolSpec,
  type SecretRef,
  type SegmentSpec,
  WIREGUARD_KEY,
} from "./spec/schema.js";
export { loadSpec, loadSpecWithLines, locateIssues, specLineLocator, validateSpec } from "./spec/validate.js";
export { parseSemver, type Semver } from "./spec/version.js";
