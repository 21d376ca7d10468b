// All-or-nothing output that touches only what changed. A new folder is built beside the target and renamed
// into place. In an existing folder an unchanged tree is left alone (no write, mtimes kept); otherwise only
// changed and new files are staged beside the target, a journal naming every rename and removal is committed
// with one rename, and then applied. A failure before the commit leaves the old tree (the stage is dropped);
// a failure or kill after it is finished by rolling forward, at once or on the next run. A manifest records
// what clusterspec wrote; files it did not write are kept as they are and never overwritten without --force.
import { basename, dirname, join } from "node:path";
import type { Artifact } from "@clusterspec/core/types";
import { CliError } from "./errors.js";
import { describeKind, type FileSystem, UnreadableFileError, under } from "./fs.js";
import { acquireOutputLock, type LockProcess, nodeLockProcess } from "./lock.js";
import { notOwn, proveOwn, whyNotOwn } from "./prove-own.js";

export const MANIFEST = ".clusterspec-manifest.json";

export type SecretsMode = "placeholders" | "resolved";

export interface Manifest {
  readonly generator: "clusterspec";
  /** Whether the secret files hold placeholders (a review tree) or resolved secrets (a deployable tree). */
  readonly secrets: SecretsMode;
  readonly files: readonly string[];
  readonly secretFiles: readonly string[];
}

/** The manifest text for a tree: pure, so golden trees carry the same file the CLI writes. */
export function renderManifest(artifacts: readonly Artifact[], secrets: SecretsMode): string {
  const manifest: Manifest = {
    generator: "clusterspec",
    secrets,
    files: artifacts.map((a) => a.path).sort(),
    secretFiles: artifacts
      .filter((a) => a.secret)
      .map((a) => a.path)
      .sort(),
  };
  return `${JSON.stringify(manifest, null, 2)}\n`;
}

/** Far above the manifest of a 1,000-node tree. */
const MANIFEST_MAX_BYTES = 64 * 1024 * 1024;

/** The manifest of `outDir`; none when it is missing, unreadable, or not a regular file (a link is never followed). */
export function readManifest(fs: FileSystem, outDir: string): Manifest | undefined {
  const path = join(outDir, MANIFEST);
  if (fs.kind(path) === undefined) return undefined;
  try {
    const m = JSON.parse(fs.readRegular(path, MANIFEST_MAX_BYTES, { noFollow: true })) as Partial<Manifest>;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === "string");
    if (strings(m.files))
      return {
        generator: "clusterspec",
        secrets: m.secrets === "resolved" ? "resolved" : "placeholders",
        files: m.files,
        secretFiles: strings(m.secretFiles) ? m.secretFiles : [],
      };
  } catch {
    // fall through: an unreadable manifest is treated as none, which only makes the tool more careful
  }
  return undefined;
}

export const modeOf = (a: Artifact): number => a.mode ?? (a.secret ? 0o600 : 0o644);

function swapPaths(outDir: string): { tmp: string; old: string; journal: string } {
  const parent = dirname(outDir);
  return {
    // The stage of runs before per-run stages; a journal without `stage` names it.
    tmp: join(parent, `.${basename(outDir)}.clusterspec-new`),
    old: join(parent, `.${basename(outDir)}.clusterspec-old`),
    journal: join(parent, `.${basename(outDir)}.clusterspec-journal.json`),
  };
}

/** This run's own stage folder beside the target: two runs never share one, and a dead run's is recognisable. */
function stagePath(outDir: string, token: string): string {
  return `${swapPaths(outDir).tmp}.${token}`;
}

/** Stage folders of earlier runs, which only a run holding the lock may remove. */
function staleStages(fs: FileSystem, outDir: string): string[] {
  const prefix = basename(swapPaths(outDir).tmp);
  const parent = dirname(outDir);
  if (!fs.exists(parent)) return [];
  return fs
    .listDir(parent)
    .filter((n) => n === prefix || n.startsWith(`${prefix}.`))
    .map((n) => join(parent, n));
}

