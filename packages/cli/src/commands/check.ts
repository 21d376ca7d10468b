// `clusterspec generate <spec> [-o <dir>] --check [--format text|markdown|json]`: writes nothing; exit 1 when <dir>
// is not what generate would write. The only command that loads `diff` (drift.ts).

import { basename, dirname, join, resolve } from "node:path";
import type { Identities } from "@clusterspec/core/types";
import { paintPatch } from "../color.js";
import { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK } from "../errors.js";
import { describeKind, SPEC_MAX_BYTES, UnreadableFileError } from "../fs.js";
import { checkSpec, fileSystem, type SpecRun } from "./on-spec.js";

export async function check(
  spec: SpecRun,
  values: { readonly output?: string | undefined; readonly base?: string | undefined },
): Promise<number> {
  const { io, fs, format, specArg, err, out } = spec;
  const text = spec.readSpec();
  const outDir = spec.outDir(values.output);
  // The folder's identities.json is an input, as for generate (a folder behind a link is refused below).
  const { readFolderIdentities } = await import("../identities.js");
  const previous = await readFolderIdentities(fs, outDir);
  const identities = previous.identities ? { identities: previous.identities } : {};
  const [generated, { diffTree }] = await Promise.all([checkSpec(spec, text, identities), import("../drift.js")]);
  if (!generated.ok) return generated.code;
  const { result, warnings, omitted, output } = generated;
  const { artifacts } = result;
  // A committed generated/ replaced by a link (to .git/, to /) would make every file there a stale file to print.
  if (fs.kind(outDir) === "symlink")
    throw new CliError(
      `${outDir} is a symbolic link: --check compares only a real folder and never follows a link to one (its target is not read); check the folder it points at with -o, or replace the link with the generated folder`,
      "filesystem",
    );
  if (!fs.exists(outDir))
    throw new CliError(
      `${outDir} does not exist, so there is nothing to check: generate it first (clusterspec generate ${specArg}${values.output ? ` -o ${values.output}` : ""}) and commit it`,
      "missing_output",
    );
  const kind = fs.kind(outDir); // not a link (above), and there: what it is in words (a FIFO is no file)
  if (kind !== undefined && kind !== "dir")
    throw new CliError(`${outDir} is ${describeKind(kind)}, where the generated folder was expected`, "filesystem");
  const { resolveOutputDir } = await import("../write.js");
  const checked = resolveOutputDir(fs, outDir, "check");
  const drift = fileSystem(fs, "read", outDir, () => diffTree(fs, checked, artifacts));
  const changes =
    values.base === undefined
      ? undefined
      : await changesSection(spec, values.base, text, values.output, previous.identities);
  if (changes?.invalid) return EXIT_INVALID;
  if (format === "json")
    await spec.json({
      ok: drift.length === 0,
      outDir,
      files: artifacts.length,
      drift: drift.map((d) => ({ path: d.path, kind: d.kind, secret: d.secret, patch: d.patch })),
      ...(changes?.json ? { changes: changes.json } : {}),
      warnings,
      ...omitted,
    });
  else if (format === "markdown")
    io.stdout(
      output.renderCheckMarkdown({
        spec: specArg,
        outDir: values.output ?? join(dirname(specArg), "generated"),
        fileCount: artifacts.length,
        drift,
      }) + (changes ? `\n${changes.markdown}` : ""),
    );
  else {
    if (drift.length === 0) io.stdout(`${out.green("✔")} ${outDir} is up to date (${artifacts.length} files)\n`);
    else {
      io.stdout(paintPatch(drift.map((d) => d.patch).join(""), out));
      io.stderr(
        `${err.red("✖")} ${drift.length} file(s) differ from a fresh generation; run clusterspec generate and commit the result\n`,
      );
    }
    if (changes) io.stdout(`\n${changes.text}`);
  }
  if (changes?.refused) {
    if (format !== "json") io.stderr(`${err.red("✖")} the change plan refuses a change: no steps are given\n`);
    return EXIT_INVALID;
  }
  return drift.length === 0 ? EXIT_OK : EXIT_DRIFT;
}

/**
 * The change plan from --base to the checked spec, in the three formats; `invalid` when the base spec is not
 * valid (its issues are printed here, at its paths and lines).
 */
async function changesSection(
  spec: SpecRun,
  baseArg: string,
  text: string,
  output: string | undefined,
  identities: Identities | undefined,
) {
  const { io, fs, format, specArg, errColor, out } = spec;
  const basePath = resolve(io.cwd, baseArg);
  const baseText = fileSystem(fs, "read", basePath, () => {
    try {
      return fs.readRegular(basePath, SPEC_MAX_BYTES);
    } catch (e) {
      if (e instanceof UnreadableFileError) throw new CliError(`cannot read the base spec: ${e.message}`, "filesystem");
      throw e;
    }
  });
  const [{ computeChanges }, rendering, { formatIssues }, { jsonIssue: jsonIssueOf }] = await Promise.all([
    import("../changes.js"),
    import("../changes-output.js"),
    import("@clusterspec/core"),
    import("../output.js"),
  ]);
  // The committed tree's orders for both sides: the new tree is then exactly the one checked above.
  const outcome = await computeChanges(baseText, text, spec.sourceName, identities);
  const names = { oldSpec: baseArg, newSpec: specArg, outDir: output ?? join(dirname(specArg), "generated") };
  // The cloud burst of an existing cluster has no nodes to plan for: its check stands alone.
  if (!outcome.ok && outcome.unsupported) {
    const note =
      "no change plan: the cloud burst of an existing cluster has no nodes to roll out to; review the cloud/ diff";
    return {
      invalid: false,
      refused: false,
      json: undefined,
      markdown: `#### Change plan\n\n${note}.\n`,
      text: `${note}\n`,
    } as const;
  }
  if (!outcome.ok) {
    if (format === "json")
      await spec.json({
        ok: false,
        errors: outcome.errors.map((e) => ({
          ...jsonIssueOf(e),
          message: `${outcome.side === "old" ? `the base spec ${baseArg}` : specArg}: ${e.message}`,
        })),
        warnings: [],
      });
    else
      io.stderr(
        formatIssues(outcome.errors, outcome.side === "old" ? basename(baseArg) : spec.display, {
          source: outcome.side === "old" ? baseText : text,
          color: errColor,
        }),
      );
    return { invalid: true } as const;
  }
  return {
    invalid: false,
    refused: outcome.plan.refused.length > 0,
    json: JSON.parse(rendering.changesJson(names, outcome)) as unknown,
    markdown: rendering.renderChangesMarkdown(outcome.plan, names),
    text: rendering.renderChangesText(outcome.plan, names, out),
  } as const;
}
