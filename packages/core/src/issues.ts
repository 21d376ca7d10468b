import type { SpecIssueCode } from "./error-catalog.js";

export type IssuePath = readonly (string | number)[];

/** One problem found in a spec; `path` stays an array so callers can map it back to YAML positions. */
export interface SpecIssue {
  readonly path: IssuePath;
  readonly message: string;
  readonly severity: "error" | "warning";
  /** What kind of problem, for tooling: a code of the catalog (error-catalog.ts) with what it means. */
  readonly code: SpecIssueCode;
  /** The value at `path` is a secret written out: a code frame masks it, so it never reaches a log. */
  readonly secretValue?: true;
  /** 1-based position in the YAML source, when the spec was loaded from text. */
  readonly line?: number;
  readonly column?: number;
}

export type Validated<T> =
  | { readonly ok: true; readonly value: T; readonly warnings: readonly SpecIssue[] }
  | { readonly ok: false; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] };

/** Collects issues for the rules; the path is absolute from the spec root. */
export class Reporter {
  readonly errors: SpecIssue[] = [];
  readonly warnings: SpecIssue[] = [];
  error(path: IssuePath, message: string, options: { readonly secretValue?: true } = {}): void {
    this.errors.push({ path, message, severity: "error", code: "rule", ...options });
  }
  warning(path: IssuePath, message: string): void {
    this.warnings.push({ path, message, severity: "warning", code: "rule" });
  }
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/;

/** `["nodes", 2, "interfaces", "wan1"]` → `nodes[2].interfaces.wan1`; odd keys as `["a b"]` (zod toDotPath). */
export function toDotPath(path: IssuePath): string {
  let out = "";
  for (const seg of path) {
    if (typeof seg === "number") out += `[${seg}]`;
    else if (PLAIN_KEY.test(seg)) out += out === "" ? seg : `.${seg}`;
    else out += `[${JSON.stringify(seg)}]`;
  }
  return out === "" ? "(root)" : out;
}

export interface FormatOptions {
  /** The spec text: each located issue is followed by a code frame of its line. */
  readonly source?: string;
  /** ANSI colours (the CLI decides: a terminal, NO_COLOR, FORCE_COLOR). */
  readonly color?: boolean;
}

const ansi = (code: string, on: boolean) => (text: string) => (on ? `\x1b[${code}m${text}\x1b[0m` : text);

/**
 * zod prettifyError style: `✖ message` then `  → at path (file:line:col)`, shortest paths first; with the
 * source, the offending line follows with a caret under the key or value.
 */
export function formatIssues(issues: readonly SpecIssue[], fileName?: string, options: FormatOptions = {}): string {
  const color = options.color === true;
  const red = ansi("31", color);
  const yellow = ansi("33", color);
  const dim = ansi("2", color);
  const cyan = ansi("36", color);
  const sourceLines = options.source?.split(/\r?\n/);
  const sorted = [...issues].sort((a, b) => a.path.length - b.path.length);
  const lines: string[] = [];
  for (const issue of sorted) {
    const mark = issue.severity === "warning" ? yellow("⚠") : red("✖");
    lines.push(`${mark} ${issue.message}`);
    const where =
      issue.line === undefined ? "" : ` (${cyan(`${fileName ?? "<input>"}:${issue.line}:${issue.column ?? 1}`)})`;
    lines.push(`  ${dim("→ at")} ${toDotPath(issue.path)}${where}`);
    const line = issue.line === undefined ? undefined : sourceLines?.[issue.line - 1];
    const col = Math.max(1, issue.column ?? 1);
    const text = line !== undefined && issue.secretValue ? maskValue(line, col) : line;
    if (text !== undefined && text.trim() !== "" && issue.line !== undefined) {
      const gutter = String(issue.line);
      const token = /^("[^"]*"|'[^']*'|[^\s:,{}[\]#]+)/.exec(text.slice(col - 1))?.[0] ?? "";
      const caret = "^".repeat(Math.max(1, Math.min(token.length, 60)));
      lines.push(`  ${dim(`${gutter} |`)} ${text.replace(/\t/g, " ")}`);
      lines.push(
        `  ${dim(`${" ".repeat(gutter.length)} |`)} ${" ".repeat(col - 1)}${(issue.severity === "warning" ? yellow : red)(caret)}`,
      );
    }
  }
  return lines.join("\n");
}

/** The line with the value of the entry at `col` (its key, or the value itself) replaced by `****`. */
function maskValue(line: string, col: number): string {
  const key = /^("[^"]*"|'[^']*'|[^\s:,{}[\]#]+)[ \t]*:(?:[ \t]+|$)/.exec(line.slice(col - 1));
  const start = col - 1 + (key?.[0].length ?? 0);
  const value = /^(?:"(?:[^"\\]|\\.)*"?|'(?:[^']|'')*'?|[^,}\]#]*[^\s,}\]#])/.exec(line.slice(start))?.[0] ?? "";
  return value === "" ? line : `${line.slice(0, start)}****${line.slice(start + value.length)}`;
}

/**
 * A limit of a target that only shows once the output exists (e.g. EC2's 16 KiB of user data):
 * the user's to fix, reported like a spec error at `path`, not as a bug.
 */
export class OutputLimitError extends Error {
  override readonly name = "OutputLimitError";
  readonly code = "output_limit" satisfies SpecIssueCode;
  constructor(
    readonly path: IssuePath,
    message: string,
  ) {
    super(message);
  }
}

/** A broken invariant inside clusterspec (a bug), as opposed to bad user input. */
export class InternalError extends Error {
  override readonly name = "InternalError";
}
