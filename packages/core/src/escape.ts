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

// biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to reject them
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * Line formats end a value at a line break and misread other control characters: such a value throws.
 * `what` names the value in the error (`comment`, `conf.d/net value`, …).
 */
export function withoutControlCharacters(value: string, what: string): string {
  if (CONTROL.test(value)) throw new InternalError(`${what} ${JSON.stringify(value)} contains a control character`);
  return value;
}
