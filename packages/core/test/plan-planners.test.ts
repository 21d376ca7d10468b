// Some planners work a fact out from the plan parts they are given instead of asking the spec again; these
// properties pin each such fact to the helper in facts/ that the rules check, so the two cannot drift apart.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { resolvePlan, validateSpec } from "@clusterspec/core";
import { arbClusterSpec, mustResolve, mustValidate, withWireguardHub } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { firewallInterfaces, rpFilterLooseInterfaces } from "../src/facts/spec.js";
import { externalUplink } from "../src/facts/vrrp.js";
import { planControlPlane, planVips } from "../src/plan/vrrp.js";
import type { ClusterSpec } from "../src/spec/schema.js";
import { repoRoot } from "./helpers.js";

const arbVariedSpec = () =>
  fc
    .record({
      spec: arbClusterSpec(),
      uplinkCheck: fc.boolean(),
      publicInterfaces: fc.option(fc.subarray(["wan0", "wan1", "wan9"]), { nil: undefined }),
      firewall: fc.boolean(),
      dsr: fc.boolean(),
      hub: fc.boolean(),
    })
    .map((r) => {
      const s: any = structuredClone(r.hub ? withWireguardHub(r.spec, false) : r.spec);
      if (r.uplinkCheck) s.vrrp.uplinkCheck = true;
      if (r.firewall)
        s.host = {
          ...s.host,
          firewall: { sshFrom: [], ...(r.publicInterfaces ? { publicInterfaces: r.publicInterfaces } : {}) },
        };
      if (r.dsr) s.cilium.loadBalancerMode = "dsr";
      return s;
    })
    .filter((s) => validateSpec(s).ok)
    .map((s) => mustValidate(s));

describe("planners", () => {
  it("derive rp_filter, firewall and uplink-check interfaces as the rules' facts do", () => {
    fc.assert(
      fc.property(arbVariedSpec(), (spec) => {
        const plan = resolvePlan(spec);
        spec.nodes.forEach((n, i) => {
          const planned = plan.nodes[i];
          expect(planned?.rpFilterLooseInterfaces).toEqual(rpFilterLooseInterfaces(spec, n));
          expect(planned?.firewall?.interfaces.map((f) => f.name)).toEqual(
            spec.host.firewall ? firewallInterfaces(spec, n) : undefined,
          );
        });
        const uplink = plan.vrrp.uplinkCheck;
        expect(uplink && { gateway: uplink.gateway, interface: uplink.interface }).toEqual(
          spec.externalVips && spec.vrrp.uplinkCheck ? externalUplink(spec) : undefined,
        );
      }),
      { numRuns: 60 },
    );
  });

  it("find the WireGuard hub once: the node without a tunnel route is the cloud plan's hub node", () => {
    fc.assert(
      fc.property(arbVariedSpec(), (spec) => {
        const plan = resolvePlan(spec);
        const hubNode = plan.cloud?.hub?.node;
        const withoutRoute = plan.nodes.filter((n) => n.tunnelRoute === undefined).map((n) => n.name);
        if (plan.cloud?.hub === undefined) expect(hubNode).toBeUndefined();
        else expect(withoutRoute).toEqual(hubNode === undefined ? [] : [hubNode]);
      }),
      { numRuns: 40 },
    );
  });

  it("plan the control-plane endpoint once: the DNS name when set, the VIP (bracketed if IPv6) for burst nodes", () => {
    const hybrid = parse(readFileSync(join(repoRoot, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8"));
    hybrid.controlPlane.dnsName = "api.k8s.example.com";
    const plan = mustResolve(hybrid);
    expect(plan.controlPlane).toMatchObject({
      host: "10.118.12.100",
      endpoint: "api.k8s.example.com:6443",
      vipEndpoint: "10.118.12.100:6443",
    });
    expect(plan.cloud?.apiServerEndpoint).toBe(plan.controlPlane.vipEndpoint);
    expect(plan.cloud?.apiHostAlias).toEqual({ address: "10.118.12.100", name: "api.k8s.example.com" });
    expect(plan.kubernetes.knobs.certSANs.slice(0, 2)).toEqual(["10.118.12.100", "api.k8s.example.com"]);

    const [vip] = planVips(mustValidate(hybrid));
    const v6 = { controlPlane: { port: 6443, dnsName: undefined } } as unknown as ClusterSpec;
    if (!vip) throw new Error("no control-plane VIP");
    expect(planControlPlane(v6, [{ ...vip, address: "fd00:12::100" }])).toMatchObject({
      host: "fd00:12::100",
      endpoint: "[fd00:12::100]:6443",
      vipEndpoint: "[fd00:12::100]:6443",
    });
  });
});
