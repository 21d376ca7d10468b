// Dual stack and IPv6 (issue 30): the spec's second family, its rules with their exact messages, and what the plan
// derives from it. The four IPv4 examples' golden trees did not change with it (examples/examples.test.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatIssues, ipFamily, loadSpec, validateSpec } from "@clusterspec/core";
import { mustResolve } from "@clusterspec/core/testing";
import { fc, test } from "@fast-check/vitest";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { repoRoot, testkitFixture } from "./helpers.js";

const dualYaml = readFileSync(join(repoRoot, "examples", "dual-stack", "cluster.yaml"), "utf8");
const dual = (): any => parse(dualYaml);

function errorsOf(mutate: (spec: any) => void): string {
  const spec = dual();
  mutate(spec);
  const r = validateSpec(spec);
  return r.ok ? "(valid)" : formatIssues(r.errors);
}

/** An IPv6-only cluster on bare metal (packages/testkit/fixtures/ipv6-only.yaml): the dual-stack example's IPv6 half. */
const ipv6Only = (): any => parse(testkitFixture("ipv6-only"));

describe("dual-stack spec", () => {
  it("accepts the dual-stack example and plans both families, the primary first", () => {
    const plan = mustResolve(dual());
    expect(plan.kubernetes.families).toEqual([4, 6]);
    expect(plan.kubernetes.podSubnets).toEqual(["10.244.0.0/16", "fd00:10:244::/56"]);
    expect(plan.kubernetes.nodeCidrMaskSize6).toBe(64);
    expect(plan.nodes.map((n) => n.internalAddresses)).toEqual([
      ["10.118.12.20", "fd00:118:12::20"],
      ["10.118.12.21", "fd00:118:12::21"],
      ["10.118.12.22", "fd00:118:12::22"],
    ]);
  });

  it("puts IPv6 first when the IPv6 networks are listed first (an IPv6-primary cluster)", () => {
    const s = dual();
    s.kubernetes.podSubnet.reverse();
    s.kubernetes.serviceSubnet.reverse();
    const plan = mustResolve(s);
    expect(plan.kubernetes.families).toEqual([6, 4]);
    expect(plan.nodes[0]?.internalAddress).toBe("fd00:118:12::20");
    expect(plan.nodes[0]?.internalAddresses).toEqual(["fd00:118:12::20", "10.118.12.20"]);
  });

  it("accepts an IPv6-only cluster without a warning, whose nodes have IPv6 addresses only", () => {
    const checked = validateSpec(ipv6Only());
    expect(checked.ok ? "(valid)" : formatIssues(checked.errors)).toBe("(valid)");
    expect(formatIssues(checked.warnings)).toBe("");
    const plan = mustResolve(ipv6Only());
    // both interfaces of every node (wan0 with its default gateway, wan1 on the Kubernetes segment) are IPv6 alone
    const addresses = plan.nodes.flatMap((n) => n.interfaces.flatMap((f) => [f.cidr, f.cidr6, f.gateway]));
    expect(addresses.filter((a) => a !== undefined).map((a) => ipFamily(a))).toEqual(Array(9).fill(6));
    expect(plan.kubernetes.families).toEqual([6]);
    expect(plan.kubernetes.nodeCidrMaskSize6).toBe(64);
    expect(plan.nodes.map((n) => n.internalAddresses)).toEqual([
      ["fd00:118:12::20"],
      ["fd00:118:12::21"],
      ["fd00:118:12::22"],
    ]);
  });

  it("refuses two networks of one family, and service networks in another order than the pod networks", () => {
    expect(
      errorsOf((s) => {
        s.kubernetes.podSubnet = ["10.244.0.0/16", "10.245.0.0/16"];
        delete s.kubernetes.nodeCidrMaskSize6;
      }),
    ).toMatchInlineSnapshot(`
      "✖ vip6 fd00:118:12::100/64 needs a dual-stack cluster: kubernetes.podSubnet has no IPv6 network, so no node has the IPv6 address the VIP's health check would ask
        → at controlPlane.vip6
      ✖ pod subnets 10.244.0.0/16 and 10.245.0.0/16 are both IPv4: a dual-stack cluster has one pod network per family (IPv4 and IPv6), the primary family first
        → at kubernetes.podSubnet[1]"
    `);
    expect(
      errorsOf((s) => {
        s.kubernetes.serviceSubnet.reverse();
      }),
    ).toMatchInlineSnapshot(`
      "✖ the service network's families (IPv6, IPv4) differ from the pod network's (IPv4, IPv6): give one service network per pod network family, in the same order (the first is the cluster's primary family)
        → at kubernetes.serviceSubnet"
    `);
    expect(
      errorsOf((s) => {
        s.kubernetes.podSubnet = ["10.244.0.0/16", "fd00:10:244::/56", "fd00:10:245::/56"];
      }),
    ).toMatchInlineSnapshot(`
      "✖ expected one pod network, or one per family (IPv4 and IPv6) for dual stack
        → at kubernetes.podSubnet"
    `);
  });

  it("checks each family's node mask against its pod network, as kubeadm does (validation.go ValidatePodSubnetNodeMask)", () => {
    expect(
      errorsOf((s) => {
        s.kubernetes.nodeCidrMaskSize6 = 80;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node CIDR /80 is 24 bits smaller than the pod subnet fd00:10:244::/56; kubeadm allows at most 16
        → at kubernetes.nodeCidrMaskSize6"
    `);
    expect(
      errorsOf((s) => {
        s.kubernetes.nodeCidrMaskSize6 = 48;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node CIDR /48 is larger than the pod subnet fd00:10:244::/56
        → at kubernetes.nodeCidrMaskSize6"
    `);
    expect(
      errorsOf((s) => {
        s.kubernetes.serviceSubnet[1] = "fd00:10:96::/100";
      }),
    ).toMatchInlineSnapshot(`
      "✖ service subnet fd00:10:96::/100 is larger than kubeadm allows (/108 or smaller for IPv6)
        → at kubernetes.serviceSubnet[1]"
    `);
    const single = ipv6Only();
    single.kubernetes.nodeCidrMaskSize6 = 80;
    const r = validateSpec(single);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ node CIDR /80 is 24 bits smaller than the pod subnet fd00:10:244::/56; kubeadm allows at most 16
        → at kubernetes.nodeCidrMaskSize6"
    `);
    expect(
      errorsOf((s) => {
        s.kubernetes.podSubnet = "10.244.0.0/16";
        s.kubernetes.serviceSubnet = "10.96.0.0/12";
      }),
    ).toMatchInlineSnapshot(`
      "✖ vip6 fd00:118:12::100/64 needs a dual-stack cluster: kubernetes.podSubnet has no IPv6 network, so no node has the IPv6 address the VIP's health check would ask
        → at controlPlane.vip6
      ✖ nodeCidrMaskSize6 is the node mask of the IPv6 pod network, and kubernetes.podSubnet has none; the IPv4 node mask is nodeCidrMaskSize
        → at kubernetes.nodeCidrMaskSize6"
    `);
  });

  it("requires an address of each cluster family on every node's Kubernetes interface, and an IPv6 subnet on its segment", () => {
    expect(
      errorsOf((s) => {
        delete s.nodes[1].interfaces.wan1.address6;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node k8s-2 has no IPv6 address on wan1, but the cluster runs IPv6 (kubernetes.podSubnet): every node needs an address of each cluster family on the Kubernetes segment (address6)
        → at nodes[1].interfaces.wan1"
    `);
    expect(
      errorsOf((s) => {
        delete s.network.segments[0].subnet6;
        for (const n of s.nodes) delete n.interfaces.wan1.address6;
        s.externalVips.addresses = [{ address: "10.118.11.20", vrid: 10 }];
        s.network.segments[0].onLink = ["10.118.11.0/24"];
        delete s.network.segments[0].uplink.gateway6;
      }),
    ).toMatchInlineSnapshot(`
      "✖ VIP fd00:118:12::100 is outside 10.118.12.0/24 and 10.118.11.0/24, the networks of wan1 (segment internal)
        → at controlPlane.vip6
      ✖ the cluster runs IPv6 (kubernetes.podSubnet) but Kubernetes segment internal has no IPv6 subnet: add subnet6
        → at network.segments[0].subnet6
      ✖ node k8s-1 has no IPv6 address on wan1, but the cluster runs IPv6 (kubernetes.podSubnet): every node needs an address of each cluster family on the Kubernetes segment (address6)
        → at nodes[0].interfaces.wan1
      ✖ node k8s-2 has no IPv6 address on wan1, but the cluster runs IPv6 (kubernetes.podSubnet): every node needs an address of each cluster family on the Kubernetes segment (address6)
        → at nodes[1].interfaces.wan1
      ✖ node k8s-3 has no IPv6 address on wan1, but the cluster runs IPv6 (kubernetes.podSubnet): every node needs an address of each cluster family on the Kubernetes segment (address6)
        → at nodes[2].interfaces.wan1"
    `);
  });

  it("pairs each IPv6 field with an IPv4 one, with clear errors", () => {
    expect(
      errorsOf((s) => {
        s.nodes[0].interfaces.wan1.address6 = "10.118.13.20/24";
      }),
    ).toContain("✖ address6 10.118.13.20/24 of wan1 is not an IPv6 address\n  → at nodes[0].interfaces.wan1.address6");
    expect(
      errorsOf((s) => {
        s.nodes[0].interfaces.wan1.address6 = "fd00:118:13::20/64";
      }),
    ).toMatchInlineSnapshot(`
      "✖ address fd00:118:13::20/64 of wan1 is outside segment internal (fd00:118:12::/64)
        → at nodes[0].interfaces.wan1.address6"
    `);
    expect(
      errorsOf((s) => {
        s.nodes[0].interfaces.wan0.gateway6 = "fd00:118:10::1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ an IPv6 gateway (gateway6) needs an IPv6 address (address6) on the same interface
        → at nodes[0].interfaces.wan0.gateway6"
    `);
    expect(
      errorsOf((s) => {
        s.nodes[0].interfaces.wan0.gateway = "fd00:118:10::1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ gateway fd00:118:10::1 is outside 10.118.10.0/24, the network of wan0
        → at nodes[0].interfaces.wan0.gateway
      ✖ gateway fd00:118:10::1 of wan0 is IPv6 but its address 10.118.10.20/24 is IPv4: write the IPv6 gateway as gateway6 beside address6
        → at nodes[0].interfaces.wan0.gateway"
    `);
    expect(
      errorsOf((s) => {
        s.network.segments[0].subnet6 = "10.118.13.0/24";
      }),
    ).toContain(
      "✖ subnet6 10.118.13.0/24 of segment internal is not an IPv6 network\n  → at network.segments[0].subnet6",
    );
    expect(
      errorsOf((s) => {
        delete s.network.segments[0].uplink.gateway6;
      }),
    ).toMatchInlineSnapshot(`
      "✖ the uplink of segment internal routes the IPv6 source fd00:118:11::/64 but has no IPv6 gateway: set uplink.gateway6 (rules6_wan1 would send its replies to table vswitch without a route of that family)
        → at network.segments[0].uplink.gateway6"
    `);
    expect(
      errorsOf((s) => {
        s.network.segments[0].uplink.gateway6 = "fd00:118:99::1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ uplink gateway6 fd00:118:99::1 is neither in an IPv6 subnet nor in an on-link network of segment internal
        → at network.segments[0].uplink.gateway6"
    `);
  });

  it("refuses overlapping IPv6 networks and a duplicate IPv6 node address", () => {
    expect(
      errorsOf((s) => {
        s.kubernetes.serviceSubnet[1] = "fd00:10:244:ff::/112";
      }),
    ).toMatchInlineSnapshot(`
      "✖ service subnet fd00:10:244:ff::/112 overlaps the pod subnet fd00:10:244::/56 (kubernetes.podSubnet[1])
        → at kubernetes.serviceSubnet[1]"
    `);
    expect(
      errorsOf((s) => {
        s.nodes[1].interfaces.wan1.address6 = "fd00:118:12::20/64";
      }),
    ).toMatchInlineSnapshot(`
      "✖ duplicate address fd00:118:12::20 (also used by nodes[0].interfaces.wan1.address6)
        → at nodes[1].interfaces.wan1.address6"
    `);
  });

  it("refuses an IPv6 VIP at a network's Subnet-Router anycast address (found by the family-drawing arbitrary)", () => {
    // every router on the link answers the all-zero host (RFC 4291 §2.6.1), and the nodes forward IPv6
    expect(
      errorsOf((s) => {
        s.controlPlane.vip6 = "fd00:118:12::/64";
        s.externalVips.addresses[1] = "fd00:118:11::";
      }),
    ).toMatchInlineSnapshot(`
      "✖ VIP fd00:118:12:: is the Subnet-Router anycast address of fd00:118:12::/64 (RFC 4291 §2.6.1), which every router on the link answers, Kubernetes nodes forwarding IPv6 included; pick another address
        → at controlPlane.vip6
      ✖ VIP fd00:118:11:: is the Subnet-Router anycast address of fd00:118:11::/64 (RFC 4291 §2.6.1), which every router on the link answers, Kubernetes nodes forwarding IPv6 included; pick another address
        → at externalVips.addresses[1]
      ✖ VIP fd00:118:11:: ends in 0 (its last 8 bits), which is not a VRID: give it an explicit vrid (1-255)
        → at externalVips.addresses[1]"
    `);
    // the address after it, and IPv6's last address (no broadcast in IPv6), are ordinary VIPs
    expect(
      errorsOf((s) => {
        s.controlPlane.vip6 = "fd00:118:12::1/64";
        s.externalVips.addresses[1] = "fd00:118:11::ffff:ffff:ffff:ffff";
      }),
    ).toBe("(valid)");
  });

  it("reports a dual-stack error at its YAML line", () => {
    const text = dualYaml.replace('address6: "fd00:118:12::21/64"', 'address6: "fd00:118:13::21/64"');
    const r = loadSpec(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const issue = r.errors.find((e) => e.path.join(".") === "nodes.1.interfaces.wan1.address6");
    expect(issue?.message).toBe("address fd00:118:13::21/64 of wan1 is outside segment internal (fd00:118:12::/64)");
    expect(issue?.line).toBe(text.split("\n").findIndex((l) => l.includes("fd00:118:13::21/64")) + 1);
  });
});

/** A dual-stack spec of n nodes with either family primary, from the example. */
function dualOf(n: number, v6First: boolean): any {
  const s = dual();
  const template = s.nodes[0];
  s.nodes = Array.from({ length: n }, (_, i) => ({
    ...structuredClone(template),
    name: `k8s-${i + 1}`,
    roles: i < (n >= 3 ? 3 : 1) ? ["control-plane", "worker"] : ["worker"],
    interfaces: {
      wan0: {
        mac: `52:54:00:12:34:${(0x10 + i).toString(16)}`,
        address: `10.118.10.${20 + i}/24`,
        gateway: "10.118.10.1",
      },
      wan1: {
        mac: `52:54:00:12:35:${(0x10 + i).toString(16)}`,
        address: `10.118.12.${20 + i}/24`,
        address6: `fd00:118:12::${(0x20 + i).toString(16)}/64`,
      },
    },
  }));
  if (v6First) {
    s.kubernetes.podSubnet.reverse();
    s.kubernetes.serviceSubnet.reverse();
  }
  return s;
}

describe("family consistency (property)", () => {
  test.prop([fc.integer({ min: 1, max: 12 }), fc.boolean()])(
    "every node's node-ip lists one address of each cluster family, in the cluster's order, in its Kubernetes segment",
    (n, v6First) => {
      const plan = mustResolve(dualOf(n, v6First));
      expect(plan.kubernetes.families).toEqual(v6First ? [6, 4] : [4, 6]);
      expect(plan.kubernetes.podSubnets.map(ipFamily)).toEqual(plan.kubernetes.families);
      expect(plan.kubernetes.serviceSubnets.map(ipFamily)).toEqual(plan.kubernetes.families);
      for (const node of plan.nodes) {
        expect(node.internalAddresses.map(ipFamily)).toEqual(plan.kubernetes.families);
        expect(node.internalAddress).toBe(node.internalAddresses[0]);
      }
    },
  );

  test.prop([fc.integer({ min: 2, max: 12 }), fc.boolean(), fc.nat()])(
    "a node without an address of one cluster family is refused at that node",
    (n, v6First, pick) => {
      const s = dualOf(n, v6First);
      const i = pick % n;
      delete s.nodes[i].interfaces.wan1.address6;
      const r = validateSpec(s);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.errors.map((e) => e.path.join("."))).toContain(`nodes.${i}.interfaces.wan1`);
    },
  );
});

describe("dual-stack VIP pairs (controlPlane.vip6, externalVips address6)", () => {
  it("plans a pair as one VIP with one VRID and order and its IPv6 half beside it", () => {
    const plan = mustResolve(dual());
    const [cp, pair, alone] = plan.vips;
    expect(cp?.pair6).toEqual({ address: "fd00:118:12::100", prefixLength: 64, specPath: ["controlPlane", "vip6"] });
    expect(pair?.address).toBe("10.118.11.20");
    expect(pair?.pair6).toEqual({
      address: "fd00:118:11::20",
      prefixLength: 128,
      specPath: ["externalVips", "addresses", 0, "address6"],
    });
    expect(pair?.vrid).toBe(10);
    // fd00:118:11::21 alone: its own instance, its VRID the IPv6 address's last 8 bits.
    expect(alone?.pair6).toBeUndefined();
    expect(alone?.vrid).toBe(0x21);
  });

  it("puts the control-plane endpoint in the primary family and both control-plane VIPs in the certSANs", () => {
    const v4 = mustResolve(dual());
    expect(v4.controlPlane.endpoint).toBe("10.118.12.100:6443");
    expect(v4.kubernetes.knobs.certSANs.slice(0, 2)).toEqual(["10.118.12.100", "fd00:118:12::100"]);
    const s = dual();
    s.kubernetes.podSubnet.reverse();
    s.kubernetes.serviceSubnet.reverse();
    const v6 = mustResolve(s);
    expect(v6.controlPlane.endpoint).toBe("[fd00:118:12::100]:6443");
    expect(v6.kubernetes.knobs.certSANs.slice(0, 2)).toEqual(["fd00:118:12::100", "10.118.12.100"]);
  });

  it("gives a pair's halves one VRID, unique per interface and family: an IPv6 VIP may reuse an IPv4 VIP's", () => {
    expect(
      errorsOf((s) => {
        // 10 is the pair's: the IPv6 half of the pair has it on wan1 already.
        s.externalVips.addresses[1] = { address: "fd00:118:11::21", vrid: 10 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ externalVips.addresses[1].vrid gets VRID 10 (given explicitly), which externalVips.addresses[0].vrid already has on wan1 (IPv6) (given explicitly): give one of them an explicit, unused vrid
        → at externalVips.addresses[1].vrid"
    `);
    // The control-plane pair is IPv4 + IPv6 with VRID 5; an IPv6-only VIP with VRID 5 collides, an IPv4-only one too.
    expect(
      errorsOf((s) => {
        s.externalVips.addresses[1] = { address: "fd00:118:11::21", vrid: 5 };
      }),
    ).toContain("which controlPlane.vrid already has on wan1 (IPv6)");
    // Without the control-plane pair's IPv6 half, VRID 5 is free in IPv6.
    expect(
      errorsOf((s) => {
        delete s.controlPlane.vip6;
        s.externalVips.addresses[1] = { address: "fd00:118:11::21", vrid: 5 };
      }),
    ).toBe("(valid)");
  });

  it("refuses a pair whose halves are not IPv4 + IPv6, a vip6 without IPv6 in the cluster, and a vip6 off its segment's prefix", () => {
    expect(errorsOf((s) => (s.controlPlane.vip6 = "10.118.12.101/24"))).toMatchInlineSnapshot(`
      "✖ vip6 10.118.12.101/24 is not an IPv6 address with prefix
        → at controlPlane.vip6"
    `);
    expect(
      errorsOf((s) => {
        s.externalVips.addresses[0] = { address: "fd00:118:11::30", address6: "fd00:118:11::20" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ address6 fd00:118:11::20 beside the IPv6 address fd00:118:11::30: address6 is the IPv6 half of a pair whose address is IPv4 (an IPv6-only VIP writes its address in address)
        → at externalVips.addresses[0].address6"
    `);
    expect(errorsOf((s) => (s.externalVips.addresses[0].address6 = "10.118.11.30"))).toMatchInlineSnapshot(`
      "✖ address6 10.118.11.30 is not an IPv6 address
        → at externalVips.addresses[0].address6"
    `);
    expect(errorsOf((s) => (s.controlPlane.vip6 = "fd00:118:12::100/120"))).toMatchInlineSnapshot(`
      "✖ VIP fd00:118:12::100/120 must carry the prefix of its segment fd00:118:12::/64 (/64)
        → at controlPlane.vip6"
    `);
    expect(errorsOf((s) => (s.controlPlane.vip6 = "fd00:118:12::20/64"))).toMatchInlineSnapshot(`
      "✖ VIP fd00:118:12::20 is already the address of k8s-1 (nodes[0].interfaces.wan1.address6)
        → at controlPlane.vip6"
    `);
    const v6only = ipv6Only();
    v6only.controlPlane.vip6 = "fd00:118:12::101/64";
    const r = validateSpec(v6only);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ vip6 fd00:118:12::101/64 beside the IPv6 vip fd00:118:12::100/64: vip6 is the IPv6 VIP beside an IPv4 one (an IPv6-only cluster writes its VIP in vip)
        → at controlPlane.vip6"
    `);
    const v4only = dual();
    v4only.kubernetes.podSubnet = "10.244.0.0/16";
    v4only.kubernetes.serviceSubnet = "10.96.0.0/12";
    const r4 = validateSpec(v4only);
    expect(r4.ok ? "(valid)" : formatIssues(r4.errors)).toContain(
      "✖ vip6 fd00:118:12::100/64 needs a dual-stack cluster: kubernetes.podSubnet has no IPv6 network, so no node has the IPv6 address the VIP's health check would ask\n  → at controlPlane.vip6",
    );
  });

  it("reports a pair error at its YAML line", () => {
    const text = dualYaml.replace('address6: "fd00:118:11::20"', 'address6: "10.118.11.30"');
    const r = loadSpec(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const issue = r.errors.find((e) => e.path.join(".") === "externalVips.addresses.0.address6");
    expect(issue?.message).toBe("address6 10.118.11.30 is not an IPv6 address");
    expect(issue?.line).toBe(text.split("\n").findIndex((l) => l.includes("10.118.11.30")) + 1);
  });
});
