// Rules about Cilium: its devices, its MTU inside WireGuard, DSR dispatch, and Helm values that never set what
// clusterspec derives.
import { OWNED_CILIUM_KEYS } from "../../../facts/owned.js";
import { defaultRouteInterface, externalVipInterface, kubernetesSegment } from "../../../facts/spec.js";
import { tunnelMtuOf, tunnelOverheadOf } from "../../../facts/wireguard.js";
import { own } from "../../../own.js";
import type { Rule } from "../../rule.js";

export const ciliumDevicesExist: Rule = (spec, report) => {
  (spec.cilium.devices ?? []).forEach((dev, j) => {
    if (dev === spec.cloud?.wireguard.interface) return; // the burst nodes' tunnel, not an on-prem interface
    const missing = spec.nodes.filter((n) => !own(n.interfaces, dev)).map((n) => n.name);
    if (missing.length > 0)
      report.error(["cilium", "devices", j], `Cilium device ${dev} is missing on ${missing.join(", ")}`);
  });
  // eBPF masquerading runs only on Cilium's devices: pod traffic leaving by another interface keeps its pod address.
  const devices = spec.cilium.devices;
  if (devices && spec.cilium.bpfMasquerade) {
    const byEgress = new Map<string, string[]>();
    for (const node of spec.nodes) {
      const egress = defaultRouteInterface(node);
      if (egress && !devices.includes(egress)) byEgress.set(egress, [...(byEgress.get(egress) ?? []), node.name]);
    }
    for (const [egress, nodes] of byEgress)
      report.error(
        ["cilium", "devices"],
        `${nodes.join(", ")} route to the internet through ${egress}, which is not a Cilium device: with bpfMasquerade their pods' traffic would leave unmasqueraded; add ${egress}`,
      );
  }
  // Burst nodes get their pod CIDRs at run time and reach on-prem only through WireGuard: no static route
  // can carry native-routed pod traffic to them, and autoDirectNodeRoutes needs a shared L2 segment.
  if (spec.cloud && spec.cilium.routingMode === "native")
    report.error(
      ["cilium", "routingMode"],
      "burst nodes reach on-prem pods only through WireGuard, with pod CIDRs assigned at run time: use routingMode tunnel with cloud pools",
    );
};

/**
 * With kube-proxy replacement, Cilium's eBPF load balancer handles north-south Service traffic (LoadBalancer IPs,
 * externalIPs, NodePorts) in bpf_host, attached to its devices only (Documentation/network/kubernetes/kubeproxy-free.rst,
 * v1.19 and v1.20: services are reachable "through the IP addresses of native devices"; bpf/bpf_host.c runs
 * nodeport_lb4 on the device's ingress). External VIPs on an interface outside an explicit `cilium.devices` would
 * reach the host stack unbalanced; by default clusterspec adds their interface (plan/cilium.ts).
 */
export const externalVipsOnCiliumDevice: Rule = (spec, report) => {
  const devices = spec.cilium.devices;
  if (devices === undefined || !spec.externalVips) return;
  const iface = externalVipInterface(spec);
  if (iface === undefined || devices.includes(iface)) return;
  report.error(
    ["cilium", "devices"],
    `the external VIPs live on ${iface}, which is not a Cilium device: with kube-proxy replacement Cilium's load balancer serves Services only on its devices, so traffic to the VIPs there would not reach a backend; add ${iface} to cilium.devices (or leave cilium.devices out: clusterspec then adds it)`,
  );
};

/**
 * Cilium's WireGuard does not encrypt north-south load-balancer traffic a node forwards to a backend on another node
 * in DSR mode (Documentation/security/network/encryption-wireguard.rst, Limitations, v1.19 and v1.20).
 */
