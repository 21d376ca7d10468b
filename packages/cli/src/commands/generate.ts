// `clusterspec generate <spec> [-o <dir>] [--with-secrets] [--force] [--json]`: writes the tree. With --check it
// writes nothing and compares instead (check.ts).
import { dirname, isAbsolute, join } from "node:path";
import type { IssuePath, SecretValues } from "@clusterspec/core/types";
import { EXIT_OK, UsageError } from "../errors.js";
import { describeFsError, type FileSystem, isFsError, readSecretFile, UnreadableFileError } from "../fs.js";
import type { SecretReference, SecretResolution } from "../generate.js";
import { COMMAND_HELP } from "../help.js";
import { IDENTITIES_FILE } from "../identities.js";
import type { Reads } from "../input-digest.js";
import type { CliIO } from "../io.js";
import { check } from "./check.js";
import { defineCommand, JSON_OPTION, type OptionValues } from "./command.js";
import { checkSpec, fileSystem, formatOf, oneSpec, runOnSpec, type SpecRun } from "./on-spec.js";

const PLACEHOLDER_WARNING =
  "secrets are placeholders (kubeadm refuses them): this tree is for review; deploy one written with --with-secrets -o <dir>";

const options = {
  output: { type: "string", short: "o" },
  check: { type: "boolean" },
  base: { type: "string" },
  format: { type: "string" },
  ...JSON_OPTION,
  "with-secrets": { type: "boolean" },
  force: { type: "boolean" },
} as const;

type Values = OptionValues<typeof options>;

export default defineCommand({
  name: "generate",
  help: COMMAND_HELP.generate,
  options,
  run({ args, values, io, fs }) {
    const specArg = oneSpec(args);
    const format = formatOf(values, values.check === true);
    const fromStdin = specArg === "-";
    if (values.base !== undefined && !values.check)
      throw new UsageError("--base adds the change plan to --check: add --check (or run clusterspec changes)");
    if (values.check && values["with-secrets"])
      throw new UsageError("--check compares golden trees, which hold placeholders: drop --with-secrets");
    // The default output folder is the one committed for review: resolved secrets must go elsewhere, on purpose.
    if (values["with-secrets"] && !values.output)
      throw new UsageError(
        "--with-secrets writes real secrets: name the output folder with -o (never the committed generated/)",
      );
    if (fromStdin && !values.output)
      throw new UsageError("the spec comes from standard input, so there is no folder beside it: name one with -o");
    if (values.check) return runOnSpec("check", specArg, format, io, fs, (spec) => check(spec, values));
    return runOnSpec("generate", specArg, format, io, fs, (spec) => write(spec, values));
  },
});

