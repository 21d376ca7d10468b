// Cross-field rules: one small named function per invariant (changesets rules.ts). Each reports at
// the spec path of the offending value; the schema has already checked every value on its own.
import {
  addressCount,
  cidrContains,
  cidrsOverlap,
  hostPart,
  ipEquals,
  ipFamily,
  isCidr,
  isIp,
  lastAddress,
  networkAddress,
  networkOf,
  parseCidr,
} from "../ip.js";
import { type IssuePath, type Reporter, toDotPath } from "../issues.js";
import { ASG_TAG_LIMITS, autoscalerTags, kubeletMaySetLabel } from "../plan/cloud.js";
import { defaultMonitorGracePeriod, tunnelMtuOf, WIREGUARD_OVERHEAD } from "../plan/resolve.js";
import { allocateVrids } from "../plan/vrrp.js";
import {
  controlPlaneInterface,
  defaultRouteInterface,
  externalVipEntries,
  externalVipInterface,
  isControlPlane,
  kubernetesSegment,
  nodeInterfaces,
  segmentOfInterface,
  shellVar,
} from "./derive.js";
import { knobRules } from "./rules-knobs.js";
import { type ClusterSpec, MIN_KUBERNETES_MINOR } from "./schema.js";
import { durationSeconds, parseKubernetesVersion } from "./version.js";

export type Rule = (spec: ClusterSpec, report: Reporter) => void;

/** Paths already reported by earlier occurrences, for "also used by …" messages. */
function firstSeen<K>(): (key: K, path: IssuePath) => IssuePath | undefined {
  const seen = new Map<K, IssuePath>();
  return (key, path) => {
    const prior = seen.get(key);
    if (prior === undefined) seen.set(key, path);
    return prior;
  };
}

export const uniqueNodeNames: Rule = (spec, report) => {
  const seen = firstSeen<string>();
  spec.nodes.forEach((node, i) => {
    const prior = seen(node.name, ["nodes", i, "name"]);
    if (prior)
      report.error(["nodes", i, "name"], `duplicate node name ${node.name} (also used by ${toDotPath(prior)})`);
  });
};

export const uniqueNodeAddresses: Rule = (spec, report) => {
  const seen = firstSeen<string>();
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.address) continue;
      const path = ["nodes", i, "interfaces", name, "address"];
      const prior = seen(hostPart(iface.address), path);
      if (prior) report.error(path, `duplicate address ${hostPart(iface.address)} (also used by ${toDotPath(prior)})`);
    }
  });
};

export const uniqueMacs: Rule = (spec, report) => {
  const seen = firstSeen<string>();
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.mac) continue;
      const path = ["nodes", i, "interfaces", name, "mac"];
      const prior = seen(iface.mac.toLowerCase(), path);
      if (prior) report.error(path, `duplicate MAC ${iface.mac.toLowerCase()} (also used by ${toDotPath(prior)})`);
    }
  });
};

/** netifrc maps interface names to shell variables; two names that map to one variable overwrite each other. */
export const netifrcVariableNamesDistinct: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    const seen = new Map<string, string>();
    for (const [name] of nodeInterfaces(node)) {
      const v = shellVar(name);
      const prior = seen.get(v);
      if (prior !== undefined)
        report.error(
          ["nodes", i, "interfaces", name],
          `interface ${name} and ${prior} both become config_${v} in /etc/conf.d/net; rename one`,
        );
      else seen.set(v, name);
    }
  });
};

export const vlanParentsExist: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.vlan) continue;
      const parent = node.interfaces[iface.vlan.parent];
      const path = ["nodes", i, "interfaces", name, "vlan", "parent"];
      if (!parent) report.error(path, `VLAN parent ${iface.vlan.parent} is not an interface of node ${node.name}`);
      else if (parent.vlan)
        report.error(path, `VLAN parent ${iface.vlan.parent} is itself a VLAN; nest VLANs on a physical interface`);
    }
  });
};

