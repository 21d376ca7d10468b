// Every decision about a node's keepalived files, as typed data; the templates only loop over it.
import {
  type ClusterPlan,
  canonicalIp,
  generatedMarker,
  InternalError,
  ipFamily,
  type PlannedNode,
  type PlannedVip,
  preemptDelayFor,
  vipCarriers,
} from "@clusterspec/core";
import { keepalivedComment } from "./escape.js";

export const KEEPALIVED_DIR = "/etc/keepalived";
export const AUTH_FILE = `${KEEPALIVED_DIR}/auth.conf`;
export const CHECK_SCRIPT = `${KEEPALIVED_DIR}/check-apiserver.sh`;
export const CHECK_SCRIPT_NAME = "chk_apiserver";
/** A dual-stack control-plane VIP: the same check against the node's IPv6 address, the family its IPv6 half guards. */
export const CHECK_SCRIPT6 = `${KEEPALIVED_DIR}/check-apiserver6.sh`;
export const CHECK_SCRIPT6_NAME = "chk_apiserver6";
export const READINESS_SCRIPT = `${KEEPALIVED_DIR}/check-cilium.sh`;
export const READINESS_SCRIPT_NAME = "chk_cilium";
export const UPLINK_SCRIPT = `${KEEPALIVED_DIR}/check-uplink.sh`;
export const UPLINK_SCRIPT_NAME = "chk_uplink";
/** The Cilium agent's health API (Helm value `healthPort`, 9879 in Cilium 1.19 and 1.20), on the host network. */
export const CILIUM_HEALTH_PORT = 9879;
/** OpenRC reads this before /etc/init.d/keepalived: its start_pre refuses to start on a config error. */
export const OPENRC_CONF = "/etc/conf.d/keepalived";
/** The cluster CA kubeadm writes on every control-plane node. */
export const KUBERNETES_CA = "/etc/kubernetes/pki/ca.crt";

export interface HealthCheckView {
  readonly comment: string;
  readonly name: string;
  /** Called directly (no /bin/sh): enable_script_security then checks the script file itself. */
  readonly path: string;
  readonly interval: number;
  /** keepalived's own limit: one second above curl's, so curl reports the timeout itself. */
  readonly timeout: number;
  readonly fall: number;
  readonly rise: number;
  readonly weight: number;
}

export interface InstanceView {
  readonly comment: string;
  readonly name: string;
  readonly state: "BACKUP" | "MASTER";
  readonly iface: string;
  readonly vrid: number;
  /**
   * 3 for an IPv6 VIP, written out: VRRP over IPv6 exists only as version 3 (RFC 5798), and keepalived switches an
   * IPv6 instance to it with a warning otherwise (the per-instance `version` keyword, keepalived vrrp_parser.c
   * `install_keyword("version", &vrrp_version_handler)`). Undefined: keepalived's default, 2, for IPv4.
   */
  readonly version: 3 | undefined;
  readonly priority: number;
  readonly advertInt: number;
  readonly nopreempt: boolean;
  /** preempt_delay seconds, or undefined when none is written. */
  readonly preemptDelay: number | undefined;
  readonly auth: { readonly type: "AH" | "PASS"; readonly include: string } | undefined;
  readonly unicast: { readonly src: string; readonly peers: readonly string[] } | undefined;
  /** `10.118.12.100/24` */
  readonly vip: string;
  readonly trackScripts: readonly string[];
  readonly notify: readonly {
    readonly keyword: "notify_master" | "notify_backup" | "notify_fault";
    readonly path: string;
  }[];
}

/**
 * The two instances of a dual-stack VIP pair, kept together. keepalived 2.2.7 moves a sync group's members as one:
 * a member going BACKUP or FAULT takes the others with it (vrrp_sync.c). Both halves track the same scripts with the
 * same weights and carry the same priority, so their elections agree anyway; `sync_group_tracking_weight` keeps the
 * weights working, which keepalived otherwise ignores in a sync group ("ignoring tracked script … with weights due
 * to SYNC group", vrrp.c), the behaviour it guards against being members with differing weights, which a pair never has.
 */
export interface SyncGroupView {
  readonly comment: string;
  readonly name: string;
  readonly members: readonly string[];
}

