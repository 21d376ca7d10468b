// `@clusterspec/core/types`: the public types alone, as plain interfaces. Nothing here reaches into zod,
// so a consumer's type check loads a few hundred types instead of zod's tens of thousands.
export type {
  Artifact,
  ArtifactBlock,
  ArtifactChecker,
  ArtifactSchemaId,
  EqualParts,
  Generator,
  LinePart,
  SchemaProblem,
} from "./artifact.js";
export type { ExitCode, FailureCode, IssueCode, SpecIssueCode } from "./error-catalog.js";
export type { AsgTag } from "./facts/cloud.js";
export type { Identities, IdentitiesIssue, ParsedIdentities } from "./facts/identities.js";
export type { StorageIsolationOff } from "./facts/kubernetes.js";
export type { VipId, VipKey } from "./facts/vrrp.js";
export type {
  AnySpec,
  CloudBurstSpec,
  CloudBurstSpecInput,
  CloudSpec,
  ClusterSpec,
  ClusterSpecInput,
  InterfaceSpec,
  NodeSpec,
  PoolSpec,
  SecretRef,
  SegmentSpec,
} from "./generated/spec-types.js";
export type { FormatOptions, IssuePath, SpecIssue, Validated } from "./issues.js";
export type {
  ArtifactScope,
  BurstGeneratorModule,
  FreeFormPart,
  GenerationMemo,
  GeneratorModule,
  ModuleOutputs,
  SchemaParameters,
  SchemaParametersOf,
  Shipped,
} from "./module.js";
export type { AppliedPatch } from "./overlay/apply.js";
export type { FailureState, NodeLoad, Simulation, TakeoverBound, VipHolding } from "./plan/simulate.js";
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
  KubeadmApiVersion,
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
export type { PlannedVip, VipKind } from "./plan/vrrp.js";
export type { ResolvedSecret, SecretId, SecretReference, SecretValues } from "./secrets.js";
export type { ExtraVolume, NodeTaint, Overlay } from "./spec/knob-types.js";
export type { Semver } from "./spec/version.js";
