// Issue 32 item 8: the library's entry points (generate, generateChecked, validateSpec) return issues with a path
// and a code for any JS value, never throw, and read only own enumerable data properties (never a getter).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { generate, generateChecked, validateSpec } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = join(import.meta.dirname, "..", "..", "..");
const spec = (): any => parse(readFileSync(join(root, "examples", "bare-metal-ha", "cluster.yaml"), "utf8"));
const PLAIN = "a spec holds only what YAML can: plain objects, arrays, strings, finite numbers, booleans and null";

describe("the library with values YAML cannot hold", () => {
  const cases: [string, (s: any) => void, string, string][] = [
    ["a Date", (s) => (s.name = new Date(0)), "name", `this value is a Date: ${PLAIN}`],
    ["a Map", (s) => (s.cilium.values = new Map()), "cilium.values", `this value is a Map: ${PLAIN}`],
    [
      "a class instance",
      (s) => (s.cilium.values = new (class Opts {})()),
      "cilium.values",
      `this value is an instance of the class Opts: ${PLAIN}`,
    ],
    ["undefined", (s) => (s.name = undefined), "name", `this value is undefined: ${PLAIN} (leave the key out instead)`],
    [
      "a getter that throws",
      (s) =>
        Object.defineProperty(s, "name", {
          enumerable: true,
          get() {
            throw new Error("boom");
          },
        }),
      "name",
      `this property is a getter or setter, which is never called: ${PLAIN}`,
    ],
    [
      "inherited properties",
      (s) => Object.setPrototypeOf(s.kubernetes, { version: "1.33.1" }),
      "kubernetes",
      `this value is an object with its own prototype: ${PLAIN}`,
    ],
    [
      "a number beyond 2^53",
      (s) => (s.cilium.values = { n: 2 ** 60 }),
      "cilium.values.n",
      'the integer 1152921504606847000 is beyond 2^53 (9007199254740991), where integers lose digits (this is how it reads, not what was written): write it as a string ("…") if it is text',
    ],
  ];
  for (const [what, mutate, path, message] of cases)
    it(`${what}: generate, generateChecked and validateSpec return the issue at ${path}`, async () => {
      const s = spec();
      mutate(s);
      const results = [generate(s), await generateChecked(s), validateSpec(s)];
      for (const r of results) {
        expect(r.ok).toBe(false);
        const e = r.ok ? undefined : r.errors.find((i) => i.path.join(".") === path);
        expect(e?.message).toBe(message);
      }
    });

  it("property: generate never throws for any JS value in any top-level field", () => {
    const anything = fc.anything({
      withBigInt: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withSparseArray: true,
      withTypedArray: true,
      withBoxedValues: true,
      maxDepth: 3,
    });
    fc.assert(
      fc.property(anything, fc.constantFrom("name", "cilium", "nodes", "kubernetes", "overlays"), (value, key) => {
        const s = spec();
        s[key] = value;
        const r = generate(s);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: 100 },
    );
  });
});
