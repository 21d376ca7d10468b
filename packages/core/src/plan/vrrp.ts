// The VRRP planner: the interfaces that carry VIPs, every VIP with its VRID and each node's priority for it,
// the control-plane endpoint on its VIP, and the keepalived settings common to every instance.

import { clusterFamilies } from "../facts/families.js";
import type { Identities } from "../facts/identities.js";
import { controlPlaneInterface, externalVipEntries, externalVipInterface } from "../facts/spec.js";
import {
  allocateVrids,
  carriedOrders,
  DEFAULT_CHECK_WEIGHT,
  type PreviousOrders,
  preemptDelayOf,
  prioritiesFrom,
  type VipId,
  type VipKey,
  vipKey,
} from "../facts/vrrp.js";
import { hostPart, type IpFamily, ipFamily, parseCidr } from "../ip.js";
import { InternalError } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import { type NodeRoles, rolesOf } from "./nodes.js";
import type { ControlPlanePlan, NetworkPlan, PlannedVip, VipInterfaces, VrrpPlan } from "./types.js";

export type { PlannedVip, VipInterfaces, VipKind } from "./types.js";

export function vipInterfacesOf(spec: ClusterSpec): VipInterfaces {
  return {
    controlPlane: controlPlaneInterface(spec),
    external: spec.externalVips ? externalVipInterface(spec) : undefined,
  };
}

/**
 * Every VIP with its VRID and priority order. `previous` is the orders the last generated tree carries
 * (identities.json's `vips`): without it the orders are positional, with it they are carried forward
 * (`carriedOrders`), so a node's place does not depend on its position in `nodes`.
 */
export function planVips(
  spec: ClusterSpec,
  interfaces: VipInterfaces = vipInterfacesOf(spec),
  roles: NodeRoles = rolesOf(spec),
  previous?: PreviousOrders,
): PlannedVip[] {
  const { vrids } = allocateVrids(spec, interfaces);
  const base = spec.vrrp.basePriority;
  const vrid = (id: VipId): number => {
    const allocated = vrids.get(vipKey(id));
    if (allocated === undefined) throw new InternalError(`no VRID for ${vipKey(id)}: planVips needs a validated spec`);
    return allocated;
  };
  const cpNodes = roles.controlPlanes;
  const cp = parseCidr(spec.controlPlane.vip);
  const cpAddress = hostPart(spec.controlPlane.vip);
  const cpOrder = carriedOrders(cpNodes, [cpAddress], cpNodes.length, previous)[0] ?? [];
  const vips: PlannedVip[] = [
    {
      id: { kind: "control-plane" },
      key: "control-plane",
      kind: "control-plane",
      address: cpAddress,
      prefixLength: cp.prefixLength,
      interface: interfaces.controlPlane ?? "",
      vrid: vrid({ kind: "control-plane" }),
      order: cpOrder,
      priorities: prioritiesFrom(base, cpOrder.length),
      specPath: ["controlPlane", "vip"],
      ...(spec.controlPlane.vip6 === undefined
        ? {}
        : {
            pair6: {
              address: hostPart(spec.controlPlane.vip6),
              prefixLength: parseCidr(spec.controlPlane.vip6).prefixLength,
              specPath: ["controlPlane", "vip6"],
            },
          }),
    },
  ];
  const { carriers } = roles;
  const entries = externalVipEntries(spec);
  if (carriers.length === 0) return vips;
  const addresses = entries.map((e) => hostPart(e.address));
  const replicas = spec.externalVips?.replicas ?? carriers.length;
  const orders = carriedOrders(carriers, addresses, replicas, previous);
  entries.forEach((e, i) => {
    const order = orders[i] ?? [];
    const id: VipId = { kind: "external", address: e.address };
    vips.push({
      id,
      key: vipKey(id),
      kind: "external",
      address: addresses[i] ?? "",
      prefixLength: e.address.includes(":") ? 128 : 32,
      interface: interfaces.external ?? "",
      vrid: vrid(id),
      order,
      priorities: prioritiesFrom(base, order.length),
      specPath: e.path,
      ...(e.address6 === undefined || e.path6 === undefined
        ? {}
        : { pair6: { address: hostPart(e.address6), prefixLength: 128, specPath: e.path6 } }),
    });
  });
  return vips;
}

/** The API server endpoint: the control-plane VIP (`vips[0]`) and port, or `controlPlane.dnsName` when set. */
export function planControlPlane(spec: ClusterSpec, vips: readonly PlannedVip[]): ControlPlanePlan {
  const vip = vips[0];
  if (vip?.kind !== "control-plane") throw new InternalError("no control-plane VIP");
  // controlPlaneEndpoint in the cluster's primary family: the IPv6 half of a dual-stack pair when IPv6 is primary.
  const host = vip.pair6 && clusterFamilies(spec)[0] === 6 ? vip.pair6.address : vip.address;
  const port = spec.controlPlane.port;
  const dnsName = spec.controlPlane.dnsName;
  const vipEndpoint = `${ipFamily(host) === 6 ? `[${host}]` : host}:${port}`;
  return {
    host,
    port,
    endpoint: dnsName === undefined ? vipEndpoint : `${dnsName}:${port}`,
    vipEndpoint,
    vip,
    dnsName,
  };
}

