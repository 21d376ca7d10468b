// Rules about the shared networks: segments, node addresses in them, gateways, overlaps, nameservers and routing tables.

import {
  clusterFamilies,
  interfaceCidrs,
  podSubnets,
  segmentSubnets,
  serviceSubnets,
} from "../../../facts/families.js";
import { kubernetesSegment, nodeInterfaces, segmentOfInterface } from "../../../facts/spec.js";
import { uplinkSources } from "../../../facts/uplink.js";
import { cidrContains, cidrsOverlap, hostPart, ipFamily, networkOf, parseCidr } from "../../../ip.js";
import { type IssuePath, toDotPath } from "../../../issues.js";
import { own } from "../../../own.js";
import { firstSeen, type Rule } from "../../rule.js";

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
      const reachable = [...segmentSubnets(seg), ...seg.onLink].some((n) => cidrContains(n, gw));
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

function checkInSubnet(
  report: Parameters<Rule>[1],
  path: IssuePath,
  name: string,
  address: string,
  segment: string,
  subnet: string,
): void {
  if (!cidrContains(subnet, hostPart(address)))
    report.error(path, `address ${address} of ${name} is outside segment ${segment} (${subnet})`);
  else if (networkOf(address) !== subnet)
    report.error(
      path,
      `address ${address} has prefix /${parseCidr(address).prefixLength} but segment ${segment} is ${subnet}`,
    );
}

/** Every node is on the Kubernetes segment with an address inside it; addresses on a segment lie in its subnet. */
export const nodeAddressesMatchSegments: Rule = (spec, report) => {
  const k8s = kubernetesSegment(spec);
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      const seg = segmentOfInterface(spec, name);
      if (!seg || !iface.address) continue;
      checkInSubnet(report, ["nodes", i, "interfaces", name, "address"], name, iface.address, seg.name, seg.subnet);
      if (iface.address6 && seg.subnet6)
        checkInSubnet(
          report,
          ["nodes", i, "interfaces", name, "address6"],
          name,
          iface.address6,
          seg.name,
          seg.subnet6,
        );
      else if (iface.address6)
        report.error(
          ["nodes", i, "interfaces", name, "address6"],
          `address6 ${iface.address6} of ${name} is on segment ${seg.name}, which has no IPv6 subnet: add subnet6 to the segment`,
        );
    }
    if (!k8s) return;
    const iface = own(node.interfaces, k8s.interface);
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

