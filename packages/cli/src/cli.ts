// `clusterspec/cli`: the command line and its file-system side, for tools that embed or test the CLI.

export { type Drift, diffTree } from "./drift.js";
export { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK, UsageError } from "./errors.js";
export { type FileSystem, nodeFileSystem } from "./fs.js";
export { COMMAND_HELP, COMMANDS, type Command, USAGE } from "./help.js";
export { type Inputs, inputDigest, recordPath } from "./input-digest.js";
export { JSON_OUTPUT_VERSION, renderCheckMarkdown } from "./output.js";
export { type CliIO, runCli } from "./run.js";
export {
  failureStateOf,
  renderSimulation,
  runSimulate,
  type SimulateOptions,
  simulateFromRest,
  simulationJson,
} from "./simulate.js";
export {
  MANIFEST,
  type Manifest,
  recoverInterruptedWrite,
  renderManifest,
  type SecretsMode,
  type WriteOptions,
  type WriteSummary,
  writeTree,
} from "./write.js";
