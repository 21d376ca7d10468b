// The nodes planner: each node's roles, addresses and interfaces, and what the VIPs and policy routes ask of
// its interfaces (rp_filter, accept_local, the host firewall).

import { clusterFamilies } from "../facts/families.js";
import { clusterStorageIsolationOff, storageIsolationOff } from "../facts/kubernetes.js";
import { isControlPlane, isWorker } from "../facts/spec.js";
import { hostPart, ipEquals, ipFamily } from "../ip.js";
import { InternalError } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import type {
  BootstrapPlan,
  InterfaceSysctl,
  KubernetesVersionPlan,
  NetworkPlan,
  PlannedFirewall,
  PlannedInterface,
  PlannedNode,
  PlannedVip,
  PolicyRoute,
  VipInterfaces,
} from "./types.js";

type NodeSpec = ClusterSpec["nodes"][number];

/** Who does what, derived once: the control planes and the external VIPs' carriers, each in spec order. */
export interface NodeRoles {
  readonly controlPlanes: readonly string[];
  readonly carriers: readonly string[];
}

export function rolesOf(spec: ClusterSpec): NodeRoles {
  return {
    controlPlanes: spec.nodes.filter(isControlPlane).map((n) => n.name),
    carriers: spec.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name),
  };
}

function planInterfaces(network: NetworkPlan, node: NodeSpec): PlannedInterface[] {
  return Object.entries(node.interfaces).map(([name, f]) => ({
    name,
    mac: f.mac?.toLowerCase(),
    vlan: f.vlan,
    cidr: f.address,
    address: f.address === undefined ? undefined : hostPart(f.address),
    gateway: f.gateway,
    cidr6: f.address6,
    address6: f.address6 === undefined ? undefined : hostPart(f.address6),
    gateway6: f.gateway6,
    segment: network.segments.find((s) => s.interface === name),
    mtu: f.mtu,
  }));
}

const has = (interfaces: readonly PlannedInterface[], name: string): boolean => interfaces.some((f) => f.name === name);

/** Each name once, first occurrence first. */
const unique = (names: readonly (string | undefined)[]): string[] =>
  names.filter((i, n, all): i is string => i !== undefined && all.indexOf(i) === n);

/**
 * Interfaces of a node that need `accept_local=1`. With DSR (or hybrid) a backend receives the client's packet
 * unchanged; when the client is this node itself, or a VIP it holds, the source is a local address, and the
 * kernel's source validation (fib_validate_source, consulted through the policy-routing rules) drops it with
 * EINVAL unless the receiving interface accepts local sources (cilium/cilium#17747).
 */
function acceptLocalInterfaces(
  spec: ClusterSpec,
  policyRoutes: readonly PolicyRoute[],
  interfaces: readonly PlannedInterface[],
): string[] {
  if (spec.cilium.loadBalancerMode === "snat") return [];
  return unique(policyRoutes.map((r) => r.interface)).filter((i) => has(interfaces, i));
}

/** `rp_filter` on the interfaces that carry a VIP or policy-routed replies: loose. */
export const RP_FILTER_LOOSE = "2";

/**
 * The per-interface settings, interface by interface. Neither can be set once on `all`: the kernel uses the larger of
 * `all` and the interface's rp_filter (ip-sysctl.rst, rp_filter), and Cilium needs `all` at 0; accept_local is ORed
 * with `all` (include/linux/inetdevice.h: `IN_DEV_ORCONF(in_dev, ACCEPT_LOCAL)`), so `all` would accept local
 * sources on every interface, the public ones too.
 */
function interfaceSysctls(
  interfaces: readonly PlannedInterface[],
  rpFilterLoose: readonly string[],
  acceptLocal: readonly string[],
): InterfaceSysctl[] {
  return interfaces.flatMap((f): InterfaceSysctl[] => [
    ...(rpFilterLoose.includes(f.name)
      ? [{ interface: f.name, key: "rp_filter", value: RP_FILTER_LOOSE } as const]
      : []),
    ...(acceptLocal.includes(f.name) ? [{ interface: f.name, key: "accept_local", value: "1" } as const] : []),
  ]);
}

/** The interfaces `host.firewall` filters on a node: the listed ones it has, else those that attach no segment. */
function firewallInterfaces(spec: ClusterSpec, interfaces: readonly PlannedInterface[]): string[] {
  const listed = spec.host.firewall?.publicInterfaces;
  if (listed) return listed.filter((i) => has(interfaces, i));
  return interfaces.filter((f) => f.segment === undefined).map((f) => f.name);
}

/** What each public interface of a node lets in: the VIPs that live there, and VRRP from the other nodes on it. */
function planFirewall(
  spec: ClusterSpec,
  name: string,
  interfacesByNode: ReadonlyMap<string, readonly PlannedInterface[]>,
  vipsByInterface: ReadonlyMap<string, readonly string[]>,
): PlannedFirewall {
  return {
    interfaces: firewallInterfaces(spec, interfacesByNode.get(name) ?? []).map((iface) => {
      const vips = vipsByInterface.get(iface) ?? [];
      return {
        name: iface,
        vips,
        vrrpPeers:
          vips.length === 0
            ? []
            : [...interfacesByNode].flatMap(([other, interfaces]) => {
                const a = interfaces.find((f) => f.name === iface)?.address;
                return other === name || a === undefined ? [] : [a];
              }),
      };
    }),
  };
}