/** The uplink gateway the external VIPs' replies leave through: their segment's `uplink.gateway`. */
function externalUplink(
  network: NetworkPlan,
  interfaces: VipInterfaces,
): { gateway: string; interface: string } | undefined {
  const seg = network.segments.find((s) => s.interface === interfaces.external);
  return seg?.uplink && { gateway: seg.uplink.gateway, interface: seg.interface };
}

export function planVrrp(
  spec: ClusterSpec,
  parts: {
    readonly network: NetworkPlan;
    readonly vipInterfaces: VipInterfaces;
    readonly roles: NodeRoles;
  },
): VrrpPlan {
  const v = spec.vrrp;
  const hc = v.healthCheck;
  const rc = v.readinessCheck;
  const readiness = {
    interval: rc.interval,
    timeout: rc.timeout,
    fall: rc.fall,
    rise: rc.rise,
    weight: rc.weight ?? DEFAULT_CHECK_WEIGHT,
  };
  const uplink = v.uplinkCheck ? externalUplink(parts.network, parts.vipInterfaces) : undefined;
  return {
    auth: v.auth && { type: v.auth.type },
    advertInterval: v.advertInterval,
    initialState: v.initialState,
    nopreempt: v.nopreempt,
    preemptDelay: preemptDelayOf(spec),
    garpRefresh: v.garpRefresh,
    unicast: v.unicast,
    scriptUser: v.scriptUser,
    healthCheck: {
      interval: hc.interval,
      timeout: hc.timeout,
      fall: hc.fall,
      rise: hc.rise,
      weight: hc.weight ?? DEFAULT_CHECK_WEIGHT,
    },
    readinessCheck: spec.externalVips && rc.enabled ? readiness : undefined,
    uplinkCheck: uplink && { ...readiness, ...uplink },
    notify: (["master", "backup", "fault"] as const).flatMap((on) => {
      const script = v.notify?.[on];
      return script === undefined ? [] : [{ on, script }];
    }),
  };
}

/** Every VRRP instance of a VIP: its own address, and the IPv6 half of a dual-stack pair (same VRID and order). */
export function instanceAddresses(vip: PlannedVip): { readonly address: string; readonly prefixLength: number }[] {
  return [{ address: vip.address, prefixLength: vip.prefixLength }, ...(vip.pair6 ? [vip.pair6] : [])];
}

/** The address families of a VIP's instances: a dual-stack pair holds its VRID in both (VRIDs are per family). */
export function instanceFamilies(vip: PlannedVip): IpFamily[] {
  return instanceAddresses(vip).map((a) => ipFamily(a.address));
}

/** `10.118.11.20`, or a dual-stack pair's two addresses: `10.118.11.20 + fd00:118:11::20` (PLAN.md, simulate). */
export function vipLabel(vip: PlannedVip, withPrefix = false): string {
  return instanceAddresses(vip)
    .map((a) => (withPrefix ? `${a.address}/${a.prefixLength}` : a.address))
    .join(" + ");
}

/** The identities.json a tree carries: every VIP's order after this run, by address (control-plane VIP included). */
const carrierSets = new WeakMap<readonly PlannedVip[], ReadonlySet<string>>();

/**
 * The nodes in any of the VIPs' priority orders (every node that runs keepalived), built once per VIP list: on
 * 300 × 254 the orders hold 65,000 names, and PLAN.md's sections and the failover model each asked.
 */
export function vipCarriers(vips: readonly PlannedVip[]): ReadonlySet<string> {
  let set = carrierSets.get(vips);
  if (set === undefined) {
    const names = new Set<string>();
    // indexed: without the optimizing compiler a for…of allocates per element
    for (let v = 0; v < vips.length; v++) {
      const order = (vips[v] as PlannedVip).order;
      for (let r = 0; r < order.length; r++) names.add(order[r] as string);
    }
    set = names;
    carrierSets.set(vips, set);
  }
  return set;
}

export function identitiesOf(vips: readonly PlannedVip[]): Identities {
  return { schemaVersion: 1, vips: Object.fromEntries(vips.map((v) => [v.address, [...v.order]])) };
}

/** Node that holds each VIP when `down` nodes are down (undefined: nobody can). */
export function mastersWith(vips: readonly PlannedVip[], down: ReadonlySet<string>): Map<VipKey, string | undefined> {
  return new Map(vips.map((v) => [v.key, v.order.find((n) => !down.has(n))]));
}
