// What validate, plan and generate (with --check too) share: the format they print in, the spec they read (a file
// or standard input), the pipeline that checks it with its issues in text or JSON, and a failure in that format.
import { basename, dirname, join, resolve } from "node:path";
import type { SpecIssue } from "@clusterspec/core/types";
import { type Paint, paint, useColor } from "../color.js";
import { CliError, EXIT_INVALID, UsageError } from "../errors.js";
import { count, describeFsError, type FileSystem, isFsError, SPEC_MAX_BYTES, UnreadableFileError } from "../fs.js";
import type { GenerateOptions } from "../generate.js";
import type { CliIO } from "../io.js";
import type { JsonCommand } from "../output.js";

export type Format = "text" | "markdown" | "json";

/** --json or --format; markdown only where the command prints the pull-request summary (generate --check). */
export function formatOf(values: { readonly json?: boolean; readonly format?: string }, markdown: boolean): Format {
  const format = values.json ? "json" : (values.format ?? "text");
  if (format !== "text" && format !== "markdown" && format !== "json")
    throw new UsageError(`--format is text, markdown or json, not ${format}`);
  if (values.json && values.format !== undefined && values.format !== "json")
    throw new UsageError(`--json and --format ${values.format} contradict each other`);
  if (format === "markdown" && !markdown)
    throw new UsageError("--format markdown is the pull-request summary of --check: add --check");
  return format;
}

/** The one positional of validate, plan and generate. */
export function oneSpec(args: readonly string[]): string {
  if (args.length !== 1) throw new UsageError("expected exactly one spec file (or - for standard input)");
  return args[0] ?? "";
}

/** The spec a command runs on, and how it prints. */
export interface SpecRun {
  /** The spec as given on the command line (`-` for standard input). */
  readonly specArg: string;
  readonly specPath: string;
  /** The spec's name in messages: its file name, or `<stdin>`. */
  readonly display: string;
  /** The spec's name in generated headers. */
  readonly sourceName: string;
  readonly format: Format;
  readonly io: CliIO;
  readonly fs: FileSystem;
  readonly errColor: boolean;
  readonly err: Paint;
  readonly out: Paint;
  /** The command's versioned JSON document (docs/cli-json.md) on stdout. */
  json(body: Record<string, unknown>): Promise<void>;
  readSpec(): string;
  /** -o, or generated/ next to the spec. */
  outDir(output: string | undefined): string;
}

/** Runs `run` on the spec; a CliError it throws is printed in the command's format (JSON or `✖ message`). */
export async function runOnSpec(
  jsonCommand: JsonCommand,
  specArg: string,
  format: Format,
  io: CliIO,
  fs: FileSystem,
  run: (spec: SpecRun) => Promise<number>,
): Promise<number> {
  const fromStdin = specArg === "-";
  const specPath = fromStdin ? join(io.cwd, "-") : resolve(io.cwd, specArg);
  const display = fromStdin ? "<stdin>" : basename(specPath);
  // Loaded on first use: a run that finds its folder up to date loads none of them.
  const output = () => import("../output.js");
  const json = async (body: Record<string, unknown>) =>
    io.stdout((await output()).jsonDocument(jsonCommand, display, body));
  const errColor = useColor(io.env, () => io.isTTY?.stderr === true);
  const err = paint(errColor);
  const out = paint(useColor(io.env, () => io.isTTY?.stdout === true));
  const spec: SpecRun = {
    specArg,
    specPath,
    display,
    sourceName: fromStdin ? "cluster.yaml" : display,
    format,
    io,
    fs,
    errColor,
    err,
    out,
    json,
    readSpec,
    outDir: (dir) => (dir ? resolve(io.cwd, dir) : join(dirname(specPath), "generated")),
  };

  try {
    return await run(spec);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    if (format === "json")
      await json({ ok: false, errors: [(await output()).jsonFailure(e.kind, e.message)], warnings: [] });
    else io.stderr(`${err.red("✖")} ${e.message}\n`);
    return e.code;
  }

  function readSpec(): string {
    return loneCarriageReturn(readText());
  }

  /**
   * A spec whose lines end in a carriage return alone (classic Mac OS) is refused in words: YAML 1.2 takes a lone CR
   * as a line break, the parser clusterspec uses does not, so such a spec read as one long first line (a comment,
   * when it starts with one) and was called empty.
   */
  function loneCarriageReturn(text: string): string {
    const at = /\r(?!\n)/.exec(text)?.index;
    if (at === undefined) return text;
    const line = text.slice(0, at).split("\n").length;
    throw new CliError(
      `cannot read the spec: ${display} has a carriage return without a line feed on line ${line} (line breaks of classic Mac OS): save it with LF or CRLF line endings`,
      "filesystem",
    );
  }

  function readText(): string {
    try {
      if (fromStdin) {
        if (!io.readStdin) throw new CliError("standard input is not available here", "usage");
        const text = io.readStdin(SPEC_MAX_BYTES);
        if (text.length > SPEC_MAX_BYTES)
          throw new CliError(
            `cannot read the spec: standard input holds more than ${count(SPEC_MAX_BYTES)} bytes, the limit for a spec`,
            "filesystem",
          );
        return text;
      }
      return fs.readRegular(specPath, SPEC_MAX_BYTES);
    } catch (e) {
      if (e instanceof UnreadableFileError) throw new CliError(`cannot read the spec: ${e.message}`, "filesystem");
      if (e instanceof CliError || !isFsError(e)) throw e;
      throw new CliError(`cannot read the spec: ${describeFsError(e, fs, specPath)}`, "filesystem");
    }
  }
}

