// The package graph stays one-way: core's spec/ and facts/ never import plan/, and no generator imports another.
// Tests outside core reach core through its entries (@clusterspec/core, /types, /testing), never into core/src.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
// provisioner: a service that uses the generators (the contract, the WireGuard configs), as cli does
const NOT_GENERATORS = new Set(["core", "cli", "testkit", "provisioner"]);

function sourceFiles(dir: string, skip: ReadonlySet<string> = new Set(["node_modules"])): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? skip.has(e.name)
        ? []
        : sourceFiles(join(dir, e.name), skip)
      : /\.m?[jt]s$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  );
}

/** Module specifiers of every import/export ... from and dynamic import in a file. */
function importsOf(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g)].map((m) => m[1] ?? "");
}

/** Import violations: `file -> specifier`, relative to packages/. */
function boundaryViolations(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const rel = relative(packagesDir, path).split("\\").join("/");
    const [pkg] = rel.split("/");
    for (const spec of importsOf(text)) {
      const target = spec.startsWith(".")
        ? relative(packagesDir, resolve(dirname(path), spec))
            .split("\\")
            .join("/")
        : spec;
      if (/^core\/src\/(spec|facts)\//.test(rel) && /^core\/src\/plan\//.test(target))
        out.push(`${rel} -> ${spec} (spec and facts must not depend on the plan)`);
      const other = /^@clusterspec\/([^/]+)/.exec(spec)?.[1];
      if (pkg && !NOT_GENERATORS.has(pkg) && other && other !== pkg && !NOT_GENERATORS.has(other))
        out.push(`${rel} -> ${spec} (a generator imports another generator)`);
    }
  }
  return out;
}

/** Relative imports from a test outside core into core/src, other than the testing entry. */
function coreInternalImports(files: readonly { path: string; text: string }[]): string[] {
  const out: string[] = [];
  for (const { path, text } of files) {
    const rel = relative(packagesDir, path).split("\\").join("/");
    if (rel.startsWith("core/")) continue;
    for (const spec of importsOf(text).filter((s) => s.startsWith("."))) {
      const target = relative(packagesDir, resolve(dirname(path), spec))
        .split("\\")
        .join("/");
      if (/^core\/src\//.test(target) && !/^core\/src\/testing\.[jt]s$/.test(target))
        out.push(`${rel} -> ${spec} (import @clusterspec/core or @clusterspec/core/testing instead)`);
    }
  }
  return out;
}

const read = (path: string) => ({ path, text: readFileSync(path, "utf8") });

/** Every test file outside core: packages/<pkg>/test and the examples' tests. */
const outsideTests = () => [
  ...readdirSync(packagesDir)
    .filter((pkg) => pkg !== "core" && existsSync(join(packagesDir, pkg, "test")))
    .flatMap((pkg) => sourceFiles(join(packagesDir, pkg, "test"))),
  // not the golden trees under examples/*/generated
  ...sourceFiles(join(packagesDir, "..", "examples"), new Set(["node_modules", "generated"])),
];

const allSources = () =>
  readdirSync(packagesDir).flatMap((pkg) => {
    try {
      return sourceFiles(join(packagesDir, pkg, "src")).map((path) => ({ path, text: readFileSync(path, "utf8") }));
    } catch {
      return [];
    }
  });

describe("import boundaries", () => {
  it("keeps spec -> facts <- plan inside core, and generators independent of each other", () => {
    expect(boundaryViolations(allSources())).toEqual([]);
  });

  it("keeps tests outside core out of core/src: they import core's entries", () => {
    const files = outsideTests();
    expect(files.length).toBeGreaterThan(20);
    expect(coreInternalImports(files.map(read))).toEqual([]);
  });

  it("reports a test outside core that imports a core internal by relative path", () => {
    const at = (p: string) => join(packagesDir, p);
    expect(
      coreInternalImports([
        { path: at("cli/test/x.test.ts"), text: 'import { rules } from "../../core/src/spec/rules/index.js";' },
        { path: at("cli/test/x.test.ts"), text: 'const m = await import("../../core/src/generated/t.js");' },
        { path: at("cli/test/x.test.ts"), text: 'import { buildSpec } from "../../core/src/testing.js";' },
        { path: at("../examples/x.test.ts"), text: 'import { planVips } from "../packages/core/src/plan/vrrp.js";' },
        { path: at("core/test/x.test.ts"), text: 'import { planVips } from "../src/plan/vrrp.js";' },
      ]),
    ).toEqual([
      "cli/test/x.test.ts -> ../../core/src/spec/rules/index.js (import @clusterspec/core or @clusterspec/core/testing instead)",
      "cli/test/x.test.ts -> ../../core/src/generated/t.js (import @clusterspec/core or @clusterspec/core/testing instead)",
      "../examples/x.test.ts -> ../packages/core/src/plan/vrrp.js (import @clusterspec/core or @clusterspec/core/testing instead)",
    ]);
  });

  it("reports a spec file importing the plan and a generator importing another", () => {
    const at = (p: string) => join(packagesDir, p);
    expect(
      boundaryViolations([
        {
          path: at("core/src/spec/sections/control-plane/rules.ts"),
          text: 'import { planVips } from "../../../plan/vrrp.js";',
        },
        { path: at("core/src/facts/vrrp.ts"), text: 'import type { ClusterPlan } from "../plan/types.js";' },
        { path: at("keepalived/src/view.ts"), text: 'import { token } from "@clusterspec/netifrc";' },
        { path: at("keepalived/src/view.ts"), text: 'import { resolvePlan } from "@clusterspec/core";' },
      ]),
    ).toEqual([
      "core/src/spec/sections/control-plane/rules.ts -> ../../../plan/vrrp.js (spec and facts must not depend on the plan)",
      "core/src/facts/vrrp.ts -> ../plan/types.js (spec and facts must not depend on the plan)",
      "keepalived/src/view.ts -> @clusterspec/netifrc (a generator imports another generator)",
    ]);
  });
});
