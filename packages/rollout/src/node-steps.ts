// packages/rollout/src/node-steps.ts
import type { Artifact, ClusterPlan, ClusterSpec } from "@clusterspec/core/types";
import type { ChangePlan, RolloutStep } from "./types.js";
export interface TreeSide {
  spec: ClusterSpec;
  plan: ClusterPlan;
  artifacts: readonly Artifact[];
}
export type NodeStepPlanner = (
  old: TreeSide,
  next: TreeSide,
) => { steps: Omit<RolloutStep, "index">[]; notInPlace: ChangePlan["notInPlace"]; refused: ChangePlan["refused"] };
