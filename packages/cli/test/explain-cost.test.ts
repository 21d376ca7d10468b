// Provenance is measured by `explain` alone (DESIGN-27 decision 4): a plain generate pays nothing for it. Checked two
// ways: no import, static or dynamic, leads from the generate pipeline or the generate command to provenance.ts;
// and a generate run in-process never loads that module, while an explain run does (the control).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { runCaptured } from "./capture.js";

const loads = vi.hoisted(() => ({ provenance: 0 }));
vi.mock("../src/provenance.js", async (importOriginal) => {
  loads.provenance++;
  return await importOriginal();
});

const src = join(import.meta.dirname, "..", "src");
const repo = join(import.meta.dirname, "..", "..", "..");

/** Every source file of this package that `entry` imports, statically or with import(), transitively. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const m of text.matchAll(/(?:from|import\()\s*"(\.{1,2}\/[^"]+)"/g))
      visit(resolve(dirname(file), (m[1] as string).replace(/\.js$/, ".ts")));
  };
  visit(entry);
  return seen;
}

describe("a plain generate does no provenance work", () => {
  it("imports provenance.ts from no module the generate pipeline or command reaches", () => {
    const provenance = join(src, "provenance.ts");
    for (const entry of ["generate.ts", "commands/generate.ts", "commands/validate.ts", "commands/plan.ts"])
      expect([...reachable(join(src, entry))], entry).not.toContain(provenance);
    // the control: the explain command does reach it
    expect([...reachable(join(src, "commands", "explain.ts"))]).toContain(provenance);
  });

  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "clusterspec-explain-cost-"));
    writeFileSync(join(work, "cluster.yaml"), readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml")));
  });
  afterAll(() => rmSync(work, { recursive: true, force: true }));

  it("never loads provenance.ts in a generate run, and loads it for explain", async () => {
    const generated = await runCaptured(["generate", "cluster.yaml", "-o", "out"], work);
    expect(generated.code).toBe(0);
    const checked = await runCaptured(["generate", "cluster.yaml", "-o", "out", "--check"], work);
    expect(checked.code).toBe(0);
    expect(loads.provenance).toBe(0);
    const explained = await runCaptured(["explain", "cluster.yaml", "nodes/k8s-1/etc/conf.d/net:1"], work);
    expect(explained.code).toBe(0);
    expect(loads.provenance).toBe(1);
  });
});
