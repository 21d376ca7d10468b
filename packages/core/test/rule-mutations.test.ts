// Each cross-field rule, broken on purpose in any valid spec, is reported at the path of the broken value.
import { validateSpec } from "@clusterspec/core";
import { arbClusterSpec, rules } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

interface Mutation {
  readonly rule: string;
  /** Breaks the spec in place; returns the path that must be reported, or undefined when not applicable. */
  readonly apply: (s: any, k: number) => string | undefined;
}

const other = (s: any, k: number): number => 1 + (k % (s.nodes.length - 1));

const mutations: Mutation[] = [
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
    rule: "hostSysctlAllowed",
    apply: (s) => {
      s.host = { sysctl: { "net.ipv4.ip_local_port_range": "1024 65000" } };
      return "host.sysctl.net.ipv4.ip_local_port_range";
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
    rule: "ciliumDevicesExist",
    apply: (s) => {
      s.cilium.devices = ["nope0"];
      return "cilium.devices.0";
    },
  },
  {
    rule: "kubeadmSecretsForJoins",
    apply: (s) => {
      if (s.nodes.length < 2) return undefined;
      delete s.kubernetes.secrets;
      return "kubernetes.secrets";
    },
  },
  {
    rule: "networksDisjoint",
    apply: (s) => {
      s.kubernetes.serviceSubnet = s.kubernetes.podSubnet;
      return "kubernetes.serviceSubnet";
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
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain(path);
      }),
      { numRuns: 40 },
    );
    expect(applied).toBeGreaterThan(0);
  });
});