const JOURNAL_FORMAT = "clusterspec-journal/1";

/** What a committed write still has to do: staged files to move into the tree, then files to remove. */
interface Journal {
  readonly format: typeof JOURNAL_FORMAT;
  /** The real path of the folder it was written for: a journal is replayed only there. */
  readonly outDir: string;
  /** This run's stage folder beside the target, by name: the moves come from it. */
  readonly stage: string;
  readonly moves: readonly string[];
  readonly removes: readonly string[];
}

/** Far above the journal of a 1,000-node tree. */
const JOURNAL_MAX_BYTES = 64 * 1024 * 1024;

const refuseJournal = (path: string, outDir: string, why: string): CliError =>
  CliError.of(
    "refused",
    `refusing to replay ${path}: ${why}, so clusterspec did not write it for ${outDir}; nothing was changed. Remove it once no clusterspec run is writing ${outDir}, then run again`,
  );

/**
 * The committed journal beside `outDir`, proven to be one clusterspec wrote for this folder: this user's own (opened
 * once without following a link, its kind, owner and mode read from that open descriptor, and its text from the same
 * descriptor, so the file proven is the file read), its format, its folder, a stage name of this folder's, and every
 * path a clean relative path (no `..`, no absolute path) that stays inside the folder and the stage. Anything else
 * throws (CliError); none when there is no journal or it never was whole.
 */
