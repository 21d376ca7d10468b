// "Proven own": an entry beside or inside the output that clusterspec would act on (the lock, the journal, the
// stages, the previous tree, the manifest, the record of the last write) counts only when it is this user's own.
// A module of its own that runs nothing when it is loaded (the "up to date" shortcut imports it).
import { CliError } from "./errors.js";
import { describeKind, type EntryKind, type FileSystem } from "./fs.js";

/**
 * Refuses (exit 2, kind `refused`) an entry beside or inside the output that clusterspec would act on unless it is
 * provably this user's own: not a link, of the expected kind, owned by the running user and writable by no one
 * else. `shared: "own-group"` also accepts group write for the user's own primary group (what a umask of 002 gives
 * every file a user makes, e.g. a checked-out manifest); files clusterspec creates itself never need that. Nothing
 * when the entry is absent or the platform has no uids.
 */
export function proveOwn(
  fs: FileSystem,
  path: string,
  kind: "file" | "dir",
  what: string,
  outDir: string,
  shared: Shared = "none",
): void {
  if (process.getuid?.() === undefined) return;
  const found = fs.kind(path);
  if (found === undefined) return;
  const o = fs.owner(path);
  if (o === undefined) return;
  const why = whyNotOwn(found, o, kind, shared);
  if (why) throw notOwn(path, what, outDir, why);
}

/** Whether group write is accepted: never, or for the user's own primary group only (a umask of 002). */
export type Shared = "none" | "own-group";

/** Owner and permission bits of an entry, from lstat or from fstat of an open descriptor. */
export interface Ownership {
  readonly uid: number;
  readonly gid: number;
  readonly mode: number;
}

/** Why an entry of kind `found` with these owner and mode bits is not provably this user's own; undefined when it is. */
export function whyNotOwn(found: EntryKind, o: Ownership, kind: "file" | "dir", shared: Shared): string | undefined {
  const uid = process.getuid?.();
  if (uid === undefined) return undefined;
  const writableByGroup = (o.mode & 0o020) !== 0 && !(shared === "own-group" && o.gid === process.getgid?.());
  return found === "symlink"
    ? "is a symbolic link (never followed)"
    : found !== kind
      ? `is ${describeKind(found)}, where clusterspec keeps ${kind === "file" ? "a file" : "a folder"}`
      : o.uid !== uid
        ? `belongs to uid ${o.uid}, not to this run's user (uid ${uid})`
        : (o.mode & 0o002) !== 0 || writableByGroup
          ? `is writable by ${(o.mode & 0o002) !== 0 ? "other users" : "its group"} (mode ${o.mode.toString(8).padStart(4, "0")})`
          : undefined;
}

/** The refusal (exit 2, kind `refused`) of an entry that is not provably this user's own. */
export const notOwn = (path: string, what: string, outDir: string, why: string): CliError =>
  CliError.of(
    "refused",
    `refusing to use ${path}, ${what}: it ${why}, so it cannot be proven clusterspec's own; nothing was changed. Remove it once no clusterspec run is writing ${outDir}, then run again`,
  );
