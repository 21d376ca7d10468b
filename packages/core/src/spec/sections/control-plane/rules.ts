// Rules about keepalived: where VIPs may sit, VRRP options that work together, VRIDs and the health check.

import { clusterFamilies, segmentSubnets } from "../../../facts/families.js";
import {
  controlPlaneInterface,
  externalVipAddresses,
  externalVipEntries,
  externalVipInterface,
  isControlPlane,
  nodeInterfaces,
  segmentOfInterface,
} from "../../../facts/spec.js";
import { allocateVrids, carriersPerExternalVip, externalUplink } from "../../../facts/vrrp.js";
import {
  addressCount,
  cidrContains,
  hostPart,
  ipEquals,
  ipFamily,
  isCidr,
  isIp,
  lastAddress,
  networkAddress,
  networkOf,
  parseCidr,
} from "../../../ip.js";
import { type IssuePath, toDotPath } from "../../../issues.js";
import { own } from "../../../own.js";
import { firstSeen, type Rule } from "../../rule.js";
import type { ClusterSpec } from "../../schema.js";
import { MAX_BASE_PRIORITY } from "./schema.js";

interface VipRef {
  readonly address: string;
  readonly iface: string | undefined;
  readonly path: IssuePath;
}

function allVips(spec: ClusterSpec): VipRef[] {
  const vip6 = spec.controlPlane.vip6;
  return [
    { address: hostPart(spec.controlPlane.vip), iface: controlPlaneInterface(spec), path: ["controlPlane", "vip"] },
    ...(vip6 === undefined
      ? []
      : [{ address: hostPart(vip6), iface: controlPlaneInterface(spec), path: ["controlPlane", "vip6"] }]),
    ...externalVipAddresses(spec).map((e) => ({
      address: hostPart(e.address),
      iface: externalVipInterface(spec),
      path: e.path,
    })),
  ];
}

/**
 * A dual-stack VIP pair is an IPv4 address with its IPv6 partner (`controlPlane.vip6`, an external entry's
 * `address6`), as `address6` beside `address` on an interface: each half its own family, so each renders as its own
 * single-family vrrp_instance (authentication with an IPv6 VIP is refused by vrrpFamiliesAndUnicast: VRRPv3 has none).
 */
export const dualStackVipsConsistent: Rule = (spec, report) => {
  const cp = spec.controlPlane;
  if (cp.vip6 !== undefined) {
    if (!isCidr(cp.vip6) || ipFamily(cp.vip6) !== 6)
      report.error(["controlPlane", "vip6"], `vip6 ${cp.vip6} is not an IPv6 address with prefix`);
    else if (ipFamily(cp.vip) !== 4)
      report.error(
        ["controlPlane", "vip6"],
        `vip6 ${cp.vip6} beside the IPv6 vip ${cp.vip}: vip6 is the IPv6 VIP beside an IPv4 one (an IPv6-only cluster writes its VIP in vip)`,
      );
    else if (!clusterFamilies(spec).includes(6))
      report.error(
        ["controlPlane", "vip6"],
        `vip6 ${cp.vip6} needs a dual-stack cluster: kubernetes.podSubnet has no IPv6 network, so no node has the IPv6 address the VIP's health check would ask`,
      );
    else {
      const seg = segmentOfInterface(spec, controlPlaneInterface(spec) ?? "");
      const net6 = seg && segmentSubnets(seg).find((n) => ipFamily(n) === 6);
      if (net6 && cidrContains(net6, hostPart(cp.vip6)) && networkOf(cp.vip6) !== net6)
        report.error(
          ["controlPlane", "vip6"],
          `VIP ${cp.vip6} must carry the prefix of its segment ${net6} (/${parseCidr(net6).prefixLength})`,
        );
    }
  }
  for (const e of externalVipEntries(spec)) {
    if (e.address6 === undefined || e.path6 === undefined) continue;
    if (ipFamily(e.address6) !== 6) report.error(e.path6, `address6 ${e.address6} is not an IPv6 address`);
    else if (ipFamily(e.address) !== 4)
      report.error(
        e.path6,
        `address6 ${e.address6} beside the IPv6 address ${e.address}: address6 is the IPv6 half of a pair whose address is IPv4 (an IPv6-only VIP writes its address in address)`,
      );
  }
};

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
      if (iface.address6)
        taken.set(
          hostPart(iface.address6),
          `the address of ${node.name} (${toDotPath(["nodes", i, "interfaces", name, "address6"])})`,
        );
      if (iface.gateway6)
        taken.set(hostPart(iface.gateway6), `a gateway (${toDotPath(["nodes", i, "interfaces", name, "gateway6"])})`);
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
    const nets = [...segmentSubnets(seg), ...seg.onLink];
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
    // IPv6 has no broadcast address, but its all-zero host is the Subnet-Router anycast address (RFC 4291 §2.6.1),
    // which every router on the link answers, and a node with IPv6 forwarding is one (RFC 6164 exempts a /127).
    else if (fam === 6 && size > 2n && ipEquals(vip.address, networkAddress(net)))
      report.error(
        vip.path,
        `VIP ${vip.address} is the Subnet-Router anycast address of ${net} (RFC 4291 §2.6.1), which every router on the link answers, Kubernetes nodes forwarding IPv6 included; pick another address`,
      );
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
  const replicas = spec.externalVips?.replicas;
  if (replicas !== undefined && carriers > 0 && replicas > carriers)
    report.error(
      ["externalVips", "replicas"],
      `replicas ${replicas} is more than the ${carriers} node${carriers === 1 ? "" : "s"} with carriesExternalVips: true; use at most ${carriers} or mark more carriers`,
    );
  // Each external VIP's priorities span its own carriers only.
  const perVip = Math.min(carriers, replicas ?? carriers);
  const cps = spec.nodes.filter(isControlPlane).length;
  if (Math.max(perVip, cps) > v.basePriority)
    report.error(
      ["vrrp", "basePriority"],
      `basePriority ${v.basePriority} leaves no distinct priority for ${Math.max(perVip, cps)} nodes`,
    );
};

