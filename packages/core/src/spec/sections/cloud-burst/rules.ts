// Rules about the cloud burst of an existing cluster (existingCluster:): no section of a generated cluster beside it,
// its networks, nameservers and reach through the tunnel, its pools; and the cloud rules that hold for every spec.

import { addressCount, cidrContains, cidrsOverlap, isIp, parseCidr } from "../../../ip.js";
import { type IssuePath, type Reporter, type SpecIssue, toDotPath } from "../../../issues.js";
import { firstSeen } from "../../rule.js";
import { type CloudBurstSpec, ON_PREM_SECTIONS } from "../../schema.js";
import {
  checkHubEndpointResolvable,
  checkIpv6OnlyNameservers,
  checkPoolNameAndSize,
  checkTunnelFamilies,
  cloudIpv6OnlyPools,
  cloudPoolAmiReleases,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
  cloudPoolsReachHub,
  cloudPoolTagsFit,
  provisionerUrlIsBase,
  wireguardKeysConsistent,
} from "../cloud/rules.js";
import { serviceSubnetTooLarge } from "../kubernetes/rules.js";

export const isCloudBurstInput = (input: unknown): input is Record<string, unknown> =>
  typeof input === "object" && input !== null && !Array.isArray(input) && "existingCluster" in input;

/** Sections of a generated cluster that were written beside existingCluster: each is an error naming both paths. */
export function conflictingSections(input: Record<string, unknown>): SpecIssue[] {
  return ON_PREM_SECTIONS.filter((k) => input[k] !== undefined).map((k) => ({
    path: [k],
    message: `${k} cannot be combined with existingCluster: a spec either generates a cluster (${k}, …) or bursts an existing one (existingCluster)`,
    severity: "error",
    code: "rule",
  }));
}

export type CloudBurstRule = (spec: CloudBurstSpec, report: Reporter) => void;

/** Burst slots over all pools: each pool's maxSize, in pool order. */
export const slotCount = (cloud: { readonly pools: readonly { readonly maxSize: number }[] }): number =>
  cloud.pools.reduce((n, p) => n + p.maxSize, 0);

/** Pod, service, on-prem, tunnel and VPC networks must not overlap. */
export const burstNetworksDisjoint: CloudBurstRule = (spec, report) => {
  const e = spec.existingCluster;
  const nets: { net: string; what: string; path: IssuePath }[] = [
    ...subnetsWithPaths(e.podSubnet, "podSubnet").map((s) => ({ ...s, what: "pod subnet" })),
    ...subnetsWithPaths(e.serviceSubnet, "serviceSubnet").map((s) => ({ ...s, what: "service subnet" })),
    ...e.onPremNetworks.map((net, i) => ({
      net,
      what: "on-prem network",
      path: ["existingCluster", "onPremNetworks", i] as IssuePath,
    })),
    {
      net: spec.cloud.wireguard.tunnelSubnet,
      what: "WireGuard tunnel subnet",
      path: ["cloud", "wireguard", "tunnelSubnet"],
    },
    ...(spec.cloud.wireguard.tunnelSubnet6 === undefined
      ? []
      : [
          {
            net: spec.cloud.wireguard.tunnelSubnet6,
            what: "WireGuard IPv6 tunnel subnet",
            path: ["cloud", "wireguard", "tunnelSubnet6"] as IssuePath,
          },
        ]),
    { net: spec.cloud.aws.vpcCidr, what: "AWS VPC", path: ["cloud", "aws", "vpcCidr"] },
  ];
  for (let a = 0; a < nets.length; a++)
    for (let b = a + 1; b < nets.length; b++) {
      const x = nets[a];
      const y = nets[b];
      if (x && y && cidrsOverlap(x.net, y.net))
        report.error(y.path, `${y.what} ${y.net} overlaps the ${x.what} ${x.net} (${toDotPath(x.path)})`);
    }
};

/** glibc reads three nameservers and the kubelet adds the cluster DNS: a burst node keeps at most 2. */
export const burstNameserversFit: CloudBurstRule = (spec, report) => {
  const ns = spec.existingCluster.nameservers;
  if (ns.length > 2)
    report.error(
      ["existingCluster", "nameservers", 2],
      `${ns.length} nameservers given; a burst node keeps at most 2 after tunnel-up, because glibc reads 3 and the kubelet adds the cluster DNS`,
    );
};

/** An IPv6-only pool's instances reach the nameservers outside the on-prem networks over IPv6 only. */
export const burstIpv6OnlyNameservers: CloudBurstRule = (spec, report) => {
  const e = spec.existingCluster;
  checkIpv6OnlyNameservers(spec.cloud, e.nameservers, ["existingCluster", "nameservers"], e.onPremNetworks, report);
};