function readJournal(fs: FileSystem, path: string, outDir: string): Journal | undefined {
  const what = `the write journal of ${outDir}`;
  let opened = false;
  let text: string;
  try {
    text = fs.readRegular(path, JOURNAL_MAX_BYTES, {
      noFollow: true,
      prove: (found) => {
        opened = true;
        const why = whyNotOwn(found.kind, found, "file", "none");
        if (why) throw notOwn(path, what, outDir, why);
      },
    });
  } catch (e) {
    if (e instanceof CliError) throw e;
    if (!opened && (e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    // O_NOFOLLOW refused the open: a link, never followed
    if (!opened && e instanceof UnreadableFileError)
      throw notOwn(path, what, outDir, "is a symbolic link (never followed)");
    if (!opened) throw e;
    return undefined; // proven own, but a journal is renamed into place whole, so an unreadable one was never committed
  }
  let j: Partial<Journal>;
  try {
    j = JSON.parse(text) as Partial<Journal>;
  } catch {
    return undefined; // likewise
  }
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === "string");
  if (j === null || typeof j !== "object" || j.format !== JOURNAL_FORMAT)
    throw refuseJournal(path, outDir, "it is not a clusterspec journal");
  if (j.outDir !== outDir) throw refuseJournal(path, outDir, "it names another folder");
  const stagePrefix = `${basename(swapPaths(outDir).tmp)}.`;
  if (
    typeof j.stage !== "string" ||
    !j.stage.startsWith(stagePrefix) ||
    !/^[\w-]+$/.test(j.stage.slice(stagePrefix.length))
  )
    throw refuseJournal(path, outDir, "its stage is not a stage folder of this folder");
  if (!strings(j.moves) || !strings(j.removes)) throw refuseJournal(path, outDir, "its lists are not lists of paths");
  const bad = [...j.moves, ...j.removes].find((f) => !isConfined(f));
  if (bad !== undefined)
    throw refuseJournal(path, outDir, `it names ${JSON.stringify(bad)}, a path outside the folder`);
  return { format: JOURNAL_FORMAT, outDir, stage: j.stage, moves: j.moves, removes: j.removes };
}

/** A clean relative posix path: no empty, `.` or `..` part, not absolute, no NUL. */
const isConfined = (f: string): boolean =>
  f.length > 0 && f.split("/").every((part) => part !== "" && part !== "." && part !== ".." && !part.includes("\0"));

/**
 * Checks, before anything is touched, that a journal acts only on this folder's own files: its stage is one of the
 * stage folders `stages` this run listed and proved its own, and is still this user's own folder; no folder on the
 * way to a path is a link (it would lead outside), each removal that is still to do is a file the manifest lists,
 * and each move that is still to do takes a regular file of this user's own from the stage. Returns the journal to
 * apply: without moves when its stage is gone (every move was done, the run was stopped while it cleaned up).
 */
function checkJournal(
  fs: FileSystem,
  outDir: string,
  path: string,
  journal: Journal,
  stages: readonly string[],
): Journal {
  const stage = join(dirname(outDir), journal.stage);
  const listed = stages.includes(stage);
  if (!listed && fs.kind(stage) !== undefined)
    throw refuseJournal(path, outDir, `its stage ${stage} is not one of the stage folders this run proved its own`);
  proveOwn(fs, stage, "dir", `the stage folder of the write journal of ${outDir}`, outDir);
  const moves = listed && fs.kind(stage) !== undefined ? journal.moves : [];
  const viaLink = (root: string, f: string): string | undefined => {
    for (let d = dirname(f); d !== "."; d = dirname(d)) if (fs.kind(join(root, d)) === "symlink") return d;
    return undefined;
  };
  const managed = new Set(readManifest(fs, outDir)?.files ?? []);
  for (const f of journal.removes) {
    const link = viaLink(outDir, f);
    if (link !== undefined)
      throw refuseJournal(path, outDir, `${join(outDir, link)} on the way to ${f} is a symbolic link`);
    const kind = fs.kind(join(outDir, f));
    if (kind !== undefined && kind !== "dir" && !managed.has(f))
      throw refuseJournal(path, outDir, `it removes ${f}, which the folder's manifest does not list`);
  }
  for (const f of moves) {
    const link = viaLink(outDir, f) ?? viaLink(stage, f);
    if (link !== undefined) throw refuseJournal(path, outDir, `${link} on the way to ${f} is a symbolic link`);
    const kind = fs.kind(join(stage, f));
    if (kind !== undefined && kind !== "file")
      throw refuseJournal(path, outDir, `its staged ${f} is ${describeKind(kind)}, not a file clusterspec wrote`);
    const owner = kind === undefined ? undefined : fs.owner(join(stage, f))?.uid;
    const uid = process.getuid?.();
    if (owner !== undefined && uid !== undefined && owner !== uid)
      throw refuseJournal(path, outDir, `its staged ${f} belongs to uid ${owner}, not to this run's user (uid ${uid})`);
  }
  return { ...journal, moves };
}

/**
 * Idempotent: a removal of a missing file was done, a move whose staged file is gone too. Removals come first, so a
 * stale file never stands where a new folder goes. Only files and links are removed, and only folders left empty:
 * a foreign entry (a FIFO, an empty folder, a file) below a generated folder keeps that folder.
 */
function applyJournal(fs: FileSystem, outDir: string, journal: Journal): void {
  const stage = join(dirname(outDir), journal.stage);
  for (const f of journal.removes) {
    const full = join(outDir, f);
    const kind = fs.kind(full);
    if (kind !== undefined && kind !== "dir") fs.removeFile(full);
    // folders the removal emptied go too, as they would have with a whole new tree
    for (let d = dirname(f); d !== "." && d !== "/" && d !== ""; d = dirname(d))
      if (!fs.removeEmptyDir(join(outDir, d))) break;
  }
  const made = new Set<string>();
  for (const f of journal.moves) {
    if (!fs.exists(join(stage, f))) continue;
    const folder = dirname(join(outDir, f));
    if (!made.has(folder)) fs.mkdirp(folder);
    made.add(folder);
    fs.rename(join(stage, f), join(outDir, f));
  }
}

/**
 * Brings a folder that an interrupted run left behind to a whole tree: a committed journal is applied (the new
 * tree), an uncommitted stage is dropped (the old tree), and a swap stopped between its two renames is undone.
 * Call it holding the folder's lock (writeTree does; recoverOutput takes it): it removes every run's stage.
 */
export function recoverInterruptedWrite(fs: FileSystem, outDir: string): void {
  const { old, journal } = swapPaths(outDir);
  // Everything acted on below is proven this user's own first (a shared folder such as /tmp lets anyone plant
  // these names), and the journal's every path confined to the folder and its stage: else exit 2, nothing touched.
  const stages = staleStages(fs, outDir);
  for (const stage of stages) proveOwn(fs, stage, "dir", `a stage folder of ${outDir}`, outDir);
  proveOwn(fs, `${journal}.tmp`, "file", `the uncommitted write journal of ${outDir}`, outDir);
  proveOwn(fs, old, "dir", `the previous tree of ${outDir}`, outDir, "own-group");
  const committed = readJournal(fs, journal, outDir);
  if (committed && fs.exists(outDir)) {
    proveOwn(fs, join(outDir, MANIFEST), "file", `the manifest of ${outDir}`, outDir, "own-group");
    applyJournal(fs, outDir, checkJournal(fs, outDir, journal, committed, stages));
  }
  if (!fs.exists(outDir) && fs.exists(old)) fs.rename(old, outDir);
  for (const stage of stages) fs.removeTree(stage);
  fs.removeTree(`${journal}.tmp`);
  fs.removeTree(journal);
  if (fs.exists(outDir)) fs.removeTree(old);
}

/** recoverInterruptedWrite under the folder's lock: what the next run does first, on its own. */
export function recoverOutput(fs: FileSystem, outDir: string, proc: LockProcess = nodeLockProcess): void {
  const target = resolveOutputDir(fs, outDir, "recover");
  proveParent(fs, target, "recover");
  const release = acquireOutputLock(fs, target, proc);
  try {
    proveParent(fs, target, "recover");
    recoverInterruptedWrite(fs, target);
  } finally {
    release();
  }
}

export interface WriteSummary {
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
}

export interface WriteOptions {
  readonly force: boolean;
  readonly secrets: SecretsMode;
  /** The process the lock names (tests: another pid or host); default this one. */
  readonly lock?: LockProcess;
}

/** Folders of kernel file systems: nothing clusterspec writes belongs there, and walking them never ends. */
const PSEUDO = ["/proc", "/sys", "/dev"];

/**
 * The folder a run writes: `-o` at a symbolic link is followed (the tree is written into the link's target, staged
 * beside it so the final renames stay on one file system); the root folder and kernel file systems are refused at
 * once, before anything is read.
 */
export function resolveOutputDir(fs: FileSystem, outDir: string, verb = "write into"): string {
  const kind = fs.kind(outDir);
  let real: string;
  if (kind === "symlink") {
    if (!fs.exists(outDir))
      throw CliError.of(
        "filesystem",
        `${outDir} is a symbolic link to a folder that does not exist: create its target or point -o at a real folder`,
      );
    real = fs.realPath(outDir);
    if (!fs.isDirectory(real))
      throw CliError.of(
        "filesystem",
        `${outDir} is a symbolic link to ${real}, which is not a folder: point -o at a folder`,
      );
  } else if (kind !== undefined) {
    if (kind !== "dir")
      throw CliError.of("filesystem", `${outDir} is ${describeKind(kind)}, where the output folder was expected`);
    real = fs.realPath(outDir);
  } else {
    // Not there yet: resolve the part that exists, so the stage and the lock sit beside the real target.
    let base = dirname(outDir);
    const rest = [basename(outDir)];
    while (!fs.exists(base) && dirname(base) !== base) {
      rest.unshift(basename(base));
      base = dirname(base);
    }
    real = join(fs.exists(base) ? fs.realPath(base) : base, ...rest);
  }
  if (real === "/" || dirname(real) === real)
    throw CliError.of("filesystem", `refusing to ${verb} ${real}, the root folder: name a folder of its own with -o`);
  const pseudo = PSEUDO.find((p) => real === p || real.startsWith(`${p}/`));
  if (pseudo)
    throw CliError.of(
      "filesystem",
      `refusing to ${verb} ${real}: ${pseudo} is a kernel file system, not a place for files; name another folder with -o`,
    );
  return real;
}

/**
 * Refuses (exit 2, kind `refused`) to write `target` unless the folder that holds it (and its lock, journal and
 * stages) is safe from other users: still the real folder it was resolved to (no link has appeared on the way),
 * owned by the running user or root, and, when its group or other users can write it, sticky (like /tmp: nobody
 * renames or removes another user's entries). Group write without the sticky bit is accepted for the user's own
 * primary group only (a umask of 002 in a checkout of the user's own), as proveOwn accepts it.
 */
function proveParent(fs: FileSystem, target: string, verb = "write"): void {
  const uid = process.getuid?.();
  if (uid === undefined) return;
  const parent = dirname(target);
  const o = fs.owner(parent);
  if (o === undefined) return; // not there: mkdirp makes it, and the proof after it (or under the lock) sees it
  const kind = fs.kind(parent);
  const mode = `mode ${o.mode.toString(8).padStart(4, "0")}`;
  const sticky = (o.mode & 0o1000) !== 0;
  const why =
    kind !== "dir"
      ? `is ${kind === undefined ? "gone" : describeKind(kind)}, where the folder holding the output was`
      : fs.realPath(parent) !== parent
        ? `is now reached through a symbolic link (to ${fs.realPath(parent)})`
        : o.uid !== uid && o.uid !== 0
          ? `belongs to uid ${o.uid}, neither this run's user (uid ${uid}) nor root`
          : !sticky && (o.mode & 0o002) !== 0
            ? `is writable by other users and not sticky (${mode})`
            : !sticky && (o.mode & 0o020) !== 0 && o.gid !== process.getgid?.()
              ? `is writable by its group (gid ${o.gid}, not this user's primary group) and not sticky (${mode})`
              : undefined;
  if (why)
    throw CliError.of(
      "refused",
      `refusing to ${verb} ${target}: the folder that holds it and its lock, journal and stages, ${parent}, ${why}, so another user could move links into it while clusterspec writes; nothing was changed. Name an output folder inside a folder of your own with -o (or inside a sticky shared folder such as /tmp)`,
    );
}

/**
 * Writes `artifacts` as the whole tree at `outDir`, holding the folder's lock (a second run exits 2 naming the
 * first): first recovers what an interrupted run left, then changes only what differs. Throws CliError for anything
 * the user must fix; the folder is then as it was.
 */
export function writeTree(
  fs: FileSystem,
  outDir: string,
  artifacts: readonly Artifact[],
  options: WriteOptions,
): WriteSummary {
  refuseCaseCollisions(artifacts);
  const target = resolveOutputDir(fs, outDir);
  // A folder another user made (in /tmp, before this run) or can write is theirs to rearrange under the write.
  const linkOwner = fs.kind(outDir) === "symlink" ? fs.owner(outDir)?.uid : undefined;
  if (linkOwner !== undefined && linkOwner !== process.getuid?.())
    proveOwn(fs, outDir, "dir", "the output folder named with -o", target);
  proveOwn(fs, target, "dir", "the output folder", target, "own-group");
  const proc = options.lock ?? nodeLockProcess;
  proveParent(fs, target);
  fs.mkdirp(dirname(target));
  proveParent(fs, target);
  const release = acquireOutputLock(fs, target, proc);
  try {
    // Proven again under the lock: the folder may have been made, or the way to it changed, since the proofs above.
    proveParent(fs, target);
    proveOwn(fs, target, "dir", "the output folder", target, "own-group");
    recoverInterruptedWrite(fs, target);
    return writeLocked(fs, target, artifacts, options, proc.token());
  } finally {
    release();
  }
}

/**
 * Two generated paths that differ only by case (or by Unicode normalisation) are one file on macOS and Windows: a
 * checkout there would keep one of them, silently. Refused before anything is read or written; the spec-level rule
 * on node and pool names makes this unreachable from a valid spec, this is the writer's own defence.
 */
function refuseCaseCollisions(artifacts: readonly Artifact[]): void {
  const seen = new Map<string, string>();
  const clashes: string[] = [];
  for (const a of artifacts) {
    // the file and every folder on its way: nodes/Web-1/… and nodes/web-1/… clash on the folder
    for (let i = a.path.indexOf("/"); ; i = a.path.indexOf("/", i + 1)) {
      const path = i < 0 ? a.path : a.path.slice(0, i);
      const key = path.normalize("NFC").toLowerCase();
      const first = seen.get(key);
      if (first === undefined) seen.set(key, path);
      else if (first !== path) {
        // the shallowest clash only: what lies below two clashing folders clashes too
        if (!clashes.includes(`${first} and ${path}`)) clashes.push(`${first} and ${path}`);
        break;
      }
      if (i < 0) break;
    }
  }
  if (clashes.length > 0)
    throw CliError.of(
      "refused",
      `refusing to write: ${clashes.length} pair(s) of generated paths differ only by case, one file on a case-insensitive file system (macOS, Windows):\n${list(clashes)}\nrename the nodes or pools so that their names differ by more than case`,
    );
}

const list = (paths: readonly string[], max = 10) =>
  `${paths
    .slice(0, max)
    .map((p) => `  ${p}`)
    .join("\n")}${paths.length > max ? `\n  … and ${paths.length - max} more` : ""}`;

/** Entries that would stand in the way of a generated file or folder, each with the reason. */
function obstacles(
  fs: FileSystem,
  outDir: string,
  artifacts: readonly Artifact[],
  onDisk: ReadonlySet<string>,
  managed: ReadonlySet<string>,
): string[] {
  if (!fs.exists(outDir)) return [];
  const out: string[] = [];
  const folders = new Map<string, boolean>(); // relative folder → exists as a real folder
  const folderOk = (d: string): boolean => {
    if (d === ".") return true;
    const known = folders.get(d);
    if (known !== undefined) return known;
    if (!folderOk(dirname(d))) {
      folders.set(d, false);
      return false;
    }
    const kind = fs.kind(join(outDir, d));
    const ok = kind === "dir";
    if (kind === "symlink")
      out.push(
        `${d} is a symbolic link, where clusterspec writes the folder ${d}/ (links inside the output are not followed): replace it with a real folder`,
      );
    else if (kind !== undefined && kind !== "dir" && !managed.has(d))
      out.push(`${d} is ${describeKind(kind)}, where clusterspec writes the folder ${d}/: move it away`);
    folders.set(d, ok);
    return ok;
  };
  for (const a of artifacts) {
    if (!folderOk(dirname(a.path))) continue;
    if (onDisk.has(a.path)) {
      if (fs.kind(under(outDir, a.path)) === "symlink")
        out.push(
          `${a.path} is a symbolic link, where clusterspec writes a file: replace it with the file or move it away`,
        );
      continue;
    }
    const kind = fs.kind(under(outDir, a.path));
    if (kind !== undefined)
      out.push(`${a.path} is ${describeKind(kind)}, where clusterspec writes a file: move it away`);
  }
  return out;
}

function writeLocked(
  fs: FileSystem,
  outDir: string,
  artifacts: readonly Artifact[],
  options: WriteOptions,
  token: string,
): WriteSummary {
  proveOwn(fs, join(outDir, MANIFEST), "file", `the manifest of ${outDir}`, outDir, "own-group");
  const manifest = readManifest(fs, outDir);
  // Never lifted by --force: --force keeps foreign files, it does not turn a committed review tree into a secret one.
  if (options.secrets === "resolved" && manifest?.secrets === "placeholders")
    throw new CliError(
      `${outDir} holds a review tree with placeholder secrets (often committed); write resolved secrets to another folder (--force does not change this)`,
    );
  const existing = fs.listFiles(outDir).filter((f) => f !== MANIFEST);
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  const managed = new Set(manifest?.files ?? []);
  const foreign = existing.filter((f) => !byPath.has(f) && !managed.has(f));
  if (!manifest && foreign.length > 0 && !options.force)
    throw new CliError(
      `${outDir} holds ${foreign.length} file(s) clusterspec did not write (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}); use an empty or new folder, or pass --force to keep them beside the generated files`,
    );
  const onDisk = new Set(existing);
  // A folder, FIFO, link or device where a generated file or folder goes is never replaced, even with --force.
  const blocked = obstacles(fs, outDir, artifacts, onDisk, managed);
  if (blocked.length > 0)
    throw CliError.of(
      "refused",
      `cannot write ${outDir}: ${blocked.length} entr${blocked.length === 1 ? "y stands" : "ies stand"} where generated files go:\n${list(blocked)}`,
    );
  const refused: string[] = [];
  const changed: Artifact[] = [];
  const stale: string[] = [];
  for (const f of existing) if (!byPath.has(f) && managed.has(f)) stale.push(f);
  for (const a of artifacts) {
    if (!onDisk.has(a.path)) {
      changed.push(a);
      continue;
    }
    // A file clusterspec did not write may be overwritten only if it already holds exactly what would be written.
    const path = under(outDir, a.path);
    const same = fs.readText(path) === a.content;
    if (!same && !managed.has(a.path) && !options.force) refused.push(a.path);
    else if (!same || fs.mode(path) !== modeOf(a)) changed.push(a);
  }
  if (refused.length > 0)
    throw new CliError(
      `refusing to overwrite ${refused.length} file(s) in ${outDir} that clusterspec did not write:\n` +
        `${list(refused)}\nmove them away or pass --force`,
    );
  const manifestText = renderManifest(artifacts, options.secrets);
  const manifestPath = join(outDir, MANIFEST);
  const manifestChanged = !fs.exists(manifestPath) || fs.readText(manifestPath) !== manifestText;
  const summary = { written: changed.length, unchanged: artifacts.length - changed.length, removed: stale.length };
  if (changed.length === 0 && stale.length === 0 && !manifestChanged) return summary;

  const tmp = stagePath(outDir, token);
  const { journal } = swapPaths(outDir);
  const fresh = !fs.exists(outDir);
  // Staged: every changed file (a new folder: every file), then the manifest.
  const staged = fresh ? artifacts : changed;
  // One mkdir per folder, not per file (thousands of files share a few thousand folders), and parents first: a
  // recursive mkdir would first fail on every missing folder of the chain. The stage folder is this run's own.
  const made = new Set<string>([tmp]);
  const makeFolder = (folder: string): void => {
    if (made.has(folder)) return;
    makeFolder(dirname(folder));
    fs.mkdir(folder);
    made.add(folder);
  };
  fs.mkdir(tmp); // never one that is already there: only this run's own, so the clean-up below removes only it
  try {
    for (const a of staged) {
      const slash = a.path.lastIndexOf("/");
      makeFolder(slash < 0 ? tmp : under(tmp, a.path.slice(0, slash)));
      const target = under(tmp, a.path);
      fs.writeFile(target, a.content, modeOf(a));
    }
    if (fresh || manifestChanged) fs.writeFile(join(tmp, MANIFEST), manifestText, 0o644);
    if (fresh) {
      fs.rename(tmp, outDir);
      return summary;
    }
    // The commit point: one rename makes the whole change set durable intent.
    const moves = [...staged.map((a) => a.path), ...(manifestChanged ? [MANIFEST] : [])];
    const body: Journal = { format: JOURNAL_FORMAT, outDir, stage: basename(tmp), moves, removes: stale };
    fs.writeFile(`${journal}.tmp`, `${JSON.stringify(body)}\n`, 0o644);
    fs.rename(`${journal}.tmp`, journal);
  } catch (e) {
    fs.removeTree(tmp);
    fs.removeTree(`${journal}.tmp`);
    throw e;
  }
  // Committed: from here on the only way out is forward, so a failing step is retried once by recovery.
  try {
    recoverInterruptedWrite(fs, outDir);
  } catch {
    recoverInterruptedWrite(fs, outDir);
  }
  return summary;
}
