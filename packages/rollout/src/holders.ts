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

export class HolderModel {
  /**
   * VIP address → the nodes that have a priority for it in either plan, in node order (the live map's order), with
   * their old and new priorities alongside (the full recomputation scans these, not maps).
   */
  private readonly carriers = new Map<
    string,
    { nodes: string[]; old: (number | undefined)[]; new: (number | undefined)[] }
  >();
  /** VIP address → the VIP as planned (the new plan's, else the old one's): kind and interface. */
  readonly vips = new Map<string, PlannedVip>();
  private readonly oldPriorities: Map<string, Map<string, number>>;
  private readonly newPriorities: Map<string, Map<string, number>>;
  private readonly nopreempt: boolean;
  /** The plan core's election reads node addresses from: the new plan's nodes, then the old plan's others. */
  private readonly electionPlan: ClusterPlan;

  /** `nodes`: every node that runs keepalived on either side, in the order the live state keeps them. */
  constructor(old: ClusterPlan, next: ClusterPlan, nodes: readonly string[]) {
    this.oldPriorities = prioritiesByAddress(old);
    this.newPriorities = prioritiesByAddress(next);
    this.nopreempt = next.vrrp.nopreempt === true;
    const nextNames = new Set(next.nodes.map((n) => n.name));
    this.electionPlan = { ...next, nodes: [...next.nodes, ...old.nodes.filter((n) => !nextNames.has(n.name))] };
    for (const v of old.vips) this.vips.set(v.address, v);
    for (const v of next.vips) this.vips.set(v.address, v);
    for (const address of this.vips.keys()) {
      const o = this.oldPriorities.get(address);
      const n = this.newPriorities.get(address);
      const carrying = nodes.filter((node) => o?.has(node) || n?.has(node));
      this.carriers.set(address, {
        nodes: carrying,
        old: carrying.map((node) => o?.get(node)),
        new: carrying.map((node) => n?.get(node)),
      });
    }
  }

  /** Every VIP address, old plan's first (the order the planner's holder maps keep). */
  addresses(): string[] {
    return [...this.vips.keys()];
  }

  /** The priority `node`'s live config gives the VIP, or undefined (down, or no instance for it). */
  priority(address: string, node: string, live: Live | undefined): number | undefined {
    if (live === "old") return this.oldPriorities.get(address)?.get(node);
    if (live === "new") return this.newPriorities.get(address)?.get(node);
    return undefined;
  }

  /**
   * The holder once the live configs settle, from scratch in O(carriers): with nopreempt a live holder keeps the
   * VIP; else it keeps it while no live priority is above its own; else the election (highest priority, a tie to
   * the higher address).
   */
  holder(address: string, liveOf: (node: string) => Live | undefined, before: string | undefined): string | undefined {
    const carriers = this.carriers.get(address);
    if (!carriers) return undefined;
    const live = carriers.nodes.map(liveOf);
    const priorities = live.map((l, i) => (l === "old" ? carriers.old[i] : l === "new" ? carriers.new[i] : undefined));
    let max: number | undefined;
    let beforePriority: number | undefined;
    for (let i = 0; i < priorities.length; i++) {
      const p = priorities[i];
      if (p === undefined) continue;
      if (max === undefined || p > max) max = p;
      if (carriers.nodes[i] === before) beforePriority = p;
    }
    if (max === undefined) return undefined;
    if (beforePriority !== undefined && (this.nopreempt || beforePriority === max)) return before;
    const tied = carriers.nodes.filter((_, i) => priorities[i] === max);
    if (tied.length === 1) return tied[0];
    // Core's election over the tied masters in node order: the same tie-break simulateFailover applies.
    const vip = this.vips.get(address) as PlannedVip;
    return holdingOf(this.electionPlan, { ...vip, order: tied, priorities: tied.map(() => max as number) }, AT_REST)
      .holder;
  }

  /**
   * The holder after `node` alone changed its live config, given the holder before (which the model's invariant
   * makes a live node of top priority, or with nopreempt any live node). O(1) unless `node` held the VIP or
   * nobody did: another node's change can only leave the holder alone or, strictly above it, take the VIP.
   */
  holderAfter(
    address: string,
    node: string,
    liveOf: (n: string) => Live | undefined,
    before: string | undefined,
  ): string | undefined {
    if (before !== undefined && before !== node) {
      const held = this.priority(address, before, liveOf(before));
      if (held !== undefined) {
        if (this.nopreempt) return before;
        const p = this.priority(address, node, liveOf(node));
        return p !== undefined && p > held ? node : before;
      }
    }
    return this.holder(address, liveOf, before);
  }
}