export interface KeepalivedView {
  readonly header: string;
  readonly routerId: string;
  readonly scriptUser: string;
  /** vrrp_garp_master_refresh seconds, or undefined when off. */
  readonly garpRefresh: number | undefined;
  /**
   * With AH: `vrrp_lower_prio_no_advert`, so a master keeps its own advert timer whatever it reads. keepalived
   * 2.2.7 otherwise restarts a master's timer on every packet it reads, even one it drops as an AH replay
   * (vrrp_scheduler.c, vrrp_dispatcher_read): after a healed split, the master whose replay counter is ahead then
   * stays silent while the other one advertises, and both hold the VIP until the other's sequence numbers catch
   * up, one per advert interval (as long as that side was silent during the split). Advertising on its own timer,
   * the master's next advert is above the other's counter and ends the clash.
   */
  readonly lowerPrioNoAdvert: string | undefined;
  /** The vrrp_script blocks this node's instances track. */
  readonly checks: readonly HealthCheckView[];
  readonly instances: readonly InstanceView[];
  readonly syncGroups: readonly SyncGroupView[];
}

export interface ReadinessScriptView {
  readonly header: string;
  readonly maxTime: number;
  readonly url: string;
}

export interface UplinkScriptView {
  readonly header: string;
  readonly maxTime: number;
  readonly iface: string;
  readonly gateway: string;
}

export interface AuthView {
  readonly header: string;
  readonly password: string;
}

export interface CheckScriptView {
  readonly header: string;
  readonly maxTime: number;
  readonly caFile: string;
  readonly url: string;
}

/** `/etc/conf.d/keepalived`: OpenRC's start precondition that the password include is there. */
export interface OpenrcView {
  readonly header: string;
  readonly authFile: string;
  readonly message: string;
}

/**
 * `VI_control_plane`, `VI_external_10_118_11_20`: the VIP's key with `-` as `_`. Named by the address, so removing
 * or reordering other addresses renames no instance.
 */
export function instanceName(vip: PlannedVip): string {
  return `VI_${vip.key.replace(/-/g, "_")}`;
}

/**
 * The IPv6 half of a dual-stack pair: `VI_external_fd00_118_11__20` (its own address, as every external instance),
 * `VI_control_plane6` for the control-plane VIP's.
 */
export function instanceName6(vip: PlannedVip): string | undefined {
  if (!vip.pair6) return undefined;
  return vip.kind === "control-plane"
    ? "VI_control_plane6"
    : `VI_external_${canonicalIp(vip.pair6.address).replace(/[.:]/g, "_")}`;
}

/** `SG_control_plane`, `SG_external_10_118_11_20`: the sync group of a pair, named by its IPv4 half. */
export function syncGroupName(vip: PlannedVip): string {
  return `SG_${vip.key.replace(/-/g, "_")}`;
}

/**
 * What of the plan keepalived's files read: the nodes that hold a VIP (no other node has a file here), the VIPs and
 * the VRRP settings, the control-plane endpoint, the Cilium health port, the VRRP password and the spec's name.
 * Every generator here takes this, never the plan: appending a worker leaves keepalived's inputs, and so its files,
 * as they were (ModuleOutputs reuses them in a change plan).
 */
export type KeepalivedInputs = Pick<ClusterPlan, "sourceName" | "vips" | "vrrp" | "controlPlane" | "nodes"> & {
  readonly cilium: Pick<ClusterPlan["cilium"], "values">;
  readonly secrets: Pick<ClusterPlan["secrets"], "vrrpPassword">;
};

export function keepalivedInputs(plan: ClusterPlan): KeepalivedInputs {
  const holders = vipCarriers(plan.vips);
  return {
    sourceName: plan.sourceName,
    vips: plan.vips,
    vrrp: plan.vrrp,
    controlPlane: plan.controlPlane,
    nodes: plan.nodes.filter((n) => holders.has(n.name)),
    cilium: { values: plan.cilium.values },
    secrets: plan.secrets.vrrpPassword === undefined ? {} : { vrrpPassword: plan.secrets.vrrpPassword },
  };
}

