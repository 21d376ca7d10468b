export { planNetifrcSteps } from "./netifrc.js";
export type { NodeStepPlanner, TreeSide } from "./node-steps.js";
export { type ChangeContext, planChanges } from "./plan.js";
export type { ChangePlan, RolloutStep, SpecChange, StepKind, VipMove } from "./types.js";
export { type KeepalivedRollout, type KeepalivedStep, planKeepalivedRollout, planKeepalivedSteps } from "./vrrp.js";
