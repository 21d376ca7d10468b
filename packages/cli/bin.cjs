#!/usr/bin/env node
// The `clusterspec` command: runs the bundle dist-bin/main.cjs through a V8 code cache (and, for a spec with
// free-form parts, dist-chunks/schemas.cjs through one of its own).
//
// Compiling the bundle's functions is a third of a small run's CPU time. V8 can save the code a run compiled and
// load it in the next run instead (what Node 22's module.enableCompileCache does; Node 20 has no such switch, so
// this file does it for the one script it loads).
//
// A cache is code that runs, so where it comes from matters. Like Node 22's compile cache it lives in the temporary
// folder, per user (`clusterspec-code-<uid>`), not with generate's records in ~/.cache, which CI jobs save and
// restore (a cache restored from another job's run would be code from that job). It is used only when the
// temporary folder can be changed by no one but this user or root (or is sticky, as /tmp is) and the cache folder
// and file are this user's alone, not links. Each cache is named by the bundle file's identity (device, inode,
// size, modification and change times, once they are 2 s old: V8's own check compares only the text's length),
// Node's version, the CPU, Node's options and the command. V8 checksums the cache's body (--verify-snapshot-checksum:
// on by default only in debug builds). CLUSTERSPEC_CACHE_DIR=off turns it off.
// CommonJS on purpose: an ES module entry would start Node's ES module loader for nothing.
"use strict";
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const vm = require("node:vm");

const v8 = require("node:v8");

// Node's own modules come with code caches that V8 takes only under the flags they were made with, so whatever the
// command loads after the flags below change is compiled from source (NODE_DEBUG_NATIVE=CODE_CACHE lists each as
// "rejected"). Loaded first, then: what every command uses, and node:crypto (with its 30 modules) for generate,
// the one command that needs it. 2% fewer instructions for the bare-metal example.
require("node:util").parseArgs; // a lazily loaded part of util
require("node:process"); // yaml's Node build requires it
if (process.argv[2] === "generate") require("node:crypto");

// No optimizing compiler: a run is too short for TurboFan's compile (on a second thread) to pay for itself. Measured
// with `pnpm bench`: 14-28% less CPU from the bare-metal example to 1,000 nodes, and no slower to finish.
v8.setFlagsFromString("--no-turbofan");
// The young generation keeps V8's own growth (twofold). Growing it sixteenfold at once (--semi-space-growth-factor=16)
// made the bare-metal example's 5 scavenges 2 and its instructions 4% fewer, but committing the 16 MiB semi-spaces
// in one collection cost more kernel time than the copies it saved: measured with whole processes, CPU time (user +
// sys) against node -e 0 by pairs, three runs of 15-25 pairs, 2.48× → 2.34× for a fresh write and 3.22× → 3.16× for a
// first run, 30 nodes × 254 VIPs 5.24× → 4.88×, 300 × 254 within noise; peak RSS lower at every size.

/** Caches kept: every command of a few builds and Node versions; the least recently used go. */
const KEEP_CACHES = 24;
/** How long ago the bundle must have changed to have a cache: FAT keeps times to 2 s, ext4's small inodes to 1 s. */
const SETTLED_NS = 2_000_000_000n;

/** The scripts compiled this run whose cache is to be (re)written when it ends: [cache file, script]. */
const toSave = [];
// After the command ran, so each cache holds every function it compiled; only after a success, so a first run
// that stopped at a bad spec does not leave a cache without the generators.
process.on("exit", (code) => {
  if (code === 0) for (const [file, script] of toSave) saveCache(file, script);
});
const bundle = path.join(__dirname, "dist-bin", "main.cjs");
run(bundle, require).main();

/**
 * Compiles `file` (a function expression: tsup.config.ts wraps it) through its code cache and calls it as Node's
 * module wrapper would, with `load` as its require and `loadChunk` for the chunks it loads on first use; returns
 * its exports. The text is compiled as read: no copy.
 */
function run(file, load) {
  const { source, identity } = readBundle(file);
  const cacheFile = codeCachePath(identity);
  const cached = cacheFile === undefined ? undefined : readOwnCache(cacheFile);
  const script = checksummed(() => new vm.Script(source, { filename: file, cachedData: cached }));
  if (cacheFile !== undefined && (cached === undefined || script.cachedDataRejected)) toSave.push([cacheFile, script]);
  const mod = { exports: {} };
  script.runInThisContext().call(mod.exports, mod.exports, load, mod, file, path.dirname(file), loadChunk);
  return mod.exports;
}

/** dist-chunks/<name>.cjs, a part of the command only some runs use (src/lazy-schemas.ts), with its own cache. */
function loadChunk(name, load) {
  return run(path.join(__dirname, "dist-chunks", `${name}.cjs`), load);
}

/**
 * The bundle's text and the identity of the file it was read from, or no identity where it may not be trusted yet.
 * Git's index tells a file unchanged by the same fields without reading it: a write changes the change time, which
 * no user can set (utimes sets it to now; on Windows it can be set, but no installer does), and a file put in its
 * place is another inode or has a new change time. Like git's "racy clean" rule, a file changed less than
 * SETTLED_NS ago gets no cache, as a file system that keeps times to a second or two could see a second write with
 * the same times; nor does one that changed while it was read.
 */
