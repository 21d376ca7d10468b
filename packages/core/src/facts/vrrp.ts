// VRRP facts the rules and the plan share: which VRID each VIP gets, and the order of nodes for each VIP.

import { canonicalIp, hostPart, ipEquals, ipFamily, isIp, lowByte } from "../ip.js";
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
  /** The families of its instances: one, or both for a dual-stack pair (which shares one VRID). */
  readonly families: readonly (4 | 6)[];
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
  const cpAddress = hostPart(spec.controlPlane.vip);
  const pair = (address: string, address6: string | undefined): (4 | 6)[] =>
    address6 === undefined || !isIp(address) ? familyOf(address) : [4, 6];
  const requests: VridRequest[] = [
    {
      id: { kind: "control-plane" },
      address: cpAddress,
      iface: cpIface,
      families: pair(cpAddress, spec.controlPlane.vip6),
      explicit: cpExplicit,
      path: cpExplicit === undefined ? ["controlPlane", "vip"] : ["controlPlane", "vrid"],
    },
  ];
  for (const e of externalVipEntries(spec))
    requests.push({
      id: { kind: "external", address: e.address },
      address: e.address,
      iface: poolIface,
      families: pair(e.address, e.address6),
      explicit: e.vrid,
      path: e.vrid === undefined ? e.path : [...e.path.slice(0, -1), "vrid"],
    });
  return requests;
}

const familyOf = (address: string): (4 | 6)[] => (isIp(address) ? [ipFamily(address)] : []);

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
    // A VRID is unique per interface and family (RFC 5798 §5.2.3: an IPv4 and an IPv6 virtual router are separate
    // even with one VRID), so a pair's two instances share theirs and an IPv6 VIP may reuse an IPv4 VIP's.
    const tables = req.families.map((fam) => {
      const owner = `${req.iface}\u0000${fam}`;
      const taken = owners.get(owner) ?? new Map<number, VridRequest>();
      owners.set(owner, taken);
      return { fam, taken, prior: taken.get(vrid) };
    });
    const clash = tables.find((t) => t.prior !== undefined);
    // The same address listed twice is reported by its own rule, not as a VRID collision.
    if (clash?.prior && ipEquals(clash.prior.address, req.address)) continue;
    if (clash?.prior) {
      const family = req.families.length > 1 || clash.prior.families.length > 1 ? ` (IPv${clash.fam})` : "";
      issues.push({
        path: req.path,
        message: `${toDotPath(req.path)} gets VRID ${vrid} (${vridSource(req)}), which ${toDotPath(clash.prior.path)} already has on ${req.iface}${family} (${vridSource(clash.prior)}): give one of them an explicit, unused vrid`,
      });
      continue;
    }
    for (const t of tables) t.taken.set(vrid, req);
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
    // concat, not spreads: without the optimizing compiler a spread allocates an iterator result per element
    orders.push([master].concat(survivors.slice(shift), survivors.slice(0, shift)));
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
      orders[vip] = o.slice(0, 2).concat(rest.slice(best), rest.slice(0, best));
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
 * The default weight of every vrrp_script (the apiserver health check, the readiness and uplink checks): the most
 * keepalived accepts (-253..253). keepalived clamps an effective priority to 1..254, so a failing node runs at 1
 * whatever its place, below every healthy node for any node count (the rules keep the lowest healthy priority at 2
 * or more: basePriority above the nodes per VIP). It does not depend on the node count, so adding or removing a node
 * rewrites no keepalived.conf through it. Two failing nodes tie at 1; VRRP gives the tie to the higher address.
 */
export const DEFAULT_CHECK_WEIGHT = -253;

/** How many carriers hold each external VIP (its priorities span that many nodes). */
export function carriersPerExternalVip(spec: ClusterSpec): number {
  const carriers = spec.nodes.filter((n) => n.carriesExternalVips).length;
  return Math.min(carriers, spec.externalVips?.replicas ?? carriers);
}

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

/** The priority orders a previous run left, by VIP address: node names, best first (identities.json's `vips`). */
export type PreviousOrders = Readonly<Record<string, readonly string[]>>;

