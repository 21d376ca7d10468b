export { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK } from "./errors.js";
export { type FileSystem, nodeFileSystem } from "./fs.js";
export {
  ArtifactIssuesError,
  checkRendered,
  type GenerateOptions,
  type GenerateResult,
  generate,
  generateChecked,
  generateFromPlan,
  loadCheckerFor,
  type Rendered,
  renderArtifacts,
  renderPlanMarkdown,
  schemasToLoad,
} from "./generate.js";
export { generatorModules } from "./generators.js";
export { type CliIO, runCli, USAGE } from "./run.js";
export {
  type Drift,
  diffTree,
  MANIFEST,
  type Manifest,
  renderManifest,
  type SecretsMode,
  type WriteOptions,
  type WriteSummary,
  writeTree,
} from "./write.js";
