// VRRP facts every generator and PLAN.md share: which VRID each VIP gets and each node's priority for it.
import { hostPart, parseCidr } from "../ip.js";
import { type IssuePath, toDotPath } from "../issues.js";
import { controlPlaneInterface, externalVipEntries, externalVipInterface, isControlPlane } from "../spec/derive.js";
import type { ClusterSpec } from "../spec/schema.js";

export interface VridRequest {
  readonly key: string;
  readonly iface: string;
  readonly explicit: number | undefined;
  readonly start: number;
  readonly path: IssuePath;
}

export interface VridAllocation {
  readonly vrids: ReadonlyMap<string, number>;
  readonly issues: readonly { path: IssuePath; message: string }[];
}

export function vridRequests(spec: ClusterSpec): VridRequest[] {
  const cpIface = controlPlaneInterface(spec) ?? "";
  const poolIface = externalVipInterface(spec) ?? "";
  const requests: VridRequest[] = [
    {
      key: "control-plane",
      iface: cpIface,
      explicit: spec.controlPlane.vrid,
      start: 1,
      path: ["controlPlane", "vrid"],
    },
  ];
  const firstVrid = spec.externalVips?.firstVrid ?? 1;
  externalVipEntries(spec).forEach((e, i) => {
    requests.push({
      key: `external-${i}`,
      iface: poolIface,
      explicit: e.vrid,
      start: firstVrid,
      path: e.vrid === undefined ? ["externalVips", "addresses", i] : ["externalVips", "addresses", i, "vrid"],
    });
  });
  return requests;
}

/**
 * VRIDs per interface, in spec order: explicit ones as given, the rest the lowest free id from their start.
 * An allocated id only avoids ids claimed before it, so appending a VIP never renumbers an existing one;
 * a later explicit id that hits an earlier one is reported with both paths.
 */
export function allocateVrids(spec: ClusterSpec): VridAllocation {
  const vrids = new Map<string, number>();
  const issues: { path: IssuePath; message: string }[] = [];
  const owners = new Map<string, Map<number, { path: IssuePath; explicit: boolean }>>();
  const reserved = new Map<string, Set<number>>();
  for (const seg of spec.network.segments) reserved.set(seg.interface, new Set(seg.reservedVrids));
  for (const req of vridRequests(spec)) {
    const taken = owners.get(req.iface) ?? new Map<number, { path: IssuePath; explicit: boolean }>();
    owners.set(req.iface, taken);
    const avoid = reserved.get(req.iface) ?? new Set<number>();
    if (req.explicit !== undefined) {
      const prior = taken.get(req.explicit);
      if (prior)
        issues.push({
          path: req.path,
          message: prior.explicit
            ? `VRID ${req.explicit} on ${req.iface} is already used by ${toDotPath(prior.path)}`
            : `VRID ${req.explicit} on ${req.iface} is already allocated to ${toDotPath(prior.path)} (listed earlier); choose another or give that one a VRID explicitly`,
        });
      else if (avoid.has(req.explicit))
        issues.push({
          path: req.path,
          message: `VRID ${req.explicit} is reserved on ${req.iface} (segment reservedVrids)`,
        });
      if (!prior) taken.set(req.explicit, { path: req.path, explicit: true });
      vrids.set(req.key, req.explicit);
      continue;
    }
    let id = req.start;
    while (id <= 255 && (taken.has(id) || avoid.has(id))) id++;
    if (id > 255) {
      issues.push({ path: req.path, message: `no free VRID left on ${req.iface} from ${req.start} to 255` });
      continue;
    }
    taken.set(id, { path: req.path, explicit: false });
    vrids.set(req.key, id);
  }
  return { vrids, issues };
}

/**
 * Priority order of nodes (best first) for each of `vipCount` VIPs over `nodeCount` nodes.
 * VIP i is mastered by node i mod N. The k-th VIP of a master falls back to the k-th survivor in a list
 * that puts the least loaded nodes first (then the nearest predecessor), so the VIPs of any single failed
 * node spread over the survivors evenly and the survivors' loads still differ by at most one.
 * The second backup only matters when the master and its first backup both fail: it is chosen per such
 * pair, greedily for the least loaded survivor, which keeps two-node failures balanced too.
 */