export interface NodesPlan {
  readonly nodes: readonly PlannedNode[];
  readonly initNode: PlannedNode | undefined;
  readonly bootstrap: BootstrapPlan;
  /** The generated node that is the WireGuard hub (`cloud.wireguard.hub` is its internal address), if any. */
  readonly hubNode: string | undefined;
}

export function planNodes(
  spec: ClusterSpec,
  parts: {
    readonly version: KubernetesVersionPlan;
    readonly network: NetworkPlan;
    readonly roles: NodeRoles;
    readonly vips: readonly PlannedVip[];
    readonly vipInterfaces: VipInterfaces;
  },
): NodesPlan {
  const k8s = parts.network.kubernetesSegment.interface;
  const families = clusterFamilies(spec);
  const interfacesByNode = new Map(spec.nodes.map((n) => [n.name, planInterfaces(parts.network, n)]));
  const internalAddresses = spec.nodes.map((n) => {
    const internal = interfacesByNode.get(n.name)?.find((f) => f.name === k8s)?.address;
    if (!internal) throw new InternalError(`node ${n.name} has no address on ${k8s}`);
    return internal;
  });
  const wireguard = spec.cloud?.wireguard;
  const hub = wireguard?.hub;
  const hubNode =
    hub === undefined ? undefined : spec.nodes.find((_, i) => ipEquals(internalAddresses[i] ?? "", hub))?.name;
  // the hub node's IPv6 address on the Kubernetes segment: the next hop of the IPv6 tunnel subnet
  const hub6 = hubNode === undefined ? undefined : interfacesByNode.get(hubNode)?.find((f) => f.name === k8s)?.address6;
  const controlPlanes = new Set(parts.roles.controlPlanes);
  const bootstrap = planBootstrap(spec, parts.roles);
  const vipsByInterface = new Map<string, string[]>();
  for (const v of parts.vips)
    vipsByInterface.set(v.interface, [...(vipsByInterface.get(v.interface) ?? []), v.address]);
  // rp_filter is loose on interfaces that carry a VIP or policy-routed replies: the same list on every node.
  const looseCandidates = unique([
    parts.vipInterfaces.controlPlane,
    parts.vipInterfaces.external,
    ...parts.network.policyRoutes.map((r) => r.interface),
  ]);
  const isolationOff = clusterStorageIsolationOff(
    spec.nodes.map((n) => storageIsolationOff(n.rootFilesystem, parts.version.version.minor)),
    spec.cloud !== undefined,
  );
  const nodes = spec.nodes.map((n, index): PlannedNode => {
    const interfaces = interfacesByNode.get(n.name) ?? [];
    const internalAddress = internalAddresses[index] ?? "";
    const internal = interfaces.find((f) => f.name === k8s);
    const byFamily = [internal?.address, internal?.address6].filter((a): a is string => a !== undefined);
    const acceptLocal = acceptLocalInterfaces(spec, parts.network.policyRoutes, interfaces);
    const rpFilterLoose = looseCandidates.filter((i) => has(interfaces, i));
    return {
      name: n.name,
      controlPlane: controlPlanes.has(n.name),
      worker: isWorker(n),
      init: !bootstrap.bootstrapped && n.name === bootstrap.initNodeName,
      carriesExternalVips: n.carriesExternalVips,
      rootFilesystem: n.rootFilesystem,
      localStorageIsolationOff: isolationOff[index],
      disk: n.disk,
      internalInterface: k8s,
      // The primary family's address: the apiserver's advertise address, etcd's URLs.
      internalAddress: byFamily.find((a) => ipFamily(a) === families[0]) ?? internalAddress,
      internalAddresses: families.map((f) => byFamily.find((a) => ipFamily(a) === f) ?? internalAddress),
      tunnelRoute:
        hub === undefined || wireguard === undefined || n.name === hubNode
          ? undefined
          : { subnet: wireguard.tunnelSubnet, via: hub, interface: k8s },
      ...(hub6 === undefined || wireguard?.tunnelSubnet6 === undefined || n.name === hubNode
        ? {}
        : { tunnelRoute6: { subnet: wireguard.tunnelSubnet6, via: hub6, interface: k8s } }),
      interfaces,
      labels: n.labels,
      taints: n.taints,
      acceptLocalInterfaces: acceptLocal,
      rpFilterLooseInterfaces: rpFilterLoose,
      interfaceSysctls: interfaceSysctls(interfaces, rpFilterLoose, acceptLocal),
      firewall:
        spec.host.firewall === undefined ? undefined : planFirewall(spec, n.name, interfacesByNode, vipsByInterface),
    };
  });
  const initNode = nodes.find((n) => n.init);
  if (!initNode && !bootstrap.bootstrapped)
    throw new InternalError(`init node ${bootstrap.initNodeName} is not planned`);
  return { nodes, initNode, bootstrap, hubNode };
}

/** The init node named in the spec, else the first control plane (a rule checks a named one is a control plane). */
function planBootstrap(spec: ClusterSpec, roles: NodeRoles): BootstrapPlan {
  const named = spec.controlPlane.initNode;
  const initNodeName = named ?? roles.controlPlanes[0];
  if (initNodeName === undefined || !roles.controlPlanes.includes(initNodeName))
    throw new InternalError("resolvePlan needs a validated spec: the init node must be a control-plane node");
  return { initNodeName, initNodeDefaulted: named === undefined, bootstrapped: spec.controlPlane.bootstrapped };
}
