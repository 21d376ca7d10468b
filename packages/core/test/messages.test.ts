// Issue 14: each message a person reads, as it prints (path, line:column of the key, a frame of that line).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { didYouMean, editDistance, formatIssues, loadSpec } from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { repoRoot } from "./helpers.js";

const exampleText = (name: string) => readFileSync(join(repoRoot, "examples", name, "cluster.yaml"), "utf8");
const bare = exampleText("bare-metal-ha");
const hybrid = exampleText("hybrid-cloud-burst");

/** Replaces the first occurrence of `from` (which must exist) and prints what loadSpec reports. */
function report(text: string, from?: string | RegExp, to = ""): string {
  if (from !== undefined) {
    const changed = text.replace(from, to);
    expect(changed, `${from} not found`).not.toBe(text);
    text = changed;
  }
  const r = loadSpec(text);
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml", { source: text });
}

describe("messages for the spec file", () => {
  it("an empty file", () => {
    expect(report("")).toMatchInlineSnapshot(`
      "✖ the spec is empty: expected a mapping that starts with apiVersion, kind, name
        → at (root) (cluster.yaml:1:1)"
    `);
  });

  it("a misspelt key: one message at the key, with the key it was meant to be", () => {
    expect(report(bare, "podSubnet:", "podSubnett:")).toMatchInlineSnapshot(`
      "✖ unknown key "podSubnett" (did you mean "podSubnet"?)
        → at kubernetes.podSubnett (cluster.yaml:8:3)
        8 |   podSubnett: 10.244.0.0/16
          |   ^^^^^^^^^^"
    `);
  });

  it("a missing key: at the mapping that lacks it", () => {
    expect(report(bare, "  podSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ missing required key "podSubnet"
        → at kubernetes.podSubnet (cluster.yaml:6:1)
        6 | kubernetes:
          | ^^^^^^^^^^"
    `);
  });

  it("an unknown key with nothing close to it gets no suggestion", () => {
    expect(report(bare, "  podSubnet:", "  flavour: vanilla\n  podSubnet:")).toMatchInlineSnapshot(`
      "✖ unknown key "flavour"
        → at kubernetes.flavour (cluster.yaml:8:3)
        8 |   flavour: vanilla
          |   ^^^^^^^"
    `);
  });

  it("a YAML syntax error is one message", () => {
    expect(report("name: [unclosed\nkind: Cluster\nnodes: [\n")).toMatchInlineSnapshot(`
      "✖ invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]
        → at (root) (cluster.yaml:2:1)
        2 | kind: Cluster
          | ^^^^"
    `);
  });

  it("a duplicate key is named", () => {
    expect(report(bare, "  port: 6443\n", "  port: 6443\n  port: 6444\n")).toMatchInlineSnapshot(`
      "✖ duplicate key "port": a key appears once per mapping
        → at (root) (cluster.yaml:34:3)
        34 |   port: 6444
           |   ^^^^"
    `);
  });

  it("an AMI lookup without owners says owners is missing", () => {
    expect(report(hybrid, /\s+owners: .*\n/, "\n")).toMatchInlineSnapshot(`
      "✖ missing required key "owners"
        → at cloud.pools[0].ami.lookup.owners (cluster.yaml:90:9)
        90 |         lookup:
           |         ^^^^^^"
    `);
  });

  it("a VRID out of range states the range", () => {
    expect(report(bare, "vrid: 5", "vrid: 0")).toMatchInlineSnapshot(`
      "✖ 0 is out of range: expected a number in 1..255
        → at controlPlane.vrid (cluster.yaml:34:3)
        34 |   vrid: 0
           |   ^^^^"
    `);
  });

  it("an enum value: the options and the closest one", () => {
    expect(report(bare, "type: AH", "type: AHH")).toMatchInlineSnapshot(`
      "✖ "AHH" is not one of AH, PASS (did you mean "AH"?)
        → at vrrp.auth.type (cluster.yaml:36:11)
        36 |   auth: { type: AHH, password: { env: VRRP_AUTH_PASS } }
           |           ^^^^"
    `);
  });

  it("a value of the wrong type shows it", () => {
    expect(report(bare, "port: 6443", 'port: "https"')).toMatchInlineSnapshot(`
      "✖ expected a number, got "https"
        → at controlPlane.port (cluster.yaml:33:3)
        33 |   port: "https"
           |   ^^^^"
    `);
  });

  it("a multicast MAC is rejected", () => {
    expect(report(bare, '"52:54:00:12:34:56"', '"01:00:5e:00:00:01"')).toMatchInlineSnapshot(`
      "✖ a multicast MAC (odd first octet) never belongs to a NIC: use the interface's own unicast MAC, got "01:00:5e:00:00:01"
        → at nodes[0].interfaces.wan0.mac (cluster.yaml:47:15)
        47 |       wan0: { mac: "01:00:5e:00:00:01", address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |               ^^^"
    `);
  });

  it("a physical interface (MAC, no vlan) with a dotted name is rejected", () => {
    expect(report(bare, "      wan0: {", "      wan0.4000: {")).toMatchInlineSnapshot(`
      "✖ physical interface "wan0.4000" (named by MAC, no vlan) must not contain "." - netifrc reads a dotted name as a VLAN; rename it, or declare vlan: { parent, id } for a VLAN
        → at nodes[0].interfaces["wan0.4000"] (cluster.yaml:47:7)
        47 |       wan0.4000: { mac: "52:54:00:12:34:56", address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |       ^^^^^^^^^"
    `);
  });
});

describe("didYouMean", () => {
  it("suggests the key one slip away, and nothing for an unrelated word", () => {
    expect(didYouMean("podSubnett", ["podSubnet", "serviceSubnet"])).toBe("podSubnet");
    expect(didYouMean("ah", ["AH", "PASS"])).toBe("AH");
    expect(didYouMean("flavour", ["podSubnet", "serviceSubnet", "version"])).toBeUndefined();
  });

  it("edit distance is a metric: zero only for equal words, symmetric, one per inserted character", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 1, minLength: 1 }),
        (a, b, c) => {
          expect(editDistance(a, b)).toBe(editDistance(b, a));
          expect(editDistance(a, b) === 0).toBe(a === b);
          expect(editDistance(a, a + c)).toBe(1);
          expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
        },
      ),
    );
  });

  it("finds a key of at least four characters again after any one-character deletion", () => {
    const keys = ["podSubnet", "serviceSubnet", "nodeCidrMaskSize", "schedulableControlPlanes", "version", "dnsDomain"];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.nat(), (key, n) => {
        const i = n % key.length;
        const typo = key.slice(0, i) + key.slice(i + 1);
        expect(didYouMean(typo, keys)).toBe(key);
      }),
    );
  });
});

describe("loadSpec on damaged text", () => {
  it("never throws, and places every error on a line of the text", () => {
    const lines = bare.split("\n");
    fc.assert(
      fc.property(fc.nat(lines.length - 1), fc.constantFrom("", "  x: 1", "- a", ": :", "\t"), (i, junk) => {
        const text = [...lines.slice(0, i), junk, ...lines.slice(i + 1)].join("\n");
        const r = loadSpec(text);
        if (r.ok) return;
        for (const e of r.errors) {
          expect(e.line, e.message).toBeGreaterThanOrEqual(1);
          expect(e.line, e.message).toBeLessThanOrEqual(lines.length);
          expect(e.code, e.message).toBeTypeOf("string");
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("formatIssues colours", () => {
  it("colours the mark, location and caret only when asked", () => {
    const r = loadSpec(bare.replace("vrid: 5", "vrid: 0"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const plain = formatIssues(r.errors, "cluster.yaml", { source: bare });
    const coloured = formatIssues(r.errors, "cluster.yaml", { source: bare, color: true });
    expect(plain).not.toContain("\x1b[");
    expect(coloured).toContain("\x1b[31m✖\x1b[0m");
    expect(coloured.replaceAll(new RegExp(`${"\x1b"}\\[\\d+m`, "g"), "")).toBe(plain);
  });
});

describe("messages for the provisioner's SNS path", () => {
  it("a notifyPath that is not a plain URL path names the field and its line", () => {
    const text = report(
      hybrid,
      "    url: https://provisioner.example.com\n",
      "    url: https://provisioner.example.com\n    notifyPath: sns?x=1\n",
    );
    expect(text).toContain("expected a URL path such as /sns");
    expect(text).toContain("→ at cloud.provisioner.notifyPath (cluster.yaml:77:");
    expect(
      report(
        hybrid,
        "    url: https://provisioner.example.com\n",
        "    url: https://provisioner.example.com\n    notifyPath: /hooks/sns\n",
      ),
    ).toBe("(valid)");
  });
});
