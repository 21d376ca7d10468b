// Quoting for line formats. Each function either returns text that a reader turns back into exactly
// the input, or throws: a value that cannot be represented must not reach a file.
import { InternalError } from "./issues.js";

/** POSIX shell single quotes: `it's` → `'it'\''s'`. Safe for any string without NUL. */
export function shellQuote(value: string): string {
  if (value.includes("\0")) throw new InternalError("NUL byte cannot be passed to a shell");
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** Inside shell double quotes (netifrc's `config_eth0="…"`): escapes `"`, `\`, `$` and backtick. */
export function shellDoubleQuoted(value: string): string {
  if (value.includes("\0")) throw new InternalError("NUL byte cannot be passed to a shell");
  return value.replace(/["\\$`]/g, (c) => `\\${c}`);
}
