// All-or-nothing writes, with a file system that fails on purpose.
import {
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTree } from "@clusterspec/testkit";
import { diffTree, type FileSystem, nodeFileSystem, writeTree } from "clusterspec/cli";
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