const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * Every VIP's priority order (node names, best first; aligned with `vips`, which are addresses) over `carriers`,
 * each VIP on `replicas` of them (all at or above the carrier count).
 *
 * Without `previous` (day 1, or a tree from an older version) this is the positional `replicaOrders`. With it, the
 * previous assignment is carried forward; no function of the spec alone can keep masters balanced while adding a node
 * moves only the minimum and removing one moves only its VIPs (DESIGN-27, fixed decision 2). Then:
 * - masters: a VIP keeps a master that is still a carrier unless balance (⌊V/N⌋..⌈V/N⌉) forces a move; a node above
 *   ⌈V/N⌉ gives up its excess, and only when that and the VIPs without a master cannot fill every node below ⌊V/N⌋
 *   does a node above ⌊V/N⌋ give one more, so the moves are max(excess, deficit), the minimum. A VIP without a
 *   master (its master left, or it is new) goes to its first surviving backup when that keeps the band, else to the
 *   least loaded node;
 * - first backups: each master's VIPs fall back within one over the other carriers, so any single failure still
 *   spreads evenly; with every carrier in every order the least loaded take the extra ones first (as in
 *   `priorityOrders`), so the survivors stay within one (within two below that, as `replicaOrders`). Only the
 *   first backups over that share change: the node that must back up more moves to second place;
 * - the rest of each order is kept; a missing place is filled: with every carrier in every order, a missing carrier
 *   is appended (cyclically after the first backup in name order); below that, with the carrier that holds the
 *   fewest instances.
 * Ties go by node name and VIP address, never by position: reordering `nodes` or the addresses changes nothing.
 * Carrying the result forward again gives the same orders.
 */
