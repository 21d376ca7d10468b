// All-or-nothing writes, with a file system that fails on purpose.
import { spawn, spawnSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTree, treeHash } from "@clusterspec/testkit";
import { diffTree, type FileSystem, lockPath, nodeFileSystem, recoverOutput, writeTree } from "clusterspec/cli";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

/** Fails the (n+1)-th mutating call once, like a transient disk or permission error. */
function failingAfter(n: number): FileSystem {
  let calls = 0;
  const tick = () => {
    if (++calls === n + 1) throw new Error("disk full (simulated)");
  };
  return {
    ...nodeFileSystem,
    writeFile: (p, c, m) => {
      tick();
      nodeFileSystem.writeFile(p, c, m);
    },
    rename: (a, b) => {
      tick();
      nodeFileSystem.rename(a, b);
    },
    copyFile: (a, b) => {
      tick();
      nodeFileSystem.copyFile(a, b);
    },
  };
}

const OPTS = { force: false, secrets: "placeholders" } as const;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-write-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const v1 = [
  { path: "a.txt", content: "one\n" },
  { path: "nodes/x/secret.conf", content: "pw\n", secret: true },
  { path: "gone.txt", content: "old\n" },
];
const v2 = [
  { path: "a.txt", content: "two\n" },
  { path: "nodes/x/secret.conf", content: "pw2\n", secret: true },
  { path: "b/c.sh", content: "#!/bin/sh\n", mode: 0o755 },
];

describe("writeTree", () => {
  it("writes modes, removes stale generated files and keeps foreign ones", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    nodeFileSystem.writeFile(join(out, "mine.txt"), "user\n", 0o640);
    const summary = writeTree(nodeFileSystem, out, v2, OPTS);
    expect(summary).toEqual({ written: 3, unchanged: 0, removed: 1 });
    const t = readTree(out);
    expect(t["gone.txt"]).toBeUndefined();
    expect(t["mine.txt"]).toBe("640:user\n");
    expect(t["nodes/x/secret.conf"]).toBe("600:pw2\n");
    expect(t["b/c.sh"]).toBe("755:#!/bin/sh\n");
  });

  it("leaves the previous tree byte-for-byte intact whenever any step fails", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    const before = readTree(out);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), (n) => {
        let failed = false;
        try {
          writeTree(failingAfter(n), out, v2, OPTS);
        } catch {
          failed = true;
        }
        if (failed) expect(readTree(out)).toEqual(before);
        else {
          // Succeeded: put v1 back for the next run.
          writeTree(nodeFileSystem, out, v1, OPTS);
        }
        expect(readdirSync(dir)).toEqual(["out"]); // no temp folders left behind
      }),
      { numRuns: 20 },
    );
  });

  it("finishes a swap that an earlier run left half done instead of deleting the old tree", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    writeFileSync(join(out, "mine.txt"), "user\n");
    renameSync(out, join(dir, ".out.clusterspec-old")); // killed between the two renames
    writeTree(nodeFileSystem, out, v2, OPTS);
    expect(readTree(out)["mine.txt"]).toBe("644:user\n");
    expect(readdirSync(dir)).toEqual(["out"]);
  });

  it("keeps a foreign symlink a symlink", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    symlinkSync("/etc/hostname", join(out, "link"));
    writeTree(nodeFileSystem, out, v2, OPTS);
    expect(lstatSync(join(out, "link")).isSymbolicLink()).toBe(true);
  });

  it("refuses a folder it never wrote that holds other files, unless --force", () => {
    const out = join(dir, "out");
    nodeFileSystem.mkdirp(out);
    writeFileSync(join(out, "notes.txt"), "mine\n");
    expect(() => writeTree(nodeFileSystem, out, v1, OPTS)).toThrow(
      /holds 1 file\(s\) clusterspec did not write \(notes.txt\)/,
    );
    expect(existsSync(join(out, "a.txt"))).toBe(false);
    writeTree(nodeFileSystem, out, v1, { ...OPTS, force: true });
    expect(readTree(out)["notes.txt"]).toBe("644:mine\n");
  });

  it("refuses to write resolved secrets over a review tree of placeholders", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(() => writeTree(nodeFileSystem, out, v2, { force: false, secrets: "resolved" })).toThrow(
      /placeholder secrets/,
    );
    expect(readTree(out)["nodes/x/secret.conf"]).toBe("600:pw\n");
  });

  it("names drifted secret files without printing them", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    const drift = diffTree(nodeFileSystem, out, v2);
    const text = drift.map((d) => d.patch).join("");
    expect(text).toContain("Secret file nodes/x/secret.conf differs (content not shown)");
    expect(text).not.toContain("pw");
    expect(text).toContain("-one");
  });
});