async function write(spec: SpecRun, values: Values): Promise<number> {
  const { io, fs, format, specPath, err, out } = spec;
  const text = spec.readSpec();
  const resolved = values["with-secrets"] === true;
  const outDir = spec.outDir(values.output);
  const secretsNote = resolved ? " (secrets resolved, secret files 0600)" : " (secrets as placeholders)";
  // The VIP priority orders the last run left in the folder are an input: they are carried forward. The file is read
  // here and checked only when the tree is generated: the unchanged-tree shortcut digests its text, so an up-to-date
  // folder loads no core (whose zod schemas alone are a third of such a run). The shortcut cannot take a malformed
  // one: the file is one of the recorded tree's, as the last successful run wrote it.
  const { readIdentitiesText, checkIdentities } = await import("../identities.js");
  const identitiesAt = join(outDir, IDENTITIES_FILE);
  const identitiesText = readIdentitiesText(fs, identitiesAt);
  // The unchanged-tree shortcut (input-digest.ts): plain `generate` only, with text output.
  const digest =
    format === "text" && io.codeId ? await shortcut(io.codeId, spec, values, outDir, text, identitiesText) : undefined;
  if (digest?.upToDate) {
    const r = digest.upToDate;
    io.stdout(`${out.green("✔")} ${outDir} is up to date (${r.artifacts} files, none touched)${secretsNote}\n`);
    if (r.placeholders) io.stderr(`${err.yellow("⚠")} ${PLACEHOLDER_WARNING}\n`);
    return EXIT_OK;
  }
  const previous = identitiesText === undefined ? undefined : await checkIdentities(identitiesAt, identitiesText);
  const reads: Reads = { env: [], files: [] };
  const checked = await checkSpec(spec, text, {
    ...(resolved ? { secrets: (refs: readonly SecretReference[]) => readSecrets(refs, specPath, io, fs, reads) } : {}),
    ...(previous?.identities ? { identities: previous.identities } : {}),
  });
  if (!checked.ok) return checked.code;
  const { result, warnings, omitted, output } = checked;
  const { artifacts } = result;
  const { writeTree, MANIFEST, modeOf } = await import("../write.js");
  const summary = fileSystem(fs, "write", outDir, () =>
    writeTree(fs, outDir, artifacts, {
      force: values.force === true,
      secrets: resolved ? "resolved" : "placeholders",
    }),
  );
  const placeholders = !resolved && Object.keys(result.plan.secrets).length > 0;
  // Only a run without warnings is recorded: the shortcut would not repeat them.
  if (digest && result.warnings.length === 0)
    // Recorded with the identities.json this write left, which the next run reads: carrying the orders forward
    // again gives the same orders (carriedOrders is idempotent), so that run's tree is this one.
    digest.remember(reads, artifacts.find((a) => a.path === IDENTITIES_FILE)?.content, {
      artifacts: artifacts.map((a) => ({ path: a.path, content: a.content, mode: modeOf(a) })),
      manifest: MANIFEST,
      placeholders,
    });
  if (format === "json") {
    // Imported here, so that --help and --version do not load node:crypto. One of our modules, not node:crypto
    // itself: the command's bundle runs in a vm.Script, which has no dynamic import of outside modules.
    const { sha256 } = await import("../input-digest.js");
    await spec.json({
      ok: true,
      outDir,
      secrets: resolved ? "resolved" : "placeholders",
      summary,
      files: artifacts.map((a) => ({
        path: a.path,
        mode: output.modeText(a),
        bytes: Buffer.byteLength(a.content),
        secret: a.secret === true,
        // A hash of a file that holds a short secret would let anyone guess it offline.
        ...(a.secret && resolved ? {} : { sha256: sha256(a.content) }),
      })),
      warnings,
      ...omitted,
    });
    return EXIT_OK;
  }
  io.stdout(
    (summary.written === 0 && summary.removed === 0
      ? `${out.green("✔")} ${outDir} is up to date (${summary.unchanged} files, none touched)`
      : `${out.green("✔")} wrote ${outDir}: ${summary.written} changed, ${summary.unchanged} unchanged, ${summary.removed} removed`) +
      `${secretsNote}\n`,
  );
  if (placeholders) io.stderr(`${err.yellow("⚠")} ${PLACEHOLDER_WARNING}\n`);
  return EXIT_OK;
}

/** Whether the folder is up to date with these inputs; if not, its record is dropped before anything is written. */
async function shortcut(
  codeId: () => string | undefined,
  spec: SpecRun,
  values: Values,
  outDir: string,
  specText: string,
  identities: string | undefined,
) {
  const { io, fs, sourceName } = spec;
  const code = codeId();
  const { recordPath, upToDate, forget, remember } = await import("../input-digest.js");
  const recordAt = code === undefined ? undefined : recordPath(io.env, outDir);
  if (code === undefined || recordAt === undefined) return undefined;
  const flags = [values["with-secrets"] ? "--with-secrets" : "", values.force ? "--force" : ""];
  const inputs = { code, version: io.version, specText, sourceName, flags, identities };
  const hit = upToDate(fs, recordAt, outDir, inputs, io.env);
  if (hit) return { upToDate: hit };
  forget(fs, recordAt, outDir);
  return {
    upToDate: undefined,
    remember: (reads: Reads, written: string | undefined, tree: Parameters<typeof remember>[4]) =>
      remember(fs, recordAt, outDir, { ...inputs, ...reads, identities: written }, tree),
  };
}

/**
 * Reads every secret the spec references (IO); a failure is an error at the reference's path. Every value read is
 * added to the run's redaction (redact.ts) before anything can quote it.
 */
function readSecrets(
  refs: readonly SecretReference[],
  specPath: string,
  io: CliIO,
  fs: FileSystem,
  reads: Reads,
): SecretResolution {
  const values: SecretValues = {};
  const errors: { path: IssuePath; message: string }[] = [];
  for (const { id, ref, path } of refs) {
    if ("env" in ref) {
      const v = io.env[ref.env];
      reads.env.push([ref.env, v]);
      if (v === undefined || v === "") errors.push({ path, message: `environment variable ${ref.env} is not set` });
      else {
        io.redaction?.add(v); // never printed from here on, whatever message, warning or error quotes it
        values[id] = v;
      }
    } else {
      const file = isAbsolute(ref.file) ? ref.file : join(dirname(specPath), ref.file);
      try {
        const content = readSecretFile(fs, file);
        reads.files.push([file, content]);
        io.redaction?.add(content);
        values[id] = content.replace(/\r?\n$/, "");
      } catch (e) {
        reads.files.push([file, undefined]);
        errors.push({
          path,
          message: `cannot read the secret file: ${isFsError(e) ? describeFsError(e, fs, file) : e instanceof UnreadableFileError ? e.message : `${file}: ${(e as Error).message}`}`,
        });
      }
    }
  }
  return { values, errors };
}
