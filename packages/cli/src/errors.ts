export const EXIT_OK = 0;
export const EXIT_DRIFT = 1;
export const EXIT_INVALID = 2;

/** A user-facing failure: its message is printed without a stack, exit 2 unless said otherwise. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly code = EXIT_INVALID,
    /** For --json: what kind of failure (`filesystem`, `missing_output`, `refused`, …). */
    readonly kind = "cli",
  ) {
    super(message);
  }
}

/** Bad arguments: the message is followed by the usage text. */
export class UsageError extends Error {}
