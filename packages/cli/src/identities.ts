// The previous tree's identities.json: the VIP priority orders a run carries forward (DESIGN-27, decision 2). It is
// read from the output folder, which anyone who can write the tree can change, so it is read as untrusted input:
// a regular file only (a symbolic link there is refused, never followed), of a bounded size, and checked field by
// field; a malformed one stops the run (exit 2) before anything is written.
import { join } from "node:path";
import type { Identities } from "@clusterspec/core/types";
import { CliError } from "./errors.js";
import { count, describeFsError, type FileSystem, isFsError, UnreadableFileError } from "./fs.js";

/** The file's name at the top of the output folder (core's IDENTITIES_FILE; here so that naming it loads no core). */
export const IDENTITIES_FILE = "identities.json";

/** Far above any real one: 1,000 nodes in each of 255 VIPs' orders is about 4 MB. */
export const IDENTITIES_MAX_BYTES = 32 * 1024 * 1024;

/** What the output folder carries, if anything: the parsed value and the text (an input of the tree). */
export interface PreviousIdentities {
  readonly identities: Identities | undefined;
  /** The file's text as read (undefined: there is none); the unchanged-tree shortcut digests it. */
  readonly text: string | undefined;
}

const NONE: PreviousIdentities = { identities: undefined, text: undefined };

/** Reads and checks `<outDir>/identities.json` when it exists. */
export function readIdentities(fs: FileSystem, outDir: string): Promise<PreviousIdentities> {
  return readIdentitiesFile(fs, join(outDir, IDENTITIES_FILE));
}

/**
 * `readIdentities` for a folder that is only read (`--check`, `explain`): nothing when `outDir` is not a real folder,
 * so a folder replaced by a link is never read through (the command refuses or ignores it itself).
 */
export async function readFolderIdentities(fs: FileSystem, outDir: string): Promise<PreviousIdentities> {
  return fs.kind(outDir) === "dir" ? readIdentities(fs, outDir) : NONE;
}

/** Reads and checks an identities file at `path` when it exists (`changes --identities <file>`). */
export async function readIdentitiesFile(fs: FileSystem, path: string): Promise<PreviousIdentities> {
  const text = readIdentitiesText(fs, path);
  return text === undefined ? NONE : checkIdentities(path, text);
}

/**
 * The text of an identities file at `path` as readIdentitiesFile reads it (a regular file only, never through a
 * link, of a bounded size), not yet checked; undefined when there is none. Loads no core: `generate` digests the
 * text for its unchanged-tree shortcut first, and checks it (checkIdentities) only when it generates.
 */
export function readIdentitiesText(fs: FileSystem, path: string): string | undefined {
  let kind: ReturnType<FileSystem["kind"]>;
  try {
    kind = fs.kind(path);
  } catch (e) {
    // A folder that cannot hold one (a file on the way, no permission): the write names that problem itself.
    if (isFsError(e)) return undefined;
    throw e;
  }
  if (kind === undefined) return undefined;
  try {
    return fs.readRegular(path, IDENTITIES_MAX_BYTES, { noFollow: true });
  } catch (e) {
    if (e instanceof UnreadableFileError)
      throw CliError.of(
        "filesystem",
        `cannot read ${path}, the VIP priority orders of the last run: ${e.message}; it must be the file clusterspec wrote`,
      );
    if (isFsError(e)) throw CliError.of("filesystem", `cannot read ${path}: ${describeFsError(e, fs, path)}`);
    throw e;
  }
}

/** The text read from `path` (readIdentitiesText), checked field by field: a malformed one is a CliError (exit 2). */
export async function checkIdentities(path: string, text: string): Promise<PreviousIdentities> {
  const { identitiesPath, parseIdentities } = await import("@clusterspec/core");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw CliError.of(
      "identities",
      `${path} is not JSON (${(e as Error).message}): restore the file clusterspec wrote (git checkout), or delete it to start from the positional orders, which may move VIPs`,
    );
  }
  const parsed = parseIdentities(value);
  if (!parsed.ok) {
    const shown = parsed.issues.slice(0, 5).map((i) => `${identitiesPath(i.path) || "the top level"}: ${i.message}`);
    const more = parsed.issues.length - shown.length;
    throw CliError.of(
      "identities",
      `${path} is not an identities.json clusterspec wrote: ${shown.join("; ")}${more > 0 ? ` (and ${count(more)} more)` : ""}. Restore the file clusterspec wrote (git checkout), or delete it to start from the positional orders, which may move VIPs`,
    );
  }
  return { identities: parsed.value, text };
}
