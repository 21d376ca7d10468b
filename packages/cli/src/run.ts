// The command line, minus the process: argv in, exit code out. main.ts owns process.* (citty runMain/runCommand split).
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { parseArgs } from "node:util";
import {
  checkSecretValues,
  formatIssues,
  type IssuePath,
  loadSpec,
  locateIssues,
  OutputLimitError,
  resolvePlan,
  SECRET_KINDS,
  type SecretValues,
  type SpecIssue,
  secretReferences,
  specJsonSchema,
} from "@clusterspec/core";
import { CliError, EXIT_DRIFT, EXIT_INVALID, EXIT_OK, UsageError } from "./errors.js";
import { type FileSystem, nodeFileSystem } from "./fs.js";
import { generateFromPlan, renderPlanMarkdown } from "./generate.js";
import { diffTree, writeTree } from "./write.js";

export interface CliIO {
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly fs?: FileSystem;
  readonly version: string;
}

export const USAGE = `clusterspec - one validated cluster spec in, every config file of the cluster out

Usage:
  clusterspec generate <spec> [-o <dir>] [--check] [--with-secrets] [--force]
  clusterspec validate <spec>
  clusterspec plan <spec>
  clusterspec schema
  clusterspec --help | --version

Commands:
  generate   render every file into <dir> (default: generated/ next to the spec);
             all files are rendered and checked in memory first; only changed files are
             written, all or nothing, and an unchanged folder is left untouched
  validate   check the spec and print its errors and warnings
  plan       print the human summary that generate also writes as PLAN.md
  schema     print the JSON Schema of the spec (for yaml-language-server)

Options:
  -o, --output <dir>  output folder
  --check             write nothing; exit 1 and print a unified diff if <dir> differs
  --with-secrets      resolve secret references ({ env } / { file }) into the files (written 0600);
                      without it secrets render as placeholders, as in committed golden trees
  --force             overwrite files at generated paths that clusterspec did not write
  -h, --help          show this help
  -v, --version       show the version

Exit codes: 0 ok, 1 drift (--check), 2 invalid input or usage.
`;

