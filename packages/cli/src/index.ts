// `clusterspec`: the library. Spec in, artifacts out; no file system (that is `clusterspec/cli`).
export type {
  Artifact,
  CiliumPlan,
  CloudPlan,
  ClusterPlan,
  ClusterSpec,
  ClusterSpecInput,
  FormatOptions,
  GeneratorModule,
  HostPlan,
  InterfaceSpec,
  IssuePath,
  NodeSpec,
  PlannedInterface,
  PlannedNode,
  PlannedPool,
  PlannedVip,
  PolicyRoute,
  PoolSpec,
  SecretId,
  SecretRef,
  SecretValues,
  SegmentSpec,
  SpecIssue,
  Validated,
  VrrpPlan,
} from "@clusterspec/core/types";
export {
  type GenerateOptions,
  type GenerateResult,
  generate,
  generateFromPlan,
  renderPlanMarkdown,
  type SecretReference,
  type SecretResolution,
} from "./generate.js";
export { generatorModules } from "./generators.js";
export { formatIssues, loadSpec, validateSpec } from "./spec.js";
