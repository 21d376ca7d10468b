// --check: what differs between a folder and a fresh generation, as unified diffs. Its own module so that `diff`
// is loaded only by a run that compares (the CLI imports this file on --check alone).
import { join } from "node:path";
import type { Artifact } from "@clusterspec/core/types";
import { createTwoFilesPatch } from "diff";
import type { FileSystem } from "./fs.js";
import { MANIFEST, modeOf, readManifest } from "./write.js";

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
