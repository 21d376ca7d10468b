// Issue 33 (host half): the messages of the new rules as they print, with their YAML line, and the plan facts behind
// them (uplink sources derived from the external VIPs, the VIPs' interface among Cilium's devices).
import { formatIssues, loadSpec, validateSpec } from "@clusterspec/core";
import { mustResolve, withExternalVipsOnVlan } from "@clusterspec/core/testing";
import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { referenceSpec } from "./helpers.js";

/** The reference spec with its external VIPs on a VLAN of wan0 whose segment has an uplink and nothing else. */
function vlanUplink(vlan = 4000, mtu: number | null = 1400): any {
  return withExternalVipsOnVlan(referenceSpec(), vlan, mtu);
}

/** Prints what loadSpec reports for the spec as YAML text: errors, else warnings. */
function printed(spec: unknown): string {
  const text = stringify(spec);
  const r = loadSpec(text);
  return formatIssues(r.ok ? r.warnings : r.errors, "cluster.yaml", { source: text });
}

describe("an uplink whose VIPs sit in its own subnet (no onLink, no sources)", () => {
  it("takes the external VIPs inside the subnet as its sources, each as a /32", () => {
    const plan = mustResolve(vlanUplink());
    expect(plan.network.policyRoutes.map((p) => [p.table.name, p.sources])).toEqual([
      ["pub", ["203.0.113.20/32", "203.0.113.21/32"]],
    ]);
  });

  it("is an error, at the uplink with its line, when nothing would use the table", () => {
    const spec = vlanUplink();
    // the VIPs move back to the internal segment: the public uplink has no source left
    spec.externalVips = { interface: "wan1", addresses: [{ address: "10.118.12.120", vrid: 10 }] };
    expect(printed(spec)).toMatch(
      /^✖ the uplink of segment public routes nothing: it has no uplink\.sources, no onLink networks and no external VIPs inside 203\.0\.113\.0\/24, so no rule uses table pub and replies leave by the main table's default route; list the networks whose replies must leave through 203\.0\.113\.1 in uplink\.sources \(e\.g\. \[203\.0\.113\.0\/24\]\), or remove the uplink\n {2}→ at network\.segments\[1\]\.uplink\.gateway \(cluster\.yaml:\d+:\d+\)/,
    );
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.code)).toEqual(["rule"]);
  });

  it("says so at uplink.sources when they are given but empty", () => {
    const spec: any = referenceSpec();
    spec.network.segments[0].uplink.sources = [];
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => [e.path.join("."), e.message])).toEqual([
        [
          "network.segments.0.uplink.sources",
          "the uplink of segment internal routes nothing: uplink.sources is empty, so no rule uses table vswitch and replies leave by the main table's default route; list the networks whose replies must leave through 10.118.11.1 in uplink.sources (e.g. [10.118.12.0/24]), or remove the uplink",
        ],
      ]);
  });
});

describe("external VIPs and Cilium's devices", () => {
  it("adds the external VIPs' interface to the default devices", () => {
    expect(mustResolve(vlanUplink()).cilium.devices).toEqual(["wan1", "wan0", "wan0.4000"]);
  });

  it("refuses an explicit cilium.devices without it, with the fix", () => {
    const spec = vlanUplink();
    spec.cilium.devices = ["wan1", "wan0"];
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => [e.path.join("."), e.code, e.message])).toEqual([
        [
          "cilium.devices",
          "rule",
          "the external VIPs live on wan0.4000, which is not a Cilium device: with kube-proxy replacement Cilium's load balancer serves Services only on its devices, so traffic to the VIPs there would not reach a backend; add wan0.4000 to cilium.devices (or leave cilium.devices out: clusterspec then adds it)",
        ],
      ]);
  });
});

describe("warnings", () => {
  it("a VLAN id in Hetzner's vSwitch range without mtu: once per interface, at the first node, naming every node", () => {
    const r = validateSpec(vlanUplink(4000, null));
    expect(r.ok).toBe(true);
    expect(r.warnings.map((w) => [w.path.join("."), w.code, w.message])).toEqual([
      [
        "nodes.0.interfaces.wan0.4000.vlan.id",
        "rule",
        "VLAN 4000 (wan0.4000 on k8s-1, k8s-2, k8s-3) is in Hetzner's vSwitch range 4000-4091, whose MTU is 1400, and no mtu is set: the interface keeps 1500 and larger packets are lost; set nodes[].interfaces.wan0.4000.mtu: 1400 (or the network's own MTU if it is not a vSwitch)",
      ],
    ]);
    // with an mtu, or outside the range, nothing
    expect(validateSpec(vlanUplink(4000, 1400)).warnings).toEqual([]);
    expect(validateSpec(vlanUplink(3999, null)).warnings).toEqual([]);
    expect(validateSpec(vlanUplink(4092, null)).warnings).toEqual([]);
  });

  it("DSR or hybrid with WireGuard encryption", () => {
    for (const mode of ["dsr", "hybrid", "snat"] as const) {
      const spec: any = referenceSpec();
      spec.cilium.encryption = "wireguard";
      spec.cilium.loadBalancerMode = mode;
      const r = validateSpec(spec);
      expect(r.ok).toBe(true);
      expect(r.warnings.map((w) => [w.path.join("."), w.message])).toEqual(
        mode === "snat"
          ? []
          : [
              [
                "cilium.loadBalancerMode",
                `loadBalancerMode ${mode} with encryption wireguard: Cilium does not encrypt north-south Service traffic a node forwards to a backend on another node with DSR${mode === "hybrid" ? " (hybrid uses DSR for TCP)" : ""} (Cilium docs, WireGuard encryption, Limitations), so that hop crosses the network in the clear; use loadBalancerMode snat if it must be encrypted`,
              ],
            ],
      );
    }
  });
});
