// Rules about cloud burst: pools, the WireGuard tunnel, Auto Scaling Group tags, node labels and the provisioner URL.
import { ASG_TAG_LIMITS, autoscalerTags, isNitroInstanceType, kubeletMaySetLabel } from "../../../facts/cloud.js";
import { fedoraContract } from "../../../facts/contract.js";
import { clusterFamilies } from "../../../facts/families.js";
import { FEDORA_VERSIONED_KUBERNETES_SINCE, fedoraNameSpansReleases, fedoraReleaseOf } from "../../../facts/fedora.js";
import { kubernetesSegment } from "../../../facts/spec.js";
import { addressCount, cidrContains, hostPart, type IpFamily, ipEquals, isIp, parseCidr } from "../../../ip.js";
import { type Reporter, toDotPath } from "../../../issues.js";
import { type CloudRule, type CloudRuleInput, firstSeen, type Rule } from "../../rule.js";
import { durationSeconds } from "../../version.js";

/** A pool's name is unique and its minSize at most its maxSize: shared by on-prem clusters and cloud-only specs. */
export function checkPoolNameAndSize(
  pool: { readonly name: string; readonly minSize: number; readonly maxSize: number },
  i: number,
  names: ReturnType<typeof firstSeen<string>>,
  report: Reporter,
): void {
  const prior = names(pool.name, ["cloud", "pools", i, "name"]);
  if (prior)
    report.error(["cloud", "pools", i, "name"], `duplicate pool name ${pool.name} (also used by ${toDotPath(prior)})`);
  if (pool.minSize > pool.maxSize)
    report.error(["cloud", "pools", i, "minSize"], `minSize ${pool.minSize} is larger than maxSize ${pool.maxSize}`);
}

export const cloudPoolsValid: Rule = (spec, report) => {
  if (!spec.cloud) return;
  const names = firstSeen<string>();
  spec.cloud.pools.forEach((pool, i) => {
    checkPoolNameAndSize(pool, i, names, report);
    if (spec.nodes.some((n) => pool.name === n.name))
      report.error(["cloud", "pools", i, "name"], `pool name ${pool.name} is also a node name`);
  });
  const hub = spec.cloud.wireguard.hub;
  const k8s = kubernetesSegment(spec);
  if (hub !== undefined && k8s && !cidrContains(k8s.subnet, hub))
    report.error(
      ["cloud", "wireguard", "hub"],
      `WireGuard hub ${hub} is outside ${k8s.subnet}, the Kubernetes segment the on-prem nodes route the tunnel through`,
    );
  const tunnel = parseCidr(spec.cloud.wireguard.tunnelSubnet);
  const needed = spec.cloud.pools.reduce((n, p) => n + p.maxSize, 0) + spec.nodes.length + 2;
  if (tunnel.family === 4 && addressCount(spec.cloud.wireguard.tunnelSubnet) < BigInt(needed))
    report.error(
      ["cloud", "wireguard", "tunnelSubnet"],
      `tunnel subnet ${spec.cloud.wireguard.tunnelSubnet} has room for fewer than ${needed} peers`,
    );
};

/**
 * The tunnel carries every family of the cluster (issue 30 item 6): a burst node's kubelet registers its tunnel
 * address of each cluster family (node-ip, primary first), so a cluster that runs IPv6 needs an IPv6 tunnel network
 * (`tunnelSubnet6` beside an IPv4 `tunnelSubnet`, or an IPv6 `tunnelSubnet` in an IPv6-only cluster), and one that
 * runs IPv4 an IPv4 `tunnelSubnet`. Shared by generated clusters and the cloud burst of an existing one.
 */
