// The line templates of every generator come precompiled (core/src/generated/precompiled-templates.js, written by
// `pnpm codegen` and kept current by generated-sources.test.ts): this test checks that the examples need no other.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lineTemplate } from "@clusterspec/core";
import { lineTemplateSources, precompiledTemplates } from "@clusterspec/core/testing";
import { compileLineTemplate } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateChecked } from "../src/generate.js";
// imports every generator, and with them every template they make at import
import "../src/generators.js";

const repo = join(import.meta.dirname, "..", "..", "..");

describe("precompiled line templates", () => {
  it("hold every generator's templates, and nothing else", () => {
    const sources = lineTemplateSources();
    expect(sources.length).toBeGreaterThanOrEqual(15);
    expect([...precompiledTemplates.keys()].sort(), "stale: run pnpm codegen").toEqual([...sources].sort());
  });

  it("cover every template the examples render: no example compiles one at run time", async () => {
    const examples = join(repo, "examples");
    for (const name of readdirSync(examples, { withFileTypes: true }).filter((e) => e.isDirectory())) {
      const spec = join(examples, name.name, "cluster.yaml");
      let text: string;
      try {
        text = readFileSync(spec, "utf8");
      } catch {
        continue; // not an example folder
      }
      // generateChecked: overlays are checked against the upstream schemas, as the CLI does
      expect((await generateChecked(text)).ok, name.name).toBe(true);
    }
    for (const source of lineTemplateSources()) expect(precompiledTemplates.has(source)).toBe(true);
  });

  it("refuse a template that is not in the table on its first render, naming the command that adds it", () => {
    // core compiles nothing at run time (ejs is no runtime dependency): the table is all there is
    const source = "<% for (const x of v.xs) { -%>\n<%= x %>\n<% } -%>\n";
    expect(precompiledTemplates.has(source)).toBe(false);
    const render = lineTemplate<{ xs: string[] }>(source, (value) => `'${String(value)}'`);
    expect(() => render({ xs: ["a", "b"] })).toThrow(
      'lineTemplate: the template starting "<% for (const x of v.xs) { -%>" is not precompiled: run `pnpm codegen` (it writes packages/core/src/generated/precompiled-templates.js)',
    );
  });

  it("come from ejs's compiler in testkit, which renders with the escape it is given", () => {
    const source = "<% for (const x of v.xs) { -%>\n<%= x %>\n<% } -%>\n";
    const quote = (value: unknown) => `'${String(value)}'`;
    expect(compileLineTemplate(source)({ xs: ["a", "b"] }, quote)).toBe("'a'\n'b'\n");
    // (generated-sources.test.ts checks that the table's text is this compiler's output for every key)
  });
});
