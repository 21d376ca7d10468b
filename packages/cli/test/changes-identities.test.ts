// `clusterspec changes` generates both trees from the deployed tree's VIP orders (identities.json): a carrier
// inserted first in `nodes` then moves no VIP, where the positional orders of a tree without the file move them.
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exampleText } from "@clusterspec/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const bare = exampleText("bare-metal-ha");
const insertedFirst = bare.replace(
  "  - name: k8s-1\n",
  `  - name: k8s-0
    roles: [worker]
    carriesExternalVips: true
    rootFilesystem: btrfs
    interfaces:
      wan0: { mac: "52:54:00:12:34:55", address: 10.118.10.19/24, gateway: 10.118.10.1 }
      wan1: { mac: "52:54:00:12:35:55", address: 10.118.12.19/24 }
  - name: k8s-1\n`,
);

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-changes-identities-"));
  for (const dir of ["carried", "fresh"]) {
    mkdirSync(join(work, dir));
    writeFileSync(join(work, dir, "base.yaml"), bare);
    writeFileSync(join(work, dir, "cluster.yaml"), insertedFirst);
  }
  // The committed tree's orders beside the base spec, where `changes` looks by default.
  mkdirSync(join(work, "carried", "generated"));
  copyFileSync(
    join(repo, "examples", "bare-metal-ha", "generated", "identities.json"),
    join(work, "carried", "generated", "identities.json"),
  );
  writeFileSync(join(work, "broken.json"), '{"schemaVersion":1,"vips":{"10.118.11.20":"k8s-1"}}');
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface Move {
  vip: string;
  from: string | null;
  to: string | null;
}
const movesOf = async (dir: string, ...extra: string[]) => {
  const r = await runCaptured(["changes", "base.yaml", "cluster.yaml", "--json", ...extra], join(work, dir));
  expect(r.code, r.stderr).toBe(0);
  const doc = JSON.parse(r.stdout) as { steps: { kind: string; vipMoves: Move[] }[] };
  return doc.steps.flatMap((s) => s.vipMoves).filter((m) => m.from !== null && m.to !== null && m.from !== m.to);
};

describe("changes carries the deployed tree's identities.json", () => {
  it("a carrier inserted first moves no VIP with the committed orders (generated/ beside the old spec)", async () => {
    expect(await movesOf("carried")).toEqual([]);
  });

  it("the same change without identities.json follows list positions and moves VIPs to the new first node", async () => {
    const moves = await movesOf("fresh");
    expect(moves.length).toBeGreaterThan(0);
    expect(moves.some((m) => m.to === "k8s-0")).toBe(true);
  });

  it("--identities names the file explicitly", async () => {
    const file = join(work, "carried", "generated", "identities.json");
    expect(await movesOf("fresh", "--identities", file)).toEqual([]);
  });

  it("a malformed or missing --identities file: exit 2, naming the file and the field", async () => {
    const bad = await runCaptured(
      ["changes", "base.yaml", "cluster.yaml", "--identities", join(work, "broken.json")],
      join(work, "fresh"),
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("broken.json");
    expect(bad.stderr).toContain("10.118.11.20");
    const missing = await runCaptured(
      ["changes", "base.yaml", "cluster.yaml", "--identities", "nowhere.json"],
      join(work, "fresh"),
    );
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("nowhere.json");
  });
});
