// Concurrent runs of the real binary on one output folder: the lock lets one write at a time, so afterwards the
// folder is exactly one spec's tree with its manifest, and every other run exited 2 naming the run that held it
// (or ran after it and succeeded).
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSpec } from "@clusterspec/core/testing";
import { treeHash } from "@clusterspec/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "packages", "cli", "bin.cjs");

/** Runs at once per round, and rounds (the first on a missing folder, the rest over the last round's tree). */
const RUNS = 4;
const ROUNDS = 3;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-race-"));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const hash = treeHash;

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.on("close", (code) => resolve({ code, stderr }));
  });
}

describe("concurrent generate on one folder", () => {
  it("leaves exactly one spec's tree and manifest; every other run exits 2 or succeeds after it", async () => {
    // Specs of a few hundred files each, all different (node count and names), so writes overlap.
    const specs = Array.from({ length: RUNS }, (_, i) => {
      const path = join(dir, `spec-${i}.yaml`);
      // The same three carriers in every spec: each run carries the folder's identities.json (the VIP orders the
      // last winner left) forward, which then gives every spec the same orders as on a fresh folder.
      const spec = buildSpec(
        { controlPlanes: 3, workers: 12 + 3 * i, poolSize: 3, cloud: false },
        { carriers: [true, true, true] },
      );
      writeFileSync(path, JSON.stringify(spec));
      return path;
    });
    const refs = specs.map((spec, i) => {
      const out = join(dir, `ref-${i}`);
      const r = spawnSync(process.execPath, [bin, "generate", spec, "-o", out], { encoding: "utf8" });
      expect(r.status, r.stderr).toBe(0);
      return hash(out);
    });
    expect(new Set(refs).size).toBe(RUNS);
    const out = join(dir, "out");
    let losers = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const results = await Promise.all(specs.map((spec) => run(["generate", spec, "-o", out])));
      const winners: string[] = [];
      results.forEach((r, i) => {
        if (r.code === 0) winners.push(refs[i] ?? "");
        else {
          expect(r.code, r.stderr).toBe(2);
          expect(r.stderr).toMatch(
            /^✖ another clusterspec run \(pid \d+, since \d{4}-\d\d-\d\dT[\d:.]+Z\) is writing .*\/out: run again when it has finished \(its lock is .*\/\.out\.clusterspec-lock\)\n$/,
          );
          losers++;
        }
      });
      expect(winners.length).toBeGreaterThan(0);
      // Exactly one winner's tree, manifest included (the hash covers every file).
      expect(winners).toContain(hash(out));
      // No stage, journal or lock left beside it.
      expect(readdirSync(dir).filter((f) => f.startsWith(".out."))).toEqual([]);
    }
    // The runs did overlap: the lock turned some away.
    expect(losers).toBeGreaterThan(0);
  }, 240_000);
});
