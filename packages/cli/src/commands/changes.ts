// `clusterspec changes <old-spec> <new-spec> [--format text|markdown] [--json]`: what the change does to each
// generated file and the ordered steps that make it live (@clusterspec/rollout). Writes nothing; exit 2 when a
// spec is not valid or a change is refused.
import { basename, dirname, join, relative, resolve } from "node:path";
import type { Identities } from "@clusterspec/core/types";
import { paint, useColor } from "../color.js";
import { CliError, EXIT_INVALID, EXIT_OK, UsageError } from "../errors.js";
import { describeFsError, isFsError, SPEC_MAX_BYTES, UnreadableFileError } from "../fs.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand, JSON_OPTION } from "./command.js";

const options = { format: { type: "string" }, identities: { type: "string" }, ...JSON_OPTION } as const;

export default defineCommand({
  name: "changes",
  help: COMMAND_HELP.changes,
  options,
  async run({ args, values, io, fs }) {
    if (args.length !== 2) throw new UsageError("expected two spec files: <old-spec> <new-spec>");
    const format = values.json ? "json" : (values.format ?? "text");
    if (format !== "text" && format !== "markdown" && format !== "json")
      throw new UsageError(`--format is text, markdown or json, not ${format}`);
    if (values.json && values.format !== undefined && values.format !== "json")
      throw new UsageError(`--json and --format ${values.format} contradict each other`);
    const [oldArg = "", newArg = ""] = args;
    if (oldArg === "-" || newArg === "-") throw new UsageError("changes reads two spec files, not standard input");
    const names = {
      oldSpec: oldArg,
      newSpec: newArg,
      outDir: relative(io.cwd, join(dirname(resolve(io.cwd, newArg)), "generated")) || ".",
    };
    const [{ changesJson, renderChangesMarkdown, renderChangesText }, { computeChanges }] = await Promise.all([
      import("../changes-output.js"),
      import("../changes.js"),
    ]);
    const read = (arg: string): string => {
      const path = resolve(io.cwd, arg);
      try {
        return fs.readRegular(path, SPEC_MAX_BYTES);
      } catch (e) {
        if (e instanceof UnreadableFileError) throw new CliError(`cannot read the spec: ${e.message}`, "filesystem");
        if (!isFsError(e)) throw e;
        throw new CliError(`cannot read the spec: ${describeFsError(e, fs, path)}`, "filesystem");
      }
    };
    let texts: { old: string; new: string };
    let identities: Identities | undefined;
    try {
      texts = { old: read(oldArg), new: read(newArg) };
      // The deployed tree's VIP orders: --identities, else the old spec's committed tree (generated/ beside it).
      const { readIdentitiesFile, IDENTITIES_FILE } = await import("../identities.js");
      const identitiesFile =
        values.identities === undefined
          ? join(dirname(resolve(io.cwd, oldArg)), "generated", IDENTITIES_FILE)
          : resolve(io.cwd, values.identities);
      identities = (await readIdentitiesFile(fs, identitiesFile)).identities;
      if (values.identities !== undefined && identities === undefined)
        throw new CliError(`cannot read ${values.identities}: there is no such file`, "filesystem");
    } catch (e) {
      if (!(e instanceof CliError)) throw e;
      if (format === "json")
        io.stdout(
          `${JSON.stringify({ schemaVersion: 1, command: "changes", old: oldArg, new: newArg, ok: false, errors: [{ severity: "error", code: e.kind, message: e.message, path: "" }], warnings: [] }, null, 2)}\n`,
        );
      else io.stderr(`✖ ${e.message}\n`);
      return e.code;
    }
    const outcome = await computeChanges(texts.old, texts.new, basename(newArg), identities);
    const errColor = useColor(io.env, () => io.isTTY?.stderr === true);
    if (!outcome.ok) {
      if (format === "json") io.stdout(changesJson(names, outcome));
      else {
        const { formatIssues } = await import("@clusterspec/core");
        const display = outcome.side === "old" ? basename(oldArg) : basename(newArg);
        io.stderr(
          `${formatIssues([...outcome.errors, ...outcome.warnings], display, { source: texts[outcome.side], color: errColor })}\n`,
        );
      }
      return EXIT_INVALID;
    }
    const { plan } = outcome;
    if (format !== "json" && outcome.warnings.length > 0) {
      const { formatIssues } = await import("@clusterspec/core");
      io.stderr(`${formatIssues(outcome.warnings, basename(newArg), { source: texts.new, color: errColor })}\n`);
    }
    if (format === "json") io.stdout(changesJson(names, outcome));
    else if (format === "markdown") io.stdout(renderChangesMarkdown(plan, names));
    else io.stdout(renderChangesText(plan, names, paint(useColor(io.env, () => io.isTTY?.stdout === true))));
    if (plan.refused.length > 0) {
      if (format !== "json")
        io.stderr(`${paint(errColor).red("✖")} ${plan.refused.length} change(s) refused: no steps are given\n`);
      return EXIT_INVALID;
    }
    return EXIT_OK;
  },
});
