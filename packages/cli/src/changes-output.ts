// The change plan as text (a terminal), markdown (a pull request's review summary) and the JSON document of
// docs/changes.schema.json. Only a mapping of @clusterspec/rollout's ChangePlan: every decision is made there.

import type { SpecIssue } from "@clusterspec/core/types";
import type { ChangePlan, RolloutStep, SpecChange } from "@clusterspec/rollout";
import type { Paint } from "./color.js";
import { mdCell, mdCode, mdLinkTarget, mdLinkText } from "./markdown.js";
import { jsonIssue } from "./output.js";

/** Bumped on any incompatible change to the document (docs/changes.schema.json). */
export const CHANGES_SCHEMA_VERSION = 1;

/** Files listed per spec change before the rest are counted. */
const FILES_PER_CHANGE = 12;

/** 1-3, 7, 9-10 */
export function lineRanges(lines: readonly number[]): string {
  const out: string[] = [];
  let start = lines[0];
  let prev = start;
  for (const l of [...lines.slice(1), undefined]) {
    if (l !== undefined && prev !== undefined && l === prev + 1) {
      prev = l;
      continue;
    }
    if (start !== undefined) out.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = l;
    prev = l;
  }
  return out.join(", ");
}

/** A value in one line: JSON, cut at `max` characters. */
export function shortValue(value: unknown, max = 80): string {
  if (value === undefined) return "(none)";
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

const fileLines = (f: SpecChange["files"][number]): string => {
  const what = f.status === "added" ? "new file" : f.status === "removed" ? "removed" : undefined;
  const lines = f.lines.length > 0 ? `line${f.lines.length > 1 ? "s" : ""} ${lineRanges(f.lines)}` : "";
  const old =
    f.oldLines && f.oldLines.length > 0 ? `old line${f.oldLines.length > 1 ? "s" : ""} ${lineRanges(f.oldLines)}` : "";
  return [what, lines, old].filter(Boolean).join("; ");
};

const moveText = (m: RolloutStep["vipMoves"][number]) =>
  `${m.vip}: ${m.from ?? "nobody"} → ${m.to ?? "nobody"} (unavailable up to ${m.unavailableSeconds.toFixed(2)}s)`;

export interface ChangesNames {
  /** The old and new spec as given on the command line. */
  readonly oldSpec: string;
  readonly newSpec: string;
  /** The generated folder of the new spec, relative, for links. */
  readonly outDir: string;
}

const summaryLine = (plan: ChangePlan): string =>
  [
    `${plan.specChanges.length} spec change(s)`,
    `${plan.steps.length} step(s)`,
    ...(plan.notInPlace.length > 0 ? [`${plan.notInPlace.length} not in place`] : []),
    ...(plan.refused.length > 0 ? [`${plan.refused.length} refused`] : []),
  ].join(", ");

export function renderChangesText(plan: ChangePlan, names: ChangesNames, paint: Paint): string {
  const out: string[] = [`${paint.cyan(`${names.oldSpec} → ${names.newSpec}`)}: ${summaryLine(plan)}`, ""];
  if (plan.specChanges.length === 0) out.push("The specs are the same: nothing to do.", "");
  else out.push(paint.cyan("Spec changes"));
  for (const c of plan.specChanges) {
    const at = c.newLine ?? c.oldLine;
    out.push(
      `  ${c.path}${at === undefined ? "" : ` (${c.newLine === undefined ? names.oldSpec : names.newSpec}:${at})`}: ${shortValue(c.old)} → ${shortValue(c.new)}`,
    );
    for (const f of c.files.slice(0, FILES_PER_CHANGE)) out.push(`      ${f.path}: ${fileLines(f)}`);
    if (c.files.length > FILES_PER_CHANGE) out.push(`      … and ${c.files.length - FILES_PER_CHANGE} more file(s)`);
    if (c.attribution === "shared") out.push("      (lines shared with the other changes: not measured apart)");
  }
  if (plan.steps.length > 0) out.push("", paint.cyan("Steps"));
  for (const s of plan.steps) {
    out.push(`  ${s.index}. ${s.title} [${s.kind}${s.node === null ? ", admin host" : `, on ${s.node}`}]`);
    for (const f of s.files) out.push(`       install ${f}`);
    for (const c of s.commands) out.push(`       $ ${c}`);
    if (s.patch)
      out.push(
        "       patch:",
        ...s.patch
          .trimEnd()
          .split("\n")
          .map((l) => `         ${l}`),
      );
    if (s.waitFor) out.push(`       wait for: ${s.waitFor}`);
    for (const m of s.vipMoves) out.push(`       VIP ${moveText(m)}`);
    for (const w of s.warnings) out.push(`       ${paint.yellow("⚠")} ${w}`);
  }
  if (plan.notInPlace.length > 0)
    out.push("", paint.cyan("Not in place (the plan does not make these; their procedure)"));
  for (const n of plan.notInPlace) {
    out.push(
      `  ${paint.yellow("⚠")} ${n.path}${n.line === undefined ? "" : ` (${names.newSpec}:${n.line})`}: ${n.reason}`,
    );
    for (const [i, p] of n.procedure.entries()) out.push(`      ${i + 1}. ${p}`);
  }
  if (plan.refused.length > 0) out.push("", paint.cyan("Refused (no safe procedure: no steps are given)"));
  for (const r of plan.refused)
    out.push(
      `  ${paint.red("✖")} ${r.path}${r.line === undefined ? "" : ` (${names.newSpec}:${r.line})`}: ${r.reason}`,
    );
  if (plan.unplanned && plan.unplanned.length > 0) {
    out.push("", paint.cyan("Changed files no step installs (their planner is not part of this build)"));
    for (const u of plan.unplanned) out.push(`  ${u.path}`);
  }
  return `${out.join("\n")}\n`;
}

const code = mdCode;
const cell = mdCell;

export function renderChangesMarkdown(plan: ChangePlan, names: ChangesNames): string {
  const link = (path: string, line: number | undefined) =>
    `[${mdLinkText(path)}](${mdLinkTarget(`${names.outDir}/${path}`)}${line === undefined ? "" : `#L${line}`})`;
  const out: string[] = [
    "### clusterspec: change plan",
    "",
    `${code(names.oldSpec)} → ${code(names.newSpec)}: ${summaryLine(plan)}.`,
    "",
  ];
  if (plan.refused.length > 0) {
    out.push("#### ❌ Refused", "", "No safe procedure exists for these changes, so no steps are given:", "");
    for (const r of plan.refused)
      out.push(
        `- ${code(r.path)}${r.line === undefined ? "" : ` ([${mdLinkText(names.newSpec)}:${r.line}](${mdLinkTarget(names.newSpec)}#L${r.line}))`}: ${r.reason}`,
      );
    out.push("");
  }
  if (plan.specChanges.length > 0) {
    out.push("#### Spec changes", "", "| path | old | new | files and lines |", "| --- | --- | --- | --- |");
    for (const c of plan.specChanges) {
      const line = c.newLine ?? c.oldLine;
      const spec = c.newLine === undefined ? names.oldSpec : names.newSpec;
      const path = line === undefined ? code(c.path) : `[${code(c.path)}](${mdLinkTarget(spec)}#L${line})`;
      const files = c.files
        .slice(0, FILES_PER_CHANGE)
        .map((f) => `${link(f.path, f.status === "removed" ? undefined : f.lines[0])} ${fileLines(f)}`);
      if (c.files.length > FILES_PER_CHANGE) files.push(`… and ${c.files.length - FILES_PER_CHANGE} more`);
      out.push(
        `| ${path} | ${cell(code(shortValue(c.old, 60)))} | ${cell(code(shortValue(c.new, 60)))} | ${cell(files.join("<br>")) || "-"} |`,
      );
    }
    out.push("");
  }
  if (plan.steps.length > 0) {
    out.push("#### Steps", "", "In order; install each step's files on its node before its commands.", "");
    for (const s of plan.steps) {
      out.push(`${s.index}. **${s.title}** (${s.kind}, ${s.node === null ? "admin host" : `on ${code(s.node)}`})`);
      if (s.files.length > 0) out.push(`   - install: ${s.files.map(code).join(", ")}`);
      if (s.commands.length > 0) out.push("", "   ```sh", ...s.commands.map((c) => `   ${c}`), "   ```", "");
      if (s.patch)
        out.push(
          "   - the edit:",
          "",
          "   ```yaml",
          ...s.patch
            .trimEnd()
            .split("\n")
            .map((l) => `   ${l}`),
          "   ```",
          "",
        );
      if (s.waitFor) out.push(`   - wait for: ${code(s.waitFor)}`);
      for (const m of s.vipMoves) out.push(`   - VIP ${moveText(m)}`);
      for (const w of s.warnings) out.push(`   - ⚠️ ${w}`);
    }
    out.push("");
  }
  const moves = plan.steps.flatMap((s) => s.vipMoves.map((m) => ({ s, m })));
  if (moves.length > 0) {
    out.push("#### VIP moves", "", "| step | VIP | from | to | unavailable up to |", "| --- | --- | --- | --- | --- |");
    for (const { s, m } of moves)
      out.push(`| ${s.index} | ${m.vip} | ${m.from ?? "-"} | ${m.to ?? "-"} | ${m.unavailableSeconds.toFixed(2)}s |`);
    out.push("");
  }
  if (plan.notInPlace.length > 0) {
    out.push("#### ⚠️ Not in place", "", "The steps above do not make these changes; each needs its own procedure:", "");
    for (const n of plan.notInPlace) {
      out.push(
        `- ${code(n.path)}${n.line === undefined ? "" : ` ([${mdLinkText(names.newSpec)}:${n.line}](${mdLinkTarget(names.newSpec)}#L${n.line}))`}: ${n.reason}`,
      );
      for (const [i, p] of n.procedure.entries()) out.push(`  ${i + 1}. ${p}`);
    }
    out.push("");
  }
  if (plan.unplanned && plan.unplanned.length > 0) {
    out.push(
      "#### ⚠️ Changed files no step installs",
      "",
      "Their planner (keepalived, netifrc) is not part of this build: install them by hand, as PLAN.md says.",
      "",
      ...plan.unplanned.map((u) => `- ${code(u.path)}`),
      "",
    );
  }
  return `${out.join("\n").trimEnd()}\n`;
}

/** An issue of the `changes --json` document: the spec path as text, with its line where the spec was text. */
interface ChangesIssue {
  readonly severity: "error" | "warning";
  readonly code: string;
  readonly message: string;
  readonly path: string;
  readonly line?: number;
  /** Which spec an issue of the input is about. */
  readonly spec?: "old" | "new";
}

const fromSpecIssue = (i: SpecIssue, spec: "old" | "new"): ChangesIssue => {
  const j = jsonIssue(i);
  return {
    severity: j.severity,
    code: j.code,
    message: j.message,
    path: j.pathText,
    ...(j.line === undefined ? {} : { line: j.line }),
    spec,
  };
};

/** The `changes --json` document (docs/changes.schema.json). */
export function changesJson(
  names: Pick<ChangesNames, "oldSpec" | "newSpec">,
  outcome:
    | { readonly plan: ChangePlan; readonly warnings: readonly SpecIssue[] }
    | { readonly side: "old" | "new"; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] },
): string {
  const head = { schemaVersion: CHANGES_SCHEMA_VERSION, command: "changes", old: names.oldSpec, new: names.newSpec };
  if ("plan" in outcome) {
    const { plan } = outcome;
    const at = (line: number | undefined) => (line === undefined ? {} : { line });
    const errors = plan.refused.map(
      (r): ChangesIssue => ({
        severity: "error",
        code: "change_refused",
        message: r.reason,
        path: r.path,
        ...at(r.line),
      }),
    );
    const warnings = [
      ...plan.notInPlace.map(
        (n): ChangesIssue => ({
          severity: "warning",
          code: "change_not_in_place",
          message: n.reason,
          path: n.path,
          ...at(n.line),
        }),
      ),
      ...outcome.warnings.map((w) => fromSpecIssue(w, "new")),
    ];
    const { schemaVersion: _, ...body } = plan;
    return `${JSON.stringify({ ...head, ok: plan.refused.length === 0, ...body, errors, warnings }, null, 2)}\n`;
  }
  return `${JSON.stringify(
    {
      ...head,
      ok: false,
      errors: outcome.errors.map((e) => fromSpecIssue(e, outcome.side)),
      warnings: outcome.warnings.map((e) => fromSpecIssue(e, outcome.side)),
    },
    null,
    2,
  )}\n`;
}
