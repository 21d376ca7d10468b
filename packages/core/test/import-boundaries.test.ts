// The package graph stays one-way: core's spec/ and facts/ never import plan/, and no generator imports another.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const NOT_GENERATORS = new Set(["core", "cli", "testkit"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : [],
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
