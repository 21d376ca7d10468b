// The plan carries no spec type: plan/types.ts, where every plan type lives, imports nothing from spec/, so a
// generator reading the plan never sees the spec's shapes.
import { readFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const srcDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "src");
const PLAN_TYPE_FILES = ["plan/types.ts"];

/** Specifiers of every import, re-export and `import("…")` type query in a file. */
function specifiersOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "");
}

/** `file -> specifier` for each specifier of a plan type file (path relative to src/) that lands in spec/. */
function specImports(file: string, text: string): string[] {
  return specifiersOf(text)
    .filter((s) => s.startsWith(".") && /^spec\//.test(relative(srcDir, resolve(srcDir, dirname(file), s))))
    .map((s) => `${file} -> ${s}`);
}

describe("plan types", () => {
  it("import nothing from spec/", () => {
    const found = PLAN_TYPE_FILES.flatMap((f) => specImports(f, readFileSync(resolve(srcDir, f), "utf8")));
    expect(found).toEqual([]);
  });

  it("the scan reports a spec import, re-export or type query, and nothing else", () => {
    const planted = [
      'import type { SegmentSpec } from "../spec/schema.js";',
      'export type { Semver } from "../spec/version.js";',
      'readonly ami: import("../spec/schema.js").PoolSpec["ami"];',
      'import { type NodeTaint } from "../spec/knob-types.js";',
    ];
    expect(planted.flatMap((text) => specImports("plan/types.ts", text))).toEqual([
      "plan/types.ts -> ../spec/schema.js",
      "plan/types.ts -> ../spec/version.js",
      "plan/types.ts -> ../spec/schema.js",
      "plan/types.ts -> ../spec/knob-types.js",
    ]);
    const clean = [
      'import type { AsgTag } from "../facts/cloud.js";',
      'import type { IssuePath } from "../issues.js";',
      'import type { PlannedVip } from "./spec-like.js";',
      "// the spec/ folder is not imported here",
    ];
    expect(clean.flatMap((text) => specImports("plan/types.ts", text))).toEqual([]);
  });
});