/** The API endpoint, the nameservers and the hub are reached through the tunnel, so they lie in an on-prem network. */
export const burstReachesOnPrem: CloudBurstRule = (spec, report) => {
  const e = spec.existingCluster;
  const onPrem = (ip: string) => e.onPremNetworks.some((n) => cidrContains(n, ip));
  const host = e.endpoint.startsWith("[")
    ? e.endpoint.slice(1, e.endpoint.lastIndexOf("]"))
    : e.endpoint.slice(0, e.endpoint.lastIndexOf(":"));
  if (isIp(host) && !onPrem(host))
    report.error(
      ["existingCluster", "endpoint"],
      `API endpoint ${e.endpoint} is outside existingCluster.onPremNetworks: burst nodes reach the cluster only through the tunnel`,
    );
  const hub = spec.cloud.wireguard.hub;
  if (hub !== undefined && !onPrem(hub))
    report.error(
      ["cloud", "wireguard", "hub"],
      `WireGuard hub ${hub} is outside existingCluster.onPremNetworks, where the on-prem nodes route the tunnel through it`,
    );
};

/**
 * wg-quick resolves the hub's endpoint when it brings the tunnel up, also after a reboot, when only the on-prem
 * nameservers remain (the AWS resolver is dropped at the first boot): if all of them are reached through the tunnel,
 * a DNS name cannot be resolved before the tunnel exists. Refused rather than pinned to a resolved address, which
 * would break silently when the hub's address changes.
 */
export const burstHubEndpointResolvable: CloudBurstRule = (spec, report) => {
  const e = spec.existingCluster;
  checkHubEndpointResolvable(
    spec.cloud.wireguard.endpoint,
    e.nameservers,
    e.onPremNetworks,
    "existingCluster.onPremNetworks",
    report,
  );
};

export const burstPoolsValid: CloudBurstRule = (spec, report) => {
  const names = firstSeen<string>();
  spec.cloud.pools.forEach((pool, i) => {
    checkPoolNameAndSize(pool, i, names, report);
  });
  // network address, hub, one address per slot, broadcast
  const subnet = spec.cloud.wireguard.tunnelSubnet;
  const needed = slotCount(spec.cloud) + 3;
  if (parseCidr(subnet).family === 4 && addressCount(subnet) < BigInt(needed))
    report.error(
      ["cloud", "wireguard", "tunnelSubnet"],
      `tunnel subnet ${subnet} has room for fewer than ${needed} addresses (hub and ${slotCount(spec.cloud)} burst slots)`,
    );
};

/** kubeadm rejects service subnets larger than /12 (IPv4) or /108 (IPv6). */
export const burstServiceSubnetSized: CloudBurstRule = (spec, report) => {
  for (const { net, path } of subnetsWithPaths(spec.existingCluster.serviceSubnet, "serviceSubnet")) {
    const tooLarge = serviceSubnetTooLarge(net);
    if (tooLarge) report.error(path, tooLarge);
  }
};

/** Each network of a one-or-per-family field of existingCluster with its path. */
function subnetsWithPaths(
  v: string | readonly string[],
  field: "podSubnet" | "serviceSubnet",
): { net: string; path: IssuePath }[] {
  return typeof v === "string"
    ? [{ net: v, path: ["existingCluster", field] }]
    : v.map((net, i) => ({ net, path: ["existingCluster", field, i] }));
}

/**
 * A dual-stack existing cluster: one pod and one service network per family, in the same order (as kubeadm requires
 * of the cluster itself); and the tunnel carries each of its families (checkTunnelFamilies).
 */
export const burstTunnelFamilies: CloudBurstRule = (spec, report) => {
  const e = spec.existingCluster;
  const pods = subnetsWithPaths(e.podSubnet, "podSubnet").map((s) => ({ ...s, family: parseCidr(s.net).family }));
  const services = subnetsWithPaths(e.serviceSubnet, "serviceSubnet").map((s) => parseCidr(s.net).family);
  const second = pods[1];
  if (second && pods[0]?.family === second.family) {
    report.error(
      second.path,
      `pod subnets ${pods.map((s) => s.net).join(" and ")} are both IPv${second.family}: a dual-stack cluster has one pod network per family (IPv4 and IPv6), the primary family first`,
    );
    return;
  }
  const podOrder = pods.map((s) => `IPv${s.family}`).join(", ");
  const serviceOrder = services.map((f) => `IPv${f}`).join(", ");
  if (podOrder !== serviceOrder)
    report.error(
      ["existingCluster", "serviceSubnet"],
      `the service network's families (${serviceOrder}) differ from the pod network's (${podOrder}): give one service network per pod network family, in the same order`,
    );
  checkTunnelFamilies(
    spec.cloud.wireguard,
    pods.map((s) => s.family),
    "existingCluster.podSubnet",
    slotCount(spec.cloud),
    report,
  );
};

export const cloudBurstRules: readonly CloudBurstRule[] = [
  burstNetworksDisjoint,
  burstServiceSubnetSized,
  burstTunnelFamilies,
  burstNameserversFit,
  burstIpv6OnlyNameservers,
  burstReachesOnPrem,
  burstHubEndpointResolvable,
  burstPoolsValid,
  wireguardKeysConsistent,
  cloudPoolTagsFit,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
  cloudPoolAmiReleases,
  cloudPoolsReachHub,
  cloudIpv6OnlyPools,
  provisionerUrlIsBase,
];
