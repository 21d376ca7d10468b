// Issue 30 item 6: IPv6-only pools (cloud.pools[].ipv6: only). Their instances have no IPv4 address: Nitro types
// only, the hub and the provisioner reached over IPv6, nameservers outside the tunnel IPv6; the tunnel runs over
// IPv6 (80 bytes of outer headers) and still carries the cluster's families. Each rule's message, with path and line.
import { loadSpec, resolvePlan, WIREGUARD_OVERHEAD_IPV6 } from "@clusterspec/core";
import { describe, expect, it } from "vitest";
import { errorsOfEdited, testkitFixture } from "./helpers.js";

const fixture = testkitFixture;
const only = fixture("ipv6-only-cloud-burst-only");
const hybrid = fixture("dual-stack-cloud");

const errorsOf = errorsOfEdited;

describe("IPv6-only pools", () => {
  it("are valid in an IPv6-only cluster, and the tunnel over IPv6 leaves 80 bytes for the outer headers", () => {
    expect(errorsOf(only)).toBe("(valid)");
    const r = loadSpec(only);
    if (!r.ok) throw new Error("invalid");
    const cloud = resolvePlan(r.value).cloud;
    expect(cloud?.pools.map((p) => [p.name, p.ipv6, p.imdsIpv6])).toEqual([
      ["ci-arm64", "only", true],
      ["build-amd64", "dual-stack", true],
    ]);
    expect(cloud?.tunnelOverhead).toBe(WIREGUARD_OVERHEAD_IPV6);
    expect(cloud?.tunnelMtu).toBe(1500 - 80);
    expect(cloud?.nodeIpFamilies).toEqual([6]);
  });

  it("are valid in a dual-stack cluster too: the tunnel, not the pool's network, carries the cluster's families", () => {
    // the hybrid fixture's IPv4 nameserver 1.1.1.1 is outside the tunnel: an IPv6-only pool needs the IPv6 one alone
    expect(
      errorsOf(
        hybrid,
        ["      ipv6: dual-stack\n", "      ipv6: only\n"],
        ['[1.1.1.1, "2606:4700:4700::1111"]', '["2606:4700:4700::1111"]'],
      ),
    ).toBe("(valid)");
  });

  it("refuse an instance type that is not Nitro (AWS launches only Nitro instances into IPv6-only subnets)", () => {
    expect(errorsOf(only, ["instanceType: t4g.xlarge", "instanceType: m4.large"])).toMatchInlineSnapshot(`
      "✖ pool ci-arm64 is IPv6-only (ipv6: only), but m4.large is not a Nitro instance type: AWS launches only Nitro instances into IPv6-only subnets (and serves IMDS over IPv6 only to them); choose a Nitro type (e.g. m6i, t3, c7g), or set ipv6: dual-stack
        → at cloud.pools[0].instanceType (cluster.yaml:38:7)"
    `);
  });

  it("refuse a hub endpoint and a provisioner URL that are IPv4 addresses, at the pool's ipv6", () => {
    expect(
      errorsOf(
        only,
        ['endpoint: "[2001:db8:118::10]:51820"', "endpoint: 198.51.100.10:51820"],
        ["url: https://provisioner.example.com", "url: https://198.51.100.20:8443"],
      ),
    ).toMatchInlineSnapshot(`
      "✖ pool ci-arm64 is IPv6-only (ipv6: only), but the hub's endpoint 198.51.100.10:51820 is an IPv4 address: its instances have no IPv4 address and cannot reach the hub to bring the tunnel up; give cloud.wireguard.endpoint as an IPv6 address or a DNS name (with an AAAA record, or through the subnet's DNS64 and NAT64), or set ipv6: dual-stack
        → at cloud.pools[0].ipv6 (cluster.yaml:49:7)
      ✖ pool ci-arm64 is IPv6-only (ipv6: only), but the provisioner URL https://198.51.100.20:8443 names an IPv4 address: its instances have no IPv4 address and cannot fetch their WireGuard config; give the provisioner URL a DNS name (with an AAAA record, or through the subnet's DNS64 and NAT64), or set ipv6: dual-stack
        → at cloud.pools[0].ipv6 (cluster.yaml:49:7)"
    `);
  });

  it("accept a hub endpoint by DNS name (the provisioner URL is one already)", () => {
    // resolvable after a reboot only through a nameserver outside the tunnel (cloudHubEndpointResolvable): an IPv6 one
    expect(
      errorsOf(
        only,
        ['endpoint: "[2001:db8:118::10]:51820"', "endpoint: vpn.example.com:51820"],
        ['nameservers: ["fd00:118:12::53"]', 'nameservers: ["fd00:118:12::53", "2606:4700:4700::1111"]'],
      ),
    ).toBe("(valid)");
    expect(
      errorsOf(
        only,
        ['endpoint: "[2001:db8:118::10]:51820"', "endpoint: vpn.example.com:51820"],
        ['nameservers: ["fd00:118:12::53"]', 'nameservers: ["fd00:118:12::53", 1.1.1.1]'],
      ),
    ).toMatchInlineSnapshot(`
      "✖ nameserver 1.1.1.1 is an IPv4 address outside the networks the tunnel carries (fd00:118:12::/64, fd00:30:99::/64), and pool ci-arm64 is IPv6-only (ipv6: only): its instances reach it over their own network, which has no IPv4; give an IPv6 nameserver, or one in the networks the tunnel carries
        → at existingCluster.nameservers[1] (cluster.yaml:16:36)"
    `);
  });

  it("refuse an IPv4 nameserver the burst nodes reach outside the tunnel, at the nameserver", () => {
    expect(
      errorsOf(
        hybrid,
        ["      ipv6: dual-stack\n", "      ipv6: only\n"],
        ['[1.1.1.1, "2606:4700:4700::1111"]', "[10.118.12.53, 1.1.1.1]"],
      ),
    ).toMatchInlineSnapshot(`
      "✖ nameserver 1.1.1.1 is an IPv4 address outside the networks the tunnel carries (10.118.12.0/24, fd00:118:12::/64, 172.30.99.0/24, fd00:30:99::/64), and pool ci-arm64 is IPv6-only (ipv6: only): its instances reach it over their own network, which has no IPv4; give an IPv6 nameserver, or one in the networks the tunnel carries
        → at network.nameservers[1] (cluster.yaml:29:31)"
    `);
  });

  it("refuse an unknown ipv6 value, naming the allowed ones", () => {
    expect(errorsOf(only, ["      ipv6: only\n", "      ipv6: v6only\n"])).toMatchInlineSnapshot(`
      "✖ "v6only" is not one of off, dual-stack, only
        → at cloud.pools[0].ipv6 (cluster.yaml:49:7)"
    `);
  });
});
