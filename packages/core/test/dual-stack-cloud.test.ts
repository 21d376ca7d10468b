// Issue 30 item 6: the cloud burst of a dual-stack cluster. The tunnel carries both families (tunnelSubnet6), every
// slot and the hub get an address of each, burst nodes register both (node-ip, primary first), the hub forwards and
// filters IPv6 too and the on-prem nodes route tunnelSubnet6 through the hub's IPv6 address; and each rule's message.
import { formatIssues, loadSpec, resolvePlan } from "@clusterspec/core";
import { describe, expect, it } from "vitest";
import { isNitroInstanceType } from "../src/facts/cloud.js";
import { errorsOfEdited, testkitFixture } from "./helpers.js";

const fixture = testkitFixture;
const hybrid = fixture("dual-stack-cloud");
const burstOnly = fixture("dual-stack-cloud-burst-only");

function load(text: string) {
  const r = loadSpec(text);
  if (!r.ok) throw new Error(formatIssues(r.errors, "cluster.yaml"));
  return r.value;
}

const errorsOf = errorsOfEdited;

describe("dual-stack hybrid cluster with cloud pools", () => {
  const plan = resolvePlan(load(hybrid));
  const cloud = plan.cloud;
  if (!cloud?.hub || !("nodes" in plan)) throw new Error("fixture has no hub");

  it("gives the hub and every slot an address of each family, slot n at the same offset in both", () => {
    expect([cloud.hub?.tunnelCidr, cloud.hub?.tunnelCidr6]).toEqual(["172.30.99.1/24", "fd00:30:99::1/64"]);
    expect(cloud.slots.map((s) => [s.cidr, s.cidr6])).toEqual([
      ["172.30.99.2/32", "fd00:30:99::2/128"],
      ["172.30.99.3/32", "fd00:30:99::3/128"],
      ["172.30.99.4/32", "fd00:30:99::4/128"],
    ]);
    expect(cloud.nodeIpFamilies).toEqual([4, 6]);
    expect(cloud.routedNetworks).toEqual(["172.30.99.0/24", "fd00:30:99::/64", "10.118.12.0/24", "fd00:118:12::/64"]);
  });

  it("routes tunnelSubnet6 through the hub node's IPv6 address on every other node, and forwards IPv6 on the hub", () => {
    const [hubNode, ...others] = plan.nodes;
    expect(cloud.hub?.node).toBe(hubNode?.name);
    expect(hubNode?.tunnelRoute6).toBeUndefined();
    for (const n of others) {
      expect(n.tunnelRoute).toEqual({ subnet: "172.30.99.0/24", via: "10.118.12.20", interface: "wan1" });
      expect(n.tunnelRoute6).toEqual({ subnet: "fd00:30:99::/64", via: "fd00:118:12::20", interface: "wan1" });
    }
    expect(cloud.hub?.host.forwarding).toEqual(["net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"]);
    expect(cloud.hub?.host.returnRoutes).toEqual([
      { network: "10.118.12.0/24", tunnelSubnet: "172.30.99.0/24", via: "10.118.12.20" },
      { network: "fd00:118:12::/64", tunnelSubnet: "fd00:30:99::/64", via: "fd00:118:12::20" },
    ]);
    // the forward filter lets the burst nodes reach the kubelets on both families, and each other through the hub
    const kubelet = cloud.hub?.host.firewall.allow.find((a) => a.what === "kubelet");
    expect(kubelet?.daddr).toContain("fd00:118:12::21");
    expect(kubelet?.daddr).toContain("fd00:30:99::/64");
  });

  it("lets Cilium's NodePorts answer on both tunnel networks (the burst nodes' node IPs)", () => {
    expect(plan.cilium.nodePortAddresses).toContain("172.30.99.0/24");
    expect(plan.cilium.nodePortAddresses).toContain("fd00:30:99::/64");
  });

  it("assigns IPv6 to dual-stack pools, and IMDS over IPv6 only on Nitro instance types", () => {
    expect(cloud.pools.map((p) => [p.name, p.instanceType, p.ipv6, p.imdsIpv6])).toEqual([
      ["ci-arm64", "t4g.xlarge", "dual-stack", true],
      ["legacy", "m4.large", "dual-stack", false],
    ]);
    expect(["t2.micro", "m4.large", "c4.xlarge", "p3.2xlarge", "i3.large"].map(isNitroInstanceType)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(
      ["t3.micro", "t4g.xlarge", "c7i.2xlarge", "m4.16xlarge", "p3dn.24xlarge", "i3.metal"].every(isNitroInstanceType),
    ).toBe(true);
  });
});

describe("dual-stack existing cluster (cloud burst only), IPv6 primary", () => {
  const plan = resolvePlan(load(burstOnly));
  it("registers IPv6 then IPv4, routes both families, and forwards both on the hub", () => {
    expect(plan.kubernetes.podSubnet).toBe("fd00:10:244::/56");
    expect(plan.cloud?.nodeIpFamilies).toEqual([6, 4]);
    expect(plan.cloud?.routedNetworks).toEqual([
      "172.30.99.0/24",
      "fd00:30:99::/64",
      "10.118.12.0/24",
      "fd00:118:12::/64",
    ]);
    // an existing cluster's hub is not a generated node: the IPv6 network's hosts reach the hub through their router
    expect(plan.cloud?.hub?.host.returnRoutes).toEqual([
      { network: "10.118.12.0/24", tunnelSubnet: "172.30.99.0/24", via: "10.118.12.10" },
      { network: "fd00:118:12::/64", tunnelSubnet: "fd00:30:99::/64" },
    ]);
  });
});

describe("the tunnel's families: each error names its field and line", () => {
  it("requires tunnelSubnet6 in a dual-stack cluster with cloud pools", () => {
    expect(errorsOf(hybrid, ['    tunnelSubnet6: "fd00:30:99::/64"\n', ""])).toMatchInlineSnapshot(`
      "✖ the cluster is dual-stack (kubernetes.podSubnet) and has cloud pools, but the WireGuard tunnel has no IPv6 network: a burst node registers its tunnel address of each cluster family (kubelet node-ip); add cloud.wireguard.tunnelSubnet6, e.g. fd00:30:99::/64
        → at cloud.wireguard.tunnelSubnet6 (cluster.yaml:67:3)"
    `);
  });

  it("refuses an IPv4 tunnelSubnet6, and tunnelSubnet6 beside an IPv6 tunnelSubnet", () => {
    expect(
      errorsOf(hybrid, ['tunnelSubnet6: "fd00:30:99::/64"', "tunnelSubnet6: 172.31.99.0/24"]),
    ).toMatchInlineSnapshot(`
      "✖ tunnelSubnet6 172.31.99.0/24 is an IPv4 network: it is the tunnel's IPv6 network (the IPv4 one is tunnelSubnet)
        → at cloud.wireguard.tunnelSubnet6 (cluster.yaml:69:5)"
    `);
    expect(
      errorsOf(hybrid, ["tunnelSubnet: 172.30.99.0/24", 'tunnelSubnet: "fd00:31:99::/64"']),
    ).toMatchInlineSnapshot(`
      "✖ tunnelSubnet fd00:31:99::/64 is IPv6 already: tunnelSubnet6 is the IPv6 network beside an IPv4 tunnelSubnet; remove one
        → at cloud.wireguard.tunnelSubnet6 (cluster.yaml:69:5)
      ✖ the cluster runs IPv4 (kubernetes.podSubnet), but tunnelSubnet fd00:31:99::/64 is IPv6: a burst node registers its tunnel address of each cluster family (kubelet node-ip); give an IPv4 tunnelSubnet and the IPv6 network as tunnelSubnet6
        → at cloud.wireguard.tunnelSubnet (cluster.yaml:68:5)"
    `);
  });

  it("refuses a tunnelSubnet6 too small for the hub and the slots, or overlapping another network", () => {
    expect(
      errorsOf(hybrid, ['tunnelSubnet6: "fd00:30:99::/64"', 'tunnelSubnet6: "fd00:30:99::/127"']),
    ).toMatchInlineSnapshot(`
      "✖ tunnel subnet fd00:30:99::/127 has room for fewer than 5 addresses (hub and 3 burst slots)
        → at cloud.wireguard.tunnelSubnet6 (cluster.yaml:69:5)"
    `);
    expect(
      errorsOf(hybrid, ['tunnelSubnet6: "fd00:30:99::/64"', 'tunnelSubnet6: "fd00:118:12::/64"']),
    ).toMatchInlineSnapshot(`
      "✖ WireGuard IPv6 tunnel subnet fd00:118:12::/64 overlaps the segment internal fd00:118:12::/64 (network.segments[0].subnet6)
        → at cloud.wireguard.tunnelSubnet6 (cluster.yaml:69:5)"
    `);
  });

  it("requires the hub to be a node with an address6, the next hop of tunnelSubnet6", () => {
    expect(
      errorsOf(hybrid, [
        'wan1: { mac: "52:54:00:12:35:56", address: 10.118.12.20/24, address6: "fd00:118:12::20/64" }',
        'wan1: { mac: "52:54:00:12:35:56", address: 10.118.12.20/24 }',
      ]).split("\n")[0],
    ).toMatchInlineSnapshot(
      `"✖ the on-prem nodes route tunnelSubnet6 fd00:30:99::/64 through the WireGuard hub's IPv6 address on wan1: the hub 10.118.12.20 must be one of the nodes, with an address6 on wan1"`,
    );
  });

  it("requires an IPv6 tunnel network in an IPv6-only cluster, and an IPv4 one where the cluster runs IPv4", () => {
    expect(
      errorsOf(
        burstOnly,
        ['podSubnet: ["fd00:10:244::/56", 10.244.0.0/16]', 'podSubnet: "fd00:10:244::/56"'],
        ['serviceSubnet: ["fd00:10:96::/112", 10.96.0.0/12]', 'serviceSubnet: "fd00:10:96::/112"'],
        ['    tunnelSubnet6: "fd00:30:99::/64"\n', ""],
      ),
    ).toMatchInlineSnapshot(`
      "✖ the cluster is IPv6-only (existingCluster.podSubnet), but tunnelSubnet 172.30.99.0/24 is IPv4: a burst node registers its tunnel address (kubelet node-ip); give an IPv6 tunnelSubnet
        → at cloud.wireguard.tunnelSubnet (cluster.yaml:24:5)"
    `);
    expect(
      errorsOf(
        burstOnly,
        ["tunnelSubnet: 172.30.99.0/24", 'tunnelSubnet: "fd00:30:99::/64"'],
        ['    tunnelSubnet6: "fd00:30:99::/64"\n', ""],
      ),
    ).toMatchInlineSnapshot(`
      "✖ the cluster runs IPv4 (existingCluster.podSubnet), but tunnelSubnet fd00:30:99::/64 is IPv6: a burst node registers its tunnel address of each cluster family (kubelet node-ip); give an IPv4 tunnelSubnet and the IPv6 network as tunnelSubnet6
        → at cloud.wireguard.tunnelSubnet (cluster.yaml:24:5)"
    `);
  });

  it("refuses a pool without IPv6 when the hub's endpoint is an IPv6 address", () => {
    expect(errorsOf(hybrid, ["      ipv6: dual-stack\n", ""])).toMatchInlineSnapshot(`
      "✖ the hub's endpoint [2001:db8::10]:51820 is an IPv6 address, but pool ci-arm64 has no IPv6 (ipv6: off): its instances cannot reach the hub to bring the tunnel up; set ipv6: dual-stack, or give the endpoint as an IPv4 address or a DNS name with an A record
        → at cloud.pools[0].ipv6 (cluster.yaml:78:7)"
    `);
    expect(
      errorsOf(burstOnly, ["endpoint: vpn.example.com:51820", 'endpoint: "[2001:db8::10]:51820"']),
    ).toMatchInlineSnapshot(`
      "✖ the hub's endpoint [2001:db8::10]:51820 is an IPv6 address, but pool ci-arm64 has no IPv6 (ipv6: off): its instances cannot reach the hub to bring the tunnel up; set ipv6: dual-stack, or give the endpoint as an IPv4 address or a DNS name with an A record
        → at cloud.pools[0].ipv6 (cluster.yaml:36:7)"
    `);
  });

  it("checks an existing cluster's dual-stack pod and service networks as kubeadm does", () => {
    expect(
      errorsOf(burstOnly, [
        'podSubnet: ["fd00:10:244::/56", 10.244.0.0/16]',
        'podSubnet: ["fd00:10:244::/56", "fd00:10:245::/56"]',
      ]),
    ).toMatchInlineSnapshot(`
      "✖ pod subnets fd00:10:244::/56 and fd00:10:245::/56 are both IPv6: a dual-stack cluster has one pod network per family (IPv4 and IPv6), the primary family first
        → at existingCluster.podSubnet[1] (cluster.yaml:10:35)"
    `);
    expect(
      errorsOf(burstOnly, [
        'serviceSubnet: ["fd00:10:96::/112", 10.96.0.0/12]',
        'serviceSubnet: [10.96.0.0/12, "fd00:10:96::/112"]',
      ]),
    ).toMatchInlineSnapshot(`
      "✖ the service network's families (IPv4, IPv6) differ from the pod network's (IPv6, IPv4): give one service network per pod network family, in the same order
        → at existingCluster.serviceSubnet (cluster.yaml:11:3)"
    `);
    expect(
      errorsOf(burstOnly, [
        'serviceSubnet: ["fd00:10:96::/112", 10.96.0.0/12]',
        'serviceSubnet: ["fd00:10:96::/100", 10.96.0.0/12]',
      ]),
    ).toMatchInlineSnapshot(`
      "✖ service subnet fd00:10:96::/100 is larger than kubeadm allows (/108 or smaller for IPv6)
        → at existingCluster.serviceSubnet[0] (cluster.yaml:11:19)"
    `);
  });
});
