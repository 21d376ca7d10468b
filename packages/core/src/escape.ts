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

/**
 * A literal string as Terraform must see it: Terraform's JSON syntax reads every string as a template, where `${`
 * starts an interpolation and `%{` a directive (`$${` and `%%{` are the escapes: Terraform's "Template Literals"
 * documentation, and hclsyntax's template scanner). The one implementation: terraform-json's `tfLiteral` is this.
 */
export function terraformLiteral(value: string): string {
  return value.replace(/([$%])\{/g, "$1$1{");
}

/**
 * Every string of a JSON value, map keys included, as a Terraform literal (issue 32 item 5: an overlay's
 * `${file("/etc/passwd")}` must reach the `.tf.json` as text, never as an expression Terraform evaluates).
 */
export function terraformLiterals(value: unknown): unknown {
  if (typeof value === "string") return terraformLiteral(value);
  if (Array.isArray(value)) return value.map(terraformLiterals);
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[terraformLiteral(k)] = terraformLiterals(v);
  return out;
}