export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  const fs = io.fs ?? nodeFileSystem;
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    io.stderr(`clusterspec: ${(e as Error).message}\n\n${USAGE}`);
    return EXIT_INVALID;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout(USAGE);
    return EXIT_OK;
  }
  if (values.version) {
    io.stdout(`${io.version}\n`);
    return EXIT_OK;
  }
  const [command, ...rest] = positionals;
  try {
    switch (command) {
      case "schema":
        expectArgs(rest, 0);
        io.stdout(`${JSON.stringify(specJsonSchema(), null, 2)}\n`);
        return EXIT_OK;
      case "validate":
      case "plan":
      case "generate": {
        expectArgs(rest, 1);
        const specPath = resolve(io.cwd, rest[0] ?? "");
        if (command !== "generate" && (values.output || values.check || values["with-secrets"] || values.force))
          throw new UsageError(`${command} takes no options`);
        return runOnSpec(command, specPath, values, io, fs);
      }
      case undefined:
        io.stderr(USAGE);
        return EXIT_INVALID;
      default:
        throw new UsageError(`unknown command ${command}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.stderr(`clusterspec: ${e.message}\n\n${USAGE}`);
      return EXIT_INVALID;
    }
    if (e instanceof CliError) {
      io.stderr(`${e.message}\n`);
      return e.code;
    }
    throw e;
  }
}

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: {
      output: { type: "string", short: "o" },
      check: { type: "boolean" },
      "with-secrets": { type: "boolean" },
      force: { type: "boolean" },
      help: { type: "boolean", short: "h" },
      version: { type: "boolean", short: "v" },
    },
  });
}

function expectArgs(rest: readonly string[], count: number): void {
  if (rest.length !== count)
    throw new UsageError(count === 0 ? "this command takes no arguments" : "expected exactly one spec file");
}

type Values = ReturnType<typeof parse>["values"];

function runOnSpec(
  command: "validate" | "plan" | "generate",
  specPath: string,
  values: Values,
  io: CliIO,
  fs: FileSystem,
): number {
  const display = basename(specPath);
  let text: string;
  try {
    text = fs.readText(specPath);
  } catch (e) {
    throw new CliError(
      `clusterspec: cannot read spec ${specPath}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  const loaded = loadSpec(text);
  if (!loaded.ok) {
    io.stderr(`${formatIssues([...loaded.errors, ...loaded.warnings], display)}\n`);
    return EXIT_INVALID;
  }
  if (loaded.warnings.length > 0) io.stderr(`${formatIssues(loaded.warnings, display)}\n`);
  if (command === "validate") {
    io.stdout(`✔ ${display} is valid\n`);
    return EXIT_OK;
  }
  if (values.check && values["with-secrets"])
    throw new UsageError("--check compares golden trees, which hold placeholders: drop --with-secrets");
  // The default output folder is the one committed for review: resolved secrets must go elsewhere, on purpose.
  if (values["with-secrets"] && !values.output)
    throw new UsageError(
      "--with-secrets writes real secrets: name the output folder with -o (never the committed generated/)",
    );
  const secrets = values["with-secrets"] ? resolveSecretValues(loaded.value, text, specPath, io, fs, display) : {};
  const plan = resolvePlan(loaded.value, { sourceName: display, secrets });
  if (command === "plan") {
    io.stdout(renderPlanMarkdown(plan));
    return EXIT_OK;
  }
  let artifacts: ReturnType<typeof generateFromPlan>;
  try {
    artifacts = generateFromPlan(plan);
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    io.stderr(`${formatIssues([{ path: e.path, message: e.message, severity: "error" }], display)}\n`);
    return EXIT_INVALID;
  }
  const outDir = values.output ? resolve(io.cwd, values.output) : join(dirname(specPath), "generated");
  if (values.check) {
    const drift = fileSystemErrors(outDir, () => diffTree(fs, outDir, artifacts));
    if (drift.length === 0) {
      io.stdout(`✔ ${outDir} is up to date (${artifacts.length} files)\n`);
      return EXIT_OK;
    }
    io.stdout(drift.map((d) => d.patch).join(""));
    io.stderr(
      `✖ ${drift.length} file(s) differ from a fresh generation; run clusterspec generate and commit the result\n`,
    );
    return EXIT_DRIFT;
  }
  const resolved = values["with-secrets"] === true;
  const summary = fileSystemErrors(outDir, () =>
    writeTree(fs, outDir, artifacts, { force: values.force === true, secrets: resolved ? "resolved" : "placeholders" }),
  );
  io.stdout(
    (summary.written === 0 && summary.removed === 0
      ? `✔ ${outDir} is up to date (${summary.unchanged} files, none touched)`
      : `✔ wrote ${outDir}: ${summary.written} changed, ${summary.unchanged} unchanged, ${summary.removed} removed`) +
      `${resolved ? " (secrets resolved, secret files 0600)" : " (secrets as placeholders)"}\n`,
  );
  if (!resolved && secretReferences(loaded.value).length > 0)
    io.stderr(
      "⚠ secrets are placeholders (kubeadm refuses them): this tree is for review; deploy one written with --with-secrets -o <dir>\n",
    );
  return EXIT_OK;
}

/** A file-system error (permissions, a file where a folder should be, …) is the user's to fix: exit 2, no stack. */
function fileSystemErrors<T>(outDir: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (typeof err.code === "string" && err.syscall !== undefined)
      throw new CliError(
        `clusterspec: cannot write ${outDir}: ${err.code} (${err.syscall} ${err.path ?? ""})`.trimEnd(),
      );
    throw e;
  }
}

/** Reads every secret the spec references; any failure is an error at the reference's path. */
function resolveSecretValues(
  spec: Parameters<typeof secretReferences>[0],
  specText: string,
  specPath: string,
  io: CliIO,
  fs: FileSystem,
  display: string,
): SecretValues {
  const values: SecretValues = {};
  const issues: SpecIssue[] = [];
  const fail = (path: IssuePath, message: string) => issues.push({ path, message, severity: "error" });
  for (const { id, ref } of secretReferences(spec)) {
    if ("env" in ref) {
      const v = io.env[ref.env];
      if (v === undefined || v === "") fail(SECRET_KINDS[id].path, `environment variable ${ref.env} is not set`);
      else values[id] = v;
    } else {
      const file = isAbsolute(ref.file) ? ref.file : join(dirname(specPath), ref.file);
      try {
        values[id] = fs.readText(file).replace(/\r?\n$/, "");
      } catch (e) {
        fail(
          SECRET_KINDS[id].path,
          `cannot read secret file ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
        );
      }
    }
  }
  for (const issue of checkSecretValues(values)) fail(issue.path, issue.message);
  if (issues.length > 0) throw new CliError(formatIssues(locateIssues(specText, issues), display));
  return values;
}
