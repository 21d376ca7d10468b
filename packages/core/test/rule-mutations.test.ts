// Each cross-field rule, broken on purpose in any valid spec, is reported at the path of the broken value.
import { validateSpec } from "@clusterspec/core";
import { arbClusterSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { OWNED_CILIUM_KEYS, OWNED_FLAGS, OWNED_KUBELET_FIELDS } from "../src/facts/owned.js";
import { rules } from "../src/spec/rules.js";

interface Mutation {
  readonly rule: string;
  /** The rule only warns: the path must be among the warnings. */
  readonly warning?: true;
  /** Breaks the spec in place; returns the path that must be reported, or undefined when not applicable. */
  readonly apply: (s: any, k: number) => string | undefined;
}

const other = (s: any, k: number): number => 1 + (k % (s.nodes.length - 1));
/** The cluster's primary pod network (the first of a dual-stack pair). */
const primaryPodSubnet = (s: any): string =>
  Array.isArray(s.kubernetes.podSubnet) ? s.kubernetes.podSubnet[0] : s.kubernetes.podSubnet;

const ownedFlags = Object.entries(OWNED_FLAGS).flatMap(([c, flags]) => Object.keys(flags).map((f) => [c, f] as const));
const ownedKubelet = Object.keys(OWNED_KUBELET_FIELDS);
const ownedCilium = Object.keys(OWNED_CILIUM_KEYS);

/** Sets a dotted key in a fresh nested object. */
const nested = (dotted: string, value: unknown): Record<string, unknown> =>
  dotted
    .split(".")
    .reverse()
    .reduce<unknown>((v, k) => ({ [k]: v }), value) as Record<string, unknown>;

const mutations: Mutation[] = [
  {
    rule: "extraArgsNotOwned",
    apply: (s, k) => {
      const [component, flag] = ownedFlags[k % ownedFlags.length] as readonly [string, string];
      s.kubernetes[component] = { extraArgs: { [flag]: "x" } };
      return `kubernetes.${component}.extraArgs.${flag}`;
    },
  },
  {
    rule: "apiserverHealthStaysAnonymous",
    apply: (s, k) => {
      s.kubernetes.apiServer = { extraArgs: { "anonymous-auth": ["false", "0", "f", "F", "FALSE", "False"][k % 6] } };
      return "kubernetes.apiServer.extraArgs.anonymous-auth";
    },
  },
  {
    rule: "anonymousHealthEndpointsOnly",
    apply: (s, k) => {
      // any valid spec: --anonymous-auth next to healthEndpoints is refused whatever the version
      s.kubernetes.apiServer = {
        anonymousAuth: "healthEndpoints",
        extraArgs: { "anonymous-auth": ["true", "1"][k % 2] },
      };
      return "kubernetes.apiServer.extraArgs.anonymous-auth";
    },
  },
  {
    rule: "kubeletFieldsNotOwned",
    apply: (s, k) => {
      const field = ownedKubelet[k % ownedKubelet.length] as string;
      s.kubernetes.kubelet = { [field]: "x" };
      return `kubernetes.kubelet.${field}`;
    },
  },
  {
    rule: "ciliumValuesNotOwned",
    apply: (s, k) => {
      const key = ownedCilium[k % ownedCilium.length] as string;
      s.cilium.values = nested(key, "x");
      return `cilium.values.${key}`;
    },
  },
  {
    rule: "nodeLabelsSelfSettable",
    apply: (s, k) => {
      const key = ["node-role.kubernetes.io/worker", "kubernetes.io/role", "example.k8s.io/x"][k % 3] as string;
      s.nodes[k % s.nodes.length].labels = { [key]: "" };
      return `nodes.${k % s.nodes.length}.labels.${key}`;
    },
  },
  {
    rule: "nodeTaintsDistinct",
    apply: (s, k) => {
      const t = { key: "example.com/dedicated", value: "ci", effect: "NoSchedule" };
      s.nodes[k % s.nodes.length].taints = [t, { ...t, value: "other" }];
      return `nodes.${k % s.nodes.length}.taints.1`;
    },
  },
  {
    rule: "noSecretLiterals",
    apply: (s, k) => {
      const secret = ["abcdef.0123456789abcdef", "-----BEGIN RSA PRIVATE KEY-----", "ab".repeat(32)][k % 3];
      s.overlays = [
        {
          target: "nodes/*/kubeadm.yaml",
          document: "JoinConfiguration",
          patch: { discovery: { bootstrapToken: { token: secret } } },
        },
      ];
      return "overlays.0.patch.discovery.bootstrapToken.token";
    },
  },
  {
    rule: "uniqueNodeNames",
    apply: (s, k) => {
      if (s.nodes.length < 2) return undefined;
      const j = other(s, k);
      s.nodes[j].name = s.nodes[0].name;
      return `nodes.${j}.name`;
    },
  },
  {
    rule: "uniqueMacs",
    apply: (s, k) => {
      if (s.nodes.length < 2) return undefined;
      const j = other(s, k);
      s.nodes[j].interfaces.wan0.mac = s.nodes[0].interfaces.wan0.mac;
      return `nodes.${j}.interfaces.wan0.mac`;
    },
  },
  {
    rule: "netifrcVariableNamesDistinct",
    apply: (s, k) => {
      const n = s.nodes[k % s.nodes.length];
      n.interfaces["eth-9"] = { mac: "02:00:00:00:09:01" };
      n.interfaces.eth_9 = { mac: "02:00:00:00:09:02" };
      return `nodes.${k % s.nodes.length}.interfaces.eth_9`;
    },
  },
  {
    rule: "vlanParentsExist",
    apply: (s, k) => {
      s.nodes[k % s.nodes.length].interfaces["vl.7"] = { vlan: { parent: "nope0", id: 7 } };
      return `nodes.${k % s.nodes.length}.interfaces.vl.7.vlan.parent`;
    },
  },
  {
    rule: "gatewaysOnLink",
    apply: (s, k) => {
      s.nodes[k % s.nodes.length].interfaces.wan0.gateway = "203.0.113.1";
      return `nodes.${k % s.nodes.length}.interfaces.wan0.gateway`;
    },
  },
  {
    rule: "vipsPlacedSafely",
    apply: (s, k) => {
      s.controlPlane.vip = s.nodes[k % s.nodes.length].interfaces.wan1.address;
      return "controlPlane.vip";
    },
  },
  {
    rule: "serviceSubnetSized",
    apply: (s) => {
      s.kubernetes.serviceSubnet = "172.16.0.0/29";
      return "kubernetes.serviceSubnet";
    },
  },
  {
    rule: "podSubnetFitsNodes",
    apply: (s) => {
      // the primary family's node mask, larger than its pod network
      if (primaryPodSubnet(s).includes(":")) {
        s.kubernetes.nodeCidrMaskSize6 = 40;
        return "kubernetes.nodeCidrMaskSize6";
      }
      s.kubernetes.nodeCidrMaskSize = 15;
      return "kubernetes.nodeCidrMaskSize";
    },
  },
  {
    rule: "controlPlaneQuorum",
    apply: (s) => {
      const cps = s.nodes.filter((n: any) => n.roles.includes("control-plane")).length;
      if (cps < 3) return undefined;
      s.nodes[0].roles = ["worker"];
      return "nodes";
    },
  },
  {
    rule: "subnetFamiliesConsistent",
    apply: (s) => {
      const pod = s.kubernetes.podSubnet;
      // dual stack: the service networks in the other order; one family: a pod network of the other family added
      if (Array.isArray(pod)) s.kubernetes.serviceSubnet.reverse();
      else s.kubernetes.podSubnet = [pod, pod.includes(":") ? "10.244.0.0/16" : "fd00:10:244::/56"];
      return "kubernetes.serviceSubnet";
    },
  },
  {
    rule: "dualStackFieldsConsistent",
    apply: (s) => {
      const iface = Object.values(s.nodes[0].interfaces).find((f: any) => f.address) as any;
      if (!iface || iface.address.includes(":")) return undefined;
      iface.address6 = iface.address;
      return `nodes.0.interfaces.${Object.keys(s.nodes[0].interfaces).find((n) => s.nodes[0].interfaces[n] === iface)}.address6`;
    },
  },
  {
    rule: "dualStackVipsConsistent",
    apply: (s, k) => {
      // A pair's IPv6 half written as IPv4: the control-plane VIP's, or an external entry's.
      if (k % 2 === 0 || !s.externalVips) {
        s.controlPlane.vip6 = s.controlPlane.vip;
        return "controlPlane.vip6";
      }
      const first = s.externalVips.addresses[0];
      const address = typeof first === "string" ? first : first.address;
      s.externalVips.addresses[0] = { address, address6: address };
      return "externalVips.addresses.0.address6";
    },
  },
  {
    rule: "nodesHaveClusterFamilies",
    apply: (s) => {
      const k8s = s.network.kubernetesSegment ?? s.network.segments[0].name;
      const i = s.network.segments.findIndex((g: any) => g.name === k8s);
      const pod = s.kubernetes.podSubnet;
      // dual stack: the first node loses its IPv6 address on the Kubernetes segment
      if (Array.isArray(pod)) {
        const iface = s.network.segments[i].interface;
        delete s.nodes[0].interfaces[iface].address6;
        return `nodes.0.interfaces.${iface}`;
      }
      // one family: the other family added to the cluster, which the segment has no subnet of
      const v6 = pod.includes(":");
      s.kubernetes.podSubnet = [pod, v6 ? "10.244.0.0/16" : "fd00:10:244::/56"];
      s.kubernetes.serviceSubnet = [s.kubernetes.serviceSubnet, v6 ? "10.96.0.0/12" : "fd00:10:96::/112"];
      return `network.segments.${i}.${v6 ? "subnet" : "subnet6"}`;
    },
  },
  {
    rule: "atMostTwoNameservers",
    apply: (s) => {
      s.network.nameservers.push("9.9.9.9");
      return "network.nameservers.2";
    },
  },
  {
    rule: "routingTablesValid",
    apply: (s, k) => {
      s.network.segments[0].uplink.routingTable.id = [0, 252, 253, 254, 255][k % 5];
      return "network.segments.0.uplink.routingTable.id";
    },
  },
  {
    rule: "vrrpOptionsConsistent",
    apply: (s) => {
      s.vrrp.unicast = true;
      s.vrrp.auth = { type: "AH", password: { env: "VRRP_AUTH_PASS" } };
      return "vrrp.auth.type";
    },
  },
  {
    rule: "healthCheckMovesVip",
    apply: (s) => {
      const cps = s.nodes.filter((n: any) => n.roles.includes("control-plane")).length;
      if (cps < 3) return undefined;
      s.vrrp.healthCheck = { weight: -1 };
      return "vrrp.healthCheck.weight";
    },
  },
  {
    rule: "vrrpTrackingConsistent",
    apply: (s, k) => {
      if (k % 2 === 0) {
        s.vrrp.nopreempt = true;
        s.vrrp.preemptDelay = 1 + (k % 1000);
        return "vrrp.preemptDelay";
      }
      const carriers = s.nodes.filter((n: any) => n.carriesExternalVips).length;
      if (!s.externalVips || carriers < 2) return undefined;
      s.vrrp.readinessCheck = { weight: -1 };
      return "vrrp.readinessCheck.weight";
    },
  },
  {
    rule: "hostSysctlAllowed",
    apply: (s) => {
      s.host = { sysctl: { "net.ipv4.ip_local_port_range": "1024 65000" } };
      return "host.sysctl.net.ipv4.ip_local_port_range";
    },
  },
  {
    rule: "hostSettingsFit",
    apply: (s) => {
      const k8s = s.network.kubernetesSegment
        ? s.network.segments.find((g: any) => g.name === s.network.kubernetesSegment)
        : s.network.segments[0];
      s.host = { ...(s.host ?? {}), firewall: { publicInterfaces: [k8s.interface] } };
      return "host.firewall.publicInterfaces.0";
    },
  },
  {
    rule: "vlanMtuWithinParent",
    apply: (s) => {
      const node = s.nodes[0];
      const parent = Object.keys(node.interfaces).find((n) => !node.interfaces[n].vlan);
      if (parent === undefined) return undefined;
      node.interfaces.vx9 = { vlan: { parent, id: 4001 }, mtu: 9000 };
      return "nodes.0.interfaces.vx9.mtu";
    },
  },
  {
    rule: "ciliumMtuFitsDevices",
    apply: (s) => {
      s.cilium.mtu = 1400;
      for (const f of Object.values(s.nodes[0].interfaces) as any[]) f.mtu = 1300;
      return "cilium.mtu";
    },
  },
  {
    rule: "cloudPoolsValid",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].minSize = s.cloud.pools[0].maxSize + 1;
      return "cloud.pools.0.minSize";
    },
  },
  {
    rule: "cloudTunnelFamilies",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.wireguard.tunnelSubnet6 = "172.31.250.0/24";
      return "cloud.wireguard.tunnelSubnet6";
    },
  },
  {
    rule: "cloudPoolsReachHub",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.wireguard.endpoint = "[2001:db8::10]:51820";
      s.cloud.pools[0].ipv6 = "off";
      return "cloud.pools.0.ipv6";
    },
  },
  {
    rule: "cloudIpv6OnlyPools",
    apply: (s, k) => {
      if (!s.cloud) return undefined;
      const pool = s.cloud.pools[0];
      pool.ipv6 = "only";
      // a Xen instance type, or an IPv4 hub endpoint (both refused for an IPv6-only pool)
      if (k % 2 === 0) {
        pool.instanceType = "m4.large";
        return "cloud.pools.0.instanceType";
      }
      s.cloud.wireguard.endpoint = "198.51.100.10:51820";
      return "cloud.pools.0.ipv6";
    },
  },
  {
    rule: "cloudIpv6OnlyNameservers",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].ipv6 = "only";
      // TEST-NET-3: outside every network the generators draw
      s.network.nameservers = ["203.0.113.53"];
      return "network.nameservers.0";
    },
  },
  {
    rule: "ciliumDevicesExist",
    apply: (s) => {
      s.cilium.devices = ["nope0"];
      return "cilium.devices.0";
    },
  },
  {
    rule: "kubeadmSecretsForJoins",
    apply: (s) => {
      // A lone node needs no join secrets until the cluster is bootstrapped: then it joins too.
      if (s.nodes.length < 2) s.controlPlane.bootstrapped = true;
      delete s.kubernetes.secrets;
      return "kubernetes.secrets";
    },
  },
  {
    rule: "initNodeIsControlPlane",
    apply: (s, k) => {
      const workers = s.nodes.filter((n: any) => !n.roles.includes("control-plane"));
      // A worker's name, or a name no node has.
      s.controlPlane.initNode =
        workers.length > 0 && k % 2 === 0 ? workers[k % workers.length].name : "not-a-node-name";
      return "controlPlane.initNode";
    },
  },
  {
    rule: "networksDisjoint",
    apply: (s) => {
      s.kubernetes.serviceSubnet = s.kubernetes.podSubnet;
      return Array.isArray(s.kubernetes.podSubnet) ? "kubernetes.serviceSubnet.0" : "kubernetes.serviceSubnet";
    },
  },
  {
    rule: "uniqueNodeAddresses",
    apply: (s, k) => {
      if (s.nodes.length < 2) return undefined;
      const j = other(s, k);
      s.nodes[j].interfaces.wan1.address = s.nodes[0].interfaces.wan1.address;
      return `nodes.${j}.interfaces.wan1.address`;
    },
  },
  {
    rule: "segmentsWellFormed",
    apply: (s) => {
      s.network.segments.push({ name: s.network.segments[0].name, interface: "wan9", subnet: "192.0.2.0/24" });
      return "network.segments.1.name";
    },
  },
  {
    rule: "nodeAddressesMatchSegments",
    apply: (s, k) => {
      const i = k % s.nodes.length;
      s.nodes[i].interfaces.wan1.address = s.nodes[i].interfaces.wan1.address.replace(/\/24$/, "/25");
      if (!s.nodes[i].interfaces.wan1.address.endsWith("/25")) return undefined;
      return `nodes.${i}.interfaces.wan1.address`;
    },
  },
  {
    rule: "vipInterfacesOnNodes",
    apply: (s) => {
      const carrier = s.nodes.findIndex((n: any) => n.carriesExternalVips);
      if (!s.externalVips || carrier < 0) return undefined;
      s.network.segments.push({ name: "ext", interface: "wan2", subnet: "192.0.2.0/24" });
      s.externalVips = { interface: "wan2", addresses: ["192.0.2.10"] };
      return `nodes.${carrier}.interfaces`;
    },
  },
  {
    rule: "vrrpFamiliesAndUnicast",
    apply: (s) => {
      s.network.segments[0].onLink.push("fd00:1::/64");
      s.externalVips = { addresses: ["fd00:1::10"] };
      s.nodes[0].carriesExternalVips = true;
      s.vrrp.auth = { type: "PASS", password: { env: "VRRP_AUTH_PASS" } };
      return "vrrp.auth";
    },
  },
  {
    rule: "vridsAllocatable",
    apply: (s) => {
      s.network.segments[0].reservedVrids = Array.from({ length: 255 }, (_, i) => i + 1);
      return "controlPlane.vrid";
    },
  },
  {
    rule: "podSubnetNodeMaskDiff",
    apply: (s) => {
      s.kubernetes.podSubnet = "100.64.0.0/10";
      s.kubernetes.nodeCidrMaskSize = 27;
      return "kubernetes.nodeCidrMaskSize";
    },
  },
  {
    rule: "nodeHealthConsistent",
    apply: (s) => {
      s.kubernetes.nodeHealth = { statusUpdateFrequency: "10s", monitorGracePeriod: "15s" };
      return "kubernetes.nodeHealth.monitorGracePeriod";
    },
  },
  {
    rule: "ciliumMtuFitsTunnel",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cilium.mtu = 1500;
      return "cilium.mtu";
    },
  },
  {
    rule: "uplinkRoutesSomething",
    apply: (s) => {
      const i = s.network.segments.findIndex((seg: any) => seg.uplink);
      if (i < 0) return undefined;
      s.network.segments[i].uplink.sources = [];
      return `network.segments.${i}.uplink.sources`;
    },
  },
  {
    rule: "vswitchVlanMtu",
    warning: true,
    apply: (s, k) => {
      const node = s.nodes[0];
      const parent = Object.keys(node.interfaces).find((n) => !node.interfaces[n].vlan);
      if (parent === undefined) return undefined;
      node.interfaces.vx9 = { vlan: { parent, id: 4000 + (k % 92) } };
      return "nodes.0.interfaces.vx9.vlan.id";
    },
  },
  {
    rule: "externalVipsOnCiliumDevice",
    apply: (s) => {
      if (!s.externalVips) return undefined;
      const k8s = s.network.segments[0].interface;
      s.cilium.devices = Object.keys(s.nodes[0].interfaces).filter((n) => n !== k8s);
      return "cilium.devices";
    },
  },
  {
    rule: "dsrWithWireguard",
    warning: true,
    apply: (s, k) => {
      s.cilium.encryption = "wireguard";
      s.cilium.loadBalancerMode = k % 2 === 0 ? "dsr" : "hybrid";
      return "cilium.loadBalancerMode";
    },
  },
  {
    rule: "ciliumDsrDispatch",
    apply: (s) => {
      s.cilium.routingMode = "tunnel";
      s.cilium.autoDirectNodeRoutes = false;
      s.cilium.tunnelProtocol = "vxlan";
      s.cilium.loadBalancerMode = "dsr";
      return "cilium.loadBalancerMode";
    },
  },
  {
    rule: "cloudPoolTagsFit",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].labels = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`example.com/l${i}`, "x"]));
      return "cloud.pools.0";
    },
  },
  {
    rule: "cloudPoolLabelsSelfSettable",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].labels = { "node-role.kubernetes.io/ci": "" };
      return "cloud.pools.0.labels.node-role.kubernetes.io/ci";
    },
  },
  {
    rule: "cloudPoolNoJoinPlaceholders",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].labels = { ...s.cloud.pools[0].labels, "example.com/ip": "__NODE_IP__" };
      return "cloud.pools.0.labels.example.com/ip";
    },
  },
  {
    rule: "cloudPoolAmiReleases",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.pools[0].ami = { lookup: { owners: ["125523088429"], name: "Fedora-Cloud-Base-40-*" } };
      return "cloud.pools.0.ami.lookup.name";
    },
  },
  {
    rule: "cloudHubEndpointResolvable",
    apply: (s) => {
      if (!s.cloud) return undefined;
      const segment =
        s.network.segments.find((g: any) => g.name === s.network.kubernetesSegment) ?? s.network.segments[0];
      s.network.nameservers = [segment.subnet.split("/")[0].replace(/\.0$/, ".53")];
      s.cloud.wireguard.endpoint = "vpn.example.com:51820";
      return "cloud.wireguard.endpoint";
    },
  },
  {
    rule: "cloudNodeHealthOverWan",
    warning: true,
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.kubernetes.nodeHealth = { ...s.kubernetes.nodeHealth, evictionAfter: "60s" };
      return "kubernetes.nodeHealth.evictionAfter";
    },
  },
  {
    rule: "provisionerUrlIsBase",
    apply: (s) => {
      if (!s.cloud) return undefined;
      s.cloud.provisioner.url = "https://provisioner.example.com/?token=x";
      return "cloud.provisioner.url";
    },
  },
  {
    rule: "wireguardKeysConsistent",
    apply: (s) => {
      if (!s.cloud) return undefined;
      delete s.cloud.wireguard.hub;
      s.cloud.wireguard.privateKey = { env: "WG_HUB_PRIVATE_KEY" };
      return "cloud.wireguard.privateKey";
    },
  },
];