describe("writes that touch only what changed", () => {
  const stamp = (out: string) =>
    Object.fromEntries(
      readdirSync(out, { recursive: true, withFileTypes: true })
        .filter((e) => e.isFile())
        .map((e) => {
          const full = join(e.parentPath, e.name);
          const s = statSync(full);
          return [full, `${s.ino}:${s.mtimeMs}`];
        }),
    );

  it("leaves an unchanged tree untouched: nothing written, renamed or re-stamped", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    const before = { files: stamp(out), dir: statSync(out).mtimeMs, ino: statSync(out).ino };
    expect(writeTree(nodeFileSystem, out, v1, OPTS)).toEqual({ written: 0, unchanged: 3, removed: 0 });
    expect({ files: stamp(out), dir: statSync(out).mtimeMs, ino: statSync(out).ino }).toEqual(before);
    expect(readdirSync(dir)).toEqual(["out"]);
  });

  it("rewrites only changed files, fixes a mode and keeps every other file's inode and mtime", () => {
    const out = join(dir, "out");
    const many = Array.from({ length: 40 }, (_, i) => ({ path: `n/${i % 4}/f${i}.txt`, content: `${i}\n` }));
    writeTree(nodeFileSystem, out, many, OPTS);
    const before = stamp(out);
    chmodSync(join(out, "n/1/f1.txt"), 0o600);
    const next = many.map((a, i) => (i === 7 ? { ...a, content: "seven\n" } : a)).filter((_, i) => i !== 3);
    expect(writeTree(nodeFileSystem, out, next, OPTS)).toEqual({ written: 2, unchanged: 37, removed: 1 });
    const after = stamp(out);
    const moved = Object.keys(before).filter((f) => after[f] !== before[f]);
    expect(moved.map((f) => f.slice(out.length + 1)).sort()).toEqual([
      ".clusterspec-manifest.json",
      "n/1/f1.txt",
      "n/3/f3.txt",
      "n/3/f7.txt",
    ]);
    expect(readTree(out)["n/1/f1.txt"]).toBe("644:1\n");
    expect(readTree(out)["n/3/f7.txt"]).toBe("644:seven\n");
  });

  it("removes folders that only stale files filled", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v2, OPTS);
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(existsSync(join(out, "b"))).toBe(false);
  });
});

describe("kill -9 while writing", () => {
  // Old and new trees that differ in every way a write can: changed, new, removed, mode-only and secret files.
  const files = (n: number, version: number) =>
    Array.from({ length: n }, (_, i) => ({
      path: `nodes/n${i % 10}/etc/f${i}.conf`,
      content: version === 1 || i % 3 !== 0 ? `file ${i}\n` : `file ${i} v${version}\n`,
      ...(i % 17 === 0 ? { secret: true } : {}),
      ...(version === 2 && i % 11 === 0 ? { mode: 0o755 } : {}),
    }));
  const oldTree = [...files(150, 1), { path: "gone/only-old.txt", content: "old\n" }];
  const newTree = [...files(150, 2).filter((_, i) => i % 7 !== 0), { path: "new/only-new.txt", content: "new\n" }];
  const writer = join(import.meta.dirname, "fixtures", "crash-writer.mjs");
  const hash = treeHash;

  function setUp(name: string) {
    const out = join(dir, name);
    const input = join(dir, `${name}.json`);
    writeFileSync(input, JSON.stringify(newTree));
    writeTree(nodeFileSystem, out, oldTree, OPTS);
    return { out, input };
  }

  const leftovers = (name: string) => readdirSync(dir).filter((f) => f.startsWith(`.${name}.`));

  it("leaves the whole old or the whole new tree after recovery, whichever step the kill hits", () => {
    const ref = setUp("ref");
    const full = spawnSync(process.execPath, [writer, ref.out, ref.input], { encoding: "utf8" });
    expect(full.status).toBe(0);
    const steps = JSON.parse(full.stdout).calls as number;
    const newHash = hash(ref.out);
    const { out, input } = setUp("out");
    const oldHash = hash(out);
    expect(newHash).not.toBe(oldHash);
    const states = new Set<string>();
    // Every phase: staging, the journal's commit, moves, removals and clean-up (a bounded, even sample).
    const stride = Math.max(1, Math.ceil(steps / 24));
    // Every step of taking the lock (its scratch file, the link, the scratch's removal), then the sample.
    const lockSteps = [0, 1, 2, 3, 4];
    const sample = Array.from({ length: Math.ceil(steps / stride) }, (_, i) => i * stride);
    const kills = [...new Set([...lockSteps, ...sample, steps])];
    for (const k of kills) {
      writeTree(nodeFileSystem, out, oldTree, OPTS);
      expect(hash(out)).toBe(oldHash);
      const r = spawnSync(process.execPath, [writer, out, input, String(k)], { encoding: "utf8" });
      states.add(
        r.signal === "SIGKILL"
          ? existsSync(join(dir, ".out.clusterspec-journal.json"))
            ? "killed after commit"
            : "killed before commit"
          : "finished",
      );
      if (r.signal === "SIGKILL" && existsSync(lockPath(out))) states.add("killed holding the lock");
      if (r.signal === "SIGKILL" && leftovers("out").some((f) => /^\.out\.clusterspec-lock\.\d+-\d+$/.test(f)))
        states.add("killed leaving its lock's scratch file");
      // The next run finds the dead run's lock stale, takes it over and recovers.
      recoverOutput(nodeFileSystem, out);
      expect([oldHash, newHash], `killed before change ${k} of ${steps}`).toContain(hash(out));
      expect(leftovers("out")).toEqual([]);
    }
    expect([...states].sort()).toEqual([
      "finished",
      "killed after commit",
      "killed before commit",
      "killed holding the lock",
      "killed leaving its lock's scratch file",
    ]);
  }, 240_000); // about 30 node processes, one per kill point: 30 s alone, over 60 s at a load of 16 on 2 cores

  it("leaves the whole old or the whole new tree after a kill at a random moment", async () => {
    const { out, input } = setUp("out");
    const oldHash = hash(out);
    const t0 = performance.now();
    spawnSync(process.execPath, [writer, out, input]);
    const duration = performance.now() - t0;
    const newHash = hash(out);
    for (let run = 0; run < 8; run++) {
      writeTree(nodeFileSystem, out, oldTree, OPTS);
      const child = spawn(process.execPath, [writer, out, input], { stdio: "ignore" });
      const exited = new Promise((resolve) => child.on("exit", resolve));
      setTimeout(() => child.kill("SIGKILL"), Math.random() * duration);
      await exited;
      recoverOutput(nodeFileSystem, out);
      expect([oldHash, newHash]).toContain(hash(out));
      expect(leftovers("out")).toEqual([]);
    }
  }, 60_000);
});
