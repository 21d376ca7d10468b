// docs/library.md's "Everything it exports" lists everything the `clusterspec` package exports: the runtime names
// one a line, the types by group. This keeps that list and src/index.ts equal both ways.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as library from "clusterspec";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");

function readmeSection(): { values: string[]; types: string[] } {
  const readme = readFileSync(join(repo, "docs", "library.md"), "utf8");
  const start = readme.indexOf("\n## Everything it exports\n");
  expect(start, "docs/library.md has a ## Everything it exports section").toBeGreaterThan(0);
  const end = readme.indexOf("\n#", start + 1);
  const [valuePart = "", typePart = ""] = readme.slice(start, end).split("\nTypes only");
  const names = (text: string, line: RegExp) =>
    [...text.matchAll(line)].flatMap((m) => [...(m[1] ?? "").matchAll(/`(\w+)`/g)].map((n) => n[1] ?? ""));
  // a value line starts with its name; a type line lists names after the group's label
  return { values: names(valuePart, /^- (`\w+`):/gm), types: names(typePart, /^- [^:]+:(.*)$/gm) };
}

/** The names src/index.ts exports as types only (`export type { … }` or `type X` in an export list). */
function typeOnlyExports(): string[] {
  const file = join(repo, "packages", "cli", "src", "index.ts");
  const source = ts.createSourceFile(file, readFileSync(file, "utf8"), ts.ScriptTarget.Latest);
  const out: string[] = [];
  for (const s of source.statements)
    if (ts.isExportDeclaration(s) && s.exportClause && ts.isNamedExports(s.exportClause))
      for (const e of s.exportClause.elements) if (s.isTypeOnly || e.isTypeOnly) out.push(e.name.text);
  return out;
}

describe("docs/library.md's list of exports", () => {
  it("names every runtime export of clusterspec once, and nothing else", () => {
    const { values } = readmeSection();
    expect(new Set(values).size).toBe(values.length);
    expect([...values].sort()).toEqual(Object.keys(library).sort());
  });

  it("names every type clusterspec exports once, and nothing else", () => {
    const { types } = readmeSection();
    expect(new Set(types).size).toBe(types.length);
    expect([...types].sort()).toEqual(typeOnlyExports().sort());
  });
});
