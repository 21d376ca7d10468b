// All-or-nothing output that touches only what changed. A new folder is built beside the target and renamed
// into place. In an existing folder an unchanged tree is left alone (no write, mtimes kept); otherwise only
// changed and new files are staged beside the target, a journal naming every rename and removal is committed
// with one rename, and then applied. A failure before the commit leaves the old tree (the stage is dropped);
// a failure or kill after it is finished by rolling forward, at once or on the next run. A manifest records
// what clusterspec wrote; files it did not write are kept as they are and never overwritten without --force.
import { basename, dirname, join } from "node:path";
import type { Artifact } from "@clusterspec/core/types";
import { CliError } from "./errors.js";
import type { FileSystem } from "./fs.js";

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

export function readManifest(fs: FileSystem, outDir: string): Manifest | undefined {
  const path = join(outDir, MANIFEST);
  if (!fs.exists(path)) return undefined;
  try {
    const m = JSON.parse(fs.readText(path)) as Partial<Manifest>;
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
    tmp: join(parent, `.${basename(outDir)}.clusterspec-new`),
    old: join(parent, `.${basename(outDir)}.clusterspec-old`),
    journal: join(parent, `.${basename(outDir)}.clusterspec-journal.json`),
  };
}

/** What a committed write still has to do: staged files to move into the tree, then files to remove. */
interface Journal {
  readonly moves: readonly string[];
  readonly removes: readonly string[];
}

function readJournal(fs: FileSystem, path: string): Journal | undefined {
  if (!fs.exists(path)) return undefined;
  try {
    const j = JSON.parse(fs.readText(path)) as Partial<Journal>;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === "string");
    if (strings(j.moves) && strings(j.removes)) return { moves: j.moves, removes: j.removes };
  } catch {
    // a journal is renamed into place whole, so an unreadable one was never committed
  }
  return undefined;
}

/** Idempotent: a move whose staged file is gone was done, a removal of a missing file too. */
function applyJournal(fs: FileSystem, outDir: string, journal: Journal): void {
  const { tmp } = swapPaths(outDir);
  const made = new Set<string>();
  for (const f of journal.moves) {
    if (!fs.exists(join(tmp, f))) continue;
    const folder = dirname(join(outDir, f));
    if (!made.has(folder)) fs.mkdirp(folder);
    made.add(folder);
    fs.rename(join(tmp, f), join(outDir, f));
  }
  for (const f of journal.removes) {
    fs.removeTree(join(outDir, f));
    // folders the removal emptied go too, as they would have with a whole new tree
    for (let d = dirname(f); d !== "." && d !== "/" && d !== ""; d = dirname(d)) {
      const full = join(outDir, d);
      if (!fs.exists(full) || fs.listFiles(full).length > 0) break;
      fs.removeTree(full);
    }
  }
}

/**
 * Brings a folder that an interrupted run left behind to a whole tree: a committed journal is applied (the new
 * tree), an uncommitted stage is dropped (the old tree), and a swap stopped between its two renames is undone.
 */
export function recoverInterruptedWrite(fs: FileSystem, outDir: string): void {
  const { tmp, old, journal } = swapPaths(outDir);
  const committed = readJournal(fs, journal);
  if (committed && fs.exists(outDir)) applyJournal(fs, outDir, committed);
  if (!fs.exists(outDir) && fs.exists(old)) fs.rename(old, outDir);
  fs.removeTree(tmp);
  fs.removeTree(`${journal}.tmp`);
  fs.removeTree(journal);
  if (fs.exists(outDir)) fs.removeTree(old);
}

export interface WriteSummary {
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
}

export interface WriteOptions {
  readonly force: boolean;
  readonly secrets: SecretsMode;
}

export function writeTree(
  fs: FileSystem,
  outDir: string,
  artifacts: readonly Artifact[],
  options: WriteOptions,
): WriteSummary {
  recoverInterruptedWrite(fs, outDir);
  const manifest = readManifest(fs, outDir);
  if (options.secrets === "resolved" && manifest?.secrets === "placeholders" && !options.force)
    throw new CliError(
      `${outDir} holds a review tree with placeholder secrets (often committed); write resolved secrets to another folder`,
    );
  const existing = fs.listFiles(outDir).filter((f) => f !== MANIFEST);
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  const managed = new Set(manifest?.files ?? []);
  const foreign = existing.filter((f) => !byPath.has(f) && !managed.has(f));
  if (!manifest && foreign.length > 0 && !options.force)
    throw new CliError(
      `${outDir} holds ${foreign.length} file(s) clusterspec did not write (${foreign.slice(0, 3).join(", ")}${foreign.length > 3 ? ", …" : ""}); use an empty or new folder, or pass --force to keep them beside the generated files`,
    );
  const refused: string[] = [];
  const changed: Artifact[] = [];
  const stale: string[] = [];
  const onDisk = new Set(existing);
  for (const f of existing)
    if (!byPath.has(f) && managed.has(f)) stale.push(f);
    // Only files at generated paths are read: a file clusterspec did not write may be overwritten
    // only if it already holds exactly what would be written.
    else if (byPath.has(f) && fs.isSymlink(join(outDir, f))) refused.push(f);
  for (const a of artifacts) {
    const path = join(outDir, a.path);
    if (!onDisk.has(a.path) || refused.includes(a.path)) {
      if (!onDisk.has(a.path)) changed.push(a);
      continue;
    }
    const same = fs.readText(path) === a.content;
    if (!same && !managed.has(a.path) && !options.force) refused.push(a.path);
    else if (!same || fs.mode(path) !== modeOf(a)) changed.push(a);
  }
  if (refused.length > 0)
    throw new CliError(
      `refusing to overwrite ${refused.length} file(s) in ${outDir} that clusterspec did not write:\n` +
        `${refused.map((f) => `  ${f}`).join("\n")}\nmove them away or pass --force`,
    );
  const manifestText = renderManifest(artifacts, options.secrets);
  const manifestPath = join(outDir, MANIFEST);
  const manifestChanged = !fs.exists(manifestPath) || fs.readText(manifestPath) !== manifestText;
  const summary = { written: changed.length, unchanged: artifacts.length - changed.length, removed: stale.length };
  if (changed.length === 0 && stale.length === 0 && !manifestChanged) return summary;

  const { tmp, journal } = swapPaths(outDir);
  fs.mkdirp(dirname(outDir));
  const fresh = !fs.exists(outDir);
  // Staged: every changed file (a new folder: every file), then the manifest.
  const staged = fresh ? artifacts : changed;
  const made = new Set<string>(); // one mkdir per folder, not per file: thousands of files share a few hundred
  try {
    for (const a of staged) {
      const target = join(tmp, a.path);
      const folder = dirname(target);
      if (!made.has(folder)) fs.mkdirp(folder);
      made.add(folder);
      fs.writeFile(target, a.content, modeOf(a));
    }
    if (fresh || manifestChanged) {
      if (!made.has(tmp)) fs.mkdirp(tmp); // a change to the manifest alone stages no other file
      fs.writeFile(join(tmp, MANIFEST), manifestText, 0o644);
    }
    if (fresh) {
      fs.rename(tmp, outDir);
      return summary;
    }
    // The commit point: one rename makes the whole change set durable intent.
    const moves = [...staged.map((a) => a.path), ...(manifestChanged ? [MANIFEST] : [])];
    fs.writeFile(`${journal}.tmp`, `${JSON.stringify({ moves, removes: stale } satisfies Journal)}\n`, 0o644);
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
