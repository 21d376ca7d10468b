// Rules about the cloud burst of an existing cluster (existingCluster:): no section of a generated cluster beside it,
// its networks, nameservers and reach through the tunnel, its pools; and the cloud rules that hold for every spec.

import { addressCount, cidrContains, cidrsOverlap, isIp, parseCidr } from "../../../ip.js";
import { type IssuePath, type Reporter, type SpecIssue, toDotPath } from "../../../issues.js";
import { firstSeen } from "../../rule.js";
import { type CloudBurstSpec, ON_PREM_SECTIONS } from "../../schema.js";
import {
  checkHubEndpointResolvable,
  checkPoolNameAndSize,
  cloudPoolAmiReleases,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
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
    { net: e.podSubnet, what: "pod subnet", path: ["existingCluster", "podSubnet"] },
    { net: e.serviceSubnet, what: "service subnet", path: ["existingCluster", "serviceSubnet"] },
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
  const tooLarge = serviceSubnetTooLarge(spec.existingCluster.serviceSubnet);
  if (tooLarge) report.error(["existingCluster", "serviceSubnet"], tooLarge);
};

export const cloudBurstRules: readonly CloudBurstRule[] = [
  burstNetworksDisjoint,
  burstServiceSubnetSized,
  burstNameserversFit,
  burstReachesOnPrem,
  burstHubEndpointResolvable,
  burstPoolsValid,
  wireguardKeysConsistent,
  cloudPoolTagsFit,
  cloudPoolLabelsSelfSettable,
  cloudPoolNoJoinPlaceholders,
  cloudPoolAmiReleases,
  provisionerUrlIsBase,
];