export const segmentsWellFormed: Rule = (spec, report) => {
  const names = firstSeen<string>();
  const ifaces = firstSeen<string>();
  spec.network.segments.forEach((seg, i) => {
    const p1 = names(seg.name, ["network", "segments", i, "name"]);
    if (p1)
      report.error(
        ["network", "segments", i, "name"],
        `duplicate segment name ${seg.name} (also used by ${toDotPath(p1)})`,
      );
    const p2 = ifaces(seg.interface, ["network", "segments", i, "interface"]);
    if (p2)
      report.error(
        ["network", "segments", i, "interface"],
        `interface ${seg.interface} already attaches segment ${toDotPath(p2)}; one segment per interface`,
      );
    if (seg.uplink) {
      const gw = seg.uplink.gateway;
      const reachable = [seg.subnet, ...seg.onLink].some((n) => cidrContains(n, gw));
      if (!reachable)
        report.error(
          ["network", "segments", i, "uplink", "gateway"],
          `uplink gateway ${gw} is neither in ${seg.subnet} nor in an on-link network of segment ${seg.name}`,
        );
    }
  });
  const k8s = spec.network.kubernetesSegment;
  if (k8s !== undefined && !spec.network.segments.some((s) => s.name === k8s))
    report.error(["network", "kubernetesSegment"], `segment ${k8s} is not declared in network.segments`);
};

/** Every node is on the Kubernetes segment with an address inside it; addresses on a segment lie in its subnet. */
export const nodeAddressesMatchSegments: Rule = (spec, report) => {
  const k8s = kubernetesSegment(spec);
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      const seg = segmentOfInterface(spec, name);
      if (!seg || !iface.address) continue;
      if (!cidrContains(seg.subnet, hostPart(iface.address)))
        report.error(
          ["nodes", i, "interfaces", name, "address"],
          `address ${iface.address} of ${name} is outside segment ${seg.name} (${seg.subnet})`,
        );
      else if (networkOf(iface.address) !== seg.subnet)
        report.error(
          ["nodes", i, "interfaces", name, "address"],
          `address ${iface.address} has prefix /${parseCidr(iface.address).prefixLength} but segment ${seg.name} is ${seg.subnet}`,
        );
    }
    if (!k8s) return;
    const iface = node.interfaces[k8s.interface];
    if (!iface?.address)
      report.error(
        ["nodes", i, "interfaces"],
        `node ${node.name} has no address on ${k8s.interface}, the interface of Kubernetes segment ${k8s.name}`,
      );
  });
};

export const gatewaysOnLink: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.gateway || !iface.address) continue;
      if (!cidrContains(networkOf(iface.address), iface.gateway))
        report.error(
          ["nodes", i, "interfaces", name, "gateway"],
          `gateway ${iface.gateway} is outside ${networkOf(iface.address)}, the network of ${name}`,
        );
    }
    const defaults = nodeInterfaces(node).filter(([, f]) => f.gateway);
    if (defaults.length > 1)
      report.error(
        ["nodes", i, "interfaces", defaults[1]?.[0] ?? "", "gateway"],
        `node ${node.name} has more than one default gateway (${defaults.map(([n]) => n).join(", ")})`,
      );
  });
};

interface VipRef {
  readonly address: string;
  readonly iface: string | undefined;
  readonly path: IssuePath;
}

function allVips(spec: ClusterSpec): VipRef[] {
  return [
    { address: hostPart(spec.controlPlane.vip), iface: controlPlaneInterface(spec), path: ["controlPlane", "vip"] },
    ...externalVipEntries(spec).map((e) => ({
      address: hostPart(e.address),
      iface: externalVipInterface(spec),
      path: e.path,
    })),
  ];
}

