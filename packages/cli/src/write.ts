// All-or-nothing output: the new tree is built beside the target and swapped in with renames, so a
// failure at any point leaves the previous tree as it was (and a swap cut short is finished on the next
// run). A manifest records what clusterspec wrote; files it did not write are carried over as they are
// and never deleted or overwritten without --force.
import { basename, dirname, join } from "node:path";
import type { Artifact } from "@clusterspec/core/types";
import { createTwoFilesPatch } from "diff";
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

function readManifest(fs: FileSystem, outDir: string): Manifest | undefined {
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

const modeOf = (a: Artifact): number => a.mode ?? (a.secret ? 0o600 : 0o644);

function swapPaths(outDir: string): { tmp: string; old: string } {
  const parent = dirname(outDir);
  return {
    tmp: join(parent, `.${basename(outDir)}.clusterspec-new`),
    old: join(parent, `.${basename(outDir)}.clusterspec-old`),
  };
}

/** A previous run that stopped between its two renames left the old tree beside the target: put it back. */
function recoverInterruptedSwap(fs: FileSystem, outDir: string): void {
  const { tmp, old } = swapPaths(outDir);
  if (!fs.exists(outDir) && fs.exists(old)) fs.rename(old, outDir);
  fs.removeTree(tmp);
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
  recoverInterruptedSwap(fs, outDir);
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
  let removed = 0;
  let unchanged = 0;
  const refused: string[] = [];
  for (const f of existing) {
    const a = byPath.get(f);
    if (!a) {
      if (managed.has(f)) removed++;
      continue;
    }
    // Only files at generated paths are read: a file clusterspec did not write may be overwritten
    // only if it already holds exactly what would be written.
    if (fs.isSymlink(join(outDir, f))) refused.push(f);
    else if (fs.readText(join(outDir, f)) === a.content) unchanged++;
    else if (!managed.has(f) && !options.force) refused.push(f);
  }
  if (refused.length > 0)
    throw new CliError(
      `refusing to overwrite ${refused.length} file(s) in ${outDir} that clusterspec did not write:\n` +
        `${refused.map((f) => `  ${f}`).join("\n")}\nmove them away or pass --force`,
    );

  const { tmp, old } = swapPaths(outDir);
  fs.mkdirp(dirname(outDir));
  try {
    for (const a of artifacts) {
      const target = join(tmp, a.path);
      fs.mkdirp(dirname(target));
      fs.writeFile(target, a.content, modeOf(a));
    }
    for (const f of foreign) {
      fs.mkdirp(dirname(join(tmp, f)));
      fs.copyFile(join(outDir, f), join(tmp, f));
    }
    fs.writeFile(join(tmp, MANIFEST), renderManifest(artifacts, options.secrets), 0o644);
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
  /** changed: differs; missing: not on disk yet; stale: no longer generated; mode: not executable. */
  readonly kind: "changed" | "missing" | "stale" | "mode";
  /** A secret file: named, its content never shown. */
  readonly secret: boolean;
  readonly patch: string;
}

/**
 * Unified diffs of every changed, missing and stale file; empty when the tree is up to date.
 * Secret files are named but never shown: a --check log must not print a secret.
 */
export function diffTree(fs: FileSystem, outDir: string, artifacts: readonly Artifact[]): Drift[] {
  const manifest = readManifest(fs, outDir);
  const secretOnDisk = new Set([
    ...(manifest?.secretFiles ?? []),
    ...artifacts.filter((a) => a.secret).map((a) => a.path),
  ]);
  const onDisk = new Set(fs.listFiles(outDir).filter((f) => f !== MANIFEST));
  const hidden = (path: string, what: string) => `Secret file ${path} ${what} (content not shown)\n`;
  const drift: Drift[] = [];
  for (const a of artifacts) {
    const current = onDisk.has(a.path) ? fs.readText(join(outDir, a.path)) : undefined;
    const exec = (a.mode ?? 0) & 0o111;
    const modeDrift = current !== undefined && exec !== 0 && (fs.mode(join(outDir, a.path)) & 0o111) === 0;
    if (current === a.content && !modeDrift) continue;
    if (current === a.content) {
      drift.push({
        path: a.path,
        kind: "mode",
        secret: secretOnDisk.has(a.path),
        patch: `File ${a.path} is not executable (expected mode ${modeOf(a).toString(8)})\n`,
      });
      continue;
    }
    const kind = current === undefined ? "missing" : "changed";
    if (secretOnDisk.has(a.path)) {
      drift.push({
        path: a.path,
        kind,
        secret: true,
        patch: hidden(a.path, current === undefined ? "is missing" : "differs"),
      });
      continue;
    }
    const oldName = current === undefined ? "/dev/null" : `a/${a.path}`;
    drift.push({
      path: a.path,
      kind,
      secret: false,
      patch: createTwoFilesPatch(oldName, `b/${a.path}`, current ?? "", a.content),
    });
  }
  const generated = new Set(artifacts.map((a) => a.path));
  // Without a manifest the folder is taken to be entirely generated.
  for (const f of [...onDisk].sort()) {
    if (generated.has(f) || (manifest && !manifest.files.includes(f))) continue;
    drift.push({
      path: f,
      kind: "stale",
      secret: secretOnDisk.has(f),
      patch: secretOnDisk.has(f)
        ? hidden(f, "is no longer generated")
        : createTwoFilesPatch(`a/${f}`, "/dev/null", fs.readText(join(outDir, f)), ""),
    });
  }
  return drift;
}
