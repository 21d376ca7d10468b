// Who holds each VIP while a keepalived rollout runs, kept incrementally. The planner used to build a plan of the
// live configs (every VIP × every node) and run core's simulateFailover for every step and every candidate step:
// O(steps × candidates × VIPs × nodes), some 30 s on 300 nodes × 254 VIPs. A step changes only the stepping node's
// instances, so only the VIPs that node has an instance for (in either config) can change holder, and for most of
// them the answer follows from the current holder alone (see holderAfter). The rules are simulateFailover's at rest
// plus the planner's "a master keeps a VIP against an equal priority" (keepalived 2.2.7 preempts only from a
// strictly higher advert); ties between masters go to core's own election (holdingOf), so the tie-break is one code.
import { AT_REST, type ClusterPlan, holdingOf, type PlannedVip } from "@clusterspec/core";

export type Live = "old" | "new" | "down";

/** VIP address → node → priority in the plan, built once per plan. */
const priorityIndex = new WeakMap<ClusterPlan, Map<string, Map<string, number>>>();
export function prioritiesByAddress(plan: ClusterPlan): Map<string, Map<string, number>> {
  let index = priorityIndex.get(plan);
  if (!index) {
    // loops, not maps of [key, value] pairs: 300 × 254 is 65,000 entries a plan
    index = new Map();
    for (const v of plan.vips) {
      const byNode = new Map<string, number>();
      for (let rank = 0; rank < v.order.length; rank++) byNode.set(v.order[rank] as string, v.priorities[rank] ?? 0);
      index.set(v.address, byNode);
    }
    priorityIndex.set(plan, index);
  }
  return index;
}

/** A node's live config as a number, for the planner's arrays: what `Live` is (a node with no config is DOWN). */
export const OLD = 0;
export const NEW = 1;
export const DOWN = 2;
export type LiveCode = typeof OLD | typeof NEW | typeof DOWN;
export const liveCode = (live: Live | undefined): LiveCode => (live === "old" ? OLD : live === "new" ? NEW : DOWN);
/** No node: a VIP nobody holds, a priority no config gives. */
export const NOBODY = -1;

/**
 * Who would hold each VIP, by number: VIPs and nodes are indices (the order of `addresses()` and of the constructor's
 * `nodes`), priorities two flat arrays (VIP × node, NOBODY where a side gives none), so the planner's trials (some
 * 550 on 300 × 254, each over a node's 254 VIPs) read arrays instead of maps of maps keyed by strings. `holder` answers by
 * name, for the holders before the rollout.
 */
export class HolderModel {
  /** VIP address → the VIP as planned (the new plan's, else the old one's): kind and interface. */
  readonly vips = new Map<string, PlannedVip>();
  /** The node names, by index. */
  readonly names: readonly string[];
  private readonly addressList: readonly string[];
  private readonly nodeIndex: ReadonlyMap<string, number>;
  private readonly vipIndex: ReadonlyMap<string, number>;
  /** VIP index → the indices of the nodes that have a priority for it in either plan, in node order. */
  private readonly carriers: readonly Int32Array[];
  /** [vip × nodes + node] → the old and the new plan's priority, or NOBODY. */
  private readonly oldPriority: Int16Array;
  private readonly newPriority: Int16Array;
  private readonly nopreempt: boolean;
  /** The plan core's election reads node addresses from: the new plan's nodes, then the old plan's others. */
  private readonly electionPlan: ClusterPlan;

  /** `nodes`: every node that runs keepalived on either side, in the order the live state keeps them. */
  constructor(old: ClusterPlan, next: ClusterPlan, nodes: readonly string[]) {
    const oldPriorities = prioritiesByAddress(old);
    const newPriorities = prioritiesByAddress(next);
    this.nopreempt = next.vrrp.nopreempt === true;
    const nextNames = new Set(next.nodes.map((n) => n.name));
    this.electionPlan = { ...next, nodes: [...next.nodes, ...old.nodes.filter((n) => !nextNames.has(n.name))] };
    for (const v of old.vips) this.vips.set(v.address, v);
    for (const v of next.vips) this.vips.set(v.address, v);
    this.names = [...nodes];
    this.nodeIndex = new Map(nodes.map((n, i) => [n, i]));
    this.addressList = [...this.vips.keys()];
    this.vipIndex = new Map(this.addressList.map((a, v) => [a, v]));
    const n = nodes.length;
    this.oldPriority = new Int16Array(this.addressList.length * n).fill(NOBODY);
    this.newPriority = new Int16Array(this.addressList.length * n).fill(NOBODY);
    const carriers: Int32Array[] = [];
    for (const [v, address] of this.addressList.entries()) {
      const o = oldPriorities.get(address);
      const p = newPriorities.get(address);
      const carrying: number[] = [];
      for (let i = 0; i < n; i++) {
        const node = nodes[i] as string;
        const op = o?.get(node);
        const np = p?.get(node);
        if (op === undefined && np === undefined) continue;
        carrying.push(i);
        if (op !== undefined) this.oldPriority[v * n + i] = op;
        if (np !== undefined) this.newPriority[v * n + i] = np;
      }
      carriers.push(Int32Array.from(carrying));
    }
    this.carriers = carriers;
  }