/** A VIP must be reachable where keepalived puts it and must not shadow anything else. */
export const vipsPlacedSafely: Rule = (spec, report) => {
  const taken = new Map<string, string>();
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (iface.address)
        taken.set(
          hostPart(iface.address),
          `the address of ${node.name} (${toDotPath(["nodes", i, "interfaces", name, "address"])})`,
        );
      if (iface.gateway)
        taken.set(hostPart(iface.gateway), `a gateway (${toDotPath(["nodes", i, "interfaces", name, "gateway"])})`);
    }
  });
  spec.network.segments.forEach((seg, i) => {
    if (seg.uplink)
      taken.set(
        hostPart(seg.uplink.gateway),
        `the uplink gateway (${toDotPath(["network", "segments", i, "uplink", "gateway"])})`,
      );
  });
  for (const ns of spec.network.nameservers) taken.set(hostPart(ns), "a nameserver");
  const seenVip = firstSeen<string>();
  for (const vip of allVips(spec)) {
    const seg = vip.iface === undefined ? undefined : segmentOfInterface(spec, vip.iface);
    if (!seg) {
      report.error(
        vip.path,
        `VIP ${vip.address} is on interface ${vip.iface ?? "(none)"}, which attaches no segment in network.segments`,
      );
      continue;
    }
    const nets = [seg.subnet, ...seg.onLink];
    const net = nets.find((n) => cidrContains(n, vip.address));
    if (!net) {
      report.error(
        vip.path,
        `VIP ${vip.address} is outside ${nets.join(" and ")}, the networks of ${seg.interface} (segment ${seg.name})`,
      );
      continue;
    }
    const fam = ipFamily(net);
    const size = addressCount(net);
    if (fam === 4 && size > 2n && ipEquals(vip.address, networkAddress(net)))
      report.error(vip.path, `VIP ${vip.address} is the network address of ${net}`);
    else if (fam === 4 && size > 2n && ipEquals(vip.address, lastAddress(net)))
      report.error(vip.path, `VIP ${vip.address} is the broadcast address of ${net}`);
    const clash = taken.get(vip.address);
    if (clash) report.error(vip.path, `VIP ${vip.address} is already ${clash}`);
    const prior = seenVip(vip.address, vip.path);
    if (prior) report.error(vip.path, `VIP ${vip.address} is listed twice (also at ${toDotPath(prior)})`);
  }
  if (isCidr(spec.controlPlane.vip)) {
    const seg = segmentOfInterface(spec, controlPlaneInterface(spec) ?? "");
    if (
      seg &&
      cidrContains(seg.subnet, hostPart(spec.controlPlane.vip)) &&
      networkOf(spec.controlPlane.vip) !== seg.subnet
    )
      report.error(
        ["controlPlane", "vip"],
        `VIP ${spec.controlPlane.vip} must carry the prefix of its segment ${seg.subnet} (/${parseCidr(seg.subnet).prefixLength})`,
      );
  }
};

