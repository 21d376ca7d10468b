import {
  type ClusterPlan,
  type ClusterSpecInput,
  cidrContains,
  generatedMarker,
  loadSpec,
  parseYamlDocuments,
  resolvePlan,
  validateSpec,
} from "@clusterspec/core";
import { arbClusterSpec, asClusterSpec, buildSpec, mustResolve } from "@clusterspec/core/testing";
import { clusterSpecNames, exampleText, fixtureText, specText } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateCilium } from "../src/generate.js";
import { summarizeCilium } from "../src/summary.js";
import { ciliumValues, mtuBudget, podMtu, VALUES_PATH } from "../src/values.js";
import {
  COMMENTED_KEYS,
  chartDefaults,
  chartValuesText,
  chartVersions,
  coalesce,
  documentedInComment,
  nearestChart,
  overlayErrors,
  upstreamErrors,
} from "./chart.js";

type Json = Record<string, unknown>;

/** The cluster's pod network of one family, if it runs that family. */
const podOfFamily = (plan: ClusterPlan, family: 4 | 6): string | undefined =>
  plan.kubernetes.podSubnets.find((n) => n.includes(":") === (family === 6));

/** Valid specs with every Cilium option varied (invalid combinations are dropped by the rules). */
const arbCiliumSpec = (): fc.Arbitrary<ClusterSpecInput> =>
  fc
    .record({
      spec: arbClusterSpec({ maxWorkers: 2, maxPool: 2 }),
      routingMode: fc.constantFrom("native" as const, "tunnel" as const),
      tunnelProtocol: fc.constantFrom("vxlan" as const, "geneve" as const),
      ipamMode: fc.constantFrom("kubernetes" as const, "cluster-pool" as const),
      bpfMasquerade: fc.boolean(),
      loadBalancerMode: fc.constantFrom("snat" as const, "dsr" as const, "hybrid" as const),
      encryption: fc.constantFrom("none" as const, "wireguard" as const),
      mtu: fc.option(fc.integer({ min: 1280, max: 1440 }), { nil: undefined }),
      noUplink: fc.boolean(),
    })
    .map(({ spec, noUplink, mtu, ...c }) => {
      const segments = spec.network.segments.map((s) => {
        if (!noUplink) return s;
        const { uplink: _u, ...rest } = s;
        return rest;
      });
      return {
        ...spec,
        network: { ...spec.network, segments },
        cilium: {
          ...spec.cilium,
          ...c,
          autoDirectNodeRoutes: c.routingMode === "native" && !spec.cloud,
          ...(mtu === undefined ? {} : { mtu }),
        },
      } as ClusterSpecInput;
    })
    .filter((s) => validateSpec(s).ok);

const arbCiliumPlan = () => arbCiliumSpec().map((s) => mustResolve(s));

function valuesOf(plan: ClusterPlan): Json {
  const [a] = generateCilium(plan);
  return parseYamlDocuments(a?.content ?? "")[0] as Json;
}

function keyPaths(value: unknown, prefix = ""): string[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = prefix ? `${prefix}.${k}` : k;
    return [p, ...keyPaths(v, p)];
  });
}

