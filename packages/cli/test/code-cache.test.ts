// bin.cjs keeps a V8 code cache of the command's bundle in the temporary folder: saved after a successful run, used
// by the next, replaced when V8 rejects it, and never read from or written to a folder someone else could change.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "packages", "cli", "bin.cjs");
const spec = join(repo, "examples", "bare-metal-ha", "cluster.yaml");
// caches are named by the bundle file's identity: device, inode, size, modification and change times
const identity = (bundle: string) => {
  const s = statSync(bundle, { bigint: true });
  return [s.dev, s.ino, s.size, s.mtimeNs, s.ctimeNs].map((n) => n.toString(36)).join("-");
};
const uid = process.getuid?.() ?? 0;

let work: string;
let tmp: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-code-cache-"));
  tmp = join(work, "tmp"); // the command's temporary folder (TMPDIR)
  mkdirSync(tmp, { mode: 0o700 });
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

/** `clusterspec validate` through `command` (bin.cjs or a copy of it), with the test's own temporary folder. */
function runValidate(file = spec, env: Record<string, string> = {}, command = bin) {
  return spawnSync(process.execPath, [command, "validate", file], {
    env: { PATH: process.env.PATH ?? "", TMPDIR: tmp, HOME: work, ...env },
    encoding: "utf8",
  });
}
const validate = (file = spec, env: Record<string, string> = {}) => runValidate(file, env).status;

const codeDir = () => join(tmp, `clusterspec-code-${uid}`);
const cacheFiles = () => (existsSync(codeDir()) ? readdirSync(codeDir()) : []);
const onlyCache = () => {
  const files = cacheFiles().filter((n) => n.endsWith(".v8"));
  expect(files).toHaveLength(1);
  return join(codeDir(), files[0] as string);
};