export function checkTunnelFamilies(
  wg: { readonly tunnelSubnet: string; readonly tunnelSubnet6?: string | undefined },
  families: readonly IpFamily[],
  familiesFrom: string,
  slots: number,
  report: Reporter,
): void {
  const base = ["cloud", "wireguard"];
  const first = parseCidr(wg.tunnelSubnet).family;
  const six = wg.tunnelSubnet6;
  if (six !== undefined) {
    if (parseCidr(six).family !== 6) {
      report.error(
        [...base, "tunnelSubnet6"],
        `tunnelSubnet6 ${six} is an IPv4 network: it is the tunnel's IPv6 network (the IPv4 one is tunnelSubnet)`,
      );
      return;
    }
    if (first === 6)
      report.error(
        [...base, "tunnelSubnet6"],
        `tunnelSubnet ${wg.tunnelSubnet} is IPv6 already: tunnelSubnet6 is the IPv6 network beside an IPv4 tunnelSubnet; remove one`,
      );
    else if (addressCount(six) < BigInt(slots + 2))
      report.error(
        [...base, "tunnelSubnet6"],
        `tunnel subnet ${six} has room for fewer than ${slots + 2} addresses (hub and ${slots} burst slots)`,
      );
  }
  const tunnelFamilies = new Set<IpFamily>([first, ...(six === undefined ? [] : [parseCidr(six).family])]);
  if (families.includes(6) && !tunnelFamilies.has(6))
    report.error(
      [...base, families.includes(4) ? "tunnelSubnet6" : "tunnelSubnet"],
      families.includes(4)
        ? `the cluster is dual-stack (${familiesFrom}) and has cloud pools, but the WireGuard tunnel has no IPv6 network: a burst node registers its tunnel address of each cluster family (kubelet node-ip); add cloud.wireguard.tunnelSubnet6, e.g. fd00:30:99::/64`
        : `the cluster is IPv6-only (${familiesFrom}), but tunnelSubnet ${wg.tunnelSubnet} is IPv4: a burst node registers its tunnel address (kubelet node-ip); give an IPv6 tunnelSubnet`,
    );
  if (families.includes(4) && !tunnelFamilies.has(4))
    report.error(
      [...base, "tunnelSubnet"],
      `the cluster runs IPv4 (${familiesFrom}), but tunnelSubnet ${wg.tunnelSubnet} is IPv6: a burst node registers its tunnel address of each cluster family (kubelet node-ip); give an IPv4 tunnelSubnet and the IPv6 network as tunnelSubnet6`,
    );
}

/** The tunnel's families against the cluster's; the on-prem nodes' IPv6 route to tunnelSubnet6 goes through the hub node. */
export const cloudTunnelFamilies: Rule = (spec, report) => {
  const cloud = spec.cloud;
  if (!cloud) return;
  const slots = cloud.pools.reduce((n, p) => n + p.maxSize, 0);
  checkTunnelFamilies(cloud.wireguard, clusterFamilies(spec), "kubernetes.podSubnet", slots, report);
  const { hub, tunnelSubnet6 } = cloud.wireguard;
  const k8s = kubernetesSegment(spec);
  if (hub === undefined || tunnelSubnet6 === undefined || !k8s) return;
  const hubNode = spec.nodes.find((n) => {
    const a = n.interfaces[k8s.interface]?.address;
    return a !== undefined && ipEquals(hostPart(a), hub);
  });
  if (hubNode?.interfaces[k8s.interface]?.address6 === undefined)
    report.error(
      ["cloud", "wireguard", "tunnelSubnet6"],
      `the on-prem nodes route tunnelSubnet6 ${tunnelSubnet6} through the WireGuard hub's IPv6 address on ${k8s.interface}: the hub ${hub} must be one of the nodes, with an address6 on ${k8s.interface}`,
    );
};

/** AWS caps Auto Scaling Group tags; Cluster Autoscaler needs one per label, taint and resource to scale from zero. */
export const cloudPoolTagsFit: CloudRule = (spec, report) => {
  spec.cloud?.pools.forEach((pool, i) => {
    const base = ["cloud", "pools", i];
    const tags = autoscalerTags(spec.name, pool, base);
    if (tags.length > ASG_TAG_LIMITS.count)
      report.error(
        base,
        `pool ${pool.name} needs ${tags.length} Auto Scaling Group tags (labels, taints and resources for Cluster Autoscaler); AWS allows ${ASG_TAG_LIMITS.count}`,
      );
    const seen = new Set<string>();
    for (const tag of tags) {
      const where = tag.specPath;
      if (tag.key.length > ASG_TAG_LIMITS.keyLength)
        report.error(
          where,
          `tag key ${tag.key} has ${tag.key.length} characters; AWS allows ${ASG_TAG_LIMITS.keyLength}`,
        );
      if (tag.value.length > ASG_TAG_LIMITS.valueLength)
        report.error(
          where,
          `tag ${tag.key} has a value of ${tag.value.length} characters; AWS allows ${ASG_TAG_LIMITS.valueLength}`,
        );
      if (seen.has(tag.key))
        report.error(where, `tag ${tag.key} is produced twice: Cluster Autoscaler reads one taint per key`);
      seen.add(tag.key);
    }
  });
};