describe("cluster/cilium-values.yaml", () => {
  it("writes one values file that parses back to the values that were serialised", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const artifacts = generateCilium(plan);
        expect(artifacts.map((a) => a.path)).toEqual([VALUES_PATH]);
        expect(artifacts[0]?.content.startsWith(`# ${generatedMarker(plan)}\n`)).toBe(true);
        expect(valuesOf(plan)).toEqual(ciliumValues(plan));
        expect(generateCilium(plan)).toEqual(artifacts);
      }),
      { numRuns: 40 },
    );
  });

  it("validates, coalesced over the chart's values.yaml, against the chart's values.schema.json", () => {
    expect(chartVersions).toEqual(expect.arrayContaining(["1.19.6", "1.20.0"]));
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const chart = nearestChart(plan.cilium.version);
        const merged = coalesce(chartDefaults(chart), valuesOf(plan));
        expect(upstreamErrors(chart, merged)).toBe("");
      }),
      { numRuns: 40 },
    );
  });

  it("validates against every stored chart: only keys the chart knows, only documented values", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const values = valuesOf(plan);
        for (const chart of chartVersions) {
          expect(upstreamErrors(chart, coalesce(chartDefaults(chart), values)), chart).toBe("");
          expect(overlayErrors(chart, values), chart).toBe("");
        }
      }),
      { numRuns: 40 },
    );
  });

  it("has an overlay that rejects misspelt keys and undocumented values the upstream schema lets through", () => {
    for (const chart of chartVersions) {
      const defaults = chartDefaults(chart);
      for (const bad of [
        { kubeProxyReplacment: true },
        { kubeProxyReplacement: "strict" },
        { tunnel: "vxlan" },
        { routingMode: "direct" },
        { tunnelProtocol: "gre" },
        { ipam: { mode: "host-scope" } },
        { bpf: { hostLegacyRoutng: true } },
      ]) {
        expect(upstreamErrors(chart, coalesce(defaults, bad)), JSON.stringify(bad)).toBe("");
        expect(overlayErrors(chart, bad), JSON.stringify(bad)).not.toBe("");
      }
    }
  });

  it("allows commented-out chart keys only where values.yaml documents them", () => {
    for (const chart of chartVersions) {
      const text = chartValuesText(chart);
      for (const [parent, key] of COMMENTED_KEYS) {
        const inSchema =
          parent === "" ? key in chartDefaults(chart) : key in ((chartDefaults(chart)[parent] as Json) ?? {});
        expect(inSchema || documentedInComment(text, parent, key), `${chart} ${parent}.${key}`).toBe(true);
      }
    }
    expect(
      documentedInComment("loadBalancer:\n  acceleration: x\nbpf:\n  # mode: snat\n", "loadBalancer", "mode"),
    ).toBe(false);
  });

  it("picks the stored chart nearest to the spec's version", () => {
    expect(nearestChart("1.20.0")).toBe("1.20.0");
    expect(nearestChart("1.20.3")).toBe("1.20.0");
    expect(nearestChart("1.14.0")).toBe("1.19.6");
    expect(nearestChart("1.19.1")).toBe("1.19.6");
  });

  it("never writes removed keys and always replaces kube-proxy through the VIP", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const v = valuesOf(plan);
        expect(keyPaths(v)).not.toContain("tunnel");
        expect(v.kubeProxyReplacement).toBe(true);
        // the control-plane VIP of the cluster's primary family (the IPv6 half of a pair in an IPv6-primary cluster)
        const vip = plan.controlPlane.vip;
        const primary6 = plan.kubernetes.families[0] === 6;
        expect(v.k8sServiceHost).toBe(primary6 && vip.pair6 ? vip.pair6.address : vip.address);
        expect(v.k8sServicePort).toBe(plan.controlPlane.port);
        expect(v.routingMode).toBe(plan.cilium.routingMode);
        if (plan.cilium.routingMode === "native") {
          // one native-routing CIDR per cluster family
          expect(v.ipv4NativeRoutingCIDR).toBe(podOfFamily(plan, 4));
          expect(v.ipv6NativeRoutingCIDR).toBe(podOfFamily(plan, 6));
          expect(v.autoDirectNodeRoutes).toBe(plan.cilium.autoDirectNodeRoutes);
          expect(v.tunnelProtocol).toBeUndefined();
        } else {
          expect(v.tunnelProtocol).toBe(plan.cilium.tunnelProtocol);
          expect(v.ipv4NativeRoutingCIDR).toBeUndefined();
          expect(v.autoDirectNodeRoutes).toBeUndefined();
        }
        expect(v.devices).toEqual(plan.cilium.devices);
        expect((v.ipam as Json).mode).toBe(plan.cilium.ipamMode);
      }),
      { numRuns: 40 },
    );
  });

  it("keeps eBPF host routing off (legacy routing) whenever the nodes use a policy routing table", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const bpf = valuesOf(plan).bpf as Json;
        expect(bpf.hostLegacyRouting).toBe(plan.network.policyRoutes.length > 0 ? true : undefined);
        expect(bpf.masquerade).toBe(plan.cilium.bpfMasquerade);
      }),
      { numRuns: 40 },
    );
  });

  it("gives Cilium the MTU inside WireGuard when burst nodes exist, and the spec's MTU when set", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const v = valuesOf(plan);
        if (plan.cilium.mtu !== undefined) expect(v.MTU).toBe(plan.cilium.mtu);
        else if (plan.cloud) expect(v.MTU).toBe(plan.cloud.tunnelMtu);
        else expect(v.MTU).toBeUndefined();
        if (plan.cloud) expect(v.MTU).toBeLessThanOrEqual(plan.cloud.wireguard.underlayMtu - 60);
        const pod = podMtu(plan);
        if (pod !== undefined)
          expect(pod).toBe(
            Number(v.MTU) -
              (plan.cilium.routingMode === "tunnel" ? 50 : 0) -
              (plan.cilium.encryption === "wireguard" ? 60 : 0),
          );
      }),
      { numRuns: 40 },
    );
  });

  it("writes encryption, load-balancer mode and cluster-pool CIDRs from the plan", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        const v = valuesOf(plan);
        expect(v.encryption).toEqual(
          plan.cilium.encryption === "wireguard" ? { enabled: true, type: "wireguard" } : undefined,
        );
        const lb = v.loadBalancer as Json;
        expect(lb.mode).toBe(plan.cilium.loadBalancerMode);
        expect(lb.dsrDispatch).toBe(
          plan.cilium.loadBalancerMode !== "snat" && plan.cilium.routingMode === "tunnel" ? "geneve" : undefined,
        );
        const operator = (v.ipam as Json).operator as Json | undefined;
        if (plan.cilium.ipamMode === "cluster-pool")
          expect(operator).toEqual({
            ...(podOfFamily(plan, 4) === undefined
              ? {}
              : {
                  clusterPoolIPv4PodCIDRList: [podOfFamily(plan, 4)],
                  clusterPoolIPv4MaskSize: plan.kubernetes.nodeCidrMaskSize,
                }),
            ...(podOfFamily(plan, 6) === undefined
              ? {}
              : {
                  clusterPoolIPv6PodCIDRList: [podOfFamily(plan, 6)],
                  clusterPoolIPv6MaskSize: plan.kubernetes.nodeCidrMaskSize6,
                }),
          });
        else expect(operator).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it("switches to the IPv6 keys for an IPv6 pod subnet", () => {
    const base = mustResolve(buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: false }));
    const plan = {
      ...base,
      kubernetes: {
        ...base.kubernetes,
        podSubnet: "fd00:10::/56",
        podSubnets: ["fd00:10::/56"],
        families: [6] as const,
      },
    };
    const v = ciliumValues(plan);
    expect(v.ipv6NativeRoutingCIDR).toBe("fd00:10::/56");
    expect(v.ipv4NativeRoutingCIDR).toBeUndefined();
    expect(v).toMatchObject({ ipv4: { enabled: false }, ipv6: { enabled: true } });
  });

  it("turns both families on for a dual-stack cluster, each with its own native-routing CIDR and pool", () => {
    const base = mustResolve(buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: false }));
    const kubernetes = {
      ...base.kubernetes,
      podSubnets: ["10.244.0.0/16", "fd00:10::/56"],
      families: [4, 6] as const,
      nodeCidrMaskSize6: 64,
    };
    const native = ciliumValues({ ...base, kubernetes, cilium: { ...base.cilium, routingMode: "native" } });
    expect(native).toMatchObject({
      ipv6: { enabled: true },
      ipv4NativeRoutingCIDR: "10.244.0.0/16",
      ipv6NativeRoutingCIDR: "fd00:10::/56",
    });
    expect(native.ipv4).toBeUndefined();
    const pool = ciliumValues({ ...base, kubernetes, cilium: { ...base.cilium, ipamMode: "cluster-pool" } });
    expect((pool.ipam as { operator: unknown }).operator).toEqual({
      clusterPoolIPv4PodCIDRList: ["10.244.0.0/16"],
      clusterPoolIPv4MaskSize: base.kubernetes.nodeCidrMaskSize,
      clusterPoolIPv6PodCIDRList: ["fd00:10::/56"],
      clusterPoolIPv6MaskSize: 64,
    });
  });

  it("shows the helm command lines in PLAN.md", () => {
    const plan = mustResolve(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: false }));
    const md = summarizeCilium(plan);
    expect(md.startsWith("## Cilium\n")).toBe(true);
    expect(md).toContain(
      `helm install cilium cilium/cilium --version ${plan.cilium.version} --namespace kube-system --values ${VALUES_PATH}`,
    );
    expect(md).toContain(`helm template cilium cilium/cilium --version ${plan.cilium.version}`);
  });
});

