export type { ChangePlan, RolloutStep, SpecChange, StepKind, VipMove } from "./types.js";
