// What the commands print besides plain text: the versioned JSON documents (docs/cli-json.md,
// docs/cli-json.schema.json) and the markdown summary of `--check --format markdown`.

import { toDotPath } from "@clusterspec/core";
import type { AnyPlan, Artifact, IssueCode, SpecIssue } from "@clusterspec/core/types";
import type { Drift } from "./drift.js";
import { htmlText, mdCell, mdCode } from "./markdown.js";

/** Bumped on any incompatible change to a JSON document the CLI prints. */
export const JSON_OUTPUT_VERSION = 1;

export interface JsonIssue {
  readonly severity: "error" | "warning";
  readonly code: IssueCode;
  readonly message: string;
  readonly path: readonly (string | number)[];
  /** `nodes[2].interfaces.wan1.address`; empty for the whole spec. */
  readonly pathText: string;
  readonly line?: number;
  readonly column?: number;
}

export function jsonIssue(issue: SpecIssue): JsonIssue {
  return {
    severity: issue.severity,
    code: issue.code,
    message: issue.message,
    path: issue.path,
    pathText: issue.path.length === 0 ? "" : toDotPath(issue.path),
    ...(issue.line === undefined ? {} : { line: issue.line, column: issue.column ?? 1 }),
  };
}

/** A failure that is not about a field of the spec (a file that cannot be read, a folder that is missing). */
export function jsonFailure(code: IssueCode, message: string): JsonIssue {
  return { severity: "error", code, message, path: [], pathText: "" };
}

// ---- repeated issues ----

/** Issues of one kind shown before the rest are counted: 100,000 bad VIPs print 5 lines and a count, not 199,494. */
export const ISSUES_PER_KIND = 5;

/** Issues of one kind that were not shown: `like` is the first one's message, `pathText` the path with [] for indices. */
export interface OmittedIssues {
  readonly severity: "error" | "warning";
  readonly code: IssueCode;
  readonly pathText: string;
  readonly like: string;
  readonly count: number;
}

/** Two issues are alike when code, path (indices aside) and message (numbers, addresses and quoted values aside) agree. */
function kindOf(issue: SpecIssue): { key: string; pathText: string } {
  const pathText = toDotPath(issue.path.map((p) => (typeof p === "number" ? 0 : p))).replace(/\[0\]/g, "[]");
  const message = issue.message.replace(/"(?:[^"\\]|\\.)*"/g, '"…"').replace(/[0-9a-f:./-]*\d[0-9a-f:./-]*/gi, "#");
  return { key: `${issue.severity}|${issue.code}|${pathText}|${message}`, pathText };
}

/** The first ISSUES_PER_KIND issues of each kind, in their order, and a count of the rest by kind. */
export function capIssues(
  issues: readonly SpecIssue[],
  perKind = ISSUES_PER_KIND,
): {
  shown: SpecIssue[];
  omitted: OmittedIssues[];
} {
  const seen = new Map<string, { n: number; omitted?: { -readonly [K in keyof OmittedIssues]: OmittedIssues[K] } }>();
  const shown: SpecIssue[] = [];
  const omitted: { -readonly [K in keyof OmittedIssues]: OmittedIssues[K] }[] = [];
  for (const issue of issues) {
    const { key, pathText } = kindOf(issue);
    const entry = seen.get(key) ?? { n: 0 };
    seen.set(key, entry);
    entry.n++;
    if (entry.n <= perKind) {
      shown.push(issue);
      continue;
    }
    if (!entry.omitted) {
      entry.omitted = { severity: issue.severity, code: issue.code, pathText, like: issue.message, count: 0 };
      omitted.push(entry.omitted);
    }
    entry.omitted.count++;
  }
  return { shown, omitted };
}

/** "… and 199,480 more like this: <message> (at <path>)", one line per kind. */
export function omittedText(omitted: readonly OmittedIssues[]): string {
  return omitted
    .map(
      (o) =>
        `… and ${o.count.toLocaleString("en-US")} more ${o.severity === "error" ? "errors" : "warnings"} like this: ${o.like}${o.pathText ? ` (at ${o.pathText})` : ""}\n`,
    )
    .join("");
}