describe("NodePorts and the MTU budget", () => {
  it("serves NodePorts only on the internal networks by default (the Kubernetes subnet, and the tunnel with burst nodes)", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2, maxPool: 3 }), (spec) => {
        const plan = mustResolve(spec);
        // each family's network: the segment's subnet6 and the tunnel's tunnelSubnet6 in a dual-stack cluster
        const seg = plan.network.kubernetesSegment;
        const wg = plan.cloud?.wireguard;
        const expected = [
          seg.subnet,
          ...(seg.subnet6 === undefined ? [] : [seg.subnet6]),
          ...(wg ? [wg.tunnelSubnet] : []),
          ...(wg?.tunnelSubnet6 === undefined ? [] : [wg.tunnelSubnet6]),
        ];
        expect(ciliumValues(plan).nodePort).toEqual({ addresses: expected });
        // no public address (one that attaches no segment) is inside them
        for (const n of plan.nodes)
          for (const f of n.interfaces)
            if (f.segment === undefined && f.address !== undefined)
              expect(expected.some((net) => cidrContains(net, f.address ?? ""))).toBe(false);
        expect(upstreamErrors(nearestChart(plan.cilium.version), ciliumValues(plan))).toBe("");
      }),
      { numRuns: 30 },
    );
  });

  it("cilium.nodePortAddresses overrides the default, and [] leaves Cilium's own default", () => {
    const spec = buildSpec({ controlPlanes: 1, workers: 1, poolSize: 1, cloud: false }) as any;
    spec.cilium.nodePortAddresses = ["10.118.12.0/24", "192.0.2.0/24"];
    expect(ciliumValues(mustResolve(spec)).nodePort).toEqual({ addresses: ["10.118.12.0/24", "192.0.2.0/24"] });
    spec.cilium.nodePortAddresses = [];
    expect(ciliumValues(mustResolve(spec)).nodePort).toBeUndefined();
    expect(summarizeCilium(mustResolve(spec))).toContain("every device's primary address");
  });

  it("starts the MTU budget from the smallest link MTU of Cilium's devices, and subtracts the overlay and encryption", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2, maxPool: 3 }), (spec) => {
        const plan = mustResolve(spec);
        const b = mtuBudget(plan);
        const links = plan.nodes.flatMap((n) => n.interfaces.filter((f) => plan.cilium.devices.includes(f.name)));
        expect(b.link).toBe(Math.min(...links.map((f) => f.mtu ?? 1500)));
        expect(b.device).toBe(plan.cilium.mtu ?? b.link);
        const pod = podMtu(plan);
        if (pod !== undefined) expect(b.pod).toBe(pod);
        expect(b.pod).toBe(
          b.device -
            (plan.cilium.routingMode === "tunnel" ? 50 : 0) -
            (plan.cilium.encryption === "wireguard" ? 60 : 0),
        );
        expect(summarizeCilium(plan)).toContain(`| MTU budget | link ${b.link}, the smallest of`);
      }),
      { numRuns: 40 },
    );
  });
});

