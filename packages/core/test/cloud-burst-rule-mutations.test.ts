// Each rule of a cloud burst of an existing cluster (cloudBurstRules), broken on purpose in any valid spec that
// arbCloudBurstSpec draws (IPv4, IPv6 and dual-stack clusters, pools with and without IPv6), is reported at the path
// of the broken value: as an error, or as a warning where the rule only warns. The on-prem rules: rule-mutations.test.ts.
import { validateSpec } from "@clusterspec/core";
import { arbCloudBurstSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatIssues } from "../src/issues.js";
import { cloudBurstRules } from "../src/spec/sections/cloud-burst/rules.js";

/** The path that must be reported: an error's, or a warning's; undefined when the mutation does not apply. */
type Expected = string | { readonly warning: string } | undefined;

interface Mutation {
  readonly rule: string;
  /** Breaks the spec in place. */
  readonly apply: (s: any, k: number) => Expected;
}

const isV6 = (net: string): boolean => net.includes(":");
/** The spec's pod or service networks as a list, primary first. */
const nets = (v: string | string[]): string[] => (typeof v === "string" ? [v] : v);
/** A network of the given family that is larger than kubeadm allows for a service network. */
const tooLargeService = (net: string): string => (isV6(net) ? "fd00:10:96::/107" : "10.96.0.0/11");
/** An address in the spec's first on-prem network. */
const onPremHost = (s: any, host: number): string => {
  const net: string = s.existingCluster.onPremNetworks[0];
  return isV6(net) ? net.replace(/::\/\d+$/, `::${host}`) : net.replace(/\.0\/\d+$/, `.${host}`);
};

