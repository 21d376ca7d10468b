// A consumer's type check of the built declarations, skipLibCheck off: our public types are plain
// interfaces, so it loads a few thousand types (zod's declarations were ~78,000 and took 14-17 s).
// Needs the build (the test command builds first).
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
let consumer: string;

beforeAll(() => {
  consumer = mkdtempSync(join(tmpdir(), "clusterspec-consumer-"));
  cpSync(join(import.meta.dirname, "fixtures", "consumer"), consumer, { recursive: true });
  mkdirSync(join(consumer, "node_modules", "@clusterspec"), { recursive: true });
  symlinkSync(join(repo, "packages", "cli"), join(consumer, "node_modules", "clusterspec"));
  for (const d of readdirSync(join(repo, "packages")).filter((d) => d !== "cli"))
    symlinkSync(join(repo, "packages", d), join(consumer, "node_modules", "@clusterspec", d));
});
afterAll(() => {
  rmSync(consumer, { recursive: true, force: true });
});

function diagnostics(out: string): Record<string, number> {
  const figure = (name: string) => Number(new RegExp(`^${name}:\\s+([\\d.]+)`, "m").exec(out)?.[1] ?? Number.NaN);
  return { types: figure("Types"), checkSeconds: figure("Check time"), totalSeconds: figure("Total time") };
}

describe("a consumer project importing clusterspec and clusterspec/cli", () => {
  it("type-checks with skipLibCheck false, loading no zod declarations, its check in at most 3 s", () => {
    const r = spawnSync(process.execPath, [tsc, "-p", consumer, "--extendedDiagnostics", "--listFiles"], {
      encoding: "utf8",
    });
    expect(r.stdout.split("\n").filter((l) => l.includes("error TS"))).toEqual([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("/packages/cli/dist/index.d.ts");
    expect(r.stdout).not.toMatch(/node_modules\/zod\//);
    const d = diagnostics(r.stdout);
    // A deterministic guard first: the lib (es2022) is ~3,000 types of these.
    expect(d.types).toBeLessThan(10_000);
    expect(d.checkSeconds).toBeLessThanOrEqual(3);
  });

  it("fails to type-check a wrong use, so the check above is not vacuous", () => {
    writeFileSync(join(consumer, "wrong.ts"), `${readFileSync(join(consumer, "index.ts"), "utf8")}generate(42);\n`);
    const config = JSON.parse(readFileSync(join(consumer, "tsconfig.json"), "utf8"));
    writeFileSync(join(consumer, "tsconfig.wrong.json"), JSON.stringify({ ...config, files: ["wrong.ts"] }));
    const r = spawnSync(process.execPath, [tsc, "-p", join(consumer, "tsconfig.wrong.json")], { encoding: "utf8" });
    expect(r.status).not.toBe(0);
    expect(r.stdout).toMatch(/wrong\.ts\(\d+,\d+\): error TS2769: No overload matches this call/);
  });
});
