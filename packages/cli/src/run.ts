// The command line, minus the process: argv in, exit code out. main.ts owns process.* (citty runMain/runCommand split).
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
// Only what every run needs is imported here: --help and --version load nothing else. core, the generators and
// the writer are imported by the commands that use them, and `diff` only by --check.
import type { IssuePath, SecretValues } from "@clusterspec/core/types";
import { paint, paintPatch, useColor } from "./color.js";
import { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK, UsageError } from "./errors.js";
import {
  count,
  describeFsError,
  type FileSystem,
  isFsError,
  nodeFileSystem,
  SECRET_FILE_MAX_BYTES,
  SPEC_MAX_BYTES,
  UnreadableFileError,
} from "./fs.js";
import type { SecretReference, SecretResolution } from "./generate.js";
import { COMMAND_HELP, COMMANDS, type Command, USAGE } from "./help.js";
import type { Reads } from "./input-digest.js";

export { USAGE } from "./help.js";

export interface CliIO {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly fs?: FileSystem;
  readonly version: string;
  /** The spec when it is given as `-`. */
  readonly readStdin?: (maxBytes: number) => string;
  /** Whether stdout / stderr are terminals: colour only there (NO_COLOR and FORCE_COLOR win). */
  readonly isTTY?: { readonly stdout: boolean; readonly stderr: boolean };
  /**
   * The identity of the running code (a content hash of the bundle), or undefined when unknown. With it, and a
   * cache folder (input-digest.ts), `generate` skips an unchanged tree; without it every run generates.
   */
  readonly codeId?: () => string | undefined;
}

const PLACEHOLDER_WARNING =
  "secrets are placeholders (kubeadm refuses them): this tree is for review; deploy one written with --with-secrets -o <dir>";

type Format = "text" | "markdown" | "json";

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      output: { type: "string", short: "o" },
      check: { type: "boolean" },
      format: { type: "string" },
      json: { type: "boolean" },
      "with-secrets": { type: "boolean" },
      force: { type: "boolean" },
      down: { type: "string" },
      unhealthy: { type: "string" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

type Values = ReturnType<typeof parse>["values"];

/** The options each command takes besides --help. */
const ALLOWED: Readonly<Record<Command, readonly (keyof Values)[]>> = {
  generate: ["output", "check", "format", "json", "with-secrets", "force"],
  validate: ["json"],
  plan: ["json"],
  simulate: ["down", "unhealthy", "json"],
  schema: [],
  help: [],
};

const isCommand = (c: string | undefined): c is Command => (COMMANDS as readonly string[]).includes(c ?? "");

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const fs = io.fs ?? nodeFileSystem;
  const named = argv.find((a) => !a.startsWith("-"));
  const usage = (message: string) => {
    io.stderr(`clusterspec: ${message}\n\n${isCommand(named) ? COMMAND_HELP[named] : USAGE}`);
    return EXIT_INVALID;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.version && command === undefined) {
    io.stdout(`${io.version}\n`);
    return EXIT_OK;
  }
  if (command !== undefined && !isCommand(command)) {
    const { didYouMean } = await import("@clusterspec/core");
    const hint = didYouMean(command, COMMANDS);
    return usage(`unknown command ${command}${hint ? ` (did you mean ${hint}?)` : ""}`);
  }
  if (values.help) {
    io.stdout(command === undefined ? USAGE : COMMAND_HELP[command]);
    return EXIT_OK;
  }
  if (command === undefined) {
    io.stderr(USAGE);
    return EXIT_INVALID;
  }
  const extra = (Object.keys(values) as (keyof Values)[]).filter((k) => !ALLOWED[command].includes(k));
  if (extra.length > 0) return usage(`${command} does not take --${extra.join(", --")}`);
  try {
    switch (command) {
      case "help": {
        if (rest.length > 1) throw new UsageError("help takes at most one command");
        const topic = rest[0];
        if (topic !== undefined && !isCommand(topic)) throw new UsageError(`unknown command ${topic}`);
        io.stdout(topic === undefined ? USAGE : COMMAND_HELP[topic]);
        return EXIT_OK;
      }
      case "schema":
        if (rest.length > 0) throw new UsageError("schema takes no arguments");
        io.stdout(`${JSON.stringify((await import("@clusterspec/core")).specJsonSchema(), null, 2)}\n`);
        return EXIT_OK;
      case "simulate":
        if (rest.length !== 1 || rest[0] === "-") throw new UsageError("expected exactly one spec file");
        return (await import("./simulate.js")).runSimulate(resolve(io.cwd, rest[0] ?? ""), values, io, fs);
      default: {
        if (rest.length !== 1) throw new UsageError("expected exactly one spec file (or - for standard input)");
        return await runOnSpec(command, rest[0] ?? "", values, io, fs);
      }
    }
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    throw e;
  }
}

