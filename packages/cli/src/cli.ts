// `clusterspec/cli`: the command line and its file-system side, for tools that embed or test the CLI.

export { type Drift, diffTree, looksSecret } from "./drift.js";
export { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK, UsageError } from "./errors.js";
export {
  describeFsError,
  type EntryKind,
  type FileSystem,
  nodeFileSystem,
  SECRET_FILE_MAX_BYTES,
  SPEC_MAX_BYTES,
  UnreadableFileError,
} from "./fs.js";
export { COMMAND_HELP, COMMANDS, type Command, USAGE } from "./help.js";
export { type Inputs, inputDigest, recordPath } from "./input-digest.js";
export { acquireOutputLock, type LockOwner, type LockProcess, lockPath, nodeLockProcess } from "./lock.js";
export { capIssues, ISSUES_PER_KIND, JSON_OUTPUT_VERSION, type OmittedIssues, renderCheckMarkdown } from "./output.js";
export { REDACTED, Redaction } from "./redact.js";
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
  recoverOutput,
  renderManifest,
  resolveOutputDir,
  type SecretsMode,
  type WriteOptions,
  type WriteSummary,
  writeTree,
} from "./write.js";