/** Pod, service, node, tunnel and VPC networks must not overlap: a packet must have one way to go. */
export const networksDisjoint: Rule = (spec, report) => {
  const nets: { net: string; what: string; path: IssuePath }[] = [
    { net: spec.kubernetes.podSubnet, what: "pod subnet", path: ["kubernetes", "podSubnet"] },
    { net: spec.kubernetes.serviceSubnet, what: "service subnet", path: ["kubernetes", "serviceSubnet"] },
  ];
  spec.network.segments.forEach((seg, i) => {
    nets.push({ net: seg.subnet, what: `segment ${seg.name}`, path: ["network", "segments", i, "subnet"] });
    seg.onLink.forEach((n, j) => {
      nets.push({ net: n, what: `on-link network of ${seg.name}`, path: ["network", "segments", i, "onLink", j] });
    });
  });
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.address || segmentOfInterface(spec, name)) continue;
      const net = networkOf(iface.address);
      if (!nets.some((n) => n.net === net))
        nets.push({ net, what: `network of ${node.name} ${name}`, path: ["nodes", i, "interfaces", name, "address"] });
    }
  });
  if (spec.cloud) {
    nets.push({
      net: spec.cloud.wireguard.tunnelSubnet,
      what: "WireGuard tunnel subnet",
      path: ["cloud", "wireguard", "tunnelSubnet"],
    });
    nets.push({ net: spec.cloud.aws.vpcCidr, what: "AWS VPC", path: ["cloud", "aws", "vpcCidr"] });
  }
  for (let a = 0; a < nets.length; a++) {
    for (let b = a + 1; b < nets.length; b++) {
      const x = nets[a];
      const y = nets[b];
      if (!x || !y || !cidrsOverlap(x.net, y.net)) continue;
      // Node networks of different nodes may be the same network (wan0 of each server): only report cross-kind overlaps.
      if (x.what.startsWith("network of ") && y.what.startsWith("network of ") && networkOf(x.net) === networkOf(y.net))
        continue;
      report.error(y.path, `${y.what} ${y.net} overlaps the ${x.what} ${x.net} (${toDotPath(x.path)})`);
    }
  }
};

/** kubeadm rejects service subnets larger than /12 (IPv4) or /108 (IPv6); fewer than 10 addresses cannot hold the cluster's own services. */
export const serviceSubnetSized: Rule = (spec, report) => {
  const c = parseCidr(spec.kubernetes.serviceSubnet);
  const min = c.family === 4 ? 12 : 108;
  if (c.prefixLength < min)
    report.error(
      ["kubernetes", "serviceSubnet"],
      `service subnet ${spec.kubernetes.serviceSubnet} is larger than kubeadm allows (/${min} or smaller for IPv${c.family})`,
    );
  else if (addressCount(spec.kubernetes.serviceSubnet) < 10n)
    report.error(
      ["kubernetes", "serviceSubnet"],
      `service subnet ${spec.kubernetes.serviceSubnet} has fewer than 10 addresses`,
    );
};

function nodeCount(spec: ClusterSpec): number {
  return spec.nodes.length + (spec.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0);
}

export const podSubnetFitsNodes: Rule = (spec, report) => {
  const pod = parseCidr(spec.kubernetes.podSubnet);
  const mask = spec.kubernetes.nodeCidrMaskSize;
  if (pod.family === 4 && mask > 32) return;
  if (pod.prefixLength > mask) {
    report.error(
      ["kubernetes", "nodeCidrMaskSize"],
      `node CIDR /${mask} is larger than the pod subnet ${spec.kubernetes.podSubnet}`,
    );
    return;
  }
  const capacity = 2 ** Math.min(mask - pod.prefixLength, 30);
  const needed = nodeCount(spec);
  if (capacity < needed)
    report.error(
      ["kubernetes", "podSubnet"],
      `pod subnet ${spec.kubernetes.podSubnet} holds ${capacity} node CIDRs of /${mask}, but the cluster can have ${needed} nodes`,
    );
};

export const controlPlaneQuorum: Rule = (spec, report) => {
  const count = spec.nodes.filter(isControlPlane).length;
  const path = ["nodes"];
  if (count === 0) report.error(path, "no node has the control-plane role");
  else if (count === 1) report.warning(path, "a single control-plane node has no failover: use it for tests only");
  else if (count === 2 || count === 4)
    report.error(
      path,
      `${count} control-plane nodes survive no more failures than ${count - 1}: etcd needs a majority (${Math.floor(count / 2) + 1} of ${count}), so use 3 or 5`,
    );
  else if (count > 5) report.error(path, `${count} control-plane nodes slow etcd down for no gain: use 3 or 5`);
};

/** glibc reads three nameservers and the kubelet adds the cluster DNS to pods' resolv.conf. */
export const atMostTwoNameservers: Rule = (spec, report) => {
  if (spec.network.nameservers.length > 2)
    report.error(
      ["network", "nameservers", 2],
      `${spec.network.nameservers.length} nameservers given; at most 2, because glibc reads 3 and the kubelet adds the cluster DNS`,
    );
};

