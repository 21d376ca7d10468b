// VRRP facts the rules and the plan share: which VRID each VIP gets, and the order of nodes for each VIP.

import { canonicalIp, hostPart, ipEquals, lowByte } from "../ip.js";
import type { IssuePath } from "../issues.js";
import { toDotPath } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import { controlPlaneInterface, externalVipEntries, externalVipInterface } from "./spec.js";

/** Which VIP: the control-plane VIP, or the external VIP with this address (canonical, without prefix). */
export type VipId = { readonly kind: "control-plane" } | { readonly kind: "external"; readonly address: string };

/**
 * Stable text form of a VipId, also the keepalived instance name suffix: `control-plane`, `external-10-118-11-20`
 * (the address with `.` and `:` as `-`). It names the VIP by its address, never by its place in the list, so
 * removing or reordering addresses renames no other VIP's instance.
 */
export type VipKey = "control-plane" | `external-${string}`;

export const vipKey = (id: VipId): VipKey =>
  id.kind === "control-plane" ? "control-plane" : `external-${canonicalIp(id.address).replace(/[.:]/g, "-")}`;

/** The VRID a VIP gets when the spec gives none: the last 8 bits of its address (0 needs an explicit one). */
export const defaultVrid = (address: string): number => lowByte(address);

export interface VridRequest {
  readonly id: VipId;
  /** Address without prefix, as written. */
  readonly address: string;
  readonly iface: string;
  readonly explicit: number | undefined;
  /** Where the VRID comes from: the `vrid` key when explicit, else the address. */
  readonly path: IssuePath;
}

export interface VridAllocation {
  readonly vrids: ReadonlyMap<VipKey, number>;
  readonly issues: readonly { path: IssuePath; message: string }[];
}

/** The interfaces the VIPs live on: the plan passes the ones it derived once; a rule lets them be derived here. */
export interface VipInterfaceNames {
  readonly controlPlane: string | undefined;
  readonly external: string | undefined;
}

export function vridRequests(
  spec: ClusterSpec,
  interfaces: VipInterfaceNames = { controlPlane: controlPlaneInterface(spec), external: externalVipInterface(spec) },
): VridRequest[] {
  const cpIface = interfaces.controlPlane ?? "";
  const poolIface = interfaces.external ?? "";
  const cpExplicit = spec.controlPlane.vrid;
  const requests: VridRequest[] = [
    {
      id: { kind: "control-plane" },
      address: hostPart(spec.controlPlane.vip),
      iface: cpIface,
      explicit: cpExplicit,
      path: cpExplicit === undefined ? ["controlPlane", "vip"] : ["controlPlane", "vrid"],
    },
  ];
  for (const e of externalVipEntries(spec))
    requests.push({
      id: { kind: "external", address: e.address },
      address: e.address,
      iface: poolIface,
      explicit: e.vrid,
      path: e.vrid === undefined ? e.path : [...e.path.slice(0, -1), "vrid"],
    });
  return requests;
}

const vridSource = (r: VridRequest): string =>
  r.explicit === undefined ? `the last 8 bits of ${r.address}` : "given explicitly";

/**
 * Each VIP's VRID: the explicit `vrid`, else the last 8 bits of its address. A VRID depends on its own VIP alone,
 * so adding, removing or reordering VIPs changes no other VIP's VRID. Two VIPs with one VRID on one interface, a
 * VRID in the segment's `reservedVrids`, or an address whose last 8 bits are 0 are reported, naming every path
 * involved and asking for an explicit `vrid`.
 */
export function allocateVrids(spec: ClusterSpec, interfaces?: VipInterfaceNames): VridAllocation {
  const vrids = new Map<VipKey, number>();
  const issues: { path: IssuePath; message: string }[] = [];
  const owners = new Map<string, Map<number, VridRequest>>();
  const reserved = new Map<string, { set: Set<number>; path: IssuePath }>();
  spec.network.segments.forEach((seg, i) => {
    reserved.set(seg.interface, { set: new Set(seg.reservedVrids), path: ["network", "segments", i, "reservedVrids"] });
  });
  for (const req of vridRequests(spec, interfaces)) {
    const vrid = req.explicit ?? defaultVrid(req.address);
    const what = req.id.kind === "control-plane" ? "the control-plane VIP" : `VIP ${req.address}`;
    if (vrid === 0) {
      issues.push({
        path: req.path,
        message: `${what} ends in 0 (its last 8 bits), which is not a VRID: give it an explicit vrid (1-255)`,
      });
      continue;
    }
    vrids.set(vipKey(req.id), vrid);
    const taken = owners.get(req.iface) ?? new Map<number, VridRequest>();
    owners.set(req.iface, taken);
    const prior = taken.get(vrid);
    // The same address listed twice is reported by its own rule, not as a VRID collision.
    if (prior && ipEquals(prior.address, req.address)) continue;
    if (prior) {
      issues.push({
        path: req.path,
        message: `${toDotPath(req.path)} gets VRID ${vrid} (${vridSource(req)}), which ${toDotPath(prior.path)} already has on ${req.iface} (${vridSource(prior)}): give one of them an explicit, unused vrid`,
      });
      continue;
    }
    taken.set(vrid, req);
    const reservedHere = reserved.get(req.iface);
    if (reservedHere?.set.has(vrid))
      issues.push({
        path: req.path,
        message: `${toDotPath(req.path)} gets VRID ${vrid} (${vridSource(req)}), which ${toDotPath(reservedHere.path)} reserves on ${req.iface}: give ${what} an explicit, unreserved vrid`,
      });
  }
  return { vrids, issues };
}