function formatOf(command: Command, values: Values): Format {
  const format = values.json ? "json" : (values.format ?? "text");
  if (format !== "text" && format !== "markdown" && format !== "json")
    throw new UsageError(`--format is text, markdown or json, not ${format}`);
  if (values.json && values.format !== undefined && values.format !== "json")
    throw new UsageError(`--json and --format ${values.format} contradict each other`);
  if (format === "markdown" && !(command === "generate" && values.check))
    throw new UsageError("--format markdown is the pull-request summary of --check: add --check");
  return format;
}

async function runOnSpec(
  command: "validate" | "plan" | "generate",
  specArg: string,
  values: Values,
  io: CliIO,
  fs: FileSystem,
): Promise<number> {
  const format = formatOf(command, values);
  const fromStdin = specArg === "-";
  if (values.check && values["with-secrets"])
    throw new UsageError("--check compares golden trees, which hold placeholders: drop --with-secrets");
  // The default output folder is the one committed for review: resolved secrets must go elsewhere, on purpose.
  if (values["with-secrets"] && !values.output)
    throw new UsageError(
      "--with-secrets writes real secrets: name the output folder with -o (never the committed generated/)",
    );
  if (fromStdin && command === "generate" && !values.output)
    throw new UsageError("the spec comes from standard input, so there is no folder beside it: name one with -o");
  const specPath = fromStdin ? join(io.cwd, "-") : resolve(io.cwd, specArg);
  const display = fromStdin ? "<stdin>" : basename(specPath);
  const jsonCommand = command === "generate" && values.check ? "check" : command;
  // Loaded on first use: a run that finds its folder up to date loads none of them.
  const output = () => import("./output.js");
  const json = async (body: Record<string, unknown>) =>
    io.stdout((await output()).jsonDocument(jsonCommand, display, body));
  const errColor = useColor(io.env, () => io.isTTY?.stderr === true);
  const err = paint(errColor);
  const out = paint(useColor(io.env, () => io.isTTY?.stdout === true));

  try {
    return await run();
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    if (format === "json")
      await json({ ok: false, errors: [(await output()).jsonFailure(e.kind, e.message)], warnings: [] });
    else io.stderr(`${err.red("✖")} ${e.message}\n`);
    return e.code;
  }

  // generateChecked imports the upstream schemas only when the spec has free-form parts (overlays, values, kubelet)
  async function run(): Promise<number> {
    const text = readSpec();
    const resolved = values["with-secrets"] === true;
    const sourceName = fromStdin ? "cluster.yaml" : display;
    const outDir = values.output ? resolve(io.cwd, values.output) : join(dirname(specPath), "generated");
    const secretsNote = resolved ? " (secrets resolved, secret files 0600)" : " (secrets as placeholders)";
    // The unchanged-tree shortcut (input-digest.ts): plain `generate` only, with text output.
    const digest =
      command === "generate" && !values.check && format === "text" && io.codeId
        ? await shortcut(io.codeId, sourceName, outDir, text)
        : undefined;
    if (digest?.upToDate) {
      const r = digest.upToDate;
      io.stdout(`${out.green("✔")} ${outDir} is up to date (${r.artifacts} files, none touched)${secretsNote}\n`);
      if (r.placeholders) io.stderr(`${err.yellow("⚠")} ${PLACEHOLDER_WARNING}\n`);
      return EXIT_OK;
    }
    const [
      { formatIssues },
      { generateChecked },
      { capIssues, jsonIssue, modeText, omittedText, planJson, renderCheckMarkdown },
      driftModule,
    ] = await Promise.all([
      import("@clusterspec/core"),
      import("./generate.js"),
      output(),
      command === "generate" && values.check ? import("./drift.js") : undefined,
    ]);
    const reads: Reads = { env: [], files: [] };
    const result = await generateChecked(text, {
      sourceName,
      ...(resolved
        ? { secrets: (refs: readonly SecretReference[]) => readSecrets(refs, specPath, io, fs, reads) }
        : {}),
    });
    // Repeated issues are capped per kind, in text and JSON alike.
    const issues = (list: Parameters<typeof formatIssues>[0]) => {
      const { shown, omitted } = capIssues(list);
      return `${formatIssues(shown, display, { source: text, color: errColor })}\n${omittedText(omitted)}`;
    };
    const capped = capIssues([...(result.ok ? [] : result.errors), ...result.warnings]);
    const omitted = capped.omitted.length > 0 ? { omitted: capped.omitted } : {};
    const shown = (severity: "error" | "warning") => capped.shown.filter((i) => i.severity === severity).map(jsonIssue);
    if (!result.ok) {
      if (format === "json") await json({ ok: false, errors: shown("error"), warnings: shown("warning"), ...omitted });
      else io.stderr(issues([...result.errors, ...result.warnings]));
      return EXIT_INVALID;
    }
    const warnings = shown("warning");
    if (format !== "json" && result.warnings.length > 0) io.stderr(issues(result.warnings));
    const { artifacts } = result;
    if (command === "validate") {
      if (format === "json") await json({ ok: true, errors: [], warnings, ...omitted });
      else io.stdout(`${out.green("✔")} ${display} is valid\n`);
      return EXIT_OK;
    }
    if (command === "plan") {
      if (format === "json") await json({ ok: true, plan: planJson(result.plan), warnings, ...omitted });
      else io.stdout(artifacts.find((a) => a.path === "PLAN.md")?.content ?? "");
      return EXIT_OK;
    }
    if (values.check) {
      if (!fs.exists(outDir))
        throw new CliError(
          `${outDir} does not exist, so there is nothing to check: generate it first (clusterspec generate ${specArg}${values.output ? ` -o ${values.output}` : ""}) and commit it`,
          EXIT_INVALID,
          "missing_output",
        );
      if (!fs.isDirectory(outDir))
        throw new CliError(`${outDir} is a file, where the generated folder was expected`, EXIT_INVALID, "filesystem");
      if (!driftModule) throw new Error("--check without the drift module");
      const { diffTree } = driftModule;
      const { resolveOutputDir } = await import("./write.js");
      const checked = resolveOutputDir(fs, outDir, "check");
      const drift = fileSystem(fs, "read", outDir, () => diffTree(fs, checked, artifacts));
      if (format === "json")
        await json({
          ok: drift.length === 0,
          outDir,
          files: artifacts.length,
          drift: drift.map((d) => ({ path: d.path, kind: d.kind, secret: d.secret, patch: d.patch })),
          warnings,
          ...omitted,
        });
      else if (format === "markdown")
        io.stdout(
          renderCheckMarkdown({
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
    const { writeTree, MANIFEST, modeOf } = await import("./write.js");
    const summary = fileSystem(fs, "write", outDir, () =>
      writeTree(fs, outDir, artifacts, {
        force: values.force === true,
        secrets: resolved ? "resolved" : "placeholders",
      }),
    );
    const placeholders = !resolved && Object.keys(result.plan.secrets).length > 0;
    // Only a run without warnings is recorded: the shortcut would not repeat them.
    if (digest && result.warnings.length === 0)
      digest.remember(reads, {
        artifacts: artifacts.map((a) => ({ path: a.path, content: a.content, mode: modeOf(a) })),
        manifest: MANIFEST,
        placeholders,
      });
    if (format === "json") {
      // Imported here, so that --help and --version do not load node:crypto. One of our modules, not node:crypto
      // itself: the command's bundle runs in a vm.Script, which has no dynamic import of outside modules.
      const { sha256 } = await import("./input-digest.js");
      await json({
        ok: true,
        outDir,
        secrets: resolved ? "resolved" : "placeholders",
        summary,
        files: artifacts.map((a) => ({
          path: a.path,
          mode: modeText(a),
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
  async function shortcut(codeId: () => string | undefined, sourceName: string, outDir: string, specText: string) {
    const code = codeId();
    const { recordPath, upToDate, forget, remember } = await import("./input-digest.js");
    const recordAt = code === undefined ? undefined : recordPath(io.env, outDir);
    if (code === undefined || recordAt === undefined) return undefined;
    const flags = [values["with-secrets"] ? "--with-secrets" : "", values.force ? "--force" : ""];
    const inputs = { code, version: io.version, specText, sourceName, flags };
    const hit = upToDate(fs, recordAt, outDir, inputs, io.env);
    if (hit) return { upToDate: hit };
    forget(fs, recordAt);
    return {
      upToDate: undefined,
      remember: (reads: Reads, tree: Parameters<typeof remember>[4]) =>
        remember(fs, recordAt, outDir, { ...inputs, ...reads }, tree),
    };
  }

  function readSpec(): string {
    try {
      if (fromStdin) {
        if (!io.readStdin) throw new CliError("standard input is not available here", EXIT_INVALID, "usage");
        const text = io.readStdin(SPEC_MAX_BYTES);
        if (text.length > SPEC_MAX_BYTES)
          throw new CliError(
            `cannot read the spec: standard input holds more than ${count(SPEC_MAX_BYTES)} bytes, the limit for a spec`,
            EXIT_INVALID,
            "filesystem",
          );
        return text;
      }
      return fs.readRegular(specPath, SPEC_MAX_BYTES);
    } catch (e) {
      if (e instanceof UnreadableFileError)
        throw new CliError(`cannot read the spec: ${e.message}`, EXIT_INVALID, "filesystem");
      if (e instanceof CliError || !isFsError(e)) throw e;
      throw new CliError(`cannot read the spec: ${describeFsError(e, fs, specPath)}`, EXIT_INVALID, "filesystem");
    }
  }
}

/** A file-system error (permissions, a file where a folder should be, …) is the user's to fix: exit 2, no stack. */
function fileSystem<T>(fs: FileSystem, verb: "read" | "write", outDir: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isFsError(e))
      throw new CliError(`cannot ${verb} ${outDir}: ${describeFsError(e, fs, outDir)}`, EXIT_INVALID, "filesystem");
    throw e;
  }
}

/** Reads every secret the spec references (IO); a failure is an error at the reference's path. */
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
      else values[id] = v;
    } else {
      const file = isAbsolute(ref.file) ? ref.file : join(dirname(specPath), ref.file);
      try {
        const content = fs.readRegular(file, SECRET_FILE_MAX_BYTES);
        reads.files.push([file, content]);
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
