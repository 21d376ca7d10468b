// Escapes for keepalived.conf. keepalived splits a line on whitespace, reads `#` and `!` as comments,
// `"` as quotes, `{`/`}` as blocks, `$NAME` as a variable, `~SEQ` as a sequence and `@id` at a line start
// as a condition; there is no escape character. So a value is written only when it is one plain token.
import { InternalError, shellQuote, withoutControlCharacters } from "@clusterspec/core";

/** Characters that keepalived reads literally inside a bare token. */
export const KEEPALIVED_TOKEN = /^[A-Za-z0-9_.:/+=,%-]+$/;

/** One bare token (names, addresses, paths, numbers); anything else throws. */
export function keepalivedToken(value: unknown): string {
  if (typeof value === "number") {
    if (!Number.isInteger(value)) throw new InternalError(`keepalived value ${value} is not an integer`);
    return String(value);
  }
  if (typeof value !== "string")
    throw new InternalError(`keepalived value must be a string or number, got ${typeof value}`);
  if (!KEEPALIVED_TOKEN.test(value))
    throw new InternalError(`keepalived value ${JSON.stringify(value)} is not a single plain token`);
  return value;
}

/** Like keepalivedToken for auth.conf, whose only value is the password: the error never echoes it. */
export function keepalivedSecretToken(value: unknown): string {
  if (typeof value !== "string" || !KEEPALIVED_TOKEN.test(value))
    throw new InternalError(
      "the VRRP password is not a single plain keepalived token (value withheld); see checkSecretValues",
    );
  return value;
}

/** Text after `#`: anything but a line break (or another control character) stays inside the comment. */
export const keepalivedComment = (value: string): string => withoutControlCharacters(value, "comment");

/** One word of the POSIX sh check script: integers bare, strings single-quoted (shellQuote). */
export function shellWord(value: unknown): string {
  if (typeof value === "number" && Number.isInteger(value)) return String(value);
  if (typeof value !== "string")
    throw new InternalError(`shell value must be a string or integer, got ${typeof value}`);
  return shellQuote(value);
}
