import { execFileSync } from "node:child_process";
import {
  InternalError,
  parseYamlDocuments,
  shellDoubleQuoted,
  shellQuote,
  stableJson,
  toYaml,
  toYamlDocuments,
} from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockYaml, viaLibrary as toYamlViaLibrary } from "../src/serialize/yaml.js";

// Plain JSON-like values (no -0, no undefined): what generators build.
const arbPlain = fc.jsonValue().map((v) => JSON.parse(JSON.stringify(v)) as unknown);

// Strings YAML 1.1 readers would take for something else, or that need quotes or several lines.
const TRICKY = [
  "yes",
  "No",
  "ON",
  "off",
  "y",
  "n",
  "true",
  "False",
  "null",
  "Null",
  "~",
  "",
  " ",
  " a",
  "a ",
  "0777",
  "0o17",
  "1e3",
  "1_000",
  "0x1f",
  "0b101",
  "+1",
  "-1",
  ".5",
  ".inf",
  "-.Inf",
  ".NaN",
  "12:30",
  "190:20:30.15",
  "2024-01-01",
  "2001-12-14t21:59:43.10-05:00",
  "a: b",
  "a:b",
  "a #b",
  "#a",
  "-",
  "- a",
  "? a",
  "?",
  ":",
  "a:",
  "[a]",
  "{a}",
  "a,b",
  "*a",
  "&a",
  "!a",
  "|",
  ">",
  "'a'",
  '"a"',
  "%a",
  "@a",
  "`a",
  "a\nb",
  "a\n",
  "\ta",
  "é",
  "=",
  "<<",
  "---",
  "...",
  "10.118.12.100",
  "10.118.12.100:6443",
  "unix:///run/containerd/containerd.sock",
  "sha256:abc",
  "k8s-1",
  "x".repeat(1100),
];
const arbKey = fc.oneof(
  fc.constantFrom(...TRICKY, "name", "apiVersion", "kubeletExtraArgs"),
  fc.string({ maxLength: 6 }),
);
const arbScalar = fc.oneof(
  fc.constantFrom<unknown>(...TRICKY),
  fc.string({ maxLength: 8 }),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => (Object.is(d, -0) ? 0 : d)),
  fc.boolean(),
  fc.constant(null),
);
const treeOf = (key: fc.Arbitrary<string>, scalar: fc.Arbitrary<unknown>) =>
  fc.letrec<{ tree: unknown }>((tie) => ({
    tree: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("tree"), { maxLength: 4 }),
      fc.dictionary(key, tie("tree"), { maxKeys: 4, noNullPrototype: true }),
    ),
  })).tree;
const arbTree = fc.oneof(
  treeOf(
    arbKey.filter((k) => k !== "__proto__"),
    arbScalar,
  ),
  // what generators build: identifier keys, single-line strings, integers
  treeOf(
    fc.constantFrom("name", "value", "kind", "a-b", "x.y", "taints"),
    fc.oneof(
      fc.constantFrom<unknown>(...TRICKY.filter((t) => !t.includes("\n"))),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
    ),
  ),
);

describe("toYaml", () => {
  it("lays out blocks exactly as the yaml library does, for any plain value (its own fast path included)", () => {
    let fast = 0;
    fc.assert(
      fc.property(arbTree, (value) => {
        const own = blockYaml(value);
        if (own !== undefined) fast++;
        expect(toYaml(value)).toBe(toYamlViaLibrary(value));
        if (own !== undefined) expect(own).toBe(toYamlViaLibrary(value));
      }),
      { numRuns: 3000 },
    );
    // the comparison is not vacuous: the fast path took a good share of the values
    expect(fast).toBeGreaterThan(300);
    const doc = {
      apiVersion: "kubeadm.k8s.io/v1beta4",
      kind: "JoinConfiguration",
      nodeRegistration: { name: "k8s-2", kubeletExtraArgs: [{ name: "node-ip", value: "10.118.12.21" }], taints: [] },
      discovery: { bootstrapToken: { apiServerEndpoint: "10.118.12.100:6443", caCertHashes: ["sha256:x"] } },
      controlPlane: { localAPIEndpoint: { bindPort: 6443 } },
      patches: { directory: "/etc/kubernetes/patches", extra: {} },
    };
    expect(blockYaml(doc)).toBe(toYamlViaLibrary(doc));
  });

  it("writes names, paths and versions plain exactly where the library does", () => {
    const words = fc.oneof(
      fc.stringMatching(/^[A-Za-z/][A-Za-z0-9._/-]{0,12}$/),
      // the words some reader takes for a bool, null, number or infinity
      fc.constantFrom("y", "Yes", "no", "ON", "off", "t", "F", "True", "null", "Nil", "inf", "Infinity", "nan", "e5"),
    );
    fc.assert(
      fc.property(fc.dictionary(words, words, { maxKeys: 4, noNullPrototype: true }), words, (map, item) => {
        const value = { map, list: [item], nested: { [item]: map } };
        expect(toYaml(value)).toBe(toYamlViaLibrary(value));
      }),
      { numRuns: 2000 },
    );
  });

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
