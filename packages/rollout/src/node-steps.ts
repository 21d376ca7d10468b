// The seam between the change plan (plan.ts) and the per-node planners another part of this package provides:
// keepalived (vrrp.ts: the safe order of reloads, VIP moves) and netifrc (netifrc.ts: which net.* interface to
// restart). planChanges calls each planner with both trees and merges what it returns into the plan; until a
// planner is passed, the plan simply has no steps of its kind (and says which changed files no step installs).
import type { Artifact, ClusterPlan, ClusterSpec } from "@clusterspec/core/types";
import type { ChangePlan, RolloutStep } from "./types.js";

/** One side of a change: the validated spec, its plan and the artifacts that ship (PLAN.md included). */
export interface TreeSide {
  spec: ClusterSpec;
  plan: ClusterPlan;
  artifacts: readonly Artifact[];
}

/** Steps of one kind for a change from `old` to `next`, in the order they must run; numbered by planChanges. */
export type NodeStepPlanner = (
  old: TreeSide,
  next: TreeSide,
) => { steps: Omit<RolloutStep, "index">[]; notInPlace: ChangePlan["notInPlace"]; refused: ChangePlan["refused"] };
