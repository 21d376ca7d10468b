// The command's failures. Codes, meanings and exit codes come from core's catalog (error-catalog.ts, a module without
// dependencies: importing it loads nothing else of core).
import {
  EXIT_DRIFT,
  EXIT_INVALID,
  EXIT_OK,
  type ExitCode,
  exitCodeOf,
  type FailureCode,
} from "@clusterspec/core/catalog";

export { EXIT_INTERNAL } from "@clusterspec/core/catalog";
export { EXIT_DRIFT, EXIT_INVALID, EXIT_OK };

/** A user-facing failure: its message is printed without a stack, exit 2 unless said otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code: ExitCode = EXIT_INVALID,
    /** For --json: what kind of failure (`filesystem`, `missing_output`, `refused`, …), a code of the catalog. */
    readonly kind: FailureCode = "cli",
  ) {
    super(message);
  }

  /** A failure of one kind of the catalog, with the catalog's exit code for it. */
  static of(kind: FailureCode, message: string): CliError {
    return new CliError(message, exitCodeOf(kind), kind);
  }
}

/** Bad arguments: the message is followed by the usage text. */
export class UsageError extends Error {}