/** What every node's files need from the plan, built once per plan: O(V·R) instead of a scan per node. */
interface VrrpIndex {
  /** Node name → the VIPs it holds an instance for (plan order) with its rank in each. */
  readonly byNode: ReadonlyMap<string, readonly { readonly vip: PlannedVip; readonly rank: number }[]>;
  readonly nodes: ReadonlyMap<string, PlannedNode>;
  /**
   * What every instance of a kind shares, the same objects on every node (the keepalived.conf renderer compares
   * an instance with another node's of the same VIP: identical parts cost it no more than one comparison).
   */
  readonly notify: InstanceView["notify"];
  readonly auth: InstanceView["auth"];
  readonly cpTracks: readonly string[];
  readonly externalTracks: readonly string[];
  /** Each VIP's instance (and its IPv6 half's) without unicast, by its `shared` entry: filled as nodes ask. */
  readonly multicastInstances: Map<object, InstanceView>;
  /** What every node's instance of a VIP shares, worked out once per VIP. */
  readonly shared: ReadonlyMap<
    PlannedVip,
    {
      readonly comment: string;
      readonly name: string;
      readonly vip: string;
      readonly family: 4 | 6;
      readonly pair6:
        | { readonly comment: string; readonly name: string; readonly vip: string; readonly family: 4 | 6 }
        | undefined;
    }
  >;
}

const indexes = new WeakMap<KeepalivedInputs, VrrpIndex>();

function vrrpIndex(plan: KeepalivedInputs): VrrpIndex {
  const cached = indexes.get(plan);
  if (cached) return cached;
  const byNode = new Map<string, { vip: PlannedVip; rank: number }[]>();
  for (const vip of plan.vips)
    vip.order.forEach((name, rank) => {
      const list = byNode.get(name);
      if (list) list.push({ vip, rank });
      else byNode.set(name, [{ vip, rank }]);
    });
  const shared = new Map(
    plan.vips.map((vip) => {
      const what = vip.kind === "control-plane" ? "control-plane VIP" : "external VIP";
      const pair = vip.pair6;
      const name6 = instanceName6(vip);
      return [
        vip,
        {
          comment: keepalivedComment(
            pair
              ? `${what} ${vip.address} (IPv4 half of a dual-stack pair with ${pair.address}): ${describeOrder(vip)}`
              : `${what} ${vip.address}: ${describeOrder(vip)}`,
          ),
          name: instanceName(vip),
          vip: `${vip.address}/${vip.prefixLength}`,
          family: ipFamily(vip.address),
          pair6:
            pair && name6
              ? {
                  comment: keepalivedComment(
                    `${what} ${pair.address} (IPv6 half of the pair with ${vip.address}, same VRID and order, VRRPv3)`,
                  ),
                  name: name6,
                  vip: `${pair.address}/${pair.prefixLength}`,
                  family: ipFamily(pair.address),
                }
              : undefined,
        },
      ];
    }),
  );
  const vrrp = plan.vrrp;
  const index = {
    byNode,
    nodes: new Map(plan.nodes.map((n) => [n.name, n])),
    notify: vrrp.notify.map((n) => ({ keyword: `notify_${n.on}` as const, path: n.script })),
    auth: vrrp.auth && { type: vrrp.auth.type, include: AUTH_FILE },
    cpTracks: [CHECK_SCRIPT_NAME, ...(plan.controlPlane.vip.pair6 !== undefined ? [CHECK_SCRIPT6_NAME] : [])],
    externalTracks: [
      ...(vrrp.readinessCheck ? [READINESS_SCRIPT_NAME] : []),
      ...(vrrp.uplinkCheck ? [UPLINK_SCRIPT_NAME] : []),
    ],
    shared,
    multicastInstances: new Map(),
  };
  indexes.set(plan, index);
  return index;
}

/** VIPs a node holds an instance for, in plan order (control plane first). */
export function vipsOf(plan: KeepalivedInputs, node: string): PlannedVip[] {
  return (vrrpIndex(plan).byNode.get(node) ?? []).map((x) => x.vip);
}

/** The node's address of `family` on `iface`: unicast peers are per family (an instance speaks one). */
function addressOn(index: VrrpIndex, nodeName: string, iface: string, family: 4 | 6): string {
  const f = index.nodes.get(nodeName)?.interfaces.find((x) => x.name === iface);
  const address = [f?.address, f?.address6].find((a) => a !== undefined && ipFamily(a) === family);
  if (address === undefined)
    throw new InternalError(`node ${nodeName} has no IPv${family} address on ${iface} for unicast VRRP`);
  return address;
}