const mutations: Mutation[] = [
  {
    rule: "burstNetworksDisjoint",
    apply: (s, k) => {
      const e = s.existingCluster;
      if (k % 2 === 0) {
        s.cloud.aws.vpcCidr = e.onPremNetworks[0];
        return "cloud.aws.vpcCidr";
      }
      // an on-prem network inside the pod network (any family)
      const pod = nets(e.podSubnet)[k % nets(e.podSubnet).length] as string;
      e.onPremNetworks.push(pod);
      return `existingCluster.onPremNetworks.${e.onPremNetworks.length - 1}`;
    },
  },
  {
    rule: "burstServiceSubnetSized",
    apply: (s, k) => {
      const e = s.existingCluster;
      if (typeof e.serviceSubnet === "string") {
        e.serviceSubnet = tooLargeService(e.serviceSubnet);
        return "existingCluster.serviceSubnet";
      }
      const i = k % e.serviceSubnet.length;
      e.serviceSubnet[i] = tooLargeService(e.serviceSubnet[i]);
      return `existingCluster.serviceSubnet.${i}`;
    },
  },
  {
    rule: "burstTunnelFamilies",
    apply: (s, k) => {
      const e = s.existingCluster;
      const wg = s.cloud.wireguard;
      const families = nets(e.podSubnet).map(isV6);
      const dual = families.length === 2;
      if (dual && k % 3 === 0) {
        // two pod networks of the primary family
        e.podSubnet[1] = families[0] ? "fd00:10:245::/56" : "10.245.0.0/16";
        return "existingCluster.podSubnet.1";
      }
      if (dual && k % 3 === 1) {
        // the service networks in the other order
        e.serviceSubnet = [...e.serviceSubnet].reverse();
        return "existingCluster.serviceSubnet";
      }
      if (dual) {
        delete wg.tunnelSubnet6;
        return "cloud.wireguard.tunnelSubnet6";
      }
      if (families[0]) {
        // an IPv6-only cluster with an IPv4 tunnel
        wg.tunnelSubnet = "172.30.99.0/24";
        return "cloud.wireguard.tunnelSubnet";
      }
      if (k % 3 === 0) {
        // an IPv4 network as the IPv6 tunnel network
        wg.tunnelSubnet6 = "172.30.98.0/24";
        return "cloud.wireguard.tunnelSubnet6";
      }
      // an IPv4-only cluster with an IPv6 tunnel
      delete wg.tunnelSubnet6;
      wg.tunnelSubnet = "fd00:30:98::/64";
      return "cloud.wireguard.tunnelSubnet";
    },
  },
  {
    rule: "burstNameserversFit",
    apply: (s, k) => {
      const ns: string[] = s.existingCluster.nameservers;
      while (ns.length < 3 + (k % 2)) ns.push(onPremHost(s, 54 + ns.length));
      return "existingCluster.nameservers.2";
    },
  },
  {
    rule: "burstIpv6OnlyNameservers",
    apply: (s, k) => {
      const pools = s.cloud.pools;
      pools[k % pools.length].ipv6 = "only";
      const ns: string[] = s.existingCluster.nameservers;
      // an IPv4 nameserver outside every network the tunnel carries
      const i = k % Math.min(2, ns.length + 1);
      ns[i] = "192.0.2.53";
      return `existingCluster.nameservers.${i}`;
    },
  },
  {
    rule: "burstReachesOnPrem",
    apply: (s, k) => {
      if (k % 2 === 0 && s.cloud.wireguard.hub !== undefined) {
        s.cloud.wireguard.hub = k % 4 === 0 ? "192.0.2.10" : "2001:db8:1::10";
        return "cloud.wireguard.hub";
      }
      s.existingCluster.endpoint = k % 4 < 2 ? "192.0.2.100:6443" : "[2001:db8:1::100]:6443";
      return "existingCluster.endpoint";
    },
  },
  {
    rule: "burstHubEndpointResolvable",
    apply: (s, k) => {
      // a hub endpoint by name, and every nameserver on-prem (reached through the tunnel)
      s.cloud.wireguard.endpoint = "vpn.example.com:51820";
      s.existingCluster.nameservers = [onPremHost(s, 53), onPremHost(s, 54)].slice(0, 1 + (k % 2));
      return "cloud.wireguard.endpoint";
    },
  },
  {
    rule: "burstPoolsValid",
    apply: (s, k) => {
      const pools = s.cloud.pools;
      const i = k % pools.length;
      if (k % 3 === 0 && pools.length > 1) {
        pools[i].name = pools[(i + 1) % pools.length].name;
        return `cloud.pools.${Math.max(i, (i + 1) % pools.length)}.name`;
      }
      const slots = pools.reduce((n: number, p: any) => n + p.maxSize, 0);
      if (k % 3 === 1 && !isV6(s.cloud.wireguard.tunnelSubnet) && slots > 1) {
        s.cloud.wireguard.tunnelSubnet = "172.30.99.0/30";
        return "cloud.wireguard.tunnelSubnet";
      }
      pools[i].minSize = pools[i].maxSize + 1 + (k % 5);
      return `cloud.pools.${i}.minSize`;
    },
  },
  {
    rule: "wireguardKeysConsistent",
    apply: (s, k) => {
      const wg = s.cloud.wireguard;
      const peerKeys = { privateKeys: { file: "wg/peers.key" }, publicKeys: { file: "wg/peers.pub" } };
      if (wg.hub === undefined) {
        if (k % 2 === 0) {
          wg.privateKey = { env: "WG_HUB_PRIVATE_KEY" };
          return "cloud.wireguard.privateKey";
        }
        wg.peerKeys = peerKeys;
        return "cloud.wireguard.peerKeys";
      }
      wg.peerKeys = peerKeys;
      if (k % 2 === 0) {
        delete wg.publicKey;
        return "cloud.wireguard.publicKey";
      }
      delete wg.endpoint;
      return "cloud.wireguard.endpoint";
    },
  },
  {
    rule: "cloudPoolTagsFit",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      const pool = s.cloud.pools[i];
      if (k % 2 === 0) {
        // more Auto Scaling Group tags than AWS allows, one per label
        pool.labels = Object.fromEntries(Array.from({ length: 50 }, (_, j) => [`example.com/l${j}`, "x"]));
        return `cloud.pools.${i}`;
      }
      // two taints with one key: Cluster Autoscaler reads one taint per key
      pool.taints = [...pool.taints, { key: pool.taints[0].key, value: "other", effect: "NoExecute" }];
      return `cloud.pools.${i}.taints.${pool.taints.length - 1}`;
    },
  },
  {
    rule: "cloudPoolLabelsSelfSettable",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      const key = ["node-role.kubernetes.io/worker", "kubernetes.io/role", "example.k8s.io/x"][k % 3] as string;
      s.cloud.pools[i].labels = { [key]: "" };
      return `cloud.pools.${i}.labels.${key}`;
    },
  },
  {
    rule: "cloudPoolNoJoinPlaceholders",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      const pool = s.cloud.pools[i];
      const placeholder = ["__NODE_IP__", "__PROVIDER_ID__", "__NODE_NAME__", "__ZONE__"][k % 4];
      if (k % 2 === 0) {
        pool.labels = { "example.com/at": `x${placeholder}` };
        return `cloud.pools.${i}.labels.example.com/at`;
      }
      pool.taints[0].value = `x${placeholder}`;
      return `cloud.pools.${i}.taints.0.value`;
    },
  },
  {
    rule: "cloudPoolAmiReleases",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      const pool = s.cloud.pools[i];
      const arch = pool.architecture === "arm64" ? "aarch64" : "x86_64";
      const path = `cloud.pools.${i}.ami.lookup.name`;
      if (k % 2 === 0) {
        // a release without versioned Kubernetes packages
        pool.ami = { lookup: { owners: ["125523088429"], name: `Fedora-Cloud-Base-AmazonEC2.${arch}-40-*` } };
        return path;
      }
      // a name that matches every release: a warning
      pool.ami = { lookup: { owners: ["125523088429"], name: `Fedora-Cloud-Base-AmazonEC2.${arch}-*` } };
      return { warning: path };
    },
  },
  {
    rule: "cloudPoolsReachHub",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      s.cloud.wireguard.endpoint = "[2001:db8::10]:51820";
      delete s.cloud.pools[i].ipv6;
      return `cloud.pools.${i}.ipv6`;
    },
  },
  {
    rule: "cloudIpv6OnlyPools",
    apply: (s, k) => {
      const i = k % s.cloud.pools.length;
      const pool = s.cloud.pools[i];
      pool.ipv6 = "only";
      if (k % 3 === 0) {
        pool.instanceType = "m4.large";
        pool.architecture = "x86_64";
        return `cloud.pools.${i}.instanceType`;
      }
      if (k % 3 === 1) s.cloud.wireguard.endpoint = "203.0.113.10:51820";
      else s.cloud.provisioner.url = "https://203.0.113.5:8443";
      return `cloud.pools.${i}.ipv6`;
    },
  },
  {
    rule: "provisionerUrlIsBase",
    apply: (s, k) => {
      s.cloud.provisioner.url = ["https://provisioner.example.com/?token=x", "https://provisioner.example.com/#a"][
        k % 2
      ];
      return "cloud.provisioner.url";
    },
  },
];

describe("every cloud-burst rule, broken on purpose, is reported at its path", () => {
  it("covers every rule of cloudBurstRules", () => {
    expect(mutations.map((m) => m.rule).sort()).toEqual(cloudBurstRules.map((r) => r.name).sort());
  });

  it.each(mutations.map((m) => [m.rule, m] as const))("%s", (_rule, m) => {
    let applied = 0;
    fc.assert(
      fc.property(arbCloudBurstSpec(), fc.nat(), (spec, k) => {
        const s = structuredClone(spec) as any;
        const expected = m.apply(s, k);
        if (expected === undefined) return;
        applied++;
        const r = validateSpec(s);
        if (typeof expected !== "string") {
          expect(r.ok, r.ok ? "" : formatIssues(r.errors)).toBe(true);
          expect(r.warnings.map((e) => e.path.join("."))).toContain(expected.warning);
          return;
        }
        expect(r.ok).toBe(false);
        if (!r.ok)
          expect(
            r.errors.map((e) => e.path.join(".")),
            formatIssues(r.errors),
          ).toContain(expected);
      }),
      { numRuns: 60 },
    );
    expect(applied).toBeGreaterThan(0);
  });
});
