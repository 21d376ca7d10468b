// Issue 31 item 7: every issue the library returns carries its catalog code, as the CLI's --json does, whatever the
// input: specs with one value replaced or removed anywhere, and spec text with characters dropped or added.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { isIssueCode } from "@clusterspec/core";
import { type GenerateResult, generate } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const examples = join(import.meta.dirname, "..", "..", "..", "examples");
const texts = readdirSync(examples, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== "node_modules")
  .flatMap((d) => {
    try {
      return [readFileSync(join(examples, d.name, "cluster.yaml"), "utf8")];
    } catch {
      return [];
    }
  });

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** Every path to a value inside `value`. */
function pathsOf(value: Json, prefix: (string | number)[] = []): (string | number)[][] {
  const out = [prefix];
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push(...pathsOf(v, [...prefix, i]));
    });
  else if (value !== null && typeof value === "object")
    for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

/** A copy of `value` with the thing at `path` replaced (or removed when `replacement` is undefined). */
function edit(value: Json, path: readonly (string | number)[], replacement: Json | undefined): Json {
  if (path.length === 0) return replacement ?? null;
  const [head, ...rest] = path;
  if (Array.isArray(value)) {
    const copy = [...value];
    if (rest.length === 0 && replacement === undefined) copy.splice(head as number, 1);
    else copy[head as number] = edit(copy[head as number] as Json, rest, replacement);
    return copy;
  }
  const copy = { ...(value as Record<string, Json>) };
  if (rest.length === 0 && replacement === undefined) delete copy[head as string];
  else copy[head as string] = edit(copy[head as string] as Json, rest, replacement);
  return copy;
}

function expectCodes(result: GenerateResult): void {
  const issues = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  for (const issue of issues) expect(isIssueCode(issue.code), `${issue.message}: code ${issue.code}`).toBe(true);
}

describe("every issue generate returns has a catalog code", () => {
  it("for a spec object with one value replaced or removed", () => {
    const specs = texts.map((t) => parse(t) as Json);
    const arb = fc.nat({ max: specs.length - 1 }).chain((i) => {
      const spec = specs[i] as Json;
      return fc.tuple(
        fc.constant(spec),
        fc.constantFrom(...pathsOf(spec)),
        fc.option(fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, { nil: undefined }),
      );
    });
    fc.assert(
      fc.property(arb, ([spec, path, replacement]) => {
        expectCodes(generate(edit(spec, path, replacement) as never));
      }),
      { numRuns: 150 },
    );
  });

  it("for spec text with characters dropped or added", () => {
    const arb = fc.nat({ max: texts.length - 1 }).chain((i) => {
      const text = texts[i] as string;
      return fc.tuple(
        fc.constant(text),
        fc.nat({ max: text.length - 1 }),
        fc.nat({ max: 3 }),
        fc.constantFrom("", " ", "\t", ":", "-", '"', "[", "{", "#", "\n", "&a", "*a"),
      );
    });
    fc.assert(
      fc.property(arb, ([text, at, drop, add]) => {
        expectCodes(generate(text.slice(0, at) + add + text.slice(at + drop), { sourceName: "cluster.yaml" }));
      }),
      { numRuns: 150 },
    );
  });
});
