// The cloud arbitraries draw every IPv6 layout of issue 30 (existing cluster families, pool ipv6) and only valid specs.
import { validateSpec } from "@clusterspec/core";
import { arbCloudBurstSpec, arbClusterSpec, buildSpec, CLUSTER_FAMILIES } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatIssues } from "../src/issues.js";

const familyOf = (podSubnet: string | readonly string[]): string =>
  typeof podSubnet === "string"
    ? podSubnet.includes(":")
      ? "ipv6"
      : "ipv4"
    : podSubnet[0]?.includes(":")
      ? "dual-ipv6"
      : "dual-ipv4";

const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

describe("arbCloudBurstSpec", () => {
  it("draws only valid specs, without warnings, over every family, pool ipv6 and hub endpoint", () => {
    const families = new Map<string, number>();
    const pools = new Map<string, number>();
    const endpoints = new Map<string, number>();
    const tunnels = new Map<string, number>();
    fc.assert(
      fc.property(arbCloudBurstSpec(), (spec) => {
        const r = validateSpec(spec);
        if (!r.ok) expect.fail(`${JSON.stringify(spec)}\n${formatIssues(r.errors)}`);
        expect(r.warnings).toEqual([]);
        count(families, familyOf(spec.existingCluster.podSubnet));
        for (const p of spec.cloud.pools) count(pools, `${p.ipv6 ?? "unset"}/${p.instanceType}`);
        const ep = spec.cloud.wireguard.endpoint;
        count(endpoints, ep === undefined ? "none" : ep.startsWith("[") ? "ipv6" : /^\d/.test(ep) ? "ipv4" : "dns");
        const wg = spec.cloud.wireguard;
        count(tunnels, `${wg.tunnelSubnet.includes(":") ? 6 : 4}${wg.tunnelSubnet6 === undefined ? "" : "+6"}`);
      }),
      { numRuns: 400 },
    );
    expect([...families.keys()].sort()).toEqual(["dual-ipv4", "dual-ipv6", "ipv4", "ipv6"]);
    expect([...pools.keys()].sort()).toEqual([
      "dual-stack/c7i.xlarge",
      "dual-stack/m4.large",
      "dual-stack/t4g.xlarge",
      "only/c7i.xlarge",
      "only/t4g.xlarge",
      "unset/c7i.xlarge",
      "unset/m4.large",
      "unset/t4g.xlarge",
    ]);
    expect([...endpoints.keys()].sort()).toEqual(["dns", "ipv4", "ipv6", "none"]);
    expect([...tunnels.keys()].sort()).toEqual(["4", "4+6", "6"]);
  });
});

describe("arbClusterSpec({ cloud: true })", () => {
  it("gives valid specs for each pool ipv6 in every shape buildSpec takes, so its filter keeps them", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(1 as const, 3 as const, 5 as const),
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 0, max: 6 }),
        fc.constantFrom("dual-stack" as const, "only" as const),
        fc.integer({ min: 1, max: 90 }),
        fc.integer({ min: 0, max: 255 }),
        (controlPlanes, workers, poolSize, poolIpv6, a, b) => {
          const spec = buildSpec(
            { controlPlanes, workers, poolSize, cloud: true },
            { poolIpv6, segmentOctets: [a, b] },
          );
          const r = validateSpec(spec);
          if (!r.ok) expect.fail(formatIssues(r.errors));
          expect(r.value.cloud?.pools[0]?.ipv6).toBe(poolIpv6);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("draws each pool ipv6", () => {
    const seen = new Set(
      fc.sample(arbClusterSpec({ cloud: true, maxWorkers: 1, maxPool: 2 }), 60).map((s) => s.cloud?.pools[0]?.ipv6),
    );
    expect([...seen].sort()).toEqual(["dual-stack", "only", undefined]);
  });
});