/** Backups named in each instance's comment; PLAN.md has the whole order. */
export const COMMENT_BACKUPS = 2;

/** `master k8s-1 (100), backups k8s-3 (99), k8s-2 (98) and 5 more; full order in PLAN.md` */
export function describeOrder(vip: PlannedVip): string {
  const named = (r: number): string => `${vip.order[r]} (${vip.priorities[r]})`;
  const backups = vip.order.slice(1, 1 + COMMENT_BACKUPS).map((_, r) => named(r + 1));
  const more = vip.order.length - 1 - backups.length;
  const tail = backups.length === 0 ? ", no backup" : `, backup${backups.length > 1 ? "s" : ""} ${backups.join(", ")}`;
  return `master ${named(0)}${tail}${more > 0 ? ` and ${more} more` : ""}; full order in PLAN.md`;
}

/**
 * One instance of a node's file as the renderer takes it: the view every node's instance of the VIP shares (without
 * unicast; with it, this node's own) and this node's priority. 254 carriers of 254 VIPs are 65,000 instances a
 * tree: a copy of the shared view per node was most of what building the views cost.
 */
export interface NodeInstance {
  readonly shared: InstanceView;
  readonly priority: number;
}

/** A node's keepalived.conf view with its instances as NodeInstances (see toKeepalivedView for the full views). */
export type KeepalivedNodeView = Omit<KeepalivedView, "instances"> & { readonly instances: readonly NodeInstance[] };

/** The instance itself: the shared view where it carries this priority, else a copy with it. */
export const instanceView = ({ shared, priority }: NodeInstance): InstanceView =>
  shared.priority === priority ? shared : { ...shared, priority };

export function toKeepalivedView(plan: KeepalivedInputs, node: PlannedNode): KeepalivedView {
  const view = toKeepalivedNodeView(plan, node);
  return { ...view, instances: view.instances.map(instanceView) };
}

export function toKeepalivedNodeView(plan: KeepalivedInputs, node: PlannedNode): KeepalivedNodeView {
  const vrrp = plan.vrrp;
  const index = vrrpIndex(plan);
  const held = index.byNode.get(node.name) ?? [];
  const hasControlPlane = held.some((h) => h.vip.kind === "control-plane");
  const { notify, auth } = index;
  const hasExternal = held.some((h) => h.vip.kind === "external");
  const cpPair = plan.controlPlane.vip.pair6 !== undefined;
  const checks = [
    ...(hasControlPlane ? [apiserverCheck(plan)] : []),
    ...(hasControlPlane && cpPair ? [apiserverCheck6(plan)] : []),
    ...(hasExternal && vrrp.readinessCheck ? [readinessCheck(plan, vrrp.readinessCheck)] : []),
    ...(hasExternal && vrrp.uplinkCheck ? [uplinkCheck(plan, vrrp.uplinkCheck)] : []),
  ];
  // Both halves of a dual-stack control-plane VIP track both families' checks: each family's check guards its half,
  // and equal tracking keeps the pair's priorities, so its elections, identical.
  const cpTracks = hasControlPlane ? index.cpTracks : [];
  const externalTracks = index.externalTracks;
  type Shared = { readonly comment: string; readonly name: string; readonly vip: string; readonly family: 4 | 6 };
  const instance = (vip: PlannedVip, shared: Shared, priority: number): InstanceView => {
    const family = shared.family;
    // Peers only for unicast: with multicast they would cost O(R) per instance for nothing.
    const peers = vrrp.unicast
      ? vip.order.filter((n) => n !== node.name).map((n) => addressOn(index, n, vip.interface, family))
      : [];
    return {
      comment: shared.comment,
      name: shared.name,
      state: vrrp.initialState,
      iface: vip.interface,
      vrid: vip.vrid,
      version: family === 6 ? 3 : undefined,
      priority,
      advertInt: vrrp.advertInterval,
      nopreempt: vrrp.nopreempt,
      preemptDelay: preemptDelayFor(plan, vip.kind) || undefined,
      auth,
      unicast:
        vrrp.unicast && peers.length > 0
          ? { src: addressOn(index, node.name, vip.interface, family), peers }
          : undefined,
      vip: shared.vip,
      trackScripts: vip.kind === "control-plane" ? cpTracks : externalTracks,
      notify,
    };
  };
  // Without unicast nothing in an instance but its priority is the node's: it is worked out once per VIP and plan
  // (a node holding a control-plane VIP tracks cpTracks by definition), and each node has it with its own priority.
  const ofNode = (vip: PlannedVip, shared: Shared, priority: number): NodeInstance => {
    if (vrrp.unicast) return { shared: instance(vip, shared, priority), priority };
    let base = index.multicastInstances.get(shared);
    if (base === undefined) {
      base = instance(vip, shared, priority);
      index.multicastInstances.set(shared, base);
    }
    return { shared: base, priority };
  };
  const instances: NodeInstance[] = [];
  const syncGroups: SyncGroupView[] = [];
  // indexed: without the optimizing compiler a for…of allocates per element (65,000 instances a 300 × 254 tree)
  for (let k = 0; k < held.length; k++) {
    const { vip, rank } = held[k] as { vip: PlannedVip; rank: number };
    const priority = vip.priorities[rank];
    if (priority === undefined) throw new InternalError(`no priority for ${node.name} on ${vip.key}`);
    const same = index.shared.get(vip);
    if (!same) throw new InternalError(`${vip.key} is not in the plan`);
    instances.push(ofNode(vip, same, priority));
    if (!same.pair6 || !vip.pair6) continue;
    instances.push(ofNode(vip, same.pair6, priority));
    syncGroups.push({
      comment: keepalivedComment(
        `the dual-stack pair ${vip.address} and ${vip.pair6.address} moves as one; both halves track the same checks with the same weights, which sync_group_tracking_weight keeps in force`,
      ),
      name: syncGroupName(vip),
      members: [same.name, same.pair6.name],
    });
  }
  return {
    header: keepalivedComment(generatedMarker(plan)),
    routerId: node.name,
    scriptUser: vrrp.scriptUser,
    garpRefresh: vrrp.garpRefresh > 0 ? vrrp.garpRefresh : undefined,
    lowerPrioNoAdvert:
      vrrp.auth?.type === "AH"
        ? keepalivedComment(
            "AH: a master keeps its own advert timer, so after a healed split its next advert ends a clash the replay counters would stretch",
          )
        : undefined,
    checks,
    instances,
    syncGroups,
  };
}

