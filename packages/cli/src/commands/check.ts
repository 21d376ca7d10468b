// `clusterspec generate <spec> [-o <dir>] --check [--format text|markdown|json]`: writes nothing; exit 1 when <dir>
// is not what generate would write. The only command that loads `diff` (drift.ts).
import { dirname, join } from "node:path";
import { paintPatch } from "../color.js";
import { CliError, EXIT_DRIFT, EXIT_OK } from "../errors.js";
import { checkSpec, fileSystem, type SpecRun } from "./on-spec.js";

export async function check(spec: SpecRun, values: { readonly output?: string | undefined }): Promise<number> {
  const { io, fs, format, specArg, err, out } = spec;
  const text = spec.readSpec();
  const outDir = spec.outDir(values.output);
  // The folder's identities.json is an input, as for generate (a folder behind a link is refused below).
  const { readIdentities } = await import("../identities.js");
  const previous = fs.kind(outDir) === "dir" ? await readIdentities(fs, outDir) : undefined;
  const identities = previous?.identities ? { identities: previous.identities } : {};
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
  if (!fs.isDirectory(outDir))
    throw new CliError(`${outDir} is a file, where the generated folder was expected`, "filesystem");
  const { resolveOutputDir } = await import("../write.js");
  const checked = resolveOutputDir(fs, outDir, "check");
  const drift = fileSystem(fs, "read", outDir, () => diffTree(fs, checked, artifacts));
  if (format === "json")
    await spec.json({
      ok: drift.length === 0,
      outDir,
      files: artifacts.length,
      drift: drift.map((d) => ({ path: d.path, kind: d.kind, secret: d.secret, patch: d.patch })),
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
      }),
    );
  else if (drift.length === 0) io.stdout(`${out.green("✔")} ${outDir} is up to date (${artifacts.length} files)\n`);
  else {
    io.stdout(paintPatch(drift.map((d) => d.patch).join(""), out));
    io.stderr(
      `${err.red("✖")} ${drift.length} file(s) differ from a fresh generation; run clusterspec generate and commit the result\n`,
    );
  }
  return drift.length === 0 ? EXIT_OK : EXIT_DRIFT;
}