const RESERVED_TABLES = new Set([0, 252, 253, 254, 255]);

export const routingTablesValid: Rule = (spec, report) => {
  const ids = firstSeen<number>();
  const names = firstSeen<string>();
  spec.network.segments.forEach((seg, i) => {
    const t = seg.uplink?.routingTable;
    if (!t) return;
    const base = ["network", "segments", i, "uplink", "routingTable"];
    if (RESERVED_TABLES.has(t.id))
      report.error(
        [...base, "id"],
        `routing table id ${t.id} is reserved (0 unspec, 252 compat, 253 default, 254 main, 255 local)`,
      );
    if (["unspec", "default", "main", "local", "compat"].includes(t.name))
      report.error([...base, "name"], `routing table name ${t.name} is reserved by iproute2`);
    const p1 = ids(t.id, [...base, "id"]);
    if (p1) report.error([...base, "id"], `routing table id ${t.id} is already used by ${toDotPath(p1)}`);
    const p2 = names(t.name, [...base, "name"]);
    if (p2) report.error([...base, "name"], `routing table name ${t.name} is already used by ${toDotPath(p2)}`);
  });
};

export const vrrpOptionsConsistent: Rule = (spec, report) => {
  const v = spec.vrrp;
  if (v.unicast && v.auth?.type === "AH")
    report.error(
      ["vrrp", "auth", "type"],
      "AH authentication does not work with unicast peers in keepalived; use PASS or multicast",
    );
  if (v.initialState === "MASTER" && v.auth?.type === "AH")
    report.error(
      ["vrrp", "initialState"],
      "initial state MASTER is incompatible with AH authentication in keepalived (it clears the state); use BACKUP",
    );
  if (v.nopreempt && v.initialState !== "BACKUP")
    report.error(["vrrp", "nopreempt"], "nopreempt requires initialState BACKUP");
  if (spec.externalVips && !spec.nodes.some((n) => n.carriesExternalVips))
    report.error(["externalVips"], "no node has carriesExternalVips: true, so nothing would hold the external VIPs");
  if (!spec.externalVips) {
    spec.nodes.forEach((n, i) => {
      if (n.carriesExternalVips)
        report.warning(
          ["nodes", i, "carriesExternalVips"],
          `node ${n.name} carries external VIPs but no externalVips pool is declared`,
        );
    });
  }
  const carriers = spec.nodes.filter((n) => n.carriesExternalVips).length;
  const cps = spec.nodes.filter(isControlPlane).length;
  if (Math.max(carriers, cps) > v.basePriority)
    report.error(
      ["vrrp", "basePriority"],
      `basePriority ${v.basePriority} leaves no distinct priority for ${Math.max(carriers, cps)} nodes`,
    );
};

/** Every node that carries a VIP needs the VIP's interface. */
export const vipInterfacesOnNodes: Rule = (spec, report) => {
  const cpIface = controlPlaneInterface(spec);
  const poolIface = externalVipInterface(spec);
  spec.nodes.forEach((node, i) => {
    if (isControlPlane(node) && cpIface && !node.interfaces[cpIface])
      report.error(
        ["nodes", i, "interfaces"],
        `control-plane node ${node.name} has no interface ${cpIface} for the control-plane VIP`,
      );
    if (spec.externalVips && node.carriesExternalVips && poolIface && !node.interfaces[poolIface])
      report.error(
        ["nodes", i, "interfaces"],
        `node ${node.name} carries external VIPs but has no interface ${poolIface}`,
      );
  });
};