describe("reference clusters", () => {
  // the examples and the fixture clusters (IPv6-only: the IPv6 VIP and pod network alone)
  const examples = clusterSpecNames();

  it.each(examples)(
    "%s: values validate against the chart and the overlay, with the VIP and legacy host routing",
    (name) => {
      const loaded = loadSpec(specText(name));
      if (!loaded.ok) throw new Error(`${name} is invalid`);
      const plan = resolvePlan(asClusterSpec(loaded.value));
      const values = valuesOf(plan);
      const chart = nearestChart(plan.cilium.version);
      expect(chart).toBe("1.20.0");
      expect(upstreamErrors(chart, coalesce(chartDefaults(chart), values))).toBe("");
      expect(overlayErrors(chart, values)).toBe("");
      const families = plan.kubernetes.families;
      expect(values).toMatchObject({
        k8sServiceHost: families[0] === 6 ? "fd00:118:12::100" : "10.118.12.100",
        k8sServicePort: 6443,
        bpf: { hostLegacyRouting: true },
      });
      // each family on as the cluster has it, against the chart's defaults (IPv4 on, IPv6 off)
      const on = (family: "ipv4" | "ipv6", byDefault: boolean) =>
        (values[family] as { enabled?: boolean } | undefined)?.enabled ?? byDefault;
      expect([on("ipv4", true), on("ipv6", false)]).toEqual([families.includes(4), families.includes(6)]);
      if (plan.cloud) expect(values).toMatchObject({ routingMode: "tunnel", MTU: plan.cloud.tunnelMtu });
      else
        expect(values).toMatchObject({
          routingMode: "native",
          ...(families.includes(4) ? { ipv4NativeRoutingCIDR: "10.244.0.0/16" } : {}),
          ...(families.includes(6) ? { ipv6NativeRoutingCIDR: "fd00:10:244::/56" } : {}),
        });
      if (!families.includes(4)) expect(values).not.toHaveProperty("ipv4NativeRoutingCIDR");
    },
  );
});

