export type IssuePath = readonly (string | number)[];

/** One problem found in a spec; `path` stays an array so callers can map it back to YAML positions. */
export interface SpecIssue {
  readonly path: IssuePath;
  readonly message: string;
  readonly severity: "error" | "warning";
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
  error(path: IssuePath, message: string): void {
    this.errors.push({ path, message, severity: "error" });
  }
  warning(path: IssuePath, message: string): void {
    this.warnings.push({ path, message, severity: "warning" });
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

/** zod prettifyError style: `✖ message` then `  → at path (file:line:col)`, shortest paths first. */
export function formatIssues(issues: readonly SpecIssue[], fileName?: string): string {
  const sorted = [...issues].sort((a, b) => a.path.length - b.path.length);
  const lines: string[] = [];
  for (const issue of sorted) {
    const mark = issue.severity === "warning" ? "⚠" : "✖";
    lines.push(`${mark} ${issue.message}`);
    const where = issue.line === undefined ? "" : ` (${fileName ?? "<input>"}:${issue.line}:${issue.column ?? 1})`;
    lines.push(`  → at ${toDotPath(issue.path)}${where}`);
  }
  return lines.join("\n");
}

/**
 * A limit of a target that only shows once the output exists (e.g. EC2's 16 KiB of user data):
 * the user's to fix, reported like a spec error at `path`, not as a bug.
 */
export class OutputLimitError extends Error {
  override readonly name = "OutputLimitError";
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