export function carriedOrders(
  carriers: readonly string[],
  vips: readonly string[],
  replicas: number,
  previous: PreviousOrders | undefined,
): string[][] {
  const n = carriers.length;
  if (n === 0) return vips.map(() => []);
  if (previous === undefined)
    return replicaOrders(n, vips.length, Math.min(replicas, n)).map((o) => o.map((j) => carriers[j] ?? ""));
  const names = [...new Set(carriers)].sort(byText);
  const isCarrier = new Set(names);
  const r = Math.min(replicas, names.length);
  const vipCount = vips.length;
  const byAddress = vips.map((_, i) => i).sort((x, y) => byText(vips[x] ?? "", vips[y] ?? ""));
  const rank = new Map(byAddress.map((vip, k) => [vip, k]));
  const inAddressOrder = (list: number[]) => list.sort((x, y) => (rank.get(x) ?? 0) - (rank.get(y) ?? 0));
  const previousMaster = (i: number): string | undefined => previous[vips[i] ?? ""]?.[0];
  // The previous order of each VIP, on today's carriers only.
  const surviving = vips.map((a) => [...new Set((previous[a] ?? []).filter((x) => isCarrier.has(x)))]);

  // Masters.
  const master: (string | undefined)[] = vips.map(() => undefined);
  const mastered = new Map<string, number[]>(names.map((x) => [x, []]));
  const count = (x: string): number => mastered.get(x)?.length ?? 0;
  for (const i of byAddress) {
    const m = previousMaster(i);
    if (m !== undefined && isCarrier.has(m)) {
      master[i] = m;
      mastered.get(m)?.push(i);
    }
  }
  const lo = Math.floor(vipCount / names.length);
  const hi = Math.ceil(vipCount / names.length);
  const pool = byAddress.filter((i) => master[i] === undefined);
  const giveUp = (x: string): void => {
    const i = mastered.get(x)?.pop(); // the highest address it masters
    if (i === undefined) return;
    master[i] = undefined;
    pool.push(i);
  };
  for (const x of names) while (count(x) > hi) giveUp(x);
  const deficit = (): number => names.reduce((d, x) => d + Math.max(0, lo - count(x)), 0);
  for (let missing = deficit() - pool.length; missing > 0; missing--) {
    let donor: string | undefined;
    for (const x of names) if (count(x) > lo && (donor === undefined || count(x) > count(donor))) donor = x;
    if (donor === undefined) break;
    giveUp(donor);
  }
  const leastLoaded = (among: readonly string[], load: (x: string) => number): string | undefined => {
    let best: string | undefined;
    for (const x of among) if (best === undefined || load(x) < load(best)) best = x;
    return best;
  };
  let open = deficit();
  inAddressOrder(pool).forEach((i, k) => {
    const left = pool.length - k;
    const backup = surviving[i]?.find((x) => x !== previousMaster(i));
    const c = backup === undefined ? hi : count(backup);
    const keepsBand = c < hi && (c < lo || left - 1 >= open);
    const to = keepsBand && backup !== undefined ? backup : (leastLoaded(names, count) ?? "");
    if (count(to) < lo) open--;
    master[i] = to;
    mastered.get(to)?.push(i);
  });

  const orders = vips.map((_, i) => {
    const m = master[i] ?? "";
    return [m, ...(surviving[i] ?? []).filter((x) => x !== m)].slice(0, r);
  });
  if (names.length === 1) return orders;

  // First backups: within one per master, the light (⌊V/N⌋) nodes first.
  const light = (x: string): boolean => lo === hi || count(x) === lo;
  for (const a of names) {
    const own = inAddressOrder([...(mastered.get(a) ?? [])]);
    const others = names.filter((x) => x !== a);
    const first = new Map<string, number[]>(others.map((x) => [x, []]));
    const unbacked: number[] = [];
    for (const i of own) {
      const f = orders[i]?.[1];
      const list = f === undefined ? undefined : first.get(f);
      if (list) list.push(i);
      else unbacked.push(i);
    }
    const q = Math.floor(own.length / others.length);
    const extra = own.length % others.length;
    // Who backs up one more: those that already do, so that orders within the bounds stay as they are
    // (positional ones too). With every carrier in every order the survivors of a failure also stay within one
    // (priorityOrders' bound), which needs the light nodes to take the extra ones first.
    const held = (x: string): number => first.get(x)?.length ?? 0;
    const pick = (lightFirst: boolean): string[] =>
      [...others]
        .sort((x, y) => (lightFirst ? Number(light(y)) - Number(light(x)) : 0) || held(y) - held(x) || byText(x, y))
        .slice(0, extra);
    let chosen = pick(false);
    const lightLeft = others.some((x) => light(x) && !chosen.includes(x));
    if (r >= names.length && lightLeft && chosen.some((x) => !light(x))) chosen = pick(true);
    const receivers = new Set(chosen);
    const want = new Map(others.map((x) => [x, q + (receivers.has(x) ? 1 : 0)]));
    const moving = [...unbacked];
    for (const x of others) {
      const list = first.get(x) ?? [];
      while (list.length > (want.get(x) ?? 0)) moving.push(list.pop() ?? 0);
    }
    const short = new Map(
      others.flatMap((x) => {
        const gap = (want.get(x) ?? 0) - (first.get(x)?.length ?? 0);
        return gap > 0 ? [[x, gap] as const] : [];
      }),
    );
    for (const i of inAddressOrder(moving)) {
      const order = orders[i] ?? [];
      // A node already in the order moves up (the fewest places change); else the first short one by name.
      const to = order.find((x) => short.has(x)) ?? [...short.keys()][0];
      if (to === undefined) break;
      const gap = (short.get(to) ?? 1) - 1;
      if (gap === 0) short.delete(to);
      else short.set(to, gap);
      const at = order.indexOf(to);
      if (at >= 0) order.splice(at, 1);
      order.splice(1, 0, to);
      if (order.length > r) order.pop();
    }
  }

  // The rest of each order.
  if (r >= names.length) {
    for (const order of orders) {
      if (order.length === names.length) continue;
      const present = new Set(order);
      const from = names.indexOf(order[1] ?? order[0] ?? "");
      for (let d = 1; d < names.length; d++) {
        const x = names[(from + d) % names.length] ?? "";
        if (!present.has(x)) order.push(x);
      }
    }
    return orders;
  }
  const held = new Map<string, number>(names.map((x) => [x, 0]));
  for (const order of orders) for (const x of order) held.set(x, (held.get(x) ?? 0) + 1);
  for (const i of byAddress) {
    const order = orders[i] ?? [];
    while (order.length < r) {
      const present = new Set(order);
      const x = leastLoaded(
        names.filter((y) => !present.has(y)),
        (y) => held.get(y) ?? 0,
      );
      if (x === undefined) break;
      order.push(x);
      held.set(x, (held.get(x) ?? 0) + 1);
    }
  }
  return orders;
}
