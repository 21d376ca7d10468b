// `clusterspec pin-vrids <spec> [--dry-run]`: the migration to VRIDs that follow the address. Writes each VIP's
// VRID as the old positional rule allocated it into the spec and removes externalVips.firstVrid, so an existing
// cluster keeps its numbering. Core's pinVridsInText edits the text (comments and layout survive); this replaces the
// file atomically (a temporary file beside it, renamed over it) with its mode kept, and refuses a symbolic link.
import { basename, dirname, join } from "node:path";
import type { SpecRun } from "./commands/on-spec.js";
import { CliError, EXIT_INVALID, EXIT_OK } from "./errors.js";
import { describeFsError, isFsError } from "./fs.js";

export async function runPinVrids(spec: SpecRun, dryRun: boolean): Promise<number> {
  const { io, fs, specPath, display } = spec;
  const fromStdin = spec.specArg === "-";
  if (!fromStdin && fs.kind(specPath) === "symlink")
    throw CliError.of(
      "refused",
      `${specPath} is a symbolic link: pin-vrids rewrites a spec in place and does not follow links; run it on the file the link points to`,
    );
  const text = spec.readSpec();
  const [{ pinVridsInText }, { formatIssues }] = await Promise.all([import("@clusterspec/core"), import("./spec.js")]);
  const result = pinVridsInText(text);
  if (!result.ok) {
    io.stderr(
      `${formatIssues([...result.errors, ...result.warnings], display, { source: text, color: spec.errColor })}\n`,
    );
    return EXIT_INVALID;
  }
  if (result.warnings.length > 0)
    io.stderr(`${formatIssues(result.warnings, display, { source: text, color: spec.errColor })}\n`);
  const { text: next, pinned, hasVips } = result.value;
  if (!hasVips) {
    io.stdout(
      `${spec.out.green("✔")} ${display} describes burst nodes for an existing cluster: no VIPs, nothing to pin\n`,
    );
    return EXIT_OK;
  }
  if (dryRun) {
    io.stdout(next);
    io.stderr(report(display, pinned, true));
    return EXIT_OK;
  }
  if (next === text) {
    io.stdout(`${spec.out.green("✔")} ${display}: every VRID is pinned already; nothing changed\n`);
    return EXIT_OK;
  }
  writeAtomically(spec, next);
  io.stdout(report(display, pinned, false));
  return EXIT_OK;
}

function report(display: string, pinned: readonly string[], dryRun: boolean): string {
  if (pinned.length === 0) return `${display}: every VRID is pinned already; nothing changed\n`;
  const head = dryRun
    ? `${display} would be rewritten (--dry-run: nothing written):`
    : `pinned the VRIDs in ${display}:`;
  return `${head}\n${pinned.map((p) => `  ${p}\n`).join("")}`;
}

/** Replaces the spec by a temporary file beside it (same folder: one rename), with the spec's mode. */
function writeAtomically(spec: SpecRun, content: string): void {
  const { fs, specPath } = spec;
  const tmp = join(dirname(specPath), `.${basename(specPath)}.pin-vrids.${process.pid}.tmp`);
  try {
    const mode = fs.owner(specPath)?.mode ?? 0o644;
    fs.removeFile(tmp); // a leftover of a killed run of this same process id
    fs.writeFile(tmp, content, mode);
    // The spec may have become a link since it was read: never rename over a link to somewhere else.
    if (fs.kind(specPath) === "symlink")
      throw CliError.of("refused", `${specPath} became a symbolic link while it was rewritten; nothing written`);
    fs.rename(tmp, specPath);
  } catch (e) {
    try {
      fs.removeFile(tmp);
    } catch {
      // the original error says what went wrong
    }
    if (isFsError(e)) throw new CliError(`cannot write ${specPath}: ${describeFsError(e, fs, specPath)}`, "filesystem");
    throw e;
  }
}