/**
 * The spec through the whole pipeline (generateChecked imports the upstream schemas only when the spec has free-form
 * parts: overlays, values, kubelet). Its errors are printed in the command's format and give exit 2; its warnings
 * go to stderr in text, or come back for the command's JSON document. Repeated issues are capped per kind, in text
 * and JSON alike.
 */
export async function checkSpec(
  spec: SpecRun,
  text: string,
  options: Pick<GenerateOptions, "secrets" | "identities"> = {},
) {
  const { io, display, format, errColor } = spec;
  const [{ formatIssues }, { generateChecked }, output] = await Promise.all([
    import("@clusterspec/core"),
    import("../generate.js"),
    import("../output.js"),
  ]);
  const { capIssues, jsonIssue, omittedText } = output;
  const result = withSpecFile(await generateChecked(text, { sourceName: spec.sourceName, ...options }), spec.specArg);
  const issues = (list: Parameters<typeof formatIssues>[0]) => {
    const { shown, omitted } = capIssues(list);
    return `${formatIssues(shown, display, { source: text, color: errColor })}\n${omittedText(omitted)}`;
  };
  const capped = capIssues([...(result.ok ? [] : result.errors), ...result.warnings]);
  const omitted = capped.omitted.length > 0 ? { omitted: capped.omitted } : {};
  const shown = (severity: "error" | "warning") => capped.shown.filter((i) => i.severity === severity).map(jsonIssue);
  if (!result.ok) {
    if (format === "json")
      await spec.json({ ok: false, errors: shown("error"), warnings: shown("warning"), ...omitted });
    else io.stderr(issues([...result.errors, ...result.warnings]));
    return { ok: false, code: EXIT_INVALID } as const;
  }
  const warnings = shown("warning");
  if (format !== "json" && result.warnings.length > 0) io.stderr(issues(result.warnings));
  return { ok: true, result, warnings, omitted, output } as const;
}

/** A file-system error (permissions, a file where a folder should be, …) is the user's to fix: exit 2, no stack. */
export function fileSystem<T>(fs: FileSystem, verb: "read" | "write", outDir: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isFsError(e)) throw new CliError(`cannot ${verb} ${outDir}: ${describeFsError(e, fs, outDir)}`, "filesystem");
    throw e;
  }
}

/**
 * A removed key's message names the command that migrates the spec with a `<spec file>` placeholder (core does not
 * know the file): the spec as given on the command line takes its place, so the command can be run as printed.
 */
function withSpecFile<R extends { readonly ok: boolean; readonly warnings: readonly SpecIssue[] }>(
  result: R,
  specArg: string,
): R {
  if (specArg === "-") return result;
  const named = (issues: readonly SpecIssue[]) =>
    issues.map((i) =>
      i.code === "removed_key" ? { ...i, message: i.message.replaceAll("<spec file>", shellArg(specArg)) } : i,
    );
  const errors = (result as { readonly errors?: readonly SpecIssue[] }).errors;
  return { ...result, warnings: named(result.warnings), ...(errors ? { errors: named(errors) } : {}) };
}

/** A path as a shell word: as it is when it is plain, else in single quotes. */
const shellArg = (path: string): string =>
  /^[\w@%+=:,./-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