  /** How many VIPs: the VIP indices are 0 to vipCount - 1. */
  get vipCount(): number {
    return this.addressList.length;
  }

  /** Every VIP address, old plan's first (the order the planner's holder maps keep). */
  addresses(): string[] {
    return [...this.addressList];
  }

  /** The index of a VIP address or a node name (NOBODY: not in the model). */
  vipAt(address: string): number {
    return this.vipIndex.get(address) ?? NOBODY;
  }
  nodeAt(node: string | undefined): number {
    return node === undefined ? NOBODY : (this.nodeIndex.get(node) ?? NOBODY);
  }
  addressOf(v: number): string {
    return this.addressList[v] as string;
  }
  nameOf(i: number): string | undefined {
    return i === NOBODY ? undefined : this.names[i];
  }

  /** The priority node `i`'s live config gives VIP `v`, or NOBODY (down, or no instance for it). */
  priorityAt(v: number, i: number, live: LiveCode): number {
    if (i === NOBODY || live === DOWN) return NOBODY;
    return (live === OLD ? this.oldPriority : this.newPriority)[v * this.names.length + i] as number;
  }

  /**
   * The holder once the live configs settle, from scratch in O(carriers): with nopreempt a live holder keeps the
   * VIP; else it keeps it while no live priority is above its own; else the election (highest priority, a tie to
   * the higher address).
   */
  holderAt(v: number, liveOf: (i: number) => LiveCode, before: number): number {
    const carriers = this.carriers[v];
    if (carriers === undefined) return NOBODY;
    let max = NOBODY;
    let beforePriority = NOBODY;
    let tied = 0;
    let top = NOBODY;
    for (let k = 0; k < carriers.length; k++) {
      const i = carriers[k] as number;
      const p = this.priorityAt(v, i, liveOf(i));
      if (p === NOBODY) continue;
      if (p > max) {
        max = p;
        tied = 1;
        top = i;
      } else if (p === max) tied++;
      if (i === before) beforePriority = p;
    }
    if (max === NOBODY) return NOBODY;
    if (beforePriority !== NOBODY && (this.nopreempt || beforePriority === max)) return before;
    if (tied === 1) return top;
    // Core's election over the tied masters in node order: the same tie-break simulateFailover applies.
    const names = [...carriers].filter((i) => this.priorityAt(v, i, liveOf(i)) === max).map((i) => this.names[i]);
    const vip = this.vips.get(this.addressOf(v)) as PlannedVip;
    const holder = holdingOf(
      this.electionPlan,
      { ...vip, order: names as string[], priorities: names.map(() => max) },
      AT_REST,
    ).holder;
    return this.nodeAt(holder);
  }

  holder(address: string, liveOf: (node: string) => Live | undefined, before: string | undefined): string | undefined {
    const v = this.vipAt(address);
    if (v === NOBODY) return undefined;
    return this.nameOf(this.holderAt(v, (i) => liveCode(liveOf(this.names[i] as string)), this.nodeAt(before)));
  }

  /**
   * The holder after node `i` alone changed its live config, given the holder before (which the model's invariant
   * makes a live node of top priority, or with nopreempt any live node). O(1) unless `i` held the VIP or nobody
   * did: another node's change can only leave the holder alone or, strictly above it, take the VIP.
   */
  holderAfterAt(v: number, i: number, liveOf: (i: number) => LiveCode, before: number): number {
    if (before !== NOBODY && before !== i) {
      const held = this.priorityAt(v, before, liveOf(before));
      if (held !== NOBODY) {
        if (this.nopreempt) return before;
        const p = this.priorityAt(v, i, liveOf(i));
        return p !== NOBODY && p > held ? i : before;
      }
    }
    return this.holderAt(v, liveOf, before);
  }
}