describe("arbClusterSpec families (issue 30: dual-stack and IPv6 on-prem clusters)", () => {
  const kind = fc.constantFrom(0 as const, 1 as const, 2 as const);
  it("buildSpec gives a valid spec for every family in every shape and variation the arbitrary draws, so its filter keeps them", () => {
    fc.assert(
      fc.property(
        fc.record({
          family: fc.constantFrom(...CLUSTER_FAMILIES),
          controlPlanes: fc.constantFrom(1 as const, 3 as const, 5 as const),
          workers: fc.integer({ min: 0, max: 8 }),
          poolSize: fc.integer({ min: 0, max: 60 }),
          cloud: fc.boolean(),
          poolIpv6: fc.constantFrom(undefined, "dual-stack" as const, "only" as const),
          a: fc.integer({ min: 1, max: 90 }),
          b: fc.integer({ min: 0, max: 255 }),
          up: fc.integer({ min: 0, max: 255 }),
          auth: fc.constantFrom("AH" as const, "PASS" as const, "none" as const),
          vlan: fc.option(fc.integer({ min: 2, max: 4094 }), { nil: undefined }),
          mtu: fc.option(fc.integer({ min: 1280, max: 9216 }), { nil: undefined }),
          cpVip6: fc.boolean(),
          vipKinds: fc.array(kind, { minLength: 1, maxLength: 4 }),
        }),
        (r) => {
          const spec = buildSpec(
            { controlPlanes: r.controlPlanes, workers: r.workers, poolSize: r.poolSize, cloud: r.cloud },
            {
              family: r.family,
              segmentOctets: [r.a, r.b],
              uplinkOctet: r.up,
              auth: r.auth,
              cpVip6: r.cpVip6,
              vipKinds: r.vipKinds,
              ...(r.cloud && r.poolIpv6 ? { poolIpv6: r.poolIpv6 } : {}),
              ...(r.vlan === undefined ? {} : { vlan: r.vlan }),
              ...(r.mtu === undefined ? {} : { mtu: r.mtu }),
            },
          );
          const v = validateSpec(spec);
          if (!v.ok) expect.fail(`${JSON.stringify(spec)}\n${formatIssues(v.errors)}`);
          expect(familyOf(spec.kubernetes.podSubnet)).toBe(r.family);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("draws every family, IPv4 about half the time, and each external VIP kind and dual control-plane VIP", () => {
    const families = new Map<string, number>();
    const vips = new Set<string>();
    for (const spec of fc.sample(arbClusterSpec({ maxWorkers: 2, maxPool: 4 }), { numRuns: 400, seed: 30 })) {
      count(families, familyOf(spec.kubernetes.podSubnet));
      if (spec.controlPlane.vip6 !== undefined) vips.add("cp-pair");
      for (const e of spec.externalVips?.addresses ?? [])
        vips.add(typeof e === "string" ? (e.includes(":") ? "ipv6" : "ipv4") : e.address6 ? "pair" : "object");
    }
    expect([...families.keys()].sort()).toEqual(["dual-ipv4", "dual-ipv6", "ipv4", "ipv6"]);
    expect(families.get("ipv4")).toBeGreaterThan(140);
    expect(families.get("ipv4")).toBeLessThan(260);
    expect([...vips].sort()).toEqual(["cp-pair", "ipv4", "ipv6", "pair"]);
  });

  it("draws the families asked for only", () => {
    const only = fc.sample(arbClusterSpec({ maxWorkers: 1, maxPool: 2, families: ["ipv4"] }), 40);
    expect(new Set(only.map((s) => familyOf(s.kubernetes.podSubnet)))).toEqual(new Set(["ipv4"]));
    const v6 = fc.sample(arbClusterSpec({ maxWorkers: 1, maxPool: 2, families: ["ipv6", "dual-ipv6"] }), 40);
    expect(new Set(v6.map((s) => familyOf(s.kubernetes.podSubnet)))).toEqual(new Set(["ipv6", "dual-ipv6"]));
  });
});