/** The kubelet refuses to start with --node-labels it may not set on itself (kubernetes.io and k8s.io namespaces). */
export const cloudPoolLabelsSelfSettable: CloudRule = (spec, report) => {
  spec.cloud?.pools.forEach((pool, i) => {
    for (const key of Object.keys(pool.labels))
      if (!kubeletMaySetLabel(key))
        report.error(
          ["cloud", "pools", i, "labels", key],
          `the kubelet may not set label ${key} on its own node (NodeRestriction); use a key outside kubernetes.io and k8s.io, or under node.kubernetes.io/`,
        );
  });
};

/**
 * The placeholders a burst node's join script replaces in its kubeadm join template at boot
 * (packages/cloud-init/src/join-script.ts: NODE_IP_PLACEHOLDER, PROVIDER_ID_PLACEHOLDER, NODE_NAME_PLACEHOLDER;
 * packages/core/test/reliability-round2.test.ts checks this list against that file).
 */
export const JOIN_PLACEHOLDERS = [
  "__NODE_IP__",
  "__PROVIDER_ID__",
  "__NODE_NAME__",
  "__ZONE__",
  "__REGION__",
  "__INSTANCE_TYPE__",
] as const;

/**
 * Pool labels and taints are written into the join template, where the join script replaces its placeholders at
 * boot: a label or taint holding one would be rewritten (or make the script fail and the group replace the node
 * in a loop), so none may (issue 32 item 5).
 */
export const cloudPoolNoJoinPlaceholders: CloudRule = (spec, report) => {
  const check = (path: (string | number)[], s: string, what: string) => {
    const hit = JOIN_PLACEHOLDERS.find((p) => s.includes(p));
    if (hit)
      report.error(
        path,
        `${what} ${s} contains ${hit}, a placeholder the burst node's join script replaces at boot (${JOIN_PLACEHOLDERS.join(", ")}): choose another ${what}`,
      );
  };
  spec.cloud?.pools.forEach((pool, i) => {
    for (const [key, value] of Object.entries(pool.labels)) {
      check(["cloud", "pools", i, "labels", key], key, "label key");
      check(["cloud", "pools", i, "labels", key], value, "label value");
    }
    pool.taints.forEach((t, j) => {
      check(["cloud", "pools", i, "taints", j, "key"], t.key, "taint key");
      if (t.value !== undefined) check(["cloud", "pools", i, "taints", j, "value"], t.value, "taint value");
    });
  });
};