function readBundle(file) {
  const fd = fs.openSync(file, "r");
  try {
    const before = fs.fstatSync(fd, { bigint: true });
    // ASCII (the build checks it), so latin1 reads it exactly, in half the time of decoding UTF-8.
    const source = fs.readFileSync(fd, "latin1");
    const after = fs.fstatSync(fd, { bigint: true });
    const identity = identityOf(before);
    const settled = before.ctimeNs + SETTLED_NS <= BigInt(Date.now()) * 1_000_000n && identityOf(after) === identity;
    return { source, identity: settled ? identity : undefined };
  } finally {
    fs.closeSync(fd);
  }
}

function identityOf(stat) {
  return [stat.dev, stat.ino, stat.size, stat.mtimeNs, stat.ctimeNs].map((n) => n.toString(36)).join("-");
}

/** The cache for this bundle, Node, options and command; undefined where none may be used. */
function codeCachePath(identity) {
  if (identity === undefined || process.env.CLUSTERSPEC_CACHE_DIR === "off") return undefined;
  const tmp = os.tmpdir();
  if (!safeParent(tmp)) return undefined;
  const uid = process.getuid?.();
  const command = /^[a-z-]+$/.test(process.argv[2] ?? "") ? process.argv[2] : "other";
  // Node's own options can change V8's flags, and V8 rejects a cache made under other flags: one file per set,
  // so runs with and without them do not overwrite each other's cache.
  const flags = fnv1a(`${process.execArgv.join("\0")}\0${process.env.NODE_OPTIONS ?? ""}`);
  const name = `${identity}-node${process.version}-${process.arch}-${flags}`;
  return path.join(tmp, uid === undefined ? "clusterspec-code" : `clusterspec-code-${uid}`, `${name}-${command}.v8`);
}

/**
 * V8 writes a checksum into the code caches it makes and refuses one whose body does not match, but only while
 * --verify-snapshot-checksum is on (by default in debug builds only): a damaged file would otherwise be
 * deserialised as it is. The flag is process-wide: on only while our own cache is made or read.
 */
function checksummed(work) {
  v8.setFlagsFromString("--verify-snapshot-checksum");
  try {
    return work();
  } finally {
    v8.setFlagsFromString("--no-verify-snapshot-checksum");
  }
}

/** A short, stable name for a string (32-bit FNV-1a). */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Owned by this user and writable by no one else (where there are no uids, as on Windows, any). */
function ours(stat) {
  const uid = process.getuid?.();
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
}

/** The temporary folder: no one but us or root can rename what is in it (a sticky /tmp is fine). */
function safeParent(dir) {
  try {
    const stat = fs.statSync(dir);
    const uid = process.getuid?.();
    if (uid === undefined) return stat.isDirectory();
    const owner = stat.uid === uid || stat.uid === 0;
    return stat.isDirectory() && owner && ((stat.mode & 0o022) === 0 || (stat.mode & 0o1000) !== 0);
  } catch {
    return false;
  }
}

/** The cache folder: ours alone and not a link (checked by lstat, so a link put in its place is refused). */
function ownFolder(dir) {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && ours(stat);
  } catch {
    return false;
  }
}

function readOwnCache(file) {
  if (!ownFolder(path.dirname(file))) return undefined;
  let fd;
  try {
    // O_NONBLOCK: a FIFO in its place must not stall the command before fstat refuses it
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || !ours(stat) || stat.size > 64 * 2 ** 20) return undefined;
    return fs.readFileSync(fd);
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Written whole under a temporary name and renamed: concurrent runs each leave a complete cache or none. */
function saveCache(file, compiled) {
  const dir = path.dirname(file);
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
    } catch (e) {
      if (e.code !== "EEXIST") throw e;
    }
    if (!ownFolder(dir)) return;
    const body = checksummed(() => compiled.createCachedData());
    fs.writeFileSync(tmp, body, { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
    prune(dir);
  } catch {
    // a cache that cannot be written costs the next run its compile time, nothing else
    try {
      fs.unlinkSync(tmp);
    } catch {}
  }
}

/**
 * Upgrades and other Node versions leave caches no run reads again: past KEEP_CACHES, the least recently used
 * go (a cache is read on every run, so its access time says when it was last used, within the day relatime
 * allows; with noatime, when it was written). Only *.v8 files; whatever else is in the folder stays.
 */
function prune(dir) {
  const caches = fs
    .readdirSync(dir)
    .filter((n) => n.endsWith(".v8"))
    .map((n) => {
      const s = fs.lstatSync(path.join(dir, n));
      return { n, used: Math.max(s.atimeMs, s.mtimeMs) };
    })
    .sort((a, b) => b.used - a.used);
  for (const { n } of caches.slice(KEEP_CACHES)) fs.rmSync(path.join(dir, n), { force: true });
}