/** keepalived runs IPv6 VIPs as VRRPv3 (no authentication); unicast needs every holder's address on the VIP's interface. */
export const vrrpFamiliesAndUnicast: Rule = (spec, report) => {
  const v = spec.vrrp;
  const vips = allVips(spec);
  const v6 = vips.find((x) => isIp(x.address) && ipFamily(x.address) === 6);
  if (v.auth && v6)
    report.error(
      ["vrrp", "auth"],
      `VIP ${v6.address} is IPv6, which keepalived runs as VRRP version 3 without authentication; drop vrrp.auth`,
    );
  if (!v.unicast) return;
  if (v6) report.error(["vrrp", "unicast"], `unicast VRRP is supported for IPv4 VIPs only; ${v6.address} is IPv6`);
  const cpIface = controlPlaneInterface(spec);
  const poolIface = externalVipInterface(spec);
  spec.nodes.forEach((node, i) => {
    const needs = [
      ...(isControlPlane(node) && cpIface ? [cpIface] : []),
      ...(spec.externalVips && node.carriesExternalVips && poolIface ? [poolIface] : []),
    ];
    for (const iface of new Set(needs)) {
      const address = node.interfaces[iface]?.address;
      if (node.interfaces[iface] && (!address || ipFamily(hostPart(address)) !== 4))
        report.error(
          ["nodes", i, "interfaces", iface, "address"],
          `node ${node.name} needs an IPv4 address on ${iface} for unicast VRRP`,
        );
    }
  });
};

export const vridsAllocatable: Rule = (spec, report) => {
  for (const issue of allocateVrids(spec).issues) report.error(issue.path, issue.message);
};

export const healthCheckMovesVip: Rule = (spec, report) => {
  const w = spec.vrrp.healthCheck.weight;
  const cps = spec.nodes.filter(isControlPlane).length;
  // Priorities over the control-plane nodes are consecutive, so the spread is cps - 1.
  if (w !== undefined && w !== 0 && -w < cps)
    report.error(
      ["vrrp", "healthCheck", "weight"],
      `weight ${w} cannot move the control-plane VIP: a failed master must drop below every healthy node (|weight| >= ${cps}), or use 0 for FAULT`,
    );
  // keepalived clamps an effective priority at 1: the lowest healthy node must stay above that.
  else if (w !== 0 && cps > 1 && spec.vrrp.basePriority <= cps)
    report.error(
      ["vrrp", "basePriority"],
      `basePriority ${spec.vrrp.basePriority} is too low for the apiserver health check: a failed master is clamped to priority 1, which the lowest of ${cps} control-plane nodes also has; use at least ${cps + 1} or weight 0 for FAULT`,
    );
};

export const hostSysctlAllowed: Rule = (spec, report) => {
  const managed = new Set(["net.ipv4.ip_forward", "net.ipv4.ip_nonlocal_bind", "net.ipv6.ip_nonlocal_bind"]);
  for (const key of Object.keys(spec.host.sysctl)) {
    if (key === "net.ipv4.ip_local_port_range")
      report.error(
        ["host", "sysctl", key],
        "net.ipv4.ip_local_port_range stays at its default: NodePorts (30000-32767) must stay outside the ephemeral port range",
      );
    else if (managed.has(key))
      report.error(["host", "sysctl", key], `${key} is set by clusterspec itself (Kubernetes needs it on)`);
  }
};

