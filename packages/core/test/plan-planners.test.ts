// Some planners work a fact out from the plan parts they are given instead of asking the spec again; these
// properties pin each such fact to the helper in facts/ that the rules check, so the two cannot drift apart.
import { resolvePlan, validateSpec } from "@clusterspec/core";
import { arbClusterSpec, mustValidate, withWireguardHub } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { firewallInterfaces, rpFilterLooseInterfaces } from "../src/facts/spec.js";
import { externalUplink } from "../src/facts/vrrp.js";

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
});
