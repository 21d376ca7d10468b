// No import circles inside any package's src: every relative import (type-only ones too) points one way.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const packagesDir = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.(ts|js)$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Relative specifiers of every import/export ... from, side-effect import and dynamic import in a file. */
function relativeImports(text: string): string[] {
  return [...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\.{1,2}\/[^"']+)["']/g)].map((m) => m[1] ?? "");
}

/** The file a relative specifier names: `./x.js` is `./x.ts` in the sources. */
function resolveImport(from: string, specifier: string, files: ReadonlySet<string>): string | undefined {
  const target = resolve(dirname(from), specifier);
  const candidates = [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, join(target, "index.ts")];
  return candidates.find((c) => files.has(c));
}

/** The import graph of some files: each file to the files it imports. */
function importGraph(files: readonly { path: string; text: string }[]): Map<string, string[]> {
  const known = new Set(files.map((f) => f.path));
  return new Map(
    files.map((f) => [f.path, relativeImports(f.text).flatMap((s) => resolveImport(f.path, s, known) ?? [])]),
  );
}

/** Every circle of a graph, once each, as the path that closes it (`a -> b -> a`), from its smallest node. */
function findCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components; a component of two or more nodes, or a node importing itself, is a circle.
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, index.get(w) ?? 0));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop();
      if (w === undefined) break;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) components.push(component);
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return components.map((c) => closingPath(graph, new Set(c))).sort((a, b) => (a.join() < b.join() ? -1 : 1));
}

/** A shortest circle through a component's smallest node, by breadth-first search inside the component. */
function closingPath(graph: ReadonlyMap<string, readonly string[]>, component: ReadonlySet<string>): string[] {
  const [start] = [...component].sort();
  if (start === undefined) return [];
  const from = new Map<string, string>();
  const queue = [start];
  for (let i = 0; i < queue.length; i++) {
    const v = queue[i] as string;
    for (const w of graph.get(v) ?? []) {
      if (!component.has(w)) continue;
      if (w === start) {
        const path = [start];
        for (let u: string | undefined = v; u !== undefined && u !== start; u = from.get(u)) path.splice(1, 0, u);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start, start];
}

const allSources = () =>
  readdirSync(packagesDir)
    .filter((pkg) => existsSync(join(packagesDir, pkg, "src")))
    .flatMap((pkg) =>
      sourceFiles(join(packagesDir, pkg, "src")).map((path) => ({ path, text: readFileSync(path, "utf8") })),
    );

const shown = (cycles: string[][]) =>
  cycles.map((c) => c.map((p) => relative(packagesDir, p).split("\\").join("/")).join(" -> "));

describe("import circles", () => {
  it("has none in any package's src", () => {
    const sources = allSources();
    expect(sources.length).toBeGreaterThan(100);
    expect(shown(findCycles(importGraph(sources)))).toEqual([]);
  });

  it("reads type-only, re-export, side-effect and dynamic imports, and resolves .js to the .ts source", () => {
    const at = (p: string) => join(packagesDir, p);
    const graph = importGraph([
      {
        path: at("x/src/a.ts"),
        text: 'import type { B } from "./b.js";\nexport { c } from "./sub/c.js";\nimport "./d.js";\nconst e = await import("./e.js");\nimport { z } from "@clusterspec/core";',
      },
      { path: at("x/src/b.ts"), text: "" },
      { path: at("x/src/sub/c.ts"), text: "" },
      { path: at("x/src/d.ts"), text: "" },
      { path: at("x/src/e.js"), text: "" },
    ]);
    expect(graph.get(at("x/src/a.ts"))).toEqual(["b.ts", "sub/c.ts", "d.ts", "e.js"].map((f) => at(`x/src/${f}`)));
  });

  it("finds a deliberate circle, a longer one and a self-import, and nothing in a diamond", () => {
    const at = (p: string) => join(packagesDir, p);
    const files = [
      // generate.ts <-> summary.ts: the circle the module convention removed
      { path: at("g/src/generate.ts"), text: 'import { summarize } from "./summary.js";' },
      { path: at("g/src/summary.ts"), text: 'import { PATH } from "./generate.js";' },
      // a -> b -> c -> a
      { path: at("h/src/a.ts"), text: 'import { b } from "./b.js";' },
      { path: at("h/src/b.ts"), text: 'import { c } from "./c.js";' },
      { path: at("h/src/c.ts"), text: 'import type { A } from "./a.js";' },
      { path: at("s/src/self.ts"), text: 'export * from "./self.js";' },
      // a diamond: top -> left, right -> bottom
      { path: at("d/src/top.ts"), text: 'import "./left.js";\nimport "./right.js";' },
      { path: at("d/src/left.ts"), text: 'import "./bottom.js";' },
      { path: at("d/src/right.ts"), text: 'import "./bottom.js";' },
      { path: at("d/src/bottom.ts"), text: "" },
    ];
    expect(shown(findCycles(importGraph(files)))).toEqual([
      "g/src/generate.ts -> g/src/summary.ts -> g/src/generate.ts",
      "h/src/a.ts -> h/src/b.ts -> h/src/c.ts -> h/src/a.ts",
      "s/src/self.ts -> s/src/self.ts",
    ]);
    expect(findCycles(importGraph(files.filter((f) => f.path.includes("/d/src/"))))).toEqual([]);
  });
});