const onFailure = (weight: number, what: string): string =>
  weight === 0
    ? `on failure the ${what} go to FAULT`
    : `on failure the priority drops by ${-weight} (keepalived stops at 1), below every healthy node`;

/**
 * What keepalived 2.2.7 really does when it starts: `init_fail` is ignored for a tracked script (alloc_track_script
 * resets the script's start state, keepalived/vrrp/vrrp_track.c:277), so every check starts in the unknown state,
 * counted as passing, and one good run is enough (vrrp_init_script, vrrp_scheduler.c:360). It runs at once; its first
 * failure lowers the priority, and with weight 0 no instance leaves INIT before that first result
 * (initialise_track_script_state, vrrp_track.c:662). With a negative weight what keeps a restarting node off its
 * VIPs is that this first run ends (the script's own limit) before the down timer.
 */
export function startBound(timeout: number, weight: number, advertInterval: number): string {
  const down = 3 * advertInterval;
  if (weight === 0)
    return "keepalived runs it at start and keeps the instance in INIT until its first result (it ignores init_fail)";
  return timeout < down
    ? `keepalived runs it at start and counts it passing until its first result (it ignores init_fail), which the ${timeout}s limit brings before the ${down}s down timer`
    : `keepalived runs it at start and counts it passing until its first result (it ignores init_fail), which the ${timeout}s limit may bring only after the ${down}s down timer`;
}

function checkView(
  name: string,
  path: string,
  comment: string,
  c: { interval: number; timeout: number; fall: number; rise: number; weight: number },
): HealthCheckView {
  return {
    comment: keepalivedComment(comment),
    name,
    path,
    interval: c.interval,
    timeout: c.timeout + 1,
    fall: c.fall,
    rise: c.rise,
    weight: c.weight,
  };
}

function apiserverCheck(plan: KeepalivedInputs): HealthCheckView {
  const hc = plan.vrrp.healthCheck;
  return checkView(
    CHECK_SCRIPT_NAME,
    CHECK_SCRIPT,
    `kube-apiserver /readyz on this node; ${startBound(hc.timeout, hc.weight, plan.vrrp.advertInterval)}; ${onFailure(hc.weight, "control-plane instance")}`,
    hc,
  );
}