describe("free-form knobs never set what clusterspec owns", () => {
  const spec = () =>
    structuredClone(fc.sample(arbClusterSpec({ maxWorkers: 1, maxPool: 1 }), { numRuns: 1, seed: 7 })[0]) as any;
  it.each(ownedFlags)("refuses kubernetes.%s.extraArgs[%s], naming the owning field", (component, flag) => {
    const s = spec();
    s.kubernetes[component] = { extraArgs: { [flag]: "1" } };
    const r = validateSpec(s);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.message).toContain(OWNED_FLAGS[component as keyof typeof OWNED_FLAGS][flag]);
  });
  it.each(ownedKubelet)("refuses kubernetes.kubelet.%s", (field) => {
    const s = spec();
    s.kubernetes.kubelet = { [field]: "1" };
    const r = validateSpec(s);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toEqual([`kubernetes.kubelet.${field}`]);
  });
  it.each(ownedCilium)("refuses cilium.values.%s, and a null or scalar above it", (key) => {
    const top = key.split(".")[0] as string;
    for (const [values, at] of [
      [nested(key, "1"), `cilium.values.${key}`],
      [{ [top]: key.includes(".") ? null : "1" }, `cilium.values.${top}`],
    ] as const) {
      const s = spec();
      s.cilium.values = values;
      const r = validateSpec(s);
      expect(r.ok, JSON.stringify(values)).toBe(false);
      if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain(at);
    }
    const s = spec();
    s.cilium.values = nested(key, "1");
    const r = validateSpec(s);
    if (!r.ok) expect(r.errors[0]?.message).toContain(OWNED_CILIUM_KEYS[key]);
  });
});

describe("every rule, broken on purpose, is reported at its path", () => {
  it("covers every rule of the rule list", () => {
    expect(mutations.map((m) => m.rule).sort()).toEqual(rules.map((r) => r.name).sort());
  });

  it.each(mutations.map((m) => [m.rule, m] as const))("%s", (_rule, m) => {
    let applied = 0;
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 4, maxPool: 6 }), fc.nat(), (spec, k) => {
        const s = structuredClone(spec) as any;
        const path = m.apply(s, k);
        if (path === undefined) return;
        applied++;
        const r = validateSpec(s);
        if (m.warning) {
          expect(r.warnings.map((e) => e.path.join("."))).toContain(path);
          return;
        }
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain(path);
      }),
      { numRuns: 40 },
    );
    expect(applied).toBeGreaterThan(0);
  });
});
