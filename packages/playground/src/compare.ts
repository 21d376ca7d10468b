// The spec against a base (the example it came from, or a snapshot the user pinned): what a pull-request reviewer
// looks at. The change plan is the CLI's own: `clusterspec changes base.yaml cluster.yaml` computes it with
// packages/cli/src/changes.ts (@clusterspec/rollout's planChanges) and prints it with changes-output.ts; both are
// imported here as they are (the `clusterspec` package exports neither), so the page prints the CLI's exact
// words. The page loads this module (and with it the rollout planners and the diff library) only when the
// Changes tab is opened.
import { type Artifact, formatIssues } from "@clusterspec/core";
import { createTwoFilesPatch } from "diff";
import { computeChanges } from "../../cli/src/changes.js";
import { type ChangesNames, renderChangesMarkdown, renderChangesText } from "../../cli/src/changes-output.js";
import { paint } from "../../cli/src/color.js";
import { runSpec, SPEC_NAME } from "./engine.js";

/** The names the change plan prints: those of `clusterspec changes base.yaml cluster.yaml` run in one folder. */
export const CHANGES_NAMES: ChangesNames = { oldSpec: "base.yaml", newSpec: SPEC_NAME, outDir: "generated" };

export interface FileDiff {
  readonly path: string;
  readonly status: "added" | "removed" | "changed";
  /** A unified diff (`--- base/<path>`, `+++ current/<path>`, three lines of context). */
  readonly patch: string;
}

/** Every generated file that differs between the two trees, by path, with its unified diff. */
export function fileDiffs(base: readonly Artifact[], current: readonly Artifact[]): FileDiff[] {
  const before = new Map(base.map((a) => [a.path, a.content]));
  const after = new Map(current.map((a) => [a.path, a.content]));
  const paths = [...new Set([...before.keys(), ...after.keys()])].sort();
  const out: FileDiff[] = [];
  for (const path of paths) {
    const old = before.get(path);
    const now = after.get(path);
    if (old === now) continue;
    const status = old === undefined ? "added" : now === undefined ? "removed" : "changed";
    const patch = createTwoFilesPatch(
      old === undefined ? "/dev/null" : `base/${path}`,
      now === undefined ? "/dev/null" : `current/${path}`,
      old ?? "",
      now ?? "",
      undefined,
      undefined,
      { context: 3 },
    );
    // Drop diff's `Index:`/`===` preamble: the file headers name the path.
    out.push({ path, status, patch: patch.slice(patch.indexOf("--- ")) });
  }
  return out;
}

export type PlanView =
  | { readonly ok: true; readonly text: string; readonly markdown: string; readonly refused: number }
  /** Either spec is invalid, or it has no change plan (a cloud burst): the CLI's message on stderr. */
  | { readonly ok: false; readonly message: string };

export interface Comparison {
  /** Undefined when either spec does not generate (the plan's message says which and why). */
  readonly files: readonly FileDiff[] | undefined;
  readonly plan: PlanView;
}

/** The per-file diff of the two generated trees and the change plan between the two spec texts. */
export async function compare(baseText: string, text: string): Promise<Comparison> {
  const [base, current, outcome] = await Promise.all([
    runSpec(baseText),
    runSpec(text),
    computeChanges(baseText, text, SPEC_NAME),
  ]);
  const files = base.ok && current.ok ? fileDiffs(base.artifacts, current.artifacts) : undefined;
  if (!outcome.ok) {
    // As `clusterspec changes` prints it on stderr: the side's file name, its issues with code frames.
    const name = outcome.side === "old" ? CHANGES_NAMES.oldSpec : CHANGES_NAMES.newSpec;
    const source = outcome.side === "old" ? baseText : text;
    return {
      files,
      plan: { ok: false, message: formatIssues([...outcome.errors, ...outcome.warnings], name, { source }) },
    };
  }
  return {
    files,
    plan: {
      ok: true,
      text: renderChangesText(outcome.plan, CHANGES_NAMES, paint(false)),
      markdown: renderChangesMarkdown(outcome.plan, CHANGES_NAMES),
      refused: outcome.plan.refused.length,
    },
  };
}