export const dsrWithWireguard: Rule = (spec, report) => {
  const c = spec.cilium;
  if (c.encryption !== "wireguard" || c.loadBalancerMode === "snat") return;
  report.warning(
    ["cilium", "loadBalancerMode"],
    `loadBalancerMode ${c.loadBalancerMode} with encryption wireguard: Cilium does not encrypt north-south Service traffic a node forwards to a backend on another node with DSR${c.loadBalancerMode === "hybrid" ? " (hybrid uses DSR for TCP)" : ""} (Cilium docs, WireGuard encryption, Limitations), so that hop crosses the network in the clear; use loadBalancerMode snat if it must be encrypted`,
  );
};

/** With cloud pools every pod path may cross WireGuard: Cilium's MTU must fit inside the tunnel. */
export const ciliumMtuFitsTunnel: Rule = (spec, report) => {
  const mtu = spec.cilium.mtu;
  if (mtu === undefined || !spec.cloud) return;
  const tunnelMtu = tunnelMtuOf(spec.cloud.wireguard.underlayMtu, spec.cloud.wireguard.endpoint);
  if (mtu > tunnelMtu)
    report.error(
      ["cilium", "mtu"],
      `Cilium MTU ${mtu} exceeds ${tunnelMtu}, the MTU inside WireGuard (underlay ${spec.cloud.wireguard.underlayMtu} - ${tunnelOverheadOf(spec.cloud.wireguard.endpoint)})`,
    );
};

/** Cilium's DSR needs native routing, or Geneve dispatch in tunnel mode (Geneve tunnels only). */
export const ciliumDsrDispatch: Rule = (spec, report) => {
  const c = spec.cilium;
  if (c.loadBalancerMode !== "snat" && c.routingMode === "tunnel" && c.tunnelProtocol !== "geneve")
    report.error(
      ["cilium", "loadBalancerMode"],
      `loadBalancerMode ${c.loadBalancerMode} in tunnel mode needs tunnelProtocol geneve (DSR is dispatched in a Geneve option), or use routingMode native`,
    );
};

/** Cilium's MTU must fit the links it runs over: above a device's MTU, large packets are dropped on the way. */
export const ciliumMtuFitsDevices: Rule = (spec, report) => {
  const mtu = spec.cilium.mtu;
  if (mtu === undefined) return;
  const k8s = kubernetesSegment(spec);
  const devices = spec.cilium.devices ?? (k8s ? [k8s.interface] : []);
  for (const [i, node] of spec.nodes.entries())
    for (const dev of devices) {
      const linkMtu = own(node.interfaces, dev)?.mtu;
      if (linkMtu !== undefined && mtu > linkMtu) {
        report.error(
          ["cilium", "mtu"],
          `Cilium MTU ${mtu} exceeds the MTU ${linkMtu} of ${dev} on ${node.name} (nodes[${i}].interfaces.${dev}.mtu): packets that size would be dropped`,
        );
        return;
      }
    }
};

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every owned key that `values` would set, replace or delete (a non-mapping above an owned key replaces it). */
export function ownedCiliumKeysIn(values: Record<string, unknown>): { path: string[]; key: string }[] {
  const found: { path: string[]; key: string }[] = [];
  const owned = Object.keys(OWNED_CILIUM_KEYS);
  const walk = (node: Record<string, unknown>, prefix: string[]) => {
    for (const [k, v] of Object.entries(node)) {
      const path = [...prefix, k];
      const dotted = path.join(".");
      if (own(OWNED_CILIUM_KEYS, dotted) !== undefined) found.push({ path, key: dotted });
      else if (isMap(v)) walk(v, path);
      else {
        const below = owned.find((o) => o.startsWith(`${dotted}.`));
        if (below !== undefined) found.push({ path, key: below });
      }
    }
  };
  walk(values, []);
  return found;
}

