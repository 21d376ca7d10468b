import { execFileSync } from "node:child_process";
import { InternalError, shellDoubleQuoted, shellQuote, stableJson, toYaml, toYamlDocuments } from "@clusterspec/core";
import { parseYamlDocuments } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

// Plain JSON-like values (no -0, no undefined): what generators build.
const arbPlain = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

describe("toYaml", () => {
  it("quotes YAML 1.1 lookalikes so Go and PyYAML read strings back", () => {
    const tricky = [
      "yes",
      "on",
      "off",
      "no",
      "y",
      "0777",
      "1e3",
      "0x1f",
      "a: b # c",
      "~",
      "null",
      "2024-01-01",
      "12:30",
      "-",
      "",
    ];
    const text = toYaml({ values: tricky });
    expect(parseYamlDocuments(text)).toEqual([{ values: tricky }]);
    expect(text).toMatchInlineSnapshot(`
      "values:
        - "yes"
        - "on"
        - "off"
        - "no"
        - "y"
        - "0777"
        - "1e3"
        - "0x1f"
        - "a: b # c"
        - "~"
        - "null"
        - "2024-01-01"
        - "12:30"
        - "-"
        - ""
      "
    `);
  });

  it("never folds long lines and ends with exactly one newline", () => {
    const long = "x".repeat(500);
    const text = toYaml({ long });
    expect(text.split("\n")).toHaveLength(2);
    expect(text.endsWith("\n") && !text.endsWith("\n\n")).toBe(true);
  });

  it("round-trips any JSON value, deterministically", () => {
    fc.assert(
      fc.property(arbPlain, (value) => {
        const a = toYaml(value);
        expect(toYaml(value)).toBe(a);
        expect(parseYamlDocuments(a)).toEqual([value]);
      }),
      { numRuns: 300 },
    );
  });

  it("round-trips any string, whatever it contains", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        expect(parseYamlDocuments(toYaml({ s }))).toEqual([{ s }]);
      }),
      { numRuns: 500 },
    );
  });

  it("joins documents with ---", () => {
    expect(toYamlDocuments([{ a: 1 }, { b: 2 }])).toBe("a: 1\n---\nb: 2\n");
  });

  it("rejects values it cannot represent faithfully", () => {
    expect(() => toYaml({ a: undefined })).toThrow(InternalError);
    expect(() => toYaml({ d: new Date(0) })).toThrow(/non-plain/);
    expect(() => toYaml({ n: Number.NaN })).toThrow(/non-finite/);
  });
});

describe("stableJson", () => {
  it("sorts keys at every depth and drops undefined", () => {
    expect(stableJson({ b: 1, a: { d: undefined, c: [3, { z: 1, y: 2 }] } })).toMatchInlineSnapshot(`
      "{
        "a": {
          "c": [
            3,
            {
              "y": 2,
              "z": 1
            }
          ]
        },
        "b": 1
      }
      "
    `);
  });

  it("is independent of key insertion order and parses back", () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), arbPlain, { noNullPrototype: true }), (obj) => {
        const reversed = Object.fromEntries(Object.entries(obj).reverse());
        expect(stableJson(reversed)).toBe(stableJson(obj));
        expect(JSON.parse(stableJson(obj))).toEqual(obj);
      }),
    );
  });
});

describe("shell quoting", () => {
  it("round-trips any string through bash", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary", maxLength: 40 }).filter((s) => !s.includes("\0")),
        (s) => {
          const single = execFileSync("bash", ["-c", `printf %s ${shellQuote(s)}`], { encoding: "utf8" });
          const double = execFileSync("bash", ["-c", `printf %s "${shellDoubleQuoted(s)}"`], { encoding: "utf8" });
          expect(single).toBe(s);
          expect(double).toBe(s);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("refuses NUL", () => {
    expect(() => shellQuote("a\0b")).toThrow(InternalError);
  });
});
