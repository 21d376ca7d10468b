// The unchanged-tree shortcut of `generate`: when a digest of every input of the last successful write to a
// folder (spec bytes, spec name, the flags that shape the tree, every environment variable and file a secret
// reference read, the folder's identities.json, the clusterspec version and the identity of its code) matches a digest of the same inputs now,
// and the folder still holds byte for byte (and mode for mode) what that write left, nothing is generated: the
// folder is up to date. Anything else, or any doubt, takes the whole path (validate, plan, generate, write).
//
// The record lives outside the output folder, in clusterspec's cache folder, keyed by the folder's absolute
// path: the folder stays exactly the generated files (golden trees and their manifest unchanged), and the record,
// which digests resolved secrets when --with-secrets wrote them, is a 0600 file in the user's own cache.
// It is only a hint: the tree is always verified against it, and deleting it only costs one full run.
import { createHash, randomBytes } from "node:crypto";
import { basename, dirname, join } from "node:path";
import { type FileSystem, readSecretFile, under } from "./fs.js";
import { proveOwn } from "./prove-own.js";

const FORMAT = "clusterspec-input-digest/1";

/** Everything a generated tree is a function of. */
export interface Inputs {
  /** Identity of the running code (a content hash of the bundle): a rebuilt clusterspec regenerates. */
  readonly code: string;
  readonly version: string;
  readonly specText: string;
  /** The spec's name as the generated files and messages show it. */
  readonly sourceName: string;
  /** The options that shape the tree or the write (--with-secrets, --force), in a fixed order. */
  readonly flags: readonly string[];
  /** Environment variables read for secret references, with the value read (undefined: not set). */
  readonly env: readonly (readonly [string, string | undefined])[];
  /** Files read for secret references (absolute paths), with the content read (undefined: unreadable). */
  readonly files: readonly (readonly [string, string | undefined])[];
  /** The output folder's identities.json as read (undefined: none): the VIP priority orders carried forward. */
  readonly identities: string | undefined;
}

/** What a run reads besides the spec: collected by the secret resolver, replayed by the next run. */
export interface Reads {
  readonly env: [string, string | undefined][];
  readonly files: [string, string | undefined][];
}

export interface TreeRecord {
  readonly format: typeof FORMAT;
  readonly inputs: string;
  /** Digest of every file the write left (paths, modes, bytes), the manifest included. */
  readonly tree: string;
  readonly files: readonly string[];
  /** The generated files' count, for the "up to date" line. */
  readonly artifacts: number;
  /** Whether the tree holds placeholder secrets (the run then warns, as a full run does). */
  readonly placeholders: boolean;
  /** Names of the environment variables and files the last run read, to digest their values now. */
  readonly reads: { readonly env: readonly string[]; readonly files: readonly string[] };
}

/** SHA-256 of a text's UTF-8 bytes, in hex (also the file hashes of `generate --json`). */
export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

/** One digest of every input; the JSON array is an unambiguous encoding (null for an unset variable or unreadable file). */
export function inputDigest(inputs: Inputs): string {
  return sha256(
    JSON.stringify([
      FORMAT,
      inputs.code,
      inputs.version,
      inputs.sourceName,
      inputs.flags,
      inputs.specText,
      inputs.env.map(([k, v]) => [k, v ?? null]),
      inputs.files.map(([k, v]) => [k, v ?? null]),
      inputs.identities ?? null,
    ]),
  );
}

/**
 * Where the record of `outDir` lives: $CLUSTERSPEC_CACHE_DIR, else $XDG_CACHE_HOME/clusterspec, else
 * ~/.cache/clusterspec; none (no shortcut) when CLUSTERSPEC_CACHE_DIR is `off` or no home is known.
 */
export function recordPath(env: Readonly<Record<string, string | undefined>>, outDir: string): string | undefined {
  const own = env.CLUSTERSPEC_CACHE_DIR;
  if (own === "off") return undefined;
  const cache = own
    ? own
    : env.XDG_CACHE_HOME
      ? join(env.XDG_CACHE_HOME, "clusterspec")
      : env.HOME
        ? join(env.HOME, ".cache", "clusterspec")
        : undefined;
  return cache === undefined ? undefined : join(cache, "trees", `${sha256(outDir).slice(0, 32)}.json`);
}

/** Files an interrupted or concurrent write leaves beside the folder (write.ts): any of them means "not now". */
function writeInProgress(fs: FileSystem, outDir: string): boolean {
  const prefix = join(dirname(outDir), `.${basename(outDir)}.clusterspec-`);
  if (["new", "old", "journal.json", "journal.json.tmp", "lock"].some((s) => fs.exists(`${prefix}${s}`))) return true;
  // a run's own stage folder (write.ts names it .<name>.clusterspec-new.<token>)
  const stage = `.${basename(outDir)}.clusterspec-new.`;
  return fs.exists(dirname(outDir)) && fs.listDir(dirname(outDir)).some((n) => n.startsWith(stage));
}

// The tree digest detects edits, not attacks (whoever can write the tree can write the record): SHA-1, twice as
// fast as SHA-256 here, on the tens of MB a large tree holds.
const treeHash = () => createHash("sha1");

function treeEntry(hash: ReturnType<typeof createHash>, path: string, mode: number, content: string): void {
  hash.update(`${path}\0${mode.toString(8)}\0${Buffer.byteLength(content)}\0`);
  hash.update(content);
}

/** Far above any generated file: a larger file at a generated path is a change, not something to hash. */
const TREE_FILE_MAX_BYTES = 64 * 1024 * 1024;