/**
 * Values that set what an owned key sets under another name (issue 32 item 6): dotted values key → the owned key.
 * `k8sServiceHostRef` is "mutually exclusive with `k8sServiceHost`" and `k8s.apiServerURLs` gives the agent other API
 * server URLs (both in the stored chart values, packages/schemas/src/generated/cilium-1.20.0-values.ts); `extraConfig`
 * entries are written into the cilium-config ConfigMap as they are, over the chart's own entries of the same name
 * (the agent's option names: kube-proxy-replacement, routing-mode, …).
 */
export const OWNED_CILIUM_ALIASES: Readonly<Record<string, string>> = {
  k8sServiceHostRef: "k8sServiceHost",
  "k8s.apiServerURLs": "k8sServiceHost",
  "extraConfig.kube-proxy-replacement": "kubeProxyReplacement",
  "extraConfig.routing-mode": "routingMode",
  "extraConfig.tunnel-protocol": "tunnelProtocol",
  "extraConfig.auto-direct-node-routes": "autoDirectNodeRoutes",
  "extraConfig.ipv4-native-routing-cidr": "ipv4NativeRoutingCIDR",
  "extraConfig.ipv6-native-routing-cidr": "ipv6NativeRoutingCIDR",
  "extraConfig.enable-ipv4": "ipv4.enabled",
  "extraConfig.enable-ipv6": "ipv6.enabled",
  "extraConfig.ipam": "ipam.mode",
  "extraConfig.cluster-pool-ipv4-cidr": "ipam.operator.clusterPoolIPv4PodCIDRList",
  "extraConfig.cluster-pool-ipv4-mask-size": "ipam.operator.clusterPoolIPv4MaskSize",
  "extraConfig.devices": "devices",
  "extraConfig.enable-bpf-masquerade": "bpf.masquerade",
  "extraConfig.enable-host-legacy-routing": "bpf.hostLegacyRouting",
  "extraConfig.bpf-lb-mode": "loadBalancer.mode",
  "extraConfig.bpf-lb-dsr-dispatch": "loadBalancer.dsrDispatch",
  "extraConfig.enable-wireguard": "encryption.enabled",
  "extraConfig.enable-ipsec": "encryption.enabled",
  "extraConfig.mtu": "MTU",
};

/** Every value of `values` that sets an owned key under another name (OWNED_CILIUM_ALIASES), with that key. */
function ownedCiliumAliasesIn(values: Record<string, unknown>): { path: string[]; alias: string; key: string }[] {
  const out: { path: string[]; alias: string; key: string }[] = [];
  for (const [alias, key] of Object.entries(OWNED_CILIUM_ALIASES)) {
    let node: unknown = values;
    const path: string[] = [];
    // A dotted alias is read as Helm reads it: nested maps (`k8s: { apiServerURLs }`), or one key with a dot
    // (`extraConfig: { "kube-proxy-replacement": … }` holds no dot; `"k8s.apiServerURLs":` is not what Helm reads).
    const [first, ...rest] = alias.split(".");
    const segments = first === "extraConfig" ? [first, rest.join(".")] : [first ?? "", ...rest];
    for (const seg of segments) {
      if (!isMap(node) || !Object.hasOwn(node, seg)) {
        node = undefined;
        break;
      }
      path.push(seg);
      node = node[seg];
    }
    if (node !== undefined && path.length === segments.length) out.push({ path, alias, key });
  }
  return out;
}

export const ciliumValuesNotOwned: Rule = (spec, report) => {
  for (const { path, key } of ownedCiliumKeysIn(spec.cilium.values))
    report.error(
      ["cilium", "values", ...path],
      `Cilium value ${key} is set by clusterspec from ${OWNED_CILIUM_KEYS[key]}: set that field instead of cilium.values`,
    );
  for (const { path, alias, key } of ownedCiliumAliasesIn(spec.cilium.values))
    report.error(
      ["cilium", "values", ...path],
      `Cilium value ${alias} sets what ${key} sets, which clusterspec derives from ${OWNED_CILIUM_KEYS[key]}: set that field instead of cilium.values`,
    );
};
