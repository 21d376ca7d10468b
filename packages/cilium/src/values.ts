// Helm values for the Cilium chart, built as an object. Only keys the chart documents, only values it documents;
// removed keys (`tunnel`, `kubeProxyReplacement: strict|partial`) are never written.
import { type ClusterPlan, ipFamily, mergePatch, WIREGUARD_OVERHEAD } from "@clusterspec/core";

/** The chart values file the generator writes. */
export const VALUES_PATH = "cluster/cilium-values.yaml";

export type CiliumValues = Record<string, unknown>;

/** Bytes Cilium's own overlay takes from the MTU it is given (VXLAN and Geneve over IPv4). */
export const OVERLAY_OVERHEAD = 50;

/** The device MTU Cilium must assume: the spec's, else inside the WireGuard tunnel when burst nodes exist. */
export function ciliumMtu(plan: ClusterPlan): number | undefined {
  return plan.cilium.mtu;
}

/** The generated values with `cilium.values` deep-merged over them (the rules refuse the keys clusterspec owns). */
export function ciliumValues(plan: ClusterPlan): CiliumValues {
  return mergePatch(generatedValues(plan), plan.cilium.values) as CiliumValues;
}

function generatedValues(plan: ClusterPlan): CiliumValues {
  const c = plan.cilium;
  const pod = plan.kubernetes.podSubnet;
  const v6 = ipFamily(pod) === 6;
  // Dual stack: both families on (ipv4.enabled is the chart's default), each with its own pod network.
  const pod6 = plan.kubernetes.podSubnets.find((n) => ipFamily(n) === 6);
  const pod4 = plan.kubernetes.podSubnets.find((n) => ipFamily(n) === 4);
  const dual = pod4 !== undefined && pod6 !== undefined;
  const mask6 = plan.kubernetes.nodeCidrMaskSize6 ?? 64;
  const native = c.routingMode === "native";
  const mtu = ciliumMtu(plan);
  const dsr = c.loadBalancerMode !== "snat";
  return {
    kubeProxyReplacement: true,
    k8sServiceHost: plan.controlPlane.host,
    k8sServicePort: plan.controlPlane.port,
    ...(dual ? { ipv6: { enabled: true } } : v6 ? { ipv4: { enabled: false }, ipv6: { enabled: true } } : {}),
    routingMode: c.routingMode,
    ...(native
      ? {
          ...(pod4 === undefined ? {} : { ipv4NativeRoutingCIDR: pod4 }),
          ...(pod6 === undefined ? {} : { ipv6NativeRoutingCIDR: pod6 }),
          autoDirectNodeRoutes: c.autoDirectNodeRoutes,
        }
      : { tunnelProtocol: c.tunnelProtocol }),
    ipam: {
      mode: c.ipamMode,
      ...(c.ipamMode === "cluster-pool"
        ? {
            operator: {
              ...(pod4 === undefined
                ? {}
                : { clusterPoolIPv4PodCIDRList: [pod4], clusterPoolIPv4MaskSize: plan.kubernetes.nodeCidrMaskSize }),
              ...(pod6 === undefined ? {} : { clusterPoolIPv6PodCIDRList: [pod6], clusterPoolIPv6MaskSize: mask6 }),
            },
          }
        : {}),
    },
    devices: [...c.devices],
    bpf: {
      masquerade: c.bpfMasquerade,
      // eBPF host routing hands packets straight to the device and bypasses `ip rule`: keep the policy routes working.
      ...(plan.network.policyRoutes.length > 0 ? { hostLegacyRouting: true } : {}),
    },
    loadBalancer: {
      mode: c.loadBalancerMode,
      ...(dsr && !native ? { dsrDispatch: "geneve" } : {}),
    },
    ...(c.encryption === "wireguard" ? { encryption: { enabled: true, type: "wireguard" } } : {}),
    ...(mtu === undefined ? {} : { MTU: mtu }),
    // Only node addresses in these networks serve NodePorts: with a public interface among the devices Cilium
    // would otherwise serve every NodePort on its address too.
    ...(c.nodePortAddresses.length > 0 ? { nodePort: { addresses: [...c.nodePortAddresses] } } : {}),
  };
}

/** The MTU pods get: Cilium subtracts its overlay and WireGuard encryption from the device MTU. */
export function podMtu(plan: ClusterPlan): number | undefined {
  const mtu = ciliumMtu(plan);
  if (mtu === undefined) return undefined;
  return (
    mtu -
    (plan.cilium.routingMode === "tunnel" ? OVERLAY_OVERHEAD : 0) -
    (plan.cilium.encryption === "wireguard" ? WIREGUARD_OVERHEAD : 0)
  );
}

/** Linux's MTU of an Ethernet interface nobody set one on. */
export const KERNEL_DEFAULT_MTU = 1500;

/**
 * The MTU budget, from the link up: the smallest link MTU of Cilium's devices over the on-prem nodes (the spec's
 * `nodes[].interfaces.<name>.mtu`, else the kernel's 1500), the device MTU Cilium uses (the spec's or the tunnel's,
 * else what it detects on those links), and what pods get after the overlay and encryption.
 */
export function mtuBudget(plan: ClusterPlan): {
  readonly interfaces: readonly string[];
  readonly link: number;
  readonly linkFromSpec: boolean;
  readonly device: number;
  readonly pod: number;
} {
  const links = plan.nodes.flatMap((n) => n.interfaces.filter((f) => plan.cilium.devices.includes(f.name)));
  const interfaces = [...new Set(links.map((f) => f.name))];
  const link = links.length === 0 ? KERNEL_DEFAULT_MTU : Math.min(...links.map((f) => f.mtu ?? KERNEL_DEFAULT_MTU));
  const device = ciliumMtu(plan) ?? link;
  const pod =
    device -
    (plan.cilium.routingMode === "tunnel" ? OVERLAY_OVERHEAD : 0) -
    (plan.cilium.encryption === "wireguard" ? WIREGUARD_OVERHEAD : 0);
  return { interfaces, link, linkFromSpec: links.some((f) => f.mtu !== undefined), device, pod };
}