/** Pod, service, node, tunnel and VPC networks must not overlap: a packet must have one way to go. */
export const networksDisjoint: Rule = (spec, report) => {
  const listed = (field: "podSubnet" | "serviceSubnet", list: readonly string[], what: string) =>
    list.map((net, i) => ({
      net,
      what,
      path: typeof spec.kubernetes[field] === "string" ? ["kubernetes", field] : ["kubernetes", field, i],
    }));
  const nets: { net: string; what: string; path: IssuePath }[] = [
    ...listed("podSubnet", podSubnets(spec), "pod subnet"),
    ...listed("serviceSubnet", serviceSubnets(spec), "service subnet"),
  ];
  spec.network.segments.forEach((seg, i) => {
    nets.push({ net: seg.subnet, what: `segment ${seg.name}`, path: ["network", "segments", i, "subnet"] });
    if (seg.subnet6)
      nets.push({ net: seg.subnet6, what: `segment ${seg.name}`, path: ["network", "segments", i, "subnet6"] });
    seg.onLink.forEach((n, j) => {
      nets.push({ net: n, what: `on-link network of ${seg.name}`, path: ["network", "segments", i, "onLink", j] });
    });
  });
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (segmentOfInterface(spec, name)) continue;
      for (const [field, cidr] of [
        ["address", iface.address],
        ["address6", iface.address6],
      ] as const) {
        if (!cidr) continue;
        const net = networkOf(cidr);
        if (!nets.some((n) => n.net === net))
          nets.push({ net, what: `network of ${node.name} ${name}`, path: ["nodes", i, "interfaces", name, field] });
      }
    }
  });
  if (spec.cloud) {
    nets.push({
      net: spec.cloud.wireguard.tunnelSubnet,
      what: "WireGuard tunnel subnet",
      path: ["cloud", "wireguard", "tunnelSubnet"],
    });
    if (spec.cloud.wireguard.tunnelSubnet6 !== undefined)
      nets.push({
        net: spec.cloud.wireguard.tunnelSubnet6,
        what: "WireGuard IPv6 tunnel subnet",
        path: ["cloud", "wireguard", "tunnelSubnet6"],
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

/**
 * An uplink table that no rule uses does nothing: replies from the segment's addresses leave by the main table's
 * default route (asymmetric, usually dropped upstream). Sources default to the on-link networks, else the external
 * VIPs inside the segment's subnet (facts/uplink.ts); with neither, the spec must say which sources it means.
 */
export const uplinkRoutesSomething: Rule = (spec, report) => {
  spec.network.segments.forEach((seg, i) => {
    if (!seg.uplink || uplinkSources(spec, seg).sources.length > 0) return;
    const given = seg.uplink.sources !== undefined;
    report.error(
      ["network", "segments", i, "uplink", given ? "sources" : "gateway"],
      `the uplink of segment ${seg.name} routes nothing: ${given ? "uplink.sources is empty" : `it has no uplink.sources, no onLink networks and no external VIPs inside ${seg.subnet}`}, so no rule uses table ${seg.uplink.routingTable.name} and replies leave by the main table's default route; list the networks whose replies must leave through ${seg.uplink.gateway} in uplink.sources (e.g. [${seg.subnet}]), or remove the uplink`,
    );
  });
};

/** Hetzner's vSwitch VLAN ids (docs.hetzner.com, Robot, dedicated server, network, vSwitch): its MTU is 1400. */
export const VSWITCH_VLAN_IDS = { first: 4000, last: 4091 } as const;
export const VSWITCH_MTU = 1400;

/**
 * A VLAN id in Hetzner's vSwitch range without an `mtu` keeps the kernel's 1500 on a network whose MTU is 1400:
 * packets between 1401 and 1500 bytes are lost without an error (TCP stalls once a full-size segment is sent).
 * One warning per interface name, at the first node that leaves it out.
 */
export const vswitchVlanMtu: Rule = (spec, report) => {
  const seen = new Set<string>();
  spec.nodes.forEach((node, i) => {
    for (const [name, f] of nodeInterfaces(node)) {
      const id = f.vlan?.id;
      if (id === undefined || f.mtu !== undefined || seen.has(name)) continue;
      if (id < VSWITCH_VLAN_IDS.first || id > VSWITCH_VLAN_IDS.last) continue;
      seen.add(name);
      const without = spec.nodes.filter((n) => {
        const g = own(n.interfaces, name);
        return g?.vlan !== undefined && g.mtu === undefined;
      });
      report.warning(
        ["nodes", i, "interfaces", name, "vlan", "id"],
        `VLAN ${id} (${name} on ${without.map((n) => n.name).join(", ")}) is in Hetzner's vSwitch range ${VSWITCH_VLAN_IDS.first}-${VSWITCH_VLAN_IDS.last}, whose MTU is ${VSWITCH_MTU}, and no mtu is set: the interface keeps 1500 and larger packets are lost; set nodes[].interfaces.${name}.mtu: ${VSWITCH_MTU} (or the network's own MTU if it is not a vSwitch)`,
      );
    }
  });
};

/**
 * The dual-stack fields pair an IPv6 value with an IPv4 one: `address6`/`gateway6` beside an IPv4 `address`,
 * `subnet6` beside an IPv4 `subnet`, `uplink.gateway6` on the segment's IPv6 networks. An IPv6-only interface or
 * segment writes its IPv6 values in `address`/`subnet`. One IPv6 default gateway per node, as for IPv4.
 */
export const dualStackFieldsConsistent: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const [name, f] of nodeInterfaces(node)) {
      const base = ["nodes", i, "interfaces", name];
      if (f.address6 && !f.address)
        report.error(
          [...base, "address6"],
          `${name} has address6 but no address: address6 is the IPv6 address beside an IPv4 address; an IPv6-only interface writes its address in address`,
        );
      else if (f.address6 && ipFamily(f.address6) !== 6)
        report.error([...base, "address6"], `address6 ${f.address6} of ${name} is not an IPv6 address`);
      else if (f.address6 && f.address && ipFamily(f.address) !== 4)
        report.error(
          [...base, "address6"],
          `${name} has address6 ${f.address6} beside the IPv6 address ${f.address}: address6 is the IPv6 address beside an IPv4 address (an interface has one address per family)`,
        );
      if (f.gateway6 && ipFamily(f.gateway6) !== 6)
        report.error([...base, "gateway6"], `gateway6 ${f.gateway6} of ${name} is not an IPv6 address`);
      else if (
        f.gateway6 &&
        f.address6 &&
        ipFamily(f.address6) === 6 &&
        !cidrContains(networkOf(f.address6), f.gateway6)
      )
        report.error(
          [...base, "gateway6"],
          `gateway6 ${f.gateway6} is outside ${networkOf(f.address6)}, the IPv6 network of ${name}`,
        );
      if (f.gateway && f.address && ipFamily(f.gateway) !== ipFamily(f.address))
        report.error(
          [...base, "gateway"],
          `gateway ${f.gateway} of ${name} is IPv${ipFamily(f.gateway)} but its address ${f.address} is IPv${ipFamily(f.address)}${ipFamily(f.gateway) === 6 ? ": write the IPv6 gateway as gateway6 beside address6" : ""}`,
        );
    }
    const defaults6 = nodeInterfaces(node).filter(([, f]) => f.gateway6);
    if (defaults6.length > 1)
      report.error(
        ["nodes", i, "interfaces", defaults6[1]?.[0] ?? "", "gateway6"],
        `node ${node.name} has more than one IPv6 default gateway (${defaults6.map(([n]) => n).join(", ")})`,
      );
  });
  spec.network.segments.forEach((seg, i) => {
    const base = ["network", "segments", i];
    if (seg.subnet6 && ipFamily(seg.subnet6) !== 6)
      report.error([...base, "subnet6"], `subnet6 ${seg.subnet6} of segment ${seg.name} is not an IPv6 network`);
    else if (seg.subnet6 && ipFamily(seg.subnet) !== 4)
      report.error(
        [...base, "subnet6"],
        `segment ${seg.name} has subnet6 ${seg.subnet6} beside the IPv6 subnet ${seg.subnet}: subnet6 is the IPv6 subnet beside an IPv4 one`,
      );
    if (seg.uplink) {
      const gateways = [seg.uplink.gateway, seg.uplink.gateway6].filter((g): g is string => g !== undefined);
      const families = new Set(gateways.map((g) => ipFamily(g)));
      const orphan = uplinkSources(spec, seg).sources.find((n) => !families.has(ipFamily(n)));
      if (orphan)
        report.error(
          [...base, "uplink", ipFamily(orphan) === 6 ? "gateway6" : "gateway"],
          `the uplink of segment ${seg.name} routes the IPv${ipFamily(orphan)} source ${orphan} but has no IPv${ipFamily(orphan)} gateway${ipFamily(orphan) === 6 ? ": set uplink.gateway6" : ""} (rules${ipFamily(orphan) === 6 ? "6" : ""}_${seg.interface} would send its replies to table ${seg.uplink.routingTable.name} without a route of that family)`,
        );
    }
    const gw6 = seg.uplink?.gateway6;
    if (gw6 === undefined || !seg.uplink) return;
    if (ipFamily(gw6) !== 6)
      report.error([...base, "uplink", "gateway6"], `uplink gateway6 ${gw6} is not an IPv6 address`);
    else if (ipFamily(seg.uplink.gateway) !== 4)
      report.error(
        [...base, "uplink", "gateway6"],
        `the uplink of segment ${seg.name} has gateway6 ${gw6} beside the IPv6 gateway ${seg.uplink.gateway}: gateway6 is the IPv6 gateway beside an IPv4 one`,
      );
    else if (![...segmentSubnets(seg), ...seg.onLink].some((n) => cidrContains(n, gw6)))
      report.error(
        [...base, "uplink", "gateway6"],
        `uplink gateway6 ${gw6} is neither in an IPv6 subnet nor in an on-link network of segment ${seg.name}`,
      );
  });
};