/**
 * MIGRATION ONLY (`clusterspec pin-vrids`): the VRIDs clusterspec allocated before they followed the address.
 * Per interface, in spec order (the control-plane VIP first): an explicit `vrid` as given, any other VIP the lowest
 * id not yet taken nor reserved, from 1 for the control-plane VIP and from `firstVrid` (default 1) for the external
 * ones. Nothing else may use it: a VRID that depends on list positions is what pinning removes.
 */
export function legacyPositionalVrids(
  spec: ClusterSpec,
  firstVrid: number | undefined,
): {
  readonly controlPlane: number | undefined;
  readonly external: readonly (number | undefined)[];
  readonly issues: readonly { path: IssuePath; message: string }[];
} {
  const issues: { path: IssuePath; message: string }[] = [];
  const owners = new Map<string, Map<number, IssuePath>>();
  const reserved = new Map<string, Set<number>>();
  for (const seg of spec.network.segments) reserved.set(seg.interface, new Set(seg.reservedVrids));
  const allocate = (req: VridRequest, start: number): number | undefined => {
    const taken = owners.get(req.iface) ?? new Map<number, IssuePath>();
    owners.set(req.iface, taken);
    const avoid = reserved.get(req.iface) ?? new Set<number>();
    if (req.explicit !== undefined) {
      const prior = taken.get(req.explicit);
      if (prior)
        issues.push({
          path: req.path,
          message: `VRID ${req.explicit} on ${req.iface} is already used by ${toDotPath(prior)}`,
        });
      else taken.set(req.explicit, req.path);
      return req.explicit;
    }
    let id = start;
    while (id <= 255 && (taken.has(id) || avoid.has(id))) id++;
    if (id > 255) {
      issues.push({ path: req.path, message: `no free VRID left on ${req.iface} from ${start} to 255` });
      return undefined;
    }
    taken.set(id, req.path);
    return id;
  };
  const [cp, ...external] = vridRequests(spec);
  return {
    controlPlane: cp && allocate(cp, 1),
    external: external.map((req) => allocate(req, firstVrid ?? 1)),
    issues,
  };
}

/**
 * Priority order of nodes (best first) for each of `vipCount` VIPs over `nodeCount` nodes, every node in every order.
 * VIP i is mastered by node i mod N. The k-th VIP of a master falls back to the k-th survivor in a list
 * that puts the least loaded nodes first (then the nearest predecessor), so the VIPs of any single failed
 * node spread over the survivors evenly and the survivors' loads still differ by at most one.
 * The second backup only matters when the master and its first backup both fail: it is chosen per such
 * pair, greedily for the least loaded survivor, which keeps two-node failures balanced too.
 * O(V·N): loads take two values, so the survivor list is two passes, and each pair's loads are the all-up
 * loads corrected for the VIPs of the two failed masters only.
 */
