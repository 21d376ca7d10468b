// `clusterspec explain <spec> <file>[:<line>] [--json]`: the spec fields behind each line of a generated file,
// measured by ../provenance.ts (perturb each field, regenerate, diff). Only this command loads that module.
import { CliError, EXIT_OK, UsageError } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import type { ExplainedLine, ExplainSource } from "../provenance.js";
import { defineCommand, JSON_OPTION } from "./command.js";
import { checkSpec, formatOf, runOnSpec } from "./on-spec.js";

/** `nodes/k8s-1/kubeadm.yaml:12` → the file and the line; a path never ends in `:<digits>`. */
export function parseTarget(target: string): { file: string; line?: number } {
  const m = /^(.*):(\d+)$/.exec(target);
  const file = (m ? (m[1] ?? "") : target).replace(/^\.\//, "");
  if (file === "") throw new UsageError("expected <file>[:<line>], a path in the output folder");
  if (!m) return { file };
  const line = Number(m[2]);
  if (line < 1) throw new UsageError(`line numbers start at 1, not ${m[2]}`);
  return { file, line };
}

/**
 * `vrrp.basePriority (default 100)`, `nodes[1].name (cluster.yaml:49)`, `nodes[2] (presence, cluster.yaml:56)`,
 * `externalVips.replicas (unset)` (the spec could add it).
 */
export function describeSource(source: ExplainSource, specName: string): string {
  const notes = [
    ...(source.change === "presence" ? ["presence"] : []),
    ...(source.unset ? ["unset"] : []),
    ...(source.defaulted
      ? [source.change === "value" ? `default ${JSON.stringify(source.defaultValue)}` : "default"]
      : []),
    ...(source.line === undefined ? [] : [`${specName}:${source.line}`]),
  ];
  return notes.length === 0 ? source.path : `${source.path} (${notes.join(", ")})`;
}

/** Sources every line shares (the file's own name, its presence) once at the top; then each line with the rest. */
export function renderExplanation(
  file: string,
  lines: readonly ExplainedLine[],
  unmeasured: readonly string[],
  specName: string,
): string {
  const key = (s: ExplainSource) => `${s.path}\0${s.change}`;
  const first = lines[0]?.sources ?? [];
  const everywhere =
    lines.length > 1 ? first.filter((s) => lines.every((l) => l.sources.some((t) => key(t) === key(s)))) : [];
  const common = new Set(everywhere.map(key));
  const width = String(lines.at(-1)?.number ?? 1).length;
  const out = [`${file}, from ${specName}`];
  if (everywhere.length > 0)
    out.push(`every line depends on: ${everywhere.map((s) => describeSource(s, specName)).join(", ")}`);
  out.push("");
  for (const l of lines) {
    out.push(`${String(l.number).padStart(width)} | ${l.text}`);
    const own = l.sources.filter((s) => !common.has(key(s)));
    if (own.length === 0 && l.sources.length === 0) out.push(`${" ".repeat(width)}   ← no spec field (fixed text)`);
    for (const s of own) out.push(`${" ".repeat(width)}   ← ${describeSource(s, specName)}`);
  }
  if (unmeasured.length > 0)
    out.push(
      "",
      `not measured (no other valid value found, so a dependency on them would not show): ${unmeasured.join(", ")}`,
    );
  return `${out.join("\n")}\n`;
}

export default defineCommand({
  name: "explain",
  help: COMMAND_HELP.explain,
  options: JSON_OPTION,
  run({ args, values, io, fs }) {
    if (args.length !== 2)
      throw new UsageError("expected a spec file (or - for standard input) and <file>[:<line>] of its output");
    const specArg = args[0] ?? "";
    const target = parseTarget(args[1] ?? "");
    const format = formatOf(values, false);
    return runOnSpec("explain", specArg, format, io, fs, async (spec) => {
      const text = spec.readSpec();
      // The spec through the whole pipeline first: its errors and warnings as every command prints them.
      // The output folder's identities.json: the VIP orders generate would carry forward, so lines match its tree.
      const { readFolderIdentities } = await import("../identities.js");
      const { identities } = await readFolderIdentities(fs, spec.outDir(undefined));
      const carried = identities === undefined ? {} : { identities };
      const checked = await checkSpec(spec, text, carried);
      if (!checked.ok) return checked.code;
      const { explain } = await import("../provenance.js");
      const result = explain(text, { ...target, sourceName: spec.sourceName, ...carried });
      if (!result.ok) {
        if (result.target === undefined) throw new Error("explain failed on a spec that generate accepts");
        const near = result.target.closeMatches;
        throw new CliError(
          near.length > 0
            ? `${result.target.message} (paths are relative to the output folder); close matches: ${near.join(", ")}`
            : result.target.message,
          "cli",
        );
      }
      if (format === "json")
        await spec.json({
          ok: true,
          file: result.file,
          lines: result.lines,
          unmeasured: result.unmeasured,
          warnings: checked.warnings,
          ...checked.omitted,
        });
      else io.stdout(renderExplanation(result.file, result.lines, result.unmeasured, spec.display));
      return EXIT_OK;
    });
  },
});