/** The digest of the files as they are on disk now; undefined when one is missing, a symlink or unreadable. */
function treeOnDisk(fs: FileSystem, outDir: string, files: readonly string[]): string | undefined {
  const hash = treeHash();
  try {
    for (const f of files) {
      const path = under(outDir, f);
      if (fs.isSymlink(path)) return undefined;
      // never blocks: a FIFO (or anything but a regular file) where a generated file was is a change
      treeEntry(hash, f, fs.mode(path), fs.readRegular(path, TREE_FILE_MAX_BYTES));
    }
  } catch {
    return undefined;
  }
  return hash.digest("hex");
}

/** A record is a few hundred bytes per generated file. */
const RECORD_MAX_BYTES = 64 * 1024 * 1024;

/**
 * Whether the record at `path` (absent, or present) and its folder are this user's own. It decides that nothing is
 * written, so only a record of this user's own, in a folder of this user's own, counts; anything else is no record:
 * never read, never removed or replaced (it may be another user's file), and the run regenerates as without one.
 */
function ownRecord(fs: FileSystem, path: string, outDir: string): boolean {
  try {
    proveOwn(fs, dirname(path), "dir", `the folder of clusterspec's records of generated trees`, outDir, "own-group");
    proveOwn(fs, path, "file", `the record of the last write to ${outDir}`, outDir, "own-group");
    return true;
  } catch {
    return false; // the cache is best effort: a record that cannot be proven own costs speed only
  }
}

function readRecord(fs: FileSystem, path: string, outDir: string): TreeRecord | undefined {
  if (!ownRecord(fs, path, outDir)) return undefined;
  try {
    if (fs.kind(path) === undefined) return undefined;
    const r = JSON.parse(fs.readRegular(path, RECORD_MAX_BYTES, { noFollow: true })) as Partial<TreeRecord>;
    const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((f) => typeof f === "string");
    if (
      r.format === FORMAT &&
      typeof r.inputs === "string" &&
      typeof r.tree === "string" &&
      strings(r.files) &&
      typeof r.artifacts === "number" &&
      typeof r.placeholders === "boolean" &&
      strings(r.reads?.env) &&
      strings(r.reads?.files)
    )
      return r as TreeRecord;
  } catch {
    // an unreadable record is no record
  }
  return undefined;
}

/** The current values of what the last run read, in the same order. */
function readAgain(
  fs: FileSystem,
  env: Readonly<Record<string, string | undefined>>,
  reads: TreeRecord["reads"],
): Pick<Inputs, "env" | "files"> {
  return {
    env: reads.env.map((k) => [k, env[k]] as const),
    files: reads.files.map((f) => {
      try {
        // the full run's reader: a secret file that became a FIFO or a link to /dev/zero is unreadable, at once
        return [f, readSecretFile(fs, f)] as const;
      } catch {
        return [f, undefined] as const;
      }
    }),
  };
}

/**
 * The record of `outDir` when the folder is up to date with these inputs (same digest, every recorded file on disk
 * as it was written, no write in progress); undefined otherwise.
 */
export function upToDate(
  fs: FileSystem,
  recordAt: string,
  outDir: string,
  inputs: Omit<Inputs, "env" | "files">,
  env: Readonly<Record<string, string | undefined>>,
): TreeRecord | undefined {
  const record = readRecord(fs, recordAt, outDir);
  if (!record) return undefined;
  if (inputDigest({ ...inputs, ...readAgain(fs, env, record.reads) }) !== record.inputs) return undefined;
  if (writeInProgress(fs, outDir)) return undefined;
  return treeOnDisk(fs, outDir, record.files) === record.tree ? record : undefined;
}

/** Drops the record before a write begins, so that a run interrupted from here on never leaves a stale one. */
export function forget(fs: FileSystem, recordAt: string, outDir: string): void {
  if (!ownRecord(fs, recordAt, outDir)) return; // not ours to remove; never read either
  try {
    fs.removeTree(recordAt);
  } catch {
    // best effort: a record that cannot be removed is still verified against the tree
  }
}

/**
 * Records a successful write: the inputs as they were read, and the digest of the tree it left (the generated
 * files from memory, the manifest as written). Best effort: a cache that cannot be written costs speed only.
 */
export function remember(
  fs: FileSystem,
  recordAt: string,
  outDir: string,
  inputs: Inputs,
  tree: {
    readonly artifacts: readonly { readonly path: string; readonly content: string; readonly mode: number }[];
    readonly manifest: string;
    readonly placeholders: boolean;
  },
): void {
  if (!ownRecord(fs, recordAt, outDir)) return; // never replace what cannot be proven ours
  try {
    const entries = [
      ...tree.artifacts.map((a) => ({ path: a.path, mode: a.mode, read: () => a.content })),
      {
        path: tree.manifest,
        mode: fs.mode(join(outDir, tree.manifest)),
        read: () => fs.readText(join(outDir, tree.manifest)),
      },
    ].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    const hash = treeHash();
    for (const e of entries) treeEntry(hash, e.path, e.mode, e.read());
    const record: TreeRecord = {
      format: FORMAT,
      inputs: inputDigest(inputs),
      tree: hash.digest("hex"),
      files: entries.map((e) => e.path),
      artifacts: tree.artifacts.length,
      placeholders: tree.placeholders,
      reads: { env: inputs.env.map(([k]) => k), files: inputs.files.map(([f]) => f) },
    };
    const folder = dirname(recordAt);
    fs.mkdirp(folder);
    const tmp = `${recordAt}.${randomBytes(6).toString("hex")}.tmp`;
    fs.writeFile(tmp, `${JSON.stringify(record)}\n`, 0o600);
    fs.rename(tmp, recordAt);
  } catch {
    forget(fs, recordAt, outDir);
  }
}
