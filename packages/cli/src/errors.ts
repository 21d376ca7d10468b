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

/** A user-facing failure: its message is printed without a stack; its exit code is the catalog's for its kind. */
export class CliError extends Error {
  /** The exit code of the run, from the catalog: a kind cannot exit otherwise. */
  readonly code: ExitCode;
  constructor(
    message: string,
    /** For --json: what kind of failure (`filesystem`, `missing_output`, `refused`, …), a code of the catalog. */
    readonly kind: FailureCode = "cli",
  ) {
    super(message);
    this.code = exitCodeOf(kind);
  }

  /** A failure of one kind of the catalog (the kind first, for call sites that read better so). */
  static of(kind: FailureCode, message: string): CliError {
    return new CliError(message, kind);
  }
}

/** Bad arguments: the message is followed by the usage text. */
export class UsageError extends Error {}
