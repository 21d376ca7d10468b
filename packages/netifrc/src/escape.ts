// Escapes for /etc/conf.d/net, which netifrc sources with the shell. Values sit inside double quotes.
import { InternalError, shellDoubleQuoted, withoutControlCharacters } from "@clusterspec/core";

/** Text inside `"…"`: `"`, `\`, `$` and backtick escaped; control characters (a newline would add a route line) throw. */
export function netifrcValue(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number")
    throw new InternalError(`conf.d/net value must be a string or number, got ${typeof value}`);
  return shellDoubleQuoted(withoutControlCharacters(String(value), "conf.d/net value"));
}

/** A `#` comment line: anything but a line break is harmless after `#`. */
export const commentText = (value: string): string => withoutControlCharacters(value, "comment");

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A shell variable name (written unquoted before `=`). */
export function variableName(name: string): string {
  if (!VAR_NAME.test(name)) throw new InternalError(`${JSON.stringify(name)} is not a shell variable name`);
  return name;
}

// One word of a route/rule line: netifrc splits lines on whitespace, so a token may not contain any.
const TOKEN = /^[A-Za-z0-9_.:/-]+$/;

export function token(value: unknown): string {
  if (typeof value !== "string" && typeof value !== "number")
    throw new InternalError(`netifrc word must be a string or number, got ${typeof value}`);
  const text = String(value);
  if (!TOKEN.test(text)) throw new InternalError(`${JSON.stringify(text)} cannot be one word of a netifrc line`);
  return text;
}