describe("the command's code cache", () => {
  it("is saved after a successful run, private, named by bundle, Node, CPU, flags and command; the next run keeps it", () => {
    expect(validate()).toBe(0);
    const file = onlyCache();
    expect(file.slice(codeDir().length + 1)).toMatch(
      new RegExp(
        `^${identity(join(repo, "packages", "cli", "dist-bin", "main.cjs"))}-node${process.version.replaceAll(".", "\\.")}-${process.arch}-[0-9a-f]{8}-validate\\.v8$`,
      ),
    );
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(codeDir()).mode & 0o777).toBe(0o700);
    expect(statSync(file).size).toBeGreaterThan(10_000);
    const bytes = readFileSync(file);
    const { mtimeMs } = statSync(file);
    // accepted: not written again
    expect(validate()).toBe(0);
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
    expect(readFileSync(file).equals(bytes)).toBe(true);
  });

  it("is replaced when it is damaged or V8 rejects it, and the run still succeeds", () => {
    expect(validate()).toBe(0);
    const file = onlyCache();
    const good = readFileSync(file);
    for (const damaged of [
      Buffer.from("not a code cache"),
      good.subarray(0, good.length >> 1), // cut short
      Buffer.concat([good.subarray(0, 1000), Buffer.from([(good[1000] ?? 0) ^ 1]), good.subarray(1001)]), // one bit flipped
    ]) {
      writeFileSync(file, damaged, { mode: 0o600 });
      expect(validate()).toBe(0);
      expect(readFileSync(file).equals(damaged)).toBe(false);
      expect(statSync(file).size).toBeGreaterThan(10_000);
    }
  });

  it("is not used for a bundle changed in place, even at the same length and modification time", async () => {
    // a copy of the command (bin.cjs, its one-file bundle and package.json), so the test can edit the bundle
    const copy = join(work, "cli");
    for (const f of ["bin.cjs", "package.json", "dist-bin"])
      cpSync(join(repo, "packages", "cli", f), join(copy, f), { recursive: true });
    const bundle = join(copy, "dist-bin", "main.cjs");
    const run = () => {
      const r = runValidate(spec, {}, join(copy, "bin.cjs"));
      expect(r.status).toBe(0);
      return r.stdout;
    };
    const settle = () => new Promise((done) => setTimeout(done, 2100));
    // written just now: no cache yet (a file system that keeps times to a second could see another write with the
    // same times: git's "racy clean" rule)
    expect(run()).toContain(" is valid\n");
    expect(cacheFiles()).toEqual([]);
    await settle();
    expect(run()).toContain(" is valid\n");
    const first = onlyCache();
    // same length, modification time put back: only the change time tells
    const text = readFileSync(bundle, "latin1");
    const edited = text.replace("} is valid\n", "} IS VALID\n");
    expect(edited).not.toBe(text);
    const { atime, mtime } = statSync(bundle);
    writeFileSync(bundle, edited, "latin1");
    utimesSync(bundle, atime, mtime);
    expect(statSync(bundle).size).toBe(text.length);
    expect(run()).toContain(" IS VALID\n");
    expect(cacheFiles()).toEqual([first.slice(codeDir().length + 1)]);
    await settle();
    expect(run()).toContain(" IS VALID\n");
    const names = cacheFiles().filter((n) => n.endsWith(".v8"));
    expect(names).toHaveLength(2);
    expect(names.filter((n) => n.startsWith(`${identity(bundle)}-node`))).toHaveLength(1);
    expect(run()).toContain(" IS VALID\n"); // and through the new cache
  });

  it("is neither read nor written in a folder others may write, or through a link", () => {
    expect(validate()).toBe(0);
    const file = onlyCache();
    writeFileSync(file, "planted");
    chmodSync(codeDir(), 0o777);
    expect(validate()).toBe(0);
    expect(readFileSync(file, "utf8")).toBe("planted"); // rejected by V8 it would have been rewritten
    chmodSync(codeDir(), 0o700);
    chmodSync(file, 0o666);
    expect(validate()).toBe(0);
    // a file others may write, in our own folder, is not read: replaced by a cache of this run's own
    expect(readFileSync(file, "utf8")).not.toBe("planted");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // a linked folder is not followed
    rmSync(codeDir(), { recursive: true });
    mkdirSync(join(work, "elsewhere"), { mode: 0o700 });
    symlinkSync(join(work, "elsewhere"), codeDir());
    expect(validate()).toBe(0);
    expect(readdirSync(join(work, "elsewhere"))).toEqual([]);
    // nor a temporary folder others could rename things in (not sticky)
    rmSync(codeDir());
    chmodSync(tmp, 0o777);
    expect(validate()).toBe(0);
    expect(existsSync(codeDir())).toBe(false);
    chmodSync(tmp, 0o1777); // sticky, as /tmp is: fine
    expect(validate()).toBe(0);
    expect(cacheFiles().filter((n) => n.endsWith(".v8"))).toHaveLength(1);
  });

  it("does not stall on a FIFO where the cache should be", () => {
    expect(validate()).toBe(0);
    const file = onlyCache();
    rmSync(file);
    expect(spawnSync("mkfifo", [file]).status).toBe(0);
    const started = Date.now();
    expect(validate()).toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it("keeps the 24 most recently used caches when it saves one, and nothing else in the folder is touched", () => {
    mkdirSync(codeDir(), { recursive: true, mode: 0o700 });
    const day = 24 * 3600;
    const now = Date.now() / 1000;
    for (let i = 0; i < 30; i++) {
      const f = join(codeDir(), `old-${String(i).padStart(2, "0")}.v8`);
      writeFileSync(f, "stale", { mode: 0o600 });
      utimesSync(f, now - (i + 1) * day, now - (i + 1) * day); // old-00 used yesterday, old-29 a month ago
    }
    writeFileSync(join(codeDir(), "notes.txt"), "mine");
    expect(validate()).toBe(0);
    const left = cacheFiles();
    expect(left.filter((n) => n.endsWith("-validate.v8"))).toHaveLength(1);
    expect(left.filter((n) => n.startsWith("old-")).sort()).toEqual(
      Array.from({ length: 23 }, (_, i) => `old-${String(i).padStart(2, "0")}.v8`),
    );
    expect(left).toContain("notes.txt");
  });

  it("is not saved after a failed run, nor at all with CLUSTERSPEC_CACHE_DIR=off", () => {
    const bad = join(work, "bad.yaml");
    writeFileSync(bad, "apiVersion: clusterspec/v1alpha1\nkind: Cluster\n");
    expect(validate(bad)).toBe(2);
    expect(cacheFiles()).toEqual([]);
    expect(validate(spec, { CLUSTERSPEC_CACHE_DIR: "off" })).toBe(0);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("has the schemas chunk compiled only for a spec with free-form parts, through a cache of its own", () => {
    const customised = join(repo, "examples", "customised", "cluster.yaml");
    const chunk = join(repo, "packages", "cli", "dist-chunks", "schemas.cjs");
    expect(validate()).toBe(0);
    // the bare-metal example has no free-form part: the bundle's cache alone, no chunk compiled
    expect(cacheFiles().filter((n) => n.endsWith(".v8"))).toHaveLength(1);
    expect(validate(customised)).toBe(0);
    const caches = cacheFiles().filter((n) => n.endsWith(".v8"));
    expect(caches).toHaveLength(2);
    const own = caches.filter((n) => n.startsWith(`${identity(chunk)}-node`));
    expect(own).toHaveLength(1);
    const file = join(codeDir(), own[0] as string);
    const { mtimeMs } = statSync(file);
    // the next run reads both caches: neither is written again
    expect(validate(customised)).toBe(0);
    expect(statSync(file).mtimeMs).toBe(mtimeMs);
    expect(cacheFiles().filter((n) => n.endsWith(".v8"))).toHaveLength(2);
  });
});