export type JsonCommand = "validate" | "plan" | "generate" | "check" | "explain";

export function jsonDocument(command: JsonCommand, spec: string, body: Record<string, unknown>): string {
  return `${JSON.stringify({ version: JSON_OUTPUT_VERSION, command, spec, ...body }, null, 2)}\n`;
}

/** The plan as JSON data; a resolved secret's value never leaves (plan has no --with-secrets, but be sure). */
export function planJson(plan: AnyPlan): unknown {
  // a resolved secret, or one key of a list of keys (WireGuard peers), wherever the plan holds it
  const secrets = new Set(
    Object.values(plan.secrets ?? {}).flatMap((s) =>
      s === undefined || s.isPlaceholder ? [] : [s.value, ...s.value.split(/\r?\n/).filter((l) => l.trim() !== "")],
    ),
  );
  return JSON.parse(
    JSON.stringify(plan, (_key, value: unknown) =>
      typeof value === "string" && secrets.has(value) ? "(secret)" : value,
    ),
  );
}

export const modeText = (a: Artifact): string => `0${(a.mode ?? (a.secret ? 0o600 : 0o644)).toString(8)}`;

// ---- markdown summary for pull requests ----

/** GitHub refuses comments over 65536 characters: diffs are cut to fit, the file list never is. */
const MARKDOWN_BUDGET = 60_000;

export interface MarkdownCheck {
  readonly spec: string;
  readonly outDir: string;
  readonly fileCount: number;
  readonly drift: readonly Drift[];
}

/**
 * The `--check --format markdown` summary: which files drifted, the PLAN.md changes first (what a reviewer
 * reads), then each other file's diff folded in <details>.
 */
export function renderCheckMarkdown(check: MarkdownCheck): string {
  const lines: string[] = [];
  if (check.drift.length === 0) {
    lines.push(
      "### ✅ clusterspec: generated files are up to date",
      "",
      `${mdCode(check.outDir)} matches a fresh generation of ${mdCode(check.spec)} (${check.fileCount} files).`,
    );
    return `${lines.join("\n")}\n`;
  }
  const plan = check.drift.find((d) => d.path === "PLAN.md");
  const others = check.drift.filter((d) => d !== plan);
  lines.push(
    "### ❌ clusterspec: generated files are out of date",
    "",
    `${check.drift.length} file(s) in ${mdCode(check.outDir)} differ from a fresh generation of ${mdCode(check.spec)}. ` +
      `Run ${mdCode(`clusterspec generate ${check.spec}`)} and commit the result.`,
    "",
    "| file | change |",
    "| --- | --- |",
    // file names come from the compared folder (a pull request can add any): each stays one name in its cell
    ...check.drift.map(
      (d) => `| ${mdCell(mdCode(d.path))} | ${d.kind}${d.secret ? " (secret, content not shown)" : ""} |`,
    ),
  );
  let budget = MARKDOWN_BUDGET - lines.join("\n").length;
  const fence = (patch: string) => {
    const longest = Math.max(2, ...[...patch.matchAll(/`+/g)].map((m) => m[0].length));
    const ticks = "`".repeat(longest + 1);
    let body = patch.endsWith("\n") ? patch : `${patch}\n`;
    if (body.length > budget) body = `${body.slice(0, Math.max(0, budget))}\n… (diff cut short: see the CI log)\n`;
    budget -= body.length;
    return `${ticks}diff\n${body}${ticks}`;
  };
  if (plan) lines.push("", "#### PLAN.md", "", fence(plan.patch));
  for (const d of others)
    lines.push(
      "",
      `<details><summary><code>${htmlText(d.path)}</code> (${d.kind})</summary>`,
      "",
      fence(d.patch),
      "",
      "</details>",
    );
  return `${lines.join("\n")}\n`;
}