export function priorityOrders(nodeCount: number, vipCount: number): number[][] {
  const n = nodeCount;
  const heavy = vipCount % n; // nodes below this index master one VIP more
  const orders: number[][] = [];
  for (let vip = 0; vip < vipCount; vip++) {
    const master = vip % n;
    const k = Math.floor(vip / n);
    const light: number[] = [];
    const loaded: number[] = [];
    for (let d = 1; d < n; d++) {
      const node = (master - d + n) % n;
      (node < heavy ? loaded : light).push(node);
    }
    const survivors = light.concat(loaded);
    const shift = survivors.length === 0 ? 0 : k % survivors.length;
    orders.push([master, ...survivors.slice(shift), ...survivors.slice(0, shift)]);
  }
  if (n < 4) return orders;
  const byMaster: number[][] = Array.from({ length: n }, () => []);
  const base = Array.from({ length: n }, () => 0);
  const groups = new Map<number, number[]>();
  orders.forEach((o, vip) => {
    const [m = 0, f = 0] = o;
    byMaster[m]?.push(vip);
    base[m] = (base[m] ?? 0) + 1;
    const key = Math.min(m, f) * n + Math.max(m, f);
    const members = groups.get(key);
    if (members) members.push(vip);
    else groups.set(key, [vip]);
  });
  for (const [key, members] of groups) {
    const a = Math.floor(key / n);
    const b = key % n;
    // With a and b down, a VIP outside the pair keeps its master unless that is a or b; then its first backup,
    // which is neither (only the pair's own VIPs have both), holds it.
    const loads = base.slice();
    for (const down of [a, b])
      for (const vip of byMaster[down] ?? []) {
        const o = orders[vip] ?? [];
        const f = o[1] ?? 0;
        if (f !== a && f !== b) loads[f] = (loads[f] ?? 0) + 1;
      }
    for (const vip of members) {
      const o = orders[vip] ?? [];
      const rest = o.slice(2);
      let best = 0;
      rest.forEach((x, i) => {
        if ((loads[x] ?? 0) < (loads[rest[best] ?? 0] ?? 0)) best = i;
      });
      const chosen = rest[best] ?? 0;
      loads[chosen] = (loads[chosen] ?? 0) + 1;
      orders[vip] = [...o.slice(0, 2), ...rest.slice(best), ...rest.slice(0, best)];
    }
  }
  return orders;
}

/**
 * Priority orders when each VIP has only `replicas` of the `nodeCount` nodes (2 <= replicas < nodeCount; at or
 * above nodeCount this is `priorityOrders`). A VIP's order depends only on its index, so appending a VIP never
 * changes an existing one. VIP i is mastered by m = i mod N; it is m's k-th VIP (k = floor(i / N)).
 * Its first backup is m's (1 + k mod (N-1))-th predecessor: every N-1 consecutive VIPs of a master use each
 * other node once, so a failed node's VIPs spread within one over the survivors for every pool size, and each
 * node is first backup as often as any other. Further backups walk on from there, rotated by the round of the
 * first backup, so the VIPs that a failed master and first backup share move on to different nodes.
 */
export function replicaOrders(nodeCount: number, vipCount: number, replicas: number): number[][] {
  const n = nodeCount;
  if (replicas >= n) return priorityOrders(n, vipCount);
  const orders: number[][] = [];
  for (let vip = 0; vip < vipCount; vip++) {
    const master = vip % n;
    const k = Math.floor(vip / n);
    const first = k % (n - 1); // offset index: the node (first + 1) places before the master
    const round = Math.floor(k / (n - 1));
    const order = [master, (master - 1 - first + 2 * n) % n];
    for (let j = 0; j < replicas - 2; j++) {
      const offset = 1 + ((first + 1 + ((round + j) % (n - 2))) % (n - 1));
      order.push((master - offset + 2 * n) % n);
    }
    orders.push(order);
  }
  return orders;
}

/** Priorities of a VIP's nodes in its priority order: the master has `basePriority`, each next node one less. */
export function prioritiesFrom(basePriority: number, nodeCount: number): number[] {
  return Array.from({ length: nodeCount }, (_, rank) => basePriority - rank);
}

/**
 * The default vrrp_script weight: just enough to move the control-plane VIP. Its priorities over the
 * control-plane nodes are consecutive, so a failed master must drop by their count to go below every other.
 */
export const defaultHealthCheckWeight = (controlPlaneCount: number): number => -controlPlaneCount;

/** How many carriers hold each external VIP (its priorities span that many nodes). */
export function carriersPerExternalVip(spec: ClusterSpec): number {
  const carriers = spec.nodes.filter((n) => n.carriesExternalVips).length;
  return Math.min(carriers, spec.externalVips?.replicas ?? carriers);
}

/**
 * The default readiness-check weight: just enough to move every external VIP. Each VIP's priorities over its
 * carriers are consecutive, so a failed master must drop by their count to go below every other carrier.
 */
export const defaultReadinessCheckWeight = (carriersPerVip: number): number => -carriersPerVip;

/** preempt_delay when the spec gives none: keepalived honours it only in state BACKUP and without nopreempt. */
export const DEFAULT_PREEMPT_DELAY = 120;

export function preemptDelayOf(spec: ClusterSpec): number {
  const v = spec.vrrp;
  if (v.nopreempt || v.initialState !== "BACKUP") return v.preemptDelay ?? 0;
  return v.preemptDelay ?? DEFAULT_PREEMPT_DELAY;
}

/** The uplink gateway the external VIPs' replies leave through: their segment's `uplink.gateway`. */
export function externalUplink(spec: ClusterSpec): { gateway: string; interface: string } | undefined {
  const iface = externalVipInterface(spec);
  const seg = spec.network.segments.find((s) => s.interface === iface);
  return seg?.uplink && iface !== undefined ? { gateway: seg.uplink.gateway, interface: iface } : undefined;
}
