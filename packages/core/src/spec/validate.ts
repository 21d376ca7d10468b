import { isMap, isScalar, isSeq, LineCounter, type Node, parseDocument } from "yaml";
import type { z } from "zod";
import { type IssuePath, Reporter, type SpecIssue, type Validated } from "../issues.js";
import { rules } from "./rules/index.js";
import { type ClusterSpec, ClusterSpecSchema } from "./schema.js";

function fromZod(issue: z.core.$ZodIssue): SpecIssue {
  const path = issue.path.map((p) => (typeof p === "symbol" ? String(p) : p));
  let message = issue.message;
  if (issue.code === "unrecognized_keys")
    message = `unknown key${issue.keys.length > 1 ? "s" : ""} ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
  if (issue.code === "invalid_key") message = `invalid key: ${issue.issues.map((i) => i.message).join("; ")}`;
  // Point unknown keys at the key itself so the YAML line is the offending one.
  const at = issue.code === "unrecognized_keys" && issue.keys.length === 1 ? [...path, issue.keys[0] ?? ""] : path;
  return { path: at, message, severity: "error" };
}

/** Validates any JSON-like value. Never throws on user input: every problem comes back with its path. */
export function validateSpec(input: unknown): Validated<ClusterSpec> {
  const parsed = ClusterSpecSchema.safeParse(input);
  if (!parsed.success) return { ok: false, errors: parsed.error.issues.map(fromZod), warnings: [] };
  const report = new Reporter();
  for (const rule of rules) rule(parsed.data, report);
  if (report.errors.length > 0) return { ok: false, errors: report.errors, warnings: report.warnings };
  return { ok: true, value: parsed.data, warnings: report.warnings };
}

/** Parses YAML text and validates it; issues carry `line`/`column` wherever the path exists in the text. */
export function loadSpec(text: string): Validated<ClusterSpec> {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    const errors: SpecIssue[] = doc.errors.map((e) => {
      const pos = lineCounter.linePos(e.pos[0]);
      return {
        path: [],
        message: `could not parse cluster spec - invalid YAML.\n${e.message.split("\n")[0]}`,
        severity: "error",
        line: pos.line,
        column: pos.col,
      };
    });
    return { ok: false, errors, warnings: [] };
  }
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    return {
      ok: false,
      errors: [{ path: [], message: `could not parse cluster spec - ${(e as Error).message}`, severity: "error" }],
      warnings: [],
    };
  }
  const result = validateSpec(value);
  const locate = locator(doc.contents, lineCounter);
  return result.ok
    ? { ok: true, value: result.value, warnings: result.warnings.map(locate) }
    : { ok: false, errors: result.errors.map(locate), warnings: result.warnings.map(locate) };
}

function locator(root: unknown, lineCounter: LineCounter): (issue: SpecIssue) => SpecIssue {
  return (issue) => {
    const offset = offsetOf(root, issue.path);
    if (offset === undefined) return issue;
    const pos = lineCounter.linePos(offset);
    return { ...issue, line: pos.line, column: pos.col };
  };
}

/** Adds `line`/`column` from the spec text to issues found later (e.g. while the CLI resolves secrets). */
export function locateIssues(text: string, issues: readonly SpecIssue[]): SpecIssue[] {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  return issues.map(locator(doc.contents, lineCounter));
}

/** Source offset of the deepest node on `path` (the key for a missing value, the parent for a missing key). */
function offsetOf(root: unknown, path: IssuePath): number | undefined {
  let node = root as Node | null | undefined;
  let best = node?.range?.[0];
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === seg);
      if (!pair) return best;
      const key = pair.key as Node | undefined;
      const value = pair.value as Node | null;
      best = value?.range?.[0] ?? key?.range?.[0] ?? best;
      node = value;
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg] as Node | undefined;
      if (!item) return best;
      best = item.range?.[0] ?? best;
      node = item;
    } else return best;
  }
  return best;
}