function apiserverCheck6(plan: KeepalivedInputs): HealthCheckView {
  const hc = plan.vrrp.healthCheck;
  return checkView(
    CHECK_SCRIPT6_NAME,
    CHECK_SCRIPT6,
    `kube-apiserver /readyz on this node's IPv6 address (the family of the control-plane VIP's IPv6 half); ${startBound(hc.timeout, hc.weight, plan.vrrp.advertInterval)}; ${onFailure(hc.weight, "control-plane instances")}`,
    hc,
  );
}

function readinessCheck(
  plan: KeepalivedInputs,
  c: NonNullable<ClusterPlan["vrrp"]["readinessCheck"]>,
): HealthCheckView {
  return checkView(
    READINESS_SCRIPT_NAME,
    READINESS_SCRIPT,
    `Cilium agent health on this node; ${startBound(c.timeout, c.weight, plan.vrrp.advertInterval)}; ${onFailure(c.weight, "external VIP instances")}`,
    c,
  );
}

function uplinkCheck(plan: KeepalivedInputs, c: NonNullable<ClusterPlan["vrrp"]["uplinkCheck"]>): HealthCheckView {
  return checkView(
    UPLINK_SCRIPT_NAME,
    UPLINK_SCRIPT,
    `uplink gateway ${c.gateway} answers a ping; ${startBound(c.timeout, c.weight, plan.vrrp.advertInterval)}; ${onFailure(c.weight, "external VIP instances")}`,
    c,
  );
}

/** The Cilium agent's health port: `cilium.values.healthPort` when set, else Cilium's default. */
export function ciliumHealthPort(plan: KeepalivedInputs): number {
  const port = plan.cilium.values.healthPort;
  return typeof port === "number" && Number.isInteger(port) ? port : CILIUM_HEALTH_PORT;
}

export function toReadinessScriptView(plan: KeepalivedInputs): ReadinessScriptView {
  const c = plan.vrrp.readinessCheck;
  if (!c) throw new InternalError("no readiness check in the plan");
  return {
    header: keepalivedComment(generatedMarker(plan)),
    maxTime: c.timeout,
    url: `http://127.0.0.1:${ciliumHealthPort(plan)}/healthz`,
  };
}

export function toUplinkScriptView(plan: KeepalivedInputs): UplinkScriptView {
  const c = plan.vrrp.uplinkCheck;
  if (!c) throw new InternalError("no uplink check in the plan");
  return {
    header: keepalivedComment(generatedMarker(plan)),
    maxTime: c.timeout,
    iface: c.interface,
    gateway: c.gateway,
  };
}

/** Only with authentication: then a missing or empty password include stops keepalived from starting. */
export function toOpenrcView(plan: KeepalivedInputs): OpenrcView | undefined {
  if (!plan.vrrp.auth) return undefined;
  return {
    header: keepalivedComment(generatedMarker(plan)),
    authFile: AUTH_FILE,
    message: `${AUTH_FILE} is missing, unreadable or has no auth_pass: keepalived would not use the VRRP password of its peers`,
  };
}

/**
 * The apiserver check asks the node's address of the family it guards: its primary internal address, or (`family`
 * 6, the IPv6 half of a dual-stack control-plane VIP) its IPv6 one.
 */
export function toCheckScriptView(plan: KeepalivedInputs, node: PlannedNode, family?: 6): CheckScriptView {
  const address =
    family === undefined ? node.internalAddress : node.internalAddresses.find((a) => ipFamily(a) === family);
  if (address === undefined) throw new InternalError(`node ${node.name} has no IPv6 internal address`);
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    header: keepalivedComment(generatedMarker(plan)),
    maxTime: plan.vrrp.healthCheck.timeout,
    caFile: KUBERNETES_CA,
    url: `https://${host}:${plan.controlPlane.port}/readyz`,
  };
}

export function toAuthView(plan: KeepalivedInputs): AuthView | undefined {
  const secret = plan.secrets.vrrpPassword;
  if (!plan.vrrp.auth) return undefined;
  if (!secret) throw new InternalError("VRRP authentication without a resolved password");
  return { header: keepalivedComment(generatedMarker(plan)), password: secret.value };
}