/** Burst nodes append API paths to the provisioner URL. */
export const provisionerUrlIsBase: CloudRule = (spec, report) => {
  const url = spec.cloud?.provisioner.url;
  if (url !== undefined && /[?#]/.test(url))
    report.error(
      ["cloud", "provisioner", "url"],
      `provisioner URL ${url} has a query or fragment; give its base URL, paths such as /wireguard/config/<instance-id> are appended`,
    );
};

/**
 * A hub endpoint that is an IPv6 literal is reached over IPv6 only: each pool's instances need an IPv6 address
 * (`ipv6: dual-stack`), or wg-quick has no route to it and no burst node ever joins.
 */
export const cloudPoolsReachHub: CloudRule = (spec, report) => {
  const endpoint = spec.cloud?.wireguard.endpoint;
  if (endpoint === undefined || !endpoint.startsWith("[")) return;
  spec.cloud?.pools.forEach((pool, i) => {
    if (pool.ipv6 === "off")
      report.error(
        ["cloud", "pools", i, "ipv6"],
        `the hub's endpoint ${endpoint} is an IPv6 address, but pool ${pool.name} has no IPv6 (ipv6: off): its instances cannot reach the hub to bring the tunnel up; set ipv6: dual-stack, or give the endpoint as an IPv4 address or a DNS name with an A record`,
      );
  });
};

/** The host of a `host:port` endpoint or of a URL's authority, unbracketed. */
function hostOf(authority: string): string {
  if (authority.startsWith("[")) return authority.slice(1, authority.indexOf("]"));
  const colon = authority.lastIndexOf(":");
  return colon < 0 ? authority : authority.slice(0, colon);
}

const isIpv4Literal = (host: string): boolean => isIp(host) && !host.includes(":");

/**
 * An IPv6-only pool (`ipv6: only`) gets no IPv4 address at all. AWS launches only Nitro instance types into IPv6-only
 * subnets, and such an instance reaches nothing by an IPv4 address: not the hub's endpoint (wg-quick), not the
 * provisioner (curl at first boot). A DNS name is fine (its AAAA record, or the subnet's DNS64 with NAT64).
 */
export const cloudIpv6OnlyPools: CloudRule = (spec, report) => {
  const cloud = spec.cloud;
  if (!cloud) return;
  const endpoint = cloud.wireguard.endpoint;
  const urlHost = hostOf(/^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(cloud.provisioner.url)?.[1] ?? "");
  cloud.pools.forEach((pool, i) => {
    if (pool.ipv6 !== "only") return;
    const base = ["cloud", "pools", i];
    if (!isNitroInstanceType(pool.instanceType))
      report.error(
        [...base, "instanceType"],
        `pool ${pool.name} is IPv6-only (ipv6: only), but ${pool.instanceType} is not a Nitro instance type: AWS launches only Nitro instances into IPv6-only subnets (and serves IMDS over IPv6 only to them); choose a Nitro type (e.g. m6i, t3, c7g), or set ipv6: dual-stack`,
      );
    if (endpoint !== undefined && isIpv4Literal(hostOf(endpoint)))
      report.error(
        [...base, "ipv6"],
        `pool ${pool.name} is IPv6-only (ipv6: only), but the hub's endpoint ${endpoint} is an IPv4 address: its instances have no IPv4 address and cannot reach the hub to bring the tunnel up; give cloud.wireguard.endpoint as an IPv6 address or a DNS name (with an AAAA record, or through the subnet's DNS64 and NAT64), or set ipv6: dual-stack`,
      );
    if (isIpv4Literal(urlHost))
      report.error(
        [...base, "ipv6"],
        `pool ${pool.name} is IPv6-only (ipv6: only), but the provisioner URL ${cloud.provisioner.url} names an IPv4 address: its instances have no IPv4 address and cannot fetch their WireGuard config; give the provisioner URL a DNS name (with an AAAA record, or through the subnet's DNS64 and NAT64), or set ipv6: dual-stack`,
      );
  });
};

/**
 * A burst node keeps the cluster's nameservers and reaches those outside the networks the tunnel carries over its own
 * network: an IPv6-only pool's instances then need IPv6 nameservers there. Shared by both layouts.
 */
export function checkIpv6OnlyNameservers(
  cloud: CloudRuleInput["cloud"],
  nameservers: readonly string[],
  path: readonly string[],
  carried: readonly string[],
  report: Reporter,
): void {
  const only = cloud?.pools.find((p) => p.ipv6 === "only");
  if (!cloud || !only) return;
  const networks = [...carried, cloud.wireguard.tunnelSubnet];
  if (cloud.wireguard.tunnelSubnet6 !== undefined) networks.push(cloud.wireguard.tunnelSubnet6);
  nameservers.forEach((ns, j) => {
    if (isIpv4Literal(ns) && !networks.some((n) => cidrContains(n, ns)))
      report.error(
        [...path, j],
        `nameserver ${ns} is an IPv4 address outside the networks the tunnel carries (${networks.join(", ")}), and pool ${only.name} is IPv6-only (ipv6: only): its instances reach it over their own network, which has no IPv4; give an IPv6 nameserver, or one in the networks the tunnel carries`,
      );
  });
}

/** The hybrid layout: the tunnel carries the Kubernetes segment (both families) and the tunnel subnets. */
export const cloudIpv6OnlyNameservers: Rule = (spec, report) => {
  const k8s = kubernetesSegment(spec);
  if (!k8s) return;
  const carried = [k8s.subnet, ...(k8s.subnet6 === undefined ? [] : [k8s.subnet6])];
  checkIpv6OnlyNameservers(spec.cloud, spec.network.nameservers, ["network", "nameservers"], carried, report);
};

/** The hub's keys and the burst slots' static keys only make sense together. */
export const wireguardKeysConsistent: CloudRule = (spec, report) => {
  const wg = spec.cloud?.wireguard;
  if (!wg) return;
  const base = ["cloud", "wireguard"];
  if (wg.hub === undefined) {
    if (wg.privateKey)
      report.error(
        [...base, "privateKey"],
        "a hub private key needs cloud.wireguard.hub: the hub's config is written for that address",
      );
    if (wg.peerKeys)
      report.error([...base, "peerKeys"], "static peer keys need cloud.wireguard.hub, whose config lists the peers");
    return;
  }
  if (wg.peerKeys && wg.publicKey === undefined)
    report.error(
      [...base, "publicKey"],
      "static peer keys need the hub's public key: the burst slots' client configs name it as their peer",
    );
  if (wg.peerKeys && wg.endpoint === undefined)
    report.error(
      [...base, "endpoint"],
      "static peer keys need the hub's endpoint (host:port): the burst slots' client configs dial it",
    );
};

/**
 * AMI lookups: a release before the versioned Kubernetes packages cannot install them (error); a name that matches
 * every Fedora release lets each `terraform apply` move the pool to a newer one (`most_recent`), a warning.
 */
export const cloudPoolAmiReleases: CloudRule = (spec, report) => {
  spec.cloud?.pools.forEach((pool, i) => {
    if (!("lookup" in pool.ami)) return;
    const name = pool.ami.lookup.name;
    const path = ["cloud", "pools", i, "ami", "lookup", "name"];
    const release = fedoraReleaseOf(name);
    if (release !== undefined && !fedoraContract(release).hasVersionedKubernetes)
      report.error(
        path,
        `pool ${pool.name} looks up Fedora ${release}, which has no versioned Kubernetes packages (kubernetesX.Y, cri-oX.Y: Fedora ${FEDORA_VERSIONED_KUBERNETES_SINCE} and newer): name Fedora ${FEDORA_VERSIONED_KUBERNETES_SINCE} or newer`,
      );
    else if (fedoraNameSpansReleases(name))
      report.warning(
        path,
        `pool ${pool.name} looks up ${name}, which matches images of every Fedora release: with most_recent each terraform apply may move the pool to a new release (kernel, cri-o, package streams); pin the release in the name (e.g. Fedora-Cloud-Base-AmazonEC2.x86_64-43-*), or set ami.id for production`,
      );
  });
};

/**
 * The check of burstHubEndpointResolvable (../cloud-burst/rules.ts), shared with cloudHubEndpointResolvable: refused,
 * never resolved ahead of the tunnel (a pinned address would break silently when the hub's address changes).
 */
export function checkHubEndpointResolvable(
  endpoint: string | undefined,
  nameservers: readonly string[],
  tunnelNetworks: readonly string[],
  where: string,
  report: Reporter,
): void {
  if (endpoint === undefined) return;
  const host = endpoint.startsWith("[")
    ? endpoint.slice(1, endpoint.lastIndexOf("]"))
    : endpoint.slice(0, endpoint.lastIndexOf(":"));
  const tunnelOnly = nameservers.every((ns) => tunnelNetworks.some((n) => cidrContains(n, ns)));
  if (!isIp(host) && tunnelOnly)
    report.error(
      ["cloud", "wireguard", "endpoint"],
      `hub endpoint ${endpoint} is a DNS name, but every nameserver (${nameservers.join(", ")}) is reached through the tunnel: after a reboot a burst node cannot resolve it to bring the tunnel up; give the endpoint as an IP address, or a nameserver outside ${where}`,
    );
}

/**
 * The burst nodes of a generated cluster keep its nameservers and route the Kubernetes segment and the tunnel
 * through the tunnel (issue 29 item 3, the hybrid layout): a hub endpoint by name needs a nameserver outside them.
 */
export const cloudHubEndpointResolvable: Rule = (spec, report) => {
  const k8s = kubernetesSegment(spec);
  if (!spec.cloud || !k8s) return;
  checkHubEndpointResolvable(
    spec.cloud.wireguard.endpoint,
    spec.network.nameservers,
    [k8s.subnet, spec.cloud.wireguard.tunnelSubnet],
    `the Kubernetes segment ${k8s.subnet} and the tunnel subnet`,
    report,
  );
};

/** The upstream default of kube-apiserver's --default-not-ready-toleration-seconds / unreachable-toleration-seconds. */
const UPSTREAM_EVICTION_SECONDS = 300;

/**
 * kubernetes.nodeHealth is cluster-wide: the burst nodes behind an internet tunnel get the on-prem timings too, and
 * Kubernetes has no per-node (or per-pool) toleration: tolerations are per pod, the defaults cluster-wide
 * (DefaultTolerationSeconds). An eviction shorter than upstream's is warned about (issue 29 item 13).
 */
export const cloudNodeHealthOverWan: Rule = (spec, report) => {
  if (!spec.cloud) return;
  const after = spec.kubernetes.nodeHealth.evictionAfter;
  const seconds = durationSeconds(after);
  if (Number.isInteger(seconds) && seconds < UPSTREAM_EVICTION_SECONDS)
    report.warning(
      ["kubernetes", "nodeHealth", "evictionAfter"],
      `evictionAfter ${after} also applies to the burst nodes behind the internet tunnel: a WAN outage that long evicts their pods; Kubernetes has no per-pool toleration, so give the burst pods their own tolerations (node.kubernetes.io/unreachable and not-ready, NoExecute, tolerationSeconds ${UPSTREAM_EVICTION_SECONDS} or more)`,
    );
};