describe("a dual-stack cluster with cloud pools (issue 30 item 6)", () => {
  it("serves NodePorts on both tunnel networks (the burst nodes' node IPs), and the chart schema holds", () => {
    const loaded = loadSpec(fixtureText("dual-stack-cloud"));
    if (!loaded.ok) throw new Error("the fixture is invalid");
    const plan = resolvePlan(asClusterSpec(loaded.value));
    const values = valuesOf(plan);
    const chart = nearestChart(plan.cilium.version);
    expect(upstreamErrors(chart, coalesce(chartDefaults(chart), values))).toBe("");
    expect(overlayErrors(chart, values)).toBe("");
    // one set of values for every node, on-prem and burst: only nodePort.addresses names the tunnel, per family
    expect(values).toMatchObject({
      routingMode: "tunnel",
      ipv6: { enabled: true },
      MTU: 1420,
      nodePort: { addresses: ["10.118.12.0/24", "fd00:118:12::/64", "172.30.99.0/24", "fd00:30:99::/64"] },
    });
  });
});

describe("the API server Cilium talks to (issue 33)", () => {
  it("PLAN.md names the VIP the values carry in k8sServiceHost, also when the endpoint is a DNS name", () => {
    for (const dnsName of [undefined, "api.k8s-test.example.com"]) {
      const spec: any = parseYamlDocuments(exampleText("bare-metal-ha"))[0];
      if (dnsName) spec.controlPlane.dnsName = dnsName;
      const plan = mustResolve(spec);
      const values = ciliumValues(plan);
      expect(values.k8sServiceHost).toBe("10.118.12.100");
      const row = summarizeCilium(plan)
        .split("\n")
        .find((l) => l.startsWith("| kube-proxy replacement |"));
      expect(row).toBe(
        `| kube-proxy replacement | true; API server ${values.k8sServiceHost}:${values.k8sServicePort} (k8sServiceHost: the control-plane VIP${dnsName ? `, not ${dnsName}` : ""}) |`,
      );
    }
  });
});