export function priorityOrders(nodeCount: number, vipCount: number): number[][] {
  const n = nodeCount;
  const load = (node: number): number => Math.floor(vipCount / n) + (node < vipCount % n ? 1 : 0);
  const orders: number[][] = [];
  for (let vip = 0; vip < vipCount; vip++) {
    const master = vip % n;
    const k = Math.floor(vip / n);
    const survivors: number[] = [];
    for (let d = 1; d < n; d++) survivors.push((master - d + n) % n);
    survivors.sort((a, b) => load(a) - load(b) || ((master - a + n) % n) - ((master - b + n) % n));
    const shift = survivors.length === 0 ? 0 : k % survivors.length;
    orders.push([master, ...survivors.slice(shift), ...survivors.slice(0, shift)]);
  }
  if (n < 4) return orders;
  const groups = new Map<number, number[]>();
  orders.forEach((o, vip) => {
    const [m = 0, f = 0] = o;
    const key = Math.min(m, f) * n + Math.max(m, f);
    groups.set(key, [...(groups.get(key) ?? []), vip]);
  });
  for (const [key, members] of groups) {
    const a = Math.floor(key / n);
    const b = key % n;
    const inGroup = new Set(members);
    const loads = Array.from({ length: n }, () => 0);
    orders.forEach((o, vip) => {
      const holder = o.find((x) => x !== a && x !== b);
      if (holder !== undefined && !inGroup.has(vip)) loads[holder] = (loads[holder] ?? 0) + 1;
    });
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

export type VipKind = "control-plane" | "external";

export interface PlannedVip {
  /** Stable id, also the keepalived instance name suffix: `control-plane`, `external-0`, … */
  readonly key: string;
  readonly kind: VipKind;
  /** Address without prefix. */
  readonly address: string;
  readonly prefixLength: number;
  readonly interface: string;
  readonly vrid: number;
  /** Node names, best first; priorities[i] belongs to order[i]. */
  readonly order: readonly string[];
  readonly priorities: readonly number[];
  readonly specPath: IssuePath;
}

export function planVips(spec: ClusterSpec): PlannedVip[] {
  const { vrids } = allocateVrids(spec);
  const base = spec.vrrp.basePriority;
  const vrid = (key: string): number => vrids.get(key) ?? 0;
  const cpNodes = spec.nodes.filter(isControlPlane).map((n) => n.name);
  const cp = parseCidr(spec.controlPlane.vip);
  const cpOrder = (priorityOrders(cpNodes.length, 1)[0] ?? []).map((i) => cpNodes[i] ?? "");
  const vips: PlannedVip[] = [
    {
      key: "control-plane",
      kind: "control-plane",
      address: hostPart(spec.controlPlane.vip),
      prefixLength: cp.prefixLength,
      interface: controlPlaneInterface(spec) ?? "",
      vrid: vrid("control-plane"),
      order: cpOrder,
      priorities: cpOrder.map((_, r) => base - r),
      specPath: ["controlPlane", "vip"],
    },
  ];
  const carriers = spec.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
  const entries = externalVipEntries(spec);
  if (carriers.length === 0) return vips;
  const orders = priorityOrders(carriers.length, entries.length);
  entries.forEach((e, i) => {
    const order = (orders[i] ?? []).map((j) => carriers[j] ?? "");
    vips.push({
      key: `external-${i}`,
      kind: "external",
      address: hostPart(e.address),
      prefixLength: e.address.includes(":") ? 128 : 32,
      interface: externalVipInterface(spec) ?? "",
      vrid: vrid(`external-${i}`),
      order,
      priorities: order.map((_, r) => base - r),
      specPath: e.path,
    });
  });
  return vips;
}

/** Node that holds each VIP when `down` nodes are down (undefined: nobody can). */
export function mastersWith(vips: readonly PlannedVip[], down: ReadonlySet<string>): Map<string, string | undefined> {
  return new Map(vips.map((v) => [v.key, v.order.find((n) => !down.has(n))]));
}
