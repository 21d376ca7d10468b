export { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK } from "./errors.js";
export { type FileSystem, nodeFileSystem } from "./fs.js";
export {
  type GenerateOptions,
  type GenerateResult,
  generate,
  generateFromPlan,
  renderPlanMarkdown,
} from "./generate.js";
export { generatorModules } from "./generators.js";
export { type CliIO, runCli, USAGE } from "./run.js";
export {
  type Drift,
  diffTree,
  MANIFEST,
  type Manifest,
  recoverInterruptedWrite,
  renderManifest,
  type SecretsMode,
  type WriteOptions,
  type WriteSummary,
  writeTree,
} from "./write.js";