/** Every node that carries a VIP needs the VIP's interface. */
export const vipInterfacesOnNodes: Rule = (spec, report) => {
  const cpIface = controlPlaneInterface(spec);
  const poolIface = externalVipInterface(spec);
  spec.nodes.forEach((node, i) => {
    if (isControlPlane(node) && cpIface && !own(node.interfaces, cpIface))
      report.error(
        ["nodes", i, "interfaces"],
        `control-plane node ${node.name} has no interface ${cpIface} for the control-plane VIP`,
      );
    if (spec.externalVips && node.carriesExternalVips && poolIface && !own(node.interfaces, poolIface))
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
  // Unicast peers per family: every instance's peers are the other nodes' addresses of its VIP's family.
  const cpIface = controlPlaneInterface(spec);
  const poolIface = externalVipInterface(spec);
  const familiesOn = (iface: string | undefined): Set<4 | 6> =>
    new Set(vips.filter((x) => x.iface === iface && isIp(x.address)).map((x) => ipFamily(x.address)));
  spec.nodes.forEach((node, i) => {
    const needs = [
      ...(isControlPlane(node) && cpIface ? [cpIface] : []),
      ...(spec.externalVips && node.carriesExternalVips && poolIface ? [poolIface] : []),
    ];
    for (const iface of new Set(needs)) {
      const declared = own(node.interfaces, iface);
      if (!declared) continue;
      const have = new Set(
        [declared.address, declared.address6]
          .filter((a): a is string => a !== undefined)
          .map((a) => ipFamily(hostPart(a))),
      );
      for (const fam of familiesOn(iface))
        if (!have.has(fam))
          report.error(
            ["nodes", i, "interfaces", iface, fam === 6 && declared.address ? "address6" : "address"],
            `node ${node.name} needs an IPv${fam} address on ${iface} for unicast VRRP (an IPv${fam} VIP lives there)`,
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
  // keepalived's nopreempt backups never take a VIP from a live master, whatever its priority (the VRRP lab shows it).
  if (spec.vrrp.nopreempt && w !== 0 && cps > 1)
    report.warning(
      ["vrrp", "nopreempt"],
      "with nopreempt a failing apiserver check does not move the control-plane VIP (no backup takes a VIP from a live master, whatever its priority); set vrrp.healthCheck.weight to 0 so a failing master goes to FAULT and lets it go",
    );
};

/**
 * preempt_delay works only where keepalived honours it, and the external VIPs' tracking (the Cilium readiness
 * check, the uplink check) moves every external VIP, like the apiserver check moves the control-plane VIP.
 */
export const vrrpTrackingConsistent: Rule = (spec, report) => {
  const v = spec.vrrp;
  if (v.preemptDelay !== undefined && v.preemptDelay > 0) {
    if (v.nopreempt)
      report.error(
        ["vrrp", "preemptDelay"],
        `preemptDelay ${v.preemptDelay} does nothing with nopreempt (keepalived resets preempt_delay); drop one of them`,
      );
    else if (v.initialState !== "BACKUP")
      report.error(
        ["vrrp", "preemptDelay"],
        `preemptDelay ${v.preemptDelay} needs initialState BACKUP (keepalived clears preempt_delay for an instance that starts as MASTER)`,
      );
  }
  if (v.healthCheck.weight === 0)
    report.warning(
      ["vrrp", "healthCheck", "weight"],
      "with weight 0 a node whose apiserver check fails is in FAULT (and keepalived keeps it in INIT until the check's first result), so no node holds the control-plane VIP while no apiserver answers and `kubeadm init` cannot reach its endpoint; bring the cluster up with a negative weight and set 0 afterwards",
    );
  // keepalived 2.2.7 ignores init_fail for a tracked script (alloc_track_script, keepalived/vrrp/vrrp_track.c:277): a
  // restarted node is kept off its VIPs only because the check's first run fails before its down timer ends.
  const down = 3 * v.advertInterval;
  const slow = (c: { timeout: number; weight?: number | undefined }) => c.weight !== 0 && c.timeout >= down;
  const external = spec.externalVips !== undefined && (v.readinessCheck.enabled || v.uplinkCheck);
  for (const [key, c, what] of [
    ["healthCheck", v.healthCheck, "its apiserver"],
    ...(external ? ([["readinessCheck", v.readinessCheck, "its Cilium (or uplink)"]] as const) : []),
  ] as const)
    if (slow(c))
      report.warning(
        ["vrrp", key, "timeout"],
        `timeout ${c.timeout}s is not below the down timer (3 × advertInterval = ${down}s): keepalived counts a check as passing until its first run at start ends, so a node that restarts while ${what} hangs can take a VIP before that run fails; use a timeout below ${down}s or weight 0`,
      );
  if (!spec.externalVips) {
    if (v.uplinkCheck)
      report.warning(
        ["vrrp", "uplinkCheck"],
        "uplinkCheck tracks the external VIPs, and no externalVips pool is declared",
      );
    return;
  }
  if (v.uplinkCheck && !externalUplink(spec))
    report.error(
      ["vrrp", "uplinkCheck"],
      `uplinkCheck pings the uplink gateway of the external VIPs' segment, and the segment on ${externalVipInterface(spec) ?? "(none)"} has no uplink (network.segments[].uplink)`,
    );
  const tracked = v.readinessCheck.enabled || v.uplinkCheck;
  const w = v.readinessCheck.weight;
  const perVip = carriersPerExternalVip(spec);
  if (!tracked || perVip === 0) return;
  // One message for one cause: healthCheckMovesVip already reports a base priority that is too low for the checks.
  const cps = spec.nodes.filter(isControlPlane).length;
  const apiserverClamped = v.healthCheck.weight !== 0 && cps > 1 && v.basePriority <= cps;
  if (w !== undefined && w !== 0 && -w < perVip)
    report.error(
      ["vrrp", "readinessCheck", "weight"],
      `weight ${w} cannot move an external VIP: a failed master must drop below every other of its ${perVip} carriers (|weight| >= ${perVip}), or use 0 for FAULT`,
    );
  else if (w !== 0 && perVip > 1 && v.basePriority <= perVip && !apiserverClamped)
    report.error(
      ["vrrp", "basePriority"],
      `basePriority ${v.basePriority} is too low for the external VIPs' readiness check: a failed master is clamped to priority 1, which the lowest of ${perVip} carriers also has; ${
        // basePriority stops at 254, so 254 carriers per VIP leave no room below the lowest one
        perVip + 1 <= MAX_BASE_PRIORITY
          ? `use at least ${perVip + 1} or vrrp.readinessCheck.weight 0 for FAULT`
          : `set vrrp.readinessCheck.weight 0 for FAULT, or externalVips.replicas ${MAX_BASE_PRIORITY - 1} or fewer`
      }`,
    );
  if (v.nopreempt && w !== 0 && perVip > 1)
    report.warning(
      ["vrrp", "nopreempt"],
      "with nopreempt a failing readiness or uplink check does not move an external VIP (no backup takes a VIP from a live master); set vrrp.readinessCheck.weight to 0 so a failing master goes to FAULT and lets it go",
    );
};

/**
 * `kubeadm init` creates the cluster's etcd and control plane, so only a control-plane node can run it. Once the
 * cluster is bootstrapped no node inits, but the name must still be right: it names the node PLAN.md's runbooks
 * treat as the first one, and the cluster goes back to it if `bootstrapped` is ever removed.
 */
export const initNodeIsControlPlane: Rule = (spec, report) => {
  const initNode = spec.controlPlane.initNode;
  if (initNode === undefined) return;
  const controlPlanes = spec.nodes.filter(isControlPlane).map((n) => n.name);
  if (controlPlanes.includes(initNode)) return;
  const listed =
    controlPlanes.length === 0
      ? "no node has the control-plane role"
      : `the control-plane nodes are ${controlPlanes.join(", ")}`;
  const node = spec.nodes.find((n) => n.name === initNode);
  report.error(
    ["controlPlane", "initNode"],
    node === undefined
      ? `initNode ${initNode} is not a node in nodes: it must name the control-plane node that runs \`kubeadm init\`; ${listed}`
      : `initNode ${initNode} does not have the control-plane role, and only a control-plane node can run \`kubeadm init\`; ${listed}`,
  );
};
