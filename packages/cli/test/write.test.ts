// All-or-nothing writes, with a file system that fails on purpose.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { type FileSystem, nodeFileSystem, writeTree } from "clusterspec";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, e.name);
      if (e.isDirectory()) walk(full);
      else out[relative(dir, full)] = `${(statSync(full).mode & 0o777).toString(8)}:${readFileSync(full, "utf8")}`;
    }
  };
  walk(dir);
  return out;
}

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
    writeTree(nodeFileSystem, out, v1, { force: false });
    nodeFileSystem.writeFile(join(out, "mine.txt"), "user\n", 0o640);
    const summary = writeTree(nodeFileSystem, out, v2, { force: false });
    expect(summary).toEqual({ written: 3, unchanged: 0, removed: 1 });
    const t = tree(out);
    expect(t["gone.txt"]).toBeUndefined();
    expect(t["mine.txt"]).toBe("640:user\n");
    expect(t["nodes/x/secret.conf"]).toBe("600:pw2\n");
    expect(t["b/c.sh"]).toBe("755:#!/bin/sh\n");
  });

  it("leaves the previous tree byte-for-byte intact whenever any step fails", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, { force: false });
    const before = tree(out);
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), (n) => {
        let failed = false;
        try {
          writeTree(failingAfter(n), out, v2, { force: false });
        } catch {
          failed = true;
        }
        if (failed) expect(tree(out)).toEqual(before);
        else {
          // Succeeded: put v1 back for the next run.
          writeTree(nodeFileSystem, out, v1, { force: false });
        }
        expect(readdirSync(dir)).toEqual(["out"]); // no temp folders left behind
      }),
      { numRuns: 20 },
    );
  });
});
