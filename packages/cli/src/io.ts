// What a command sees of the process (main.ts fills it in; tests pass their own): kept apart from run.ts so the
// command modules can name it without importing the dispatcher that imports them.
import type { FileSystem } from "./fs.js";
import type { Redaction } from "./redact.js";

export interface CliIO {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly fs?: FileSystem;
  readonly version: string;
  /** The spec when it is given as `-`. */
  readonly readStdin?: (maxBytes: number) => string;
  /** Whether stdout / stderr are terminals: colour only there (NO_COLOR and FORCE_COLOR win). */
  readonly isTTY?: { readonly stdout: boolean; readonly stderr: boolean };
  /**
   * The identity of the running code (a content hash of the bundle), or undefined when unknown. With it, and a
   * cache folder (input-digest.ts), `generate` skips an unchanged tree; without it every run generates.
   */
  readonly codeId?: () => string | undefined;
  /**
   * The redaction stdout and stderr go through (redact.ts): the secret resolver adds every value it reads. run.ts
   * makes one when none is given; main.ts gives its own, so that its last-resort handler redacts with it too.
   */
  readonly redaction?: Redaction;
  /** The stack of an internal error as printed (main.ts maps the bundle's frames to the sources); default e.stack. */
  readonly stackOf?: (e: unknown) => Promise<string>;
}
