export {
  bridge,
  caCertHash,
  certificate,
  type Exec,
  Ipc,
  LAB_DIR,
  LabNamespace,
  labPrefix,
  RECORDED_COMMANDS,
  recorded,
  until,
  writeStandIns,
} from "./burst-lab.js";
export {
  cloudSpecTexts,
  clusterExampleNames,
  clusterSpecNames,
  exampleInput,
  exampleNames,
  examplesDir,
  exampleText,
  fixtureGeneratedDir,
  fixtureNames,
  fixturesDir,
  fixtureText,
  specInput,
  specText,
} from "./examples.js";
export {
  failoverSteps,
  formatLabReport,
  formatRolloutReport,
  type LabAction,
  type LabReport,
  type LabRolloutStep,
  type LabStep,
  type RolloutMove,
  type RolloutReport,
  type RolloutStepResult,
  type RunOptions,
  runFailoverScenarios,
  runRolloutSteps,
  type StepOptions,
  type StepResult,
  type Takeover,
  type TakeoverEvent,
} from "./failover.js";
export { compileLineTemplate, type LineTemplateRender } from "./line-template-compiler.js";
export {
  type MockNode,
  MockProvisioner,
  type MockProvisionerOptions,
  type ProvisionerScript,
  type SeenRequest,
} from "./mock-provisioner.js";
export { type NetifrcNode, withNetifrcNode } from "./netifrc-lab.js";
export { ipWithTables, type Netns, withNetns } from "./netns.js";
export {
  ajv04,
  ajv07,
  ajv2020,
  formatAjvErrors,
  openApi31Validator,
  readSchema,
  schemaDir,
  type ValidateFunction,
} from "./schemas.js";
export { hasTool, run, sh, type ToolResult, toolAvailable } from "./tools.js";
export { readTree, treeHash } from "./tree.js";
export {
  holderDifferences,
  type Observation,
  reapStaleLabs,
  startVrrpLab,
  type VrrpLab,
  type VrrpLabOptions,
  type WaitOptions,
  type WaitResult,
} from "./vrrp-lab.js";
