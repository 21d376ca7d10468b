// Address families of a spec (dual stack): which families the cluster runs, primary first, and each value's networks
// per family. Shared by the rules and the planners, so both read the same order.
import { type IpFamily, ipFamily } from "../ip.js";
import type { ClusterSpec, InterfaceSpec, SegmentSpec } from "../spec/schema.js";

/** A spec value that is one network or one per family, as a list (primary first). */
export const asList = (v: string | readonly string[]): readonly string[] => (typeof v === "string" ? [v] : v);

export const podSubnets = (spec: ClusterSpec): readonly string[] => asList(spec.kubernetes.podSubnet);
export const serviceSubnets = (spec: ClusterSpec): readonly string[] => asList(spec.kubernetes.serviceSubnet);

/** The cluster's families, primary first: those of `kubernetes.podSubnet`. */
export function clusterFamilies(spec: ClusterSpec): readonly IpFamily[] {
  return podSubnets(spec).map((n) => ipFamily(n));
}

export const isDualStack = (spec: ClusterSpec): boolean => new Set(clusterFamilies(spec)).size === 2;

/** The default IPv6 node mask of kube-controller-manager and kubeadm (validation.go getClusterNodeMask: 64). */
export const DEFAULT_NODE_MASK_IPV6 = 64;

/**
 * The node CIDR mask of a family: nodeCidrMaskSize for IPv4, nodeCidrMaskSize6 (default 64) for IPv6, in a
 * single-stack cluster as in a dual-stack one (kubeadm reads --node-cidr-mask-size-ipv4/-ipv6 in a dual-stack one).
 */
export function nodeMaskFor(spec: ClusterSpec, family: IpFamily): number {
  return family === 6
    ? (spec.kubernetes.nodeCidrMaskSize6 ?? DEFAULT_NODE_MASK_IPV6)
    : spec.kubernetes.nodeCidrMaskSize;
}

/** An interface's addresses with prefix: `address` then `address6`. */
export function interfaceCidrs(iface: InterfaceSpec): readonly string[] {
  return [iface.address, iface.address6].filter((a): a is string => a !== undefined);
}

/** A segment's subnets: `subnet` then `subnet6`. */
export function segmentSubnets(seg: SegmentSpec): readonly string[] {
  return seg.subnet6 === undefined ? [seg.subnet] : [seg.subnet, seg.subnet6];
}
