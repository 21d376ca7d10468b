// Issue 29 items 3 and 13 on the hybrid layout (a generated cluster with cloud pools): every message with its path
// and the line of the example it points at.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { formatIssues, loadSpec } from "../src/index.js";
import { repoRoot } from "./helpers.js";

const hybridYaml = readFileSync(join(repoRoot, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8");

/** Errors and warnings of the example after replacing `from` with `to` in its text, with lines. */
function issuesAfterEdit(from: string, to: string): { errors: string; warnings: string } {
  if (!hybridYaml.includes(from)) throw new Error(`not in the example: ${from}`);
  const r = loadSpec(hybridYaml.replace(from, to));
  return r.ok
    ? { errors: "(valid)", warnings: formatIssues(r.warnings, "cluster.yaml") }
    : { errors: formatIssues(r.errors, "cluster.yaml"), warnings: "" };
}

describe("the hub endpoint of a generated cluster's burst nodes (issue 29 item 3)", () => {
  it("refuses a hub endpoint by name when every nameserver is reached only through the tunnel", () => {
    expect(
      issuesAfterEdit("nameservers: [1.1.1.1, 8.8.8.8]", "nameservers: [10.118.12.53]").errors,
    ).toMatchInlineSnapshot(`
        "✖ hub endpoint vpn.example.com:51820 is a DNS name, but every nameserver (10.118.12.53) is reached through the tunnel: after a reboot a burst node cannot resolve it to bring the tunnel up; give the endpoint as an IP address, or a nameserver outside the Kubernetes segment 10.118.12.0/24 and the tunnel subnet
          → at cloud.wireguard.endpoint (cluster.yaml:83:5)"
      `);
    // the same nameservers with the endpoint as an IP literal: nothing to resolve before the tunnel
    const literal = hybridYaml
      .replace("nameservers: [1.1.1.1, 8.8.8.8]", "nameservers: [10.118.12.53]")
      .replace("endpoint: vpn.example.com:51820", "endpoint: 203.0.113.7:51820");
    expect(loadSpec(literal).ok).toBe(true);
    // one nameserver outside the tunnel resolves the name
    expect(issuesAfterEdit("nameservers: [1.1.1.1, 8.8.8.8]", "nameservers: [10.118.12.53, 1.1.1.1]").errors).toBe(
      "(valid)",
    );
  });
});

describe("node-health timings over the WAN (issue 29 item 13)", () => {
  it("warns that a short evictionAfter also evicts burst pods after a WAN blip", () => {
    expect(issuesAfterEdit("evictionAfter: 30s", "evictionAfter: 30s").warnings).toMatchInlineSnapshot(`
      "⚠ evictionAfter 30s also applies to the burst nodes behind the internet tunnel: a WAN outage that long evicts their pods; Kubernetes has no per-pool toleration, so give the burst pods their own tolerations (node.kubernetes.io/unreachable and not-ready, NoExecute, tolerationSeconds 300 or more)
        → at kubernetes.nodeHealth.evictionAfter (cluster.yaml:17:5)"
    `);
    expect(issuesAfterEdit("evictionAfter: 30s", "evictionAfter: 300s").warnings).not.toContain("evictionAfter");
  });
});
