// --check: what differs between a folder and a fresh generation, as unified diffs. Its own module so that `diff`
// is loaded only by a run that compares (the CLI imports this file on --check alone).
import { dirname, join } from "node:path";
import type { Artifact } from "@clusterspec/core/types";
import { createTwoFilesPatch } from "diff";
import { type FileSystem, UnreadableFileError } from "./fs.js";
import { MANIFEST, modeOf, readManifest } from "./write.js";

export interface Drift {
  readonly path: string;
  /** changed: differs; missing: not on disk yet; stale: no longer generated; mode: not executable. */
  readonly kind: "changed" | "missing" | "stale" | "mode";
  /** A secret file: named, its content never shown. */
  readonly secret: boolean;
  readonly patch: string;
}

/** Paths of files that hold secrets wherever clusterspec (or a tool beside it) writes them. */
const SECRET_PATH =
  /(^|\/)(auth\.conf|kubeadm\.yaml|peer-secrets\.yaml|id_(rsa|dsa|ecdsa|ed25519))$|(^|\/)wireguard\/|\.(key|pem|p12|pfx)$/i;

/** What a secret looks like inside a file: keepalived's password, WireGuard keys, kubeadm tokens, private keys, … */
const SECRET_SHAPES: readonly RegExp[] = [
  /^\s*auth_pass\s/m,
  /^\s*(PrivateKey|PresharedKey)\s*=/m,
  /^\s*(-\s*)?token:\s*\S/m,
  /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----/,
  /^\s*certificateKey:\s*\S/m,
  /\b(aws_secret_access_key|client-key-data|password|passwd|api[_-]?key|secret[_-]?key)["']?\s*[:=]\s*\S/im,
];

/** Whether a text holds something shaped like a secret. */
export const looksSecret = (text: string): boolean => SECRET_SHAPES.some((r) => r.test(text));

/** `a/b/c` → `a`, `a/b`. */
function ancestors(path: string): string[] {
  const out: string[] = [];
  for (let i = path.indexOf("/"); i >= 0; i = path.indexOf("/", i + 1)) out.push(path.slice(0, i));
  return out;
}

/** A file on disk that diffs may read: far larger than any generated file, and never a FIFO or device. */
const DIFF_READ_MAX_BYTES = 16 * 1024 * 1024;

/**
 * Unified diffs of every changed, missing and stale file; empty when the tree is up to date.
 * A file that holds or held a secret is named but never shown: one the generation or the manifest marks secret,
 * one at a secret's path (auth.conf, kubeadm.yaml, wireguard/…, *.key) and one whose old or new text looks like a
 * secret (auth_pass, PrivateKey =, token:, a PEM private key, …). A --check log must not print a secret.
 * A symbolic link anywhere in the tree (a file, a folder, the manifest) is reported as a link and never followed:
 * its target is neither read nor named, so a pull request cannot make --check print a file from outside the tree.
 */
export function diffTree(fs: FileSystem, outDir: string, artifacts: readonly Artifact[]): Drift[] {
  const manifest = readManifest(fs, outDir);
  const marked = new Set([...(manifest?.secretFiles ?? []), ...artifacts.filter((a) => a.secret).map((a) => a.path)]);
  const secret = (path: string, ...texts: (string | undefined)[]) =>
    marked.has(path) || SECRET_PATH.test(path) || texts.some((t) => t !== undefined && looksSecret(t));
  const listed = fs.listFiles(outDir);
  const onDisk = new Set(listed.filter((f) => f !== MANIFEST));
  // listFiles never walks into a linked folder; it lists the link itself, as it lists a linked file.
  const links = new Set(listed.filter((f) => fs.kind(join(outDir, f)) === "symlink"));
  const linkedFolder = (path: string): string | undefined => {
    for (let d = dirname(path); d !== "." && d !== "/" && d !== ""; d = dirname(d)) if (links.has(d)) return d;
    return undefined;
  };
  const hidden = (path: string, what: string) => `Secret file ${path} ${what} (content not shown)\n`;
  const link = (path: string, what: string) =>
    `${path} is a symbolic link${what}; --check never follows a link inside the compared folder (its target is not read): replace it with what clusterspec generates\n`;
  /** The file's text, or why it cannot be compared (a FIFO or device, a huge file, a link made since the walk). */
  const read = (path: string): { text: string } | { problem: string } => {
    try {
      return { text: fs.readRegular(join(outDir, path), DIFF_READ_MAX_BYTES, { noFollow: true }) };
    } catch (e) {
      if (e instanceof UnreadableFileError) return { problem: e.message };
      throw e;
    }
  };
  const drift: Drift[] = [];
  if (links.has(MANIFEST))
    drift.push({
      path: MANIFEST,
      kind: "changed",
      secret: false,
      patch: link(MANIFEST, ", where clusterspec writes its manifest"),
    });
  for (const a of artifacts) {
    if (linkedFolder(a.path) !== undefined) continue; // reported once, as the link
    if (links.has(a.path)) {
      drift.push({
        path: a.path,
        kind: "changed",
        secret: secret(a.path, a.content),
        patch: link(a.path, ", where clusterspec writes a file"),
      });
      continue;
    }
    const got = onDisk.has(a.path) ? read(a.path) : undefined;
    if (got && "problem" in got) {
      drift.push({
        path: a.path,
        kind: "changed",
        secret: secret(a.path, a.content),
        patch: `File ${a.path} cannot be compared: ${got.problem}\n`,
      });
      continue;
    }
    const current = got?.text;
    const exec = (a.mode ?? 0) & 0o111;
    const modeDrift = current !== undefined && exec !== 0 && (fs.mode(join(outDir, a.path)) & 0o111) === 0;
    if (current === a.content && !modeDrift) continue;
    const isSecret = secret(a.path, a.content, current);
    if (current === a.content) {
      drift.push({
        path: a.path,
        kind: "mode",
        secret: isSecret,
        patch: `File ${a.path} is not executable (expected mode ${modeOf(a).toString(8)})\n`,
      });
      continue;
    }
    const kind = current === undefined ? "missing" : "changed";
    if (isSecret) {
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
  const generatedFolders = new Set(artifacts.flatMap((a) => ancestors(a.path)));
  for (const f of [...onDisk].sort()) {
    if (generated.has(f)) continue;
    if (links.has(f) && generatedFolders.has(f)) {
      drift.push({
        path: f,
        kind: "changed",
        secret: false,
        patch: link(f, `, where clusterspec writes the folder ${f}/`),
      });
      continue;
    }
    if (manifest && !manifest.files.includes(f)) continue;
    if (links.has(f)) {
      const isSecret = marked.has(f) || SECRET_PATH.test(f);
      drift.push({ path: f, kind: "stale", secret: isSecret, patch: link(f, " and is no longer generated") });
      continue;
    }
    const got = marked.has(f) || SECRET_PATH.test(f) ? undefined : read(f);
    const text = got && "text" in got ? got.text : undefined;
    const isSecret = text === undefined ? got === undefined : secret(f, text);
    drift.push({
      path: f,
      kind: "stale",
      secret: isSecret,
      patch: isSecret
        ? hidden(f, "is no longer generated")
        : text === undefined
          ? `File ${f} is no longer generated (${got && "problem" in got ? got.problem : "unreadable"})\n`
          : createTwoFilesPatch(`a/${f}`, "/dev/null", text, ""),
    });
  }
  return drift;
}