export const cloudPoolsValid: Rule = (spec, report) => {
  if (!spec.cloud) return;
  const names = firstSeen<string>();
  spec.cloud.pools.forEach((pool, i) => {
    const prior = names(pool.name, ["cloud", "pools", i, "name"]);
    if (prior)
      report.error(
        ["cloud", "pools", i, "name"],
        `duplicate pool name ${pool.name} (also used by ${toDotPath(prior)})`,
      );
    if (pool.minSize > pool.maxSize)
      report.error(["cloud", "pools", i, "minSize"], `minSize ${pool.minSize} is larger than maxSize ${pool.maxSize}`);
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

export const ciliumDevicesExist: Rule = (spec, report) => {
  (spec.cilium.devices ?? []).forEach((dev, j) => {
    if (dev === spec.cloud?.wireguard.interface) return; // the burst nodes' tunnel, not an on-prem interface
    const missing = spec.nodes.filter((n) => !n.interfaces[dev]).map((n) => n.name);
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

/** Joining nodes need the bootstrap token, certificate key and CA hash; only a lone node can run without them. */
export const kubeadmSecretsForJoins: Rule = (spec, report) => {
  if (spec.nodes.length > 1 && !spec.kubernetes.secrets)
    report.error(
      ["kubernetes", "secrets"],
      `${spec.nodes.length} nodes join the cluster with kubeadm: reference bootstrapToken, certificateKey and caCertHash in kubernetes.secrets`,
    );
};

/** kubeadm rejects a pod subnet more than 16 bits larger than the node CIDRs (PodSubnetNodeMaskMaxDiff). */
export const podSubnetNodeMaskDiff: Rule = (spec, report) => {
  const pod = parseCidr(spec.kubernetes.podSubnet);
  const diff = spec.kubernetes.nodeCidrMaskSize - pod.prefixLength;
  if (diff > 16)
    report.error(
      ["kubernetes", "nodeCidrMaskSize"],
      `node CIDR /${spec.kubernetes.nodeCidrMaskSize} is ${diff} bits smaller than the pod subnet ${spec.kubernetes.podSubnet}; kubeadm allows at most 16`,
    );
};

/**
 * kube-controller-manager help: the grace period "must be N times more than kubelet's nodeStatusUpdateFrequency,
 * where N means number of retries allowed for kubelet to post node status".
 */
export const nodeHealthConsistent: Rule = (spec, report) => {
  const h = spec.kubernetes.nodeHealth;
  const base = ["kubernetes", "nodeHealth"];
  const update = durationSeconds(h.statusUpdateFrequency);
  const period = durationSeconds(h.monitorPeriod);
  const minor = parseKubernetesVersion(spec.kubernetes.version)?.minor ?? MIN_KUBERNETES_MINOR;
  const graceText = h.monitorGracePeriod ?? defaultMonitorGracePeriod(minor);
  const grace = durationSeconds(graceText);
  const eviction = durationSeconds(h.evictionAfter);
  if (update <= 0) report.error([...base, "statusUpdateFrequency"], "statusUpdateFrequency must be positive");
  if (period <= 0) report.error([...base, "monitorPeriod"], "monitorPeriod must be positive");
  if (update > 0 && grace < 2 * update)
    report.error(
      [...base, "monitorGracePeriod"],
      `monitorGracePeriod ${graceText} is less than 2 x statusUpdateFrequency ${h.statusUpdateFrequency}: one late status update would mark a healthy node NotReady`,
    );
  else if (update > 0 && grace < 4 * update)
    report.warning(
      [...base, "monitorGracePeriod"],
      `monitorGracePeriod ${graceText} allows fewer than 4 status updates of ${h.statusUpdateFrequency} (the upstream defaults allow 4-5)`,
    );
  if (period > 0 && period >= grace)
    report.error(
      [...base, "monitorPeriod"],
      `monitorPeriod ${h.monitorPeriod} must be shorter than monitorGracePeriod ${graceText}`,
    );
  if (!Number.isInteger(eviction))
    report.error(
      [...base, "evictionAfter"],
      `evictionAfter ${h.evictionAfter} must be whole seconds (kube-apiserver --default-not-ready-toleration-seconds takes an integer)`,
    );
};

/** With cloud pools every pod path may cross WireGuard: Cilium's MTU must fit inside the tunnel. */
export const ciliumMtuFitsTunnel: Rule = (spec, report) => {
  const mtu = spec.cilium.mtu;
  if (mtu === undefined || !spec.cloud) return;
  const tunnelMtu = tunnelMtuOf(spec.cloud.wireguard.underlayMtu);
  if (mtu > tunnelMtu)
    report.error(
      ["cilium", "mtu"],
      `Cilium MTU ${mtu} exceeds ${tunnelMtu}, the MTU inside WireGuard (underlay ${spec.cloud.wireguard.underlayMtu} - ${WIREGUARD_OVERHEAD})`,
    );
};

/** AWS caps Auto Scaling Group tags; Cluster Autoscaler needs one per label, taint and resource to scale from zero. */
export const cloudPoolTagsFit: Rule = (spec, report) => {
  spec.cloud?.pools.forEach((pool, i) => {
    const base = ["cloud", "pools", i];
    const tags = autoscalerTags(spec.name, pool);
    if (tags.length > ASG_TAG_LIMITS.count)
      report.error(
        base,
        `pool ${pool.name} needs ${tags.length} Auto Scaling Group tags (labels, taints and resources for Cluster Autoscaler); AWS allows ${ASG_TAG_LIMITS.count}`,
      );
    const seen = new Set<string>();
    for (const tag of tags) {
      const where = tagSource(pool, tag.key, base);
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

function tagSource(pool: { taints: readonly { key: string }[] }, key: string, base: IssuePath): IssuePath {
  const m = /^k8s\.io\/cluster-autoscaler\/node-template\/(label|taint|resources)\/(.*)$/.exec(key);
  if (!m) return [...base, "name"];
  if (m[1] === "label") return [...base, "labels", m[2] ?? ""];
  if (m[1] === "resources") return [...base, "resources", m[2] ?? ""];
  const idx = pool.taints.map((t) => t.key).lastIndexOf(m[2] ?? "");
  return [...base, "taints", Math.max(idx, 0)];
}

/** The kubelet refuses to start with --node-labels it may not set on itself (kubernetes.io and k8s.io namespaces). */
export const cloudPoolLabelsSelfSettable: Rule = (spec, report) => {
  spec.cloud?.pools.forEach((pool, i) => {
    for (const key of Object.keys(pool.labels))
      if (!kubeletMaySetLabel(key))
        report.error(
          ["cloud", "pools", i, "labels", key],
          `the kubelet may not set label ${key} on its own node (NodeRestriction); use a key outside kubernetes.io and k8s.io, or under node.kubernetes.io/`,
        );
  });
};

/** Burst nodes append API paths to the provisioner URL. */
export const provisionerUrlIsBase: Rule = (spec, report) => {
  const url = spec.cloud?.provisioner.url;
  if (url !== undefined && /[?#]/.test(url))
    report.error(
      ["cloud", "provisioner", "url"],
      `provisioner URL ${url} has a query or fragment; give its base URL, paths such as /wireguard/config/<instance-id> are appended`,
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

export const rules: readonly Rule[] = [
  uniqueNodeNames,
  uniqueNodeAddresses,
  uniqueMacs,
  netifrcVariableNamesDistinct,
  vlanParentsExist,
  segmentsWellFormed,
  nodeAddressesMatchSegments,
  gatewaysOnLink,
  vipsPlacedSafely,
  networksDisjoint,
  serviceSubnetSized,
  podSubnetFitsNodes,
  controlPlaneQuorum,
  atMostTwoNameservers,
  routingTablesValid,
  vrrpOptionsConsistent,
  vipInterfacesOnNodes,
  vrrpFamiliesAndUnicast,
  vridsAllocatable,
  healthCheckMovesVip,
  hostSysctlAllowed,
  cloudPoolsValid,
  ciliumDevicesExist,
  kubeadmSecretsForJoins,
  podSubnetNodeMaskDiff,
  nodeHealthConsistent,
  ciliumMtuFitsTunnel,
  ciliumDsrDispatch,
  cloudPoolTagsFit,
  cloudPoolLabelsSelfSettable,
  provisionerUrlIsBase,
  ...knobRules,
];
