// The Cilium planner: devices, MTU and NodePort networks, from the network and cloud plans.
import { defaultRouteInterface } from "../facts/spec.js";
import type { ClusterSpec } from "../spec/schema.js";
import type { CiliumPlan, CloudPlan, NetworkPlan, VipInterfaces } from "./types.js";

/** The network interface of an EC2 instance on Fedora: ens5 on Nitro instances, eth0 on older ones. */
export const CLOUD_NODE_DEVICES: readonly string[] = ["ens+", "eth+"];

/**
 * Devices Cilium attaches to. eBPF masquerading only happens on these, so by default they are the
 * Kubernetes interface plus every interface a default route leaves through. Burst nodes have neither:
 * their node IP is on the WireGuard tunnel and their egress is the EC2 interface, so with cloud pools
 * both are listed too (a name that matches nothing on a node is ignored; cilium-agent only refuses to
 * start when nothing matches at all).
 */
function ciliumDevices(
  spec: ClusterSpec,
  kubernetesInterface: string,
  externalVipInterface: string | undefined,
  cloud: CloudPlan | undefined,
): string[] {
  const devices = [
    ...(spec.cilium.devices ?? [
      kubernetesInterface,
      ...spec.nodes.map(defaultRouteInterface).filter((d): d is string => d !== undefined),
      // Cilium's load balancer serves north-south Services only on its devices (kubeproxy-free.rst): the external
      // VIPs' interface, wherever they live (a rule refuses an explicit list without it).
      ...(externalVipInterface === undefined ? [] : [externalVipInterface]),
    ]),
  ];
  if (cloud) devices.push(cloud.wireguard.interface, ...CLOUD_NODE_DEVICES);
  return [...new Set(devices)];
}

export function planCilium(
  spec: ClusterSpec,
  {
    network,
    cloud,
    vipInterfaces,
  }: { readonly network: NetworkPlan; readonly cloud: CloudPlan | undefined; readonly vipInterfaces: VipInterfaces },
): CiliumPlan {
  const c = spec.cilium;
  const mtu = c.mtu ?? cloud?.tunnelMtu;
  return {
    version: c.version,
    routingMode: c.routingMode,
    tunnelProtocol: c.tunnelProtocol,
    autoDirectNodeRoutes: c.autoDirectNodeRoutes,
    ipamMode: c.ipamMode,
    devices: ciliumDevices(spec, network.kubernetesSegment.interface, vipInterfaces.external, cloud),
    bpfMasquerade: c.bpfMasquerade,
    loadBalancerMode: c.loadBalancerMode,
    encryption: c.encryption,
    mtu,
    mtuSource: c.mtu !== undefined ? "spec" : mtu !== undefined ? "wireguard-tunnel" : "auto",
    // The internal networks: the node InternalIPs, and the burst nodes' tunnel addresses (their node IPs).
    nodePortAddresses: c.nodePortAddresses ?? [
      network.kubernetesSegment.subnet,
      ...(network.kubernetesSegment.subnet6 === undefined ? [] : [network.kubernetesSegment.subnet6]),
      ...(cloud ? [cloud.wireguard.tunnelSubnet] : []),
      ...(cloud?.wireguard.tunnelSubnet6 === undefined ? [] : [cloud.wireguard.tunnelSubnet6]),
    ],
    values: c.values,
  };
}
