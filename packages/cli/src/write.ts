// All-or-nothing output: the new tree is built beside the target and swapped in with renames, so a
// failure at any point leaves the previous tree as it was. A manifest records what clusterspec wrote;
// files it did not write are carried over untouched and never deleted.
import { basename, dirname, join } from "node:path";
import type { Artifact } from "@clusterspec/core";
import { createTwoFilesPatch } from "diff";
import { CliError } from "./errors.js";
import type { FileSystem } from "./fs.js";

export const MANIFEST = ".clusterspec-manifest.json";

function readManifest(fs: FileSystem, outDir: string): Set<string> | undefined {
  const path = join(outDir, MANIFEST);
  if (!fs.exists(path)) return undefined;
  try {
    const parsed = JSON.parse(fs.readText(path)) as { files?: unknown };
    if (Array.isArray(parsed.files) && parsed.files.every((f) => typeof f === "string")) return new Set(parsed.files);
  } catch {
    // fall through: an unreadable manifest is treated as none, which only makes the tool more careful
  }
  return undefined;
}

const modeOf = (a: Artifact): number => a.mode ?? (a.secret ? 0o600 : 0o644);

export interface WriteSummary {
  readonly written: number;
  readonly unchanged: number;
  readonly removed: number;
}

export function writeTree(
  fs: FileSystem,
  outDir: string,
  artifacts: readonly Artifact[],
  options: { force: boolean },
): WriteSummary {
  const manifest = readManifest(fs, outDir);
  const existing = fs.listFiles(outDir).filter((f) => f !== MANIFEST);
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  const managed = (f: string): boolean => manifest?.has(f) ?? false;
  const keep: string[] = [];
  let removed = 0;
  let unchanged = 0;
  const refused: string[] = [];
  for (const f of existing) {
    const a = byPath.get(f);
    const current = fs.readText(join(outDir, f));
    if (a) {
      if (current === a.content) unchanged++;
      else if (!managed(f) && !options.force) refused.push(f);
    } else if (managed(f)) removed++;
    else keep.push(f);
  }
  if (refused.length > 0)
    throw new CliError(
      `clusterspec: refusing to overwrite ${refused.length} file(s) in ${outDir} that clusterspec did not write:\n` +
        `${refused.map((f) => `  ${f}`).join("\n")}\nmove them away or pass --force`,
    );

  const parent = dirname(outDir);
  const tmp = join(parent, `.${basename(outDir)}.clusterspec-new`);
  const old = join(parent, `.${basename(outDir)}.clusterspec-old`);
  fs.mkdirp(parent);
  fs.removeTree(tmp);
  fs.removeTree(old);
  try {
    for (const a of artifacts) {
      const target = join(tmp, a.path);
      fs.mkdirp(dirname(target));
      fs.writeFile(target, a.content, modeOf(a));
    }
    for (const f of keep) {
      fs.mkdirp(dirname(join(tmp, f)));
      fs.copyFile(join(outDir, f), join(tmp, f));
    }
    const files = artifacts.map((a) => a.path).sort();
    fs.writeFile(join(tmp, MANIFEST), `${JSON.stringify({ generator: "clusterspec", files }, null, 2)}\n`, 0o644);
  } catch (e) {
    fs.removeTree(tmp);
    throw e;
  }
  const hadOld = fs.exists(outDir);
  try {
    if (hadOld) fs.rename(outDir, old);
  } catch (e) {
    fs.removeTree(tmp);
    throw e;
  }
  try {
    fs.rename(tmp, outDir);
  } catch (e) {
    if (hadOld) fs.rename(old, outDir);
    fs.removeTree(tmp);
    throw e;
  }
  fs.removeTree(old);
  return { written: artifacts.length - unchanged, unchanged, removed };
}

export interface Drift {
  readonly path: string;
  readonly patch: string;
}

/** Unified diffs of every changed, missing and stale file; empty when the tree is up to date. */
export function diffTree(fs: FileSystem, outDir: string, artifacts: readonly Artifact[]): Drift[] {
  const manifest = readManifest(fs, outDir);
  const onDisk = new Set(fs.listFiles(outDir).filter((f) => f !== MANIFEST));
  const drift: Drift[] = [];
  for (const a of artifacts) {
    const current = onDisk.has(a.path) ? fs.readText(join(outDir, a.path)) : undefined;
    if (current === a.content) continue;
    const oldName = current === undefined ? "/dev/null" : `a/${a.path}`;
    drift.push({ path: a.path, patch: createTwoFilesPatch(oldName, `b/${a.path}`, current ?? "", a.content) });
  }
  const generated = new Set(artifacts.map((a) => a.path));
  // Without a manifest the folder is taken to be entirely generated (golden trees written by the test runner).
  for (const f of [...onDisk].sort()) {
    if (generated.has(f) || (manifest && !manifest.has(f))) continue;
    drift.push({ path: f, patch: createTwoFilesPatch(`a/${f}`, "/dev/null", fs.readText(join(outDir, f)), "") });
  }
  return drift;
}
