// "One fact, one place" across packages: the VIP and the pod subnet reach every file from the plan alone.

import { ciliumModule } from "@clusterspec/cilium";
import { type ClusterPlan, type ClusterSpecInput, parseYamlDocuments, validateSpec } from "@clusterspec/core";
import { arbClusterSpec, buildSpec, mustInitNode, mustResolve } from "@clusterspec/core/testing";
import { kubeadmModule } from "@clusterspec/kubeadm";
import { generateFromPlan } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Json = Record<string, unknown>;

const VALUES_PATH = "cluster/cilium-values.yaml";

function valuesOf(plan: ClusterPlan): Json {
  const a = ciliumModule.generate(plan).find((x) => x.path === VALUES_PATH);
  return parseYamlDocuments(a?.content ?? "")[0] as Json;
}

/** The documents of a node's kubeadm.yaml, as the kubeadm module writes them. */
function kubeadmDocuments(plan: ClusterPlan, node: { readonly name: string }): Json[] {
  const a = kubeadmModule.generate(plan).find((x) => x.path === `nodes/${node.name}/kubeadm.yaml`);
  return parseYamlDocuments(a?.content ?? "") as Json[];
}

const arbCiliumPlan = () =>
  arbClusterSpec({ maxWorkers: 2, maxPool: 2 })
    .map((s): ClusterSpecInput => s)
    .map((s) => mustResolve(s));

describe("one fact, one place", () => {
  it("derives podSubnet and ipv4NativeRoutingCIDR from the same plan fact: changing it changes both", () => {
    const arb = fc
      .record({
        x: fc.integer({ min: 128, max: 250 }),
        y: fc.integer({ min: 128, max: 250 }),
        prefix: fc.constantFrom(14, 16),
      })
      .filter(({ x, y }) => x !== y);
    fc.assert(
      fc.property(arb, ({ x, y, prefix }) => {
        const net = (o: number) => (prefix === 14 ? `10.${o & ~3}.0.0/14` : `10.${o}.0.0/16`);
        if (net(x) === net(y)) return;
        const plans = [x, y].map((o) => {
          const spec = buildSpec({ controlPlanes: 3, workers: 1, poolSize: 1, cloud: false });
          spec.kubernetes.podSubnet = net(o);
          return mustResolve(spec);
        });
        const seen = plans.map((plan) => {
          const cluster = kubeadmDocuments(plan, mustInitNode(plan)).find(
            (d) => d.kind === "ClusterConfiguration",
          ) as Json;
          const pod = (cluster.networking as Json).podSubnet;
          expect(valuesOf(plan).ipv4NativeRoutingCIDR).toBe(pod);
          expect(pod).toBe(plan.kubernetes.podSubnet);
          return pod;
        });
        expect(seen[0]).not.toBe(seen[1]);
      }),
      { numRuns: 50 },
    );
  });

  it("sends the control-plane VIP to controlPlaneEndpoint, certSANs, every join and k8sServiceHost", () => {
    fc.assert(
      fc.property(arbCiliumPlan(), (plan) => {
        // the VIP of the cluster's primary family: the IPv6 half of a dual-stack pair in an IPv6-primary cluster
        const vip = plan.controlPlane.vip;
        const host = plan.kubernetes.families[0] === 6 && vip.pair6 ? vip.pair6.address : vip.address;
        const cluster = kubeadmDocuments(plan, mustInitNode(plan)).find(
          (d) => d.kind === "ClusterConfiguration",
        ) as Json;
        // an IPv6 host is bracketed before its port
        expect(
          String(cluster.controlPlaneEndpoint)
            .replace(/:\d+$/, "")
            .replace(/^\[(.*)\]$/, "$1"),
        ).toBe(host);
        expect((cluster.apiServer as Json).certSANs).toContain(host);
        expect(valuesOf(plan).k8sServiceHost).toBe(host);
        for (const node of plan.nodes.filter((n) => !n.init)) {
          const join = kubeadmDocuments(plan, node)[0] ?? {};
          expect(((join.discovery as Json).bootstrapToken as Json).apiServerEndpoint).toBe(
            cluster.controlPlaneEndpoint,
          );
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe("one fact, one place, across the whole generated tree", () => {
  const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  const tree = (plan: ClusterPlan) => {
    const r = generateFromPlan(plan);
    if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
    return r.artifacts.map((a) => [a.path, a.content] as const);
  };

  it("changes the pod subnet everywhere at once: kubeadm podSubnet, Cilium's native routing CIDR, the netifrc rule", () => {
    const arb = fc.record({
      spec: arbClusterSpec({ maxWorkers: 2, maxPool: 2, cloud: false }),
      x: fc.integer({ min: 128, max: 250 }),
    });
    fc.assert(
      fc.property(arb, ({ spec, x }) => {
        const other = `10.${x}.0.0/16`;
        const changed = { ...spec, kubernetes: { ...spec.kubernetes, podSubnet: other } };
        fc.pre(validateSpec(changed).ok);
        const before = mustResolve(spec);
        const after = mustResolve(changed);
        const a = tree(before);
        const mentions = a.filter(([, c]) => c.includes(before.kubernetes.podSubnet)).map(([p]) => p);
        expect(mentions).toContain(VALUES_PATH);
        expect(mentions).toContain(`nodes/${mustInitNode(before).name}/kubeadm.yaml`);
        expect(mentions).toContain(`nodes/${mustInitNode(before).name}/etc/conf.d/net`);
        const re = new RegExp(`(?<![0-9.])${escapeRe(before.kubernetes.podSubnet)}(?![0-9])`, "g");
        expect(a.map(([p, c]) => [p, c.replace(re, other)])).toEqual(tree(after));
      }),
      { numRuns: 25 },
    );
  });

  it("changes the control-plane VIP everywhere at once: controlPlaneEndpoint, certSANs, joins, k8sServiceHost, keepalived", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2, maxPool: 2 }), fc.integer({ min: 6, max: 9 }), (spec, host) => {
        const before = mustResolve(spec);
        const vip = before.controlPlane.host;
        // the VIP the API server is named by: the primary family's (vip6 in an IPv6-primary cluster with a pair)
        const v6 = vip.includes(":");
        const field = v6 && spec.controlPlane.vip6 !== undefined ? "vip6" : "vip";
        const [ip, prefix] = String(spec.controlPlane[field]).split("/");
        const moved = v6
          ? `${ip?.replace(/:[0-9a-f]+$/, `:${host.toString(16)}`)}`
          : `${ip?.replace(/\.\d+$/, `.${host}`)}`;
        const changed = { ...spec, controlPlane: { ...spec.controlPlane, [field]: `${moved}/${prefix}` } };
        fc.pre(validateSpec(changed).ok);
        const a = tree(before);
        const mentions = a.filter(([, c]) => c.includes(vip)).map(([p]) => p);
        expect(mentions).toEqual(
          expect.arrayContaining([
            VALUES_PATH,
            ...before.nodes.map((n) => `nodes/${n.name}/kubeadm.yaml`),
            ...before.nodes.filter((n) => n.controlPlane).map((n) => `nodes/${n.name}/etc/keepalived/keepalived.conf`),
          ]),
        );
        const re = v6
          ? new RegExp(`(?<![0-9a-f:.])${escapeRe(vip)}(?![0-9a-f])`, "g")
          : new RegExp(`(?<![0-9.])${escapeRe(vip)}(?![0-9])`, "g");
        expect(a.map(([p, c]) => [p, c.replace(re, moved)])).toEqual(tree(mustResolve(changed)));
      }),
      { numRuns: 25 },
    );
  });
});
