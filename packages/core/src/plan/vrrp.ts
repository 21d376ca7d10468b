// The planned VRRP instances: every VIP with its VRID and each node's priority for it.

import { controlPlaneInterface, externalVipEntries, externalVipInterface, isControlPlane } from "../facts/spec.js";
import {
  allocateVrids,
  prioritiesFrom,
  priorityOrders,
  replicaOrders,
  type VipId,
  type VipKey,
  vipKey,
} from "../facts/vrrp.js";
import { hostPart, parseCidr } from "../ip.js";
import { InternalError, type IssuePath } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";

export type VipKind = "control-plane" | "external";

export interface PlannedVip {
  readonly id: VipId;
  /** `vipKey(id)`: `control-plane`, `external-0`, … */
  readonly key: VipKey;
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
  const vrid = (id: VipId): number => {
    const allocated = vrids.get(vipKey(id));
    if (allocated === undefined) throw new InternalError(`no VRID for ${vipKey(id)}: planVips needs a validated spec`);
    return allocated;
  };
  const cpNodes = spec.nodes.filter(isControlPlane).map((n) => n.name);
  const cp = parseCidr(spec.controlPlane.vip);
  const cpOrder = (priorityOrders(cpNodes.length, 1)[0] ?? []).map((i) => cpNodes[i] ?? "");
  const vips: PlannedVip[] = [
    {
      id: { kind: "control-plane" },
      key: "control-plane",
      kind: "control-plane",
      address: hostPart(spec.controlPlane.vip),
      prefixLength: cp.prefixLength,
      interface: controlPlaneInterface(spec) ?? "",
      vrid: vrid({ kind: "control-plane" }),
      order: cpOrder,
      priorities: prioritiesFrom(base, cpOrder.length),
      specPath: ["controlPlane", "vip"],
    },
  ];
  const carriers = spec.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
  const entries = externalVipEntries(spec);
  if (carriers.length === 0) return vips;
  const orders = replicaOrders(carriers.length, entries.length, spec.externalVips?.replicas ?? carriers.length);
  entries.forEach((e, i) => {
    const order = (orders[i] ?? []).map((j) => carriers[j] ?? "");
    const id: VipId = { kind: "external", index: i };
    vips.push({
      id,
      key: vipKey(id),
      kind: "external",
      address: hostPart(e.address),
      prefixLength: e.address.includes(":") ? 128 : 32,
      interface: externalVipInterface(spec) ?? "",
      vrid: vrid(id),
      order,
      priorities: prioritiesFrom(base, order.length),
      specPath: e.path,
    });
  });
  return vips;
}

/** Node that holds each VIP when `down` nodes are down (undefined: nobody can). */
export function mastersWith(vips: readonly PlannedVip[], down: ReadonlySet<string>): Map<VipKey, string | undefined> {
  return new Map(vips.map((v) => [v.key, v.order.find((n) => !down.has(n))]));
}