/**
 * Every node registers an address of each cluster family (the kubelet's node-ip lists one per family; with one only,
 * the node is single-stack in a dual-stack cluster: kubernetes/kubernetes#100675), on the Kubernetes segment, whose
 * subnets cover the cluster's families.
 */
export const nodesHaveClusterFamilies: Rule = (spec, report) => {
  const k8s = kubernetesSegment(spec);
  if (!k8s) return;
  const families = clusterFamilies(spec);
  const segFamilies = segmentSubnets(k8s).map((n) => ipFamily(n));
  const k8sIndex = spec.network.segments.indexOf(k8s);
  for (const family of families)
    if (!segFamilies.includes(family))
      report.error(
        ["network", "segments", k8sIndex, family === 6 ? "subnet6" : "subnet"],
        `the cluster runs IPv${family} (kubernetes.podSubnet) but Kubernetes segment ${k8s.name} has no IPv${family} subnet${family === 6 ? ": add subnet6" : ""}`,
      );
  spec.nodes.forEach((node, i) => {
    const iface = own(node.interfaces, k8s.interface);
    if (!iface) return;
    const have = interfaceCidrs(iface).map((a) => ipFamily(a));
    for (const family of families)
      if (!have.includes(family) && have.length > 0)
        report.error(
          ["nodes", i, "interfaces", k8s.interface],
          `node ${node.name} has no IPv${family} address on ${k8s.interface}, but the cluster runs IPv${family} (kubernetes.podSubnet): every node needs an address of each cluster family on the Kubernetes segment${family === 6 ? " (address6)" : ""}`,
        );
  });
};
