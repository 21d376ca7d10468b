#!/usr/bin/env node
// The `clusterspec` command: runs the one-file bundle dist-bin/main.cjs through a V8 code cache.
//
// Compiling the bundle's functions is a third of a small run's CPU time. V8 can save the code a run compiled and
// load it in the next run instead (what Node 22's module.enableCompileCache does; Node 20 has no such switch, so
// this file does it for the one script it loads). The cache sits with generate's other records: in
// $CLUSTERSPEC_CACHE_DIR, else $XDG_CACHE_HOME/clusterspec, else ~/.cache/clusterspec (input-digest.ts has the same
// rule); CLUSTERSPEC_CACHE_DIR=off turns it off. A cache is code that runs, so it is used only from a folder and
// file this user owns that nobody else may write; it is named by the bundle's content hash (V8's own check
// compares only the source's length), Node's version and the CPU, and V8 rejects one made with other flags.
// CommonJS on purpose: an ES module entry would start Node's ES module loader for nothing.
"use strict";
const fs = require("node:fs");
const path = require("node:path");
const vm = require("node:vm");

// No optimizing compiler: a run is too short for TurboFan's compile (on a second thread) to pay for itself. Measured
// with `pnpm bench`: 14-28% less CPU from the bare-metal example to 1,000 nodes, and no slower to finish.
require("node:v8").setFlagsFromString("--no-opt");

const bundle = path.join(__dirname, "dist-bin", "main.cjs");
// ASCII (the build checks it), so latin1 reads it exactly, in half the time of decoding UTF-8.
const source = fs.readFileSync(bundle, "latin1");
const cacheFile = codeCachePath();
const usable = cacheFile !== undefined && folderUsable(path.dirname(cacheFile));
const cached = usable ? readOwnFile(cacheFile) : undefined;
// The wrapper's opening takes a line of its own, so the bundle's lines keep their columns (stack.ts: WRAPPER_LINES).
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {\n${source}\n})`, {
  filename: bundle,
  cachedData: cached,
});
const mod = { exports: {} };
script.runInThisContext().call(mod.exports, mod.exports, require, mod, bundle, path.dirname(bundle));
if (usable && (cached === undefined || script.cachedDataRejected))
  // After the command ran, so the cache holds every function it compiled; only after a success, so a first run
  // that stopped at a bad spec does not leave a cache without the generators.
  process.on("exit", (code) => {
    if (code === 0) saveCache(cacheFile, script);
  });
mod.exports.main();

function codeCachePath() {
  const env = process.env;
  if (env.CLUSTERSPEC_CACHE_DIR === "off") return undefined;
  const dir =
    env.CLUSTERSPEC_CACHE_DIR ||
    (env.XDG_CACHE_HOME ? path.join(env.XDG_CACHE_HOME, "clusterspec") : undefined) ||
    (env.HOME ? path.join(env.HOME, ".cache", "clusterspec") : undefined);
  if (!dir) return undefined;
  let build;
  try {
    build = fs
      .readFileSync(path.join(__dirname, "dist-bin", "build-id"), "utf8")
      .trim()
      .slice(0, 32);
  } catch {
    return undefined; // no content hash, no safe name
  }
  const command = /^[a-z-]+$/.test(process.argv[2] ?? "") ? process.argv[2] : "other";
  // Node's own options can change V8's flags, and V8 rejects a cache made under other flags: one file per set,
  // so runs with and without them do not overwrite each other's cache.
  const flags = fnv1a(`${process.execArgv.join("\0")}\0${env.NODE_OPTIONS ?? ""}`);
  return path.join(dir, "code", `${build}-node${process.version}-${process.arch}-${flags}-${command}.v8`);
}

// node:crypto is loaded by Node's start-up already; node:zlib's crc32 would cost a module load.
function sha256(bytes) {
  return require("node:crypto").createHash("sha256").update(bytes).digest();
}

/** A short, stable name for a string (32-bit FNV-1a); loading node:crypto for it would cost more than it saves. */
function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** Only this user may have written it: owned by us and not writable by group or others, the folder too. */
function trusted(stat) {
  const uid = process.getuid?.();
  return uid === undefined || (stat.uid === uid && (stat.mode & 0o022) === 0);
}

/** A missing folder is made (0700) when the cache is saved; an existing one must be ours alone, not a link. */
function folderUsable(dir) {
  try {
    const stat = fs.lstatSync(dir);
    return stat.isDirectory() && trusted(stat);
  } catch (e) {
    return e.code === "ENOENT";
  }
}

function readOwnFile(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || !trusted(stat) || stat.size > 64 * 2 ** 20) return undefined;
    // V8 checks a cache's header but, in release builds, not its body: the file carries its own SHA-256 first.
    const bytes = fs.readFileSync(fd);
    const body = bytes.subarray(32);
    return bytes.length > 32 && sha256(body).equals(bytes.subarray(0, 32)) ? body : undefined;
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}

/** Caches kept per folder: every command of a few builds and Node versions; older ones (by use) go. */
const KEEP_CACHES = 24;

/** Written whole under a temporary name and renamed: concurrent runs each leave a complete cache or none. */
function saveCache(file, compiled) {
  const tmp = `${file}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const body = compiled.createCachedData();
    fs.writeFileSync(tmp, Buffer.concat([sha256(body), body]), { mode: 0o600, flag: "wx" });
    fs.renameSync(tmp, file);
    prune(path.dirname(file));
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
      const s = fs.statSync(path.join(dir, n));
      return { n, used: Math.max(s.atimeMs, s.mtimeMs) };
    })
    .sort((a, b) => b.used - a.used);
  for (const { n } of caches.slice(KEEP_CACHES)) fs.rmSync(path.join(dir, n), { force: true });
}
