// Issue 31 item 7: YAML syntax errors in plain words at the character to fix (not `(root)` at column 1), and code
// frames that never print a secret written into the spec.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatIssues, isIssueCode, loadSpec } from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.js";

const bare = readFileSync(join(repoRoot, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");

const show = (text: string): string => {
  const r = loadSpec(text);
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml", { source: text });
};

/** The bare-metal example with the first `from` replaced by `to` (which must change it), as loadSpec reports it. */
function report(from: string, to: string, text = bare): string {
  const changed = text.replace(from, to);
  expect(changed, `${from} not found`).not.toBe(text);
  return show(changed);
}

describe("YAML syntax errors in plain words", () => {
  it("a key in the column of a list's dashes: start a new item or indent it into the one above", () => {
    expect(report("    roles: [control-plane, worker]\n", "  roles: [control-plane, worker]\n")).toMatchInlineSnapshot(`
      "✖ the key "roles" is in the column of the list items' "-" (line 44) but does not start with "- ": write "- roles: [control-plane, worker]" to start a new item, or indent it by 4 spaces to add it to the item above
        → at nodes (cluster.yaml:45:3)
        45 |   roles: [control-plane, worker]
           |   ^^^^^"
    `);
  });

  it("a key between a list's dash and its item's keys (the parser's 'Sequence item without - indicator')", () => {
    expect(
      report("    roles: [control-plane, worker]\n", "   roles: [control-plane, worker]\n"),
    ).toMatchInlineSnapshot(`
      "✖ the key "roles" is indented by 3 spaces (between the list's "-" and the keys of its item), which lines up with nothing above it: indent it by 4 spaces to line it up with "name" (line 44), or by 2 spaces with "- " for a new item of the list on line 44
        → at nodes (cluster.yaml:45:4)
        45 |    roles: [control-plane, worker]
           |    ^^^^^"
    `);
  });

  it("a key less indented than its siblings (the parser's 'All mapping items must start at the same column')", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", " podSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ the key "podSubnet" is indented by 1 space, which lines up with nothing above it: indent it by 2 spaces to line it up with "version" (line 7), or by 0 spaces to line it up with "kubernetes" (line 6)
        → at kubernetes (cluster.yaml:8:2)
        8 |  podSubnet: 10.244.0.0/16
          |  ^^^^^^^^^"
    `);
  });

  it("a key more indented than its siblings: read as part of the value above", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", "    podSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ the key "podSubnet" is indented deeper than "version" above it, so YAML reads it as part of that value: indent it by 2 spaces like "version"
        → at kubernetes.version (cluster.yaml:8:5)
        8 |     podSubnet: 10.244.0.0/16
          |     ^^^^^^^^^"
    `);
  });

  it("a list item among the keys of a mapping", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", "  - podSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ this list item is in the column of the key "version" (line 7): a mapping holds "key: value" lines, not list items; put the list under a key of its own, indented deeper than that key
        → at kubernetes.version (cluster.yaml:8:3)
        8 |   - podSubnet: 10.244.0.0/16
          |   ^"
    `);
  });

  it("a tab in the indentation", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", "\tpodSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ line 8 is indented with a tab: YAML indents with spaces only, replace the tab with spaces
        → at kubernetes (cluster.yaml:8:1)
        8 |  podSubnet: 10.244.0.0/16
          | ^"
    `);
  });

  it("an unclosed double quote: at the opening quote, not at the end of the file", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", '  podSubnet: "10.244.0.0/16\n')).toMatchInlineSnapshot(`
      "✖ this double-quoted value is never closed: add the closing " at the end of the value
        → at kubernetes.podSubnet (cluster.yaml:8:14)
        8 |   podSubnet: "10.244.0.0/16
          |              ^^^^^^^^^^^^^^"
    `);
  });

  it("an unclosed single quote", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", "  podSubnet: '10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ this single-quoted value is never closed: add the closing ' at the end of the value
        → at kubernetes.podSubnet (cluster.yaml:8:14)
        8 |   podSubnet: '10.244.0.0/16
          |              ^^^^^^^^^^^^^^"
    `);
  });

  it("an unclosed flow list: at its [", () => {
    expect(
      report("    roles: [control-plane, worker]\n", "    roles: [control-plane, worker\n"),
    ).toMatchInlineSnapshot(`
      "✖ this list opened with [ is never closed: end it with ] (a list that goes on over several lines indents them deeper than its key)
        → at nodes[0].roles (cluster.yaml:45:12)
        45 |     roles: [control-plane, worker
           |            ^"
    `);
  });

  it("an unclosed flow mapping: at its {", () => {
    expect(report("{ mac:", "{ { mac:")).toMatchInlineSnapshot(`
      "✖ this mapping opened with { is never closed: end it with } (a mapping that goes on over several lines indents them deeper than its key)
        → at nodes[0].interfaces.wan0 (cluster.yaml:49:13)
        49 |       wan0: { { mac: "52:54:00:12:34:56", address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |             ^"
    `);
  });

  it("a key without its colon", () => {
    expect(report("kubernetes:\n", "kubernetes\n")).toMatchInlineSnapshot(`
      "✖ "kubernetes" has no ":" after it: a mapping's lines are "key: value" (or "key:" with the value indented below)
        → at (root) (cluster.yaml:6:1)
        6 | kubernetes
          | ^^^^^^^^^^"
    `);
  });

  it("a second document", () => {
    expect(report("kubernetes:\n", "---\nkubernetes:\n")).toMatchInlineSnapshot(`
      "✖ a spec is one YAML document, and "---" on line 6 starts a second one: remove it, or move what follows into a file of its own
        → at (root) (cluster.yaml:6:1)
        6 | ---
          | ^^^"
    `);
  });

  it("an alias without its anchor, at the alias", () => {
    expect(report("  podSubnet: 10.244.0.0/16\n", "  podSubnet: *pods\n")).toMatchInlineSnapshot(`
      "✖ the alias *pods refers to no anchor &pods set before it: mark the value to repeat with &pods first, or write it out
        → at (root) (cluster.yaml:8:14)
        8 |   podSubnet: *pods
          |              ^^^^^"
    `);
  });

  it("a key whose opening quote is never closed on its line", () => {
    expect(report("    evictionAfter: 30s\n", "    'evictionAfter: 30s\n")).toMatchInlineSnapshot(`
      "✖ this single-quoted text is never closed on its line, so YAML reads on into the next lines: add the closing ', or remove the opening one
        → at kubernetes.nodeHealth (cluster.yaml:16:5)
        16 |     'evictionAfter: 30s
           |     ^^^^^^^^^^^^^^"
    `);
  });

  it("a missing comma in a { } mapping", () => {
    expect(report("{ id: 1, name: vswitch }", "{ id: 1 name: vswitch }")).toMatchInlineSnapshot(`
      "✖ a "," is missing between two items of this { } mapping: separate the items with ", "
        → at network.segments[0].uplink.routingTable (cluster.yaml:29:29)
        29 |         routingTable: { id: 1 name: vswitch }
           |                             ^"
    `);
  });

  it("a bracket that closes nothing", () => {
    expect(report("{ id: 1, name: vswitch }", "{ id: 1, name: vswitch }}")).toMatchInlineSnapshot(`
      "✖ a "}" that closes nothing: remove it, or open the mapping with { before it
        → at network.segments[0].uplink.routingTable (cluster.yaml:29:47)
        29 |         routingTable: { id: 1, name: vswitch }}
           |                                               ^"
    `);
  });

  it("a value that starts with a character YAML reserves", () => {
    expect(report("name: k8s-test\n", "name: @k8s-test\n")).toMatchInlineSnapshot(`
      "✖ a value cannot start with "@" unquoted (YAML reserves it): quote the value, e.g. "@…"
        → at name (cluster.yaml:5:7)
        5 | name: @k8s-test
          |       ^^^^^^^^^"
    `);
  });

  it("more text after a quoted value", () => {
    expect(report('mac: "52:54:00:12:34:56"', 'mac: "52:54:00:12:34:56" x')).toMatchInlineSnapshot(`
      "✖ more text after a value that has ended (a closing quote or bracket ends it): remove it, or quote the whole value
        → at nodes[0].interfaces.wan0 (cluster.yaml:49:40)
        49 |       wan0: { mac: "52:54:00:12:34:56" x, address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |                                        ^"
    `);
  });

  it("never throws, and every syntax error has a catalog code and a position inside the text", () => {
    const lines = bare.split("\n");
    const edits = fc.record({
      line: fc.nat({ max: lines.length - 1 }),
      kind: fc.constantFrom("indent", "dedent", "tab", "quote", "bracket", "brace", "dash", "colon"),
    });
    fc.assert(
      fc.property(fc.array(edits, { minLength: 1, maxLength: 3 }), (list) => {
        const edited = [...lines];
        for (const { line, kind } of list) {
          const l = edited[line] ?? "";
          edited[line] =
            kind === "indent"
              ? ` ${l}`
              : kind === "dedent"
                ? l.replace(/^ /, "")
                : kind === "tab"
                  ? `\t${l}`
                  : kind === "colon"
                    ? l.replace(":", "")
                    : kind === "dash"
                      ? l.replace(/^(\s*)/, "$1- ")
                      : `${l} ${{ quote: '"', bracket: "[", brace: "{" }[kind]}`;
        }
        const text = edited.join("\n");
        const r = loadSpec(text);
        if (r.ok) return;
        for (const issue of r.errors) {
          expect(isIssueCode(issue.code), issue.message).toBe(true);
          if (issue.code.startsWith("yaml_")) expect(issue.message).not.toMatch(/^invalid YAML: (All|Sequence)/);
          if (issue.line === undefined) continue;
          expect(issue.line).toBeLessThanOrEqual(edited.length);
          expect(issue.column ?? 1).toBeLessThanOrEqual((edited[issue.line - 1] ?? "").length + 1);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("a secret written into the spec", () => {
  it("is masked in the code frame, and the message says how to reference one", () => {
    const out = report(
      "  auth: { type: AH, password: { env: VRRP_AUTH_PASS } }",
      "  auth: { type: AH, password: hunter2-secret }",
    );
    expect(out).not.toContain("hunter2");
    expect(out).toMatchInlineSnapshot(`
      "✖ secrets are never written in the spec: reference one with { env: NAME } or { file: path }
        → at vrrp.auth.password (cluster.yaml:36:21)
        36 |   auth: { type: AH, password: **** }
           |                     ^^^^^^^^"
    `);
  });

  it("is masked in block style and when quoted", () => {
    const block = report(
      "  auth: { type: AH, password: { env: VRRP_AUTH_PASS } }",
      '  auth:\n    type: AH\n    password: "hunter2 secret" # a comment stays',
    );
    expect(block).not.toContain("hunter2");
    expect(block).toMatchInlineSnapshot(`
      "✖ secrets are never written in the spec: reference one with { env: NAME } or { file: path }
        → at vrrp.auth.password (cluster.yaml:38:5)
        38 |     password: **** # a comment stays
           |     ^^^^^^^^"
    `);
  });

  it("is masked when an overlay carries a literal that looks like a bootstrap token", () => {
    const out = show(
      `${bare}overlays:\n  - target: nodes/k8s-2/kubeadm.yaml\n    document: JoinConfiguration\n    patch: { discovery: { bootstrapToken: { token: abcdef.0123456789abcdef } } }\n`,
    );
    expect(out).not.toContain("abcdef.0123456789abcdef");
    expect(out).toMatchInlineSnapshot(`
      "✖ this looks like a kubeadm bootstrap token: secrets are never written in the spec; kubeadm secrets come from kubernetes.secrets references ({ env } or { file })
        → at overlays[0].patch.discovery.bootstrapToken.token (cluster.yaml:74:45)
        74 |     patch: { discovery: { bootstrapToken: { token: **** } } }
           |                                             ^^^^^"
    `);
  });
});
