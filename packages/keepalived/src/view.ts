// Every decision about a node's keepalived files, as typed data; the templates only loop over it.
import { type ClusterPlan, generatedMarker, InternalError, type PlannedNode, type PlannedVip } from "@clusterspec/core";
import { keepalivedComment } from "./escape.js";

export const KEEPALIVED_DIR = "/etc/keepalived";
export const AUTH_FILE = `${KEEPALIVED_DIR}/auth.conf`;
export const CHECK_SCRIPT = `${KEEPALIVED_DIR}/check-apiserver.sh`;
export const CHECK_SCRIPT_NAME = "chk_apiserver";
/** The cluster CA kubeadm writes on every control-plane node. */
export const KUBERNETES_CA = "/etc/kubernetes/pki/ca.crt";

export interface HealthCheckView {
  readonly comment: string;
  readonly name: string;
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
  readonly priority: number;
  readonly advertInt: number;
  readonly nopreempt: boolean;
  readonly auth: { readonly type: "AH" | "PASS"; readonly include: string } | undefined;
  readonly unicast: { readonly src: string; readonly peers: readonly string[] } | undefined;
  /** `10.118.12.100/24` */
  readonly vip: string;
  readonly trackScript: string | undefined;
  readonly notify: readonly {
    readonly keyword: "notify_master" | "notify_backup" | "notify_fault";
    readonly path: string;
  }[];
}

export interface KeepalivedView {
  readonly header: string;
  readonly routerId: string;
  readonly scriptUser: string;
  readonly healthCheck: HealthCheckView | undefined;
  readonly instances: readonly InstanceView[];
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

/** `VI_control_plane`, `VI_external_0`: stable because a VIP's identity is its place in the spec. */
export function instanceName(vip: PlannedVip): string {
  return vip.id.kind === "control-plane" ? "VI_control_plane" : `VI_external_${vip.id.index}`;
}

/** What every node's files need from the plan, built once per plan: O(V·R) instead of a scan per node. */
interface VrrpIndex {
  /** Node name → the VIPs it holds an instance for (plan order) with its rank in each. */
  readonly byNode: ReadonlyMap<string, readonly { readonly vip: PlannedVip; readonly rank: number }[]>;
  readonly nodes: ReadonlyMap<string, PlannedNode>;
  /** What every node's instance of a VIP shares, worked out once per VIP. */
  readonly shared: ReadonlyMap<PlannedVip, { readonly comment: string; readonly name: string; readonly vip: string }>;
}

const indexes = new WeakMap<ClusterPlan, VrrpIndex>();

function vrrpIndex(plan: ClusterPlan): VrrpIndex {
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
    plan.vips.map((vip) => [
      vip,
      {
        comment: keepalivedComment(
          `${vip.kind === "control-plane" ? "control-plane VIP" : "external VIP"} ${vip.address}: ${describeOrder(vip)}`,
        ),
        name: instanceName(vip),
        vip: `${vip.address}/${vip.prefixLength}`,
      },
    ]),
  );
  const index = { byNode, nodes: new Map(plan.nodes.map((n) => [n.name, n])), shared };
  indexes.set(plan, index);
  return index;
}

/** VIPs a node holds an instance for, in plan order (control plane first). */
export function vipsOf(plan: ClusterPlan, node: string): PlannedVip[] {
  return (vrrpIndex(plan).byNode.get(node) ?? []).map((x) => x.vip);
}

function addressOn(index: VrrpIndex, nodeName: string, iface: string): string {
  const address = index.nodes.get(nodeName)?.interfaces.find((f) => f.name === iface)?.address;
  if (address === undefined) throw new InternalError(`node ${nodeName} has no address on ${iface} for unicast VRRP`);
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

export function toKeepalivedView(plan: ClusterPlan, node: PlannedNode): KeepalivedView {
  const vrrp = plan.vrrp;
  const hc = vrrp.healthCheck;
  const index = vrrpIndex(plan);
  const held = index.byNode.get(node.name) ?? [];
  const hasControlPlane = held.some((h) => h.vip.kind === "control-plane");
  const notify = vrrp.notify.map((n) => ({ keyword: `notify_${n.on}` as const, path: n.script }));
  const auth = vrrp.auth && { type: vrrp.auth.type, include: AUTH_FILE };
  const instances = held.map(({ vip, rank }): InstanceView => {
    const priority = vip.priorities[rank];
    if (priority === undefined) throw new InternalError(`no priority for ${node.name} on ${vip.key}`);
    // Peers only for unicast: with multicast they would cost O(R) per instance for nothing.
    const peers = vrrp.unicast
      ? vip.order.filter((n) => n !== node.name).map((n) => addressOn(index, n, vip.interface))
      : [];
    const same = index.shared.get(vip);
    if (!same) throw new InternalError(`${vip.key} is not in the plan`);
    return {
      comment: same.comment,
      name: same.name,
      state: vrrp.initialState,
      iface: vip.interface,
      vrid: vip.vrid,
      priority,
      advertInt: vrrp.advertInterval,
      nopreempt: vrrp.nopreempt,
      auth,
      unicast:
        vrrp.unicast && peers.length > 0 ? { src: addressOn(index, node.name, vip.interface), peers } : undefined,
      vip: same.vip,
      trackScript: vip.kind === "control-plane" ? CHECK_SCRIPT_NAME : undefined,
      notify,
    };
  });
  const weight = hc.weight;
  return {
    header: keepalivedComment(generatedMarker(plan)),
    routerId: node.name,
    scriptUser: vrrp.scriptUser,
    healthCheck: hasControlPlane
      ? {
          comment: keepalivedComment(
            weight === 0
              ? "kube-apiserver /livez on this node; on failure the control-plane instance goes to FAULT"
              : `kube-apiserver /livez on this node; on failure the priority drops by ${-weight}, below every other node`,
          ),
          name: CHECK_SCRIPT_NAME,
          path: CHECK_SCRIPT,
          interval: hc.interval,
          timeout: hc.timeout + 1,
          fall: hc.fall,
          rise: hc.rise,
          weight,
        }
      : undefined,
    instances,
  };
}

export function toCheckScriptView(plan: ClusterPlan, node: PlannedNode): CheckScriptView {
  const host = node.internalAddress.includes(":") ? `[${node.internalAddress}]` : node.internalAddress;
  return {
    header: keepalivedComment(generatedMarker(plan)),
    maxTime: plan.vrrp.healthCheck.timeout,
    caFile: KUBERNETES_CA,
    url: `https://${host}:${plan.controlPlane.port}/livez`,
  };
}

export function toAuthView(plan: ClusterPlan): AuthView | undefined {
  const secret = plan.secrets.vrrpPassword;
  if (!plan.vrrp.auth) return undefined;
  if (!secret) throw new InternalError("VRRP authentication without a resolved password");
  return { header: keepalivedComment(generatedMarker(plan)), password: secret.value };
}
