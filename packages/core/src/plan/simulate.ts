// What keepalived does with the plan's priorities when nodes die or fail their apiserver check: who holds
// each VIP, each carrier's load, and how long a takeover takes. One model for PLAN.md, `clusterspec simulate`
// and the VRRP lab that checks it against the real daemons.
import { compareIps } from "../ip.js";
import type { ClusterPlan } from "./types.js";
import type { PlannedVip } from "./vrrp.js";

/** Nodes that are down (no keepalived, no link) and control-plane nodes whose apiserver check fails. */
export interface FailureState {
  readonly down: readonly string[];
  readonly unhealthy: readonly string[];
}

export const AT_REST: FailureState = { down: [], unhealthy: [] };

export interface VipHolding {
  readonly vip: PlannedVip;
  /** undefined: no node can hold it (all down, or all in FAULT). */
  readonly holder: string | undefined;
  /** The holder's effective priority (after the health check's weight). */
  readonly priority: number | undefined;
}

export interface NodeLoad {
  readonly node: string;
  readonly up: boolean;
  readonly healthy: boolean;
  readonly controlPlaneVip: boolean;
  /** External VIPs this node holds. */
  readonly externalVips: number;
}

export interface Simulation {
  readonly state: FailureState;
  readonly holdings: readonly VipHolding[];
  /** Every node that has a VRRP instance, in node-list order. */
  readonly loads: readonly NodeLoad[];
}

const clampPriority = (p: number): number => Math.min(254, Math.max(1, p));

/**
 * The priority a node's instance for `vip` runs at in `state`, or undefined when it cannot hold the VIP:
 * not in the VIP's order, down, or in FAULT (a failing check with weight 0). keepalived clamps to 1..254.
 */
export function effectivePriority(
  plan: ClusterPlan,
  vip: PlannedVip,
  node: string,
  state: FailureState,
): number | undefined {
  const rank = vip.order.indexOf(node);
  const base = vip.priorities[rank];
  if (rank < 0 || base === undefined || state.down.includes(node)) return undefined;
  if (vip.kind !== "control-plane" || !state.unhealthy.includes(node)) return base;
  const weight = plan.vrrp.healthCheck.weight;
  return weight === 0 ? undefined : clampPriority(base + weight);
}

function addressOn(plan: ClusterPlan, node: string, iface: string): string | undefined {
  return plan.nodes.find((n) => n.name === node)?.interfaces.find((f) => f.name === iface)?.address;
}

/** The failure state as sets, for the O(V × order) election below. */
interface StateSets {
  readonly down: ReadonlySet<string>;
  readonly unhealthy: ReadonlySet<string>;
}

/** effectivePriority for the node at `rank` of the VIP's order (no search of the order). */
function priorityAt(plan: ClusterPlan, vip: PlannedVip, rank: number, node: string, state: StateSets) {
  const base = vip.priorities[rank];
  if (base === undefined || state.down.has(node)) return undefined;
  if (vip.kind !== "control-plane" || !state.unhealthy.has(node)) return base;
  const weight = plan.vrrp.healthCheck.weight;
  return weight === 0 ? undefined : clampPriority(base + weight);
}

/** VRRP's election: the highest priority wins, a tie goes to the higher primary address (RFC 3768 6.4.3). */
function elect(plan: ClusterPlan, vip: PlannedVip, state: StateSets): VipHolding {
  let best: VipHolding = { vip, holder: undefined, priority: undefined };
  for (let rank = 0; rank < vip.order.length; rank++) {
    const node = vip.order[rank] as string; // an order names each node once: its rank is its index
    const p = priorityAt(plan, vip, rank, node, state);
    if (p === undefined) continue;
    const current = best.priority ?? 0;
    const tieWon = (): boolean => {
      const a = addressOn(plan, node, vip.interface);
      const b = best.holder === undefined ? undefined : addressOn(plan, best.holder, vip.interface);
      return a !== undefined && b !== undefined && compareIps(a, b) > 0;
    };
    if (best.holder === undefined || p > current || (p === current && tieWon()))
      best = { vip, holder: node, priority: p };
  }
  return best;
}

/**
 * Who holds every VIP once keepalived has settled in `state`. Without `previous` (or without nopreempt) the
 * election decides. With nopreempt a backup never takes a VIP from a live master, whatever its priority:
 * so a holder that is still up and not in FAULT keeps the VIP (even while its apiserver check fails, unless
 * the check's weight is 0), and a node that comes back takes nothing back.
 */
export function simulateFailover(
  plan: ClusterPlan,
  state: FailureState,
  previous?: ReadonlyMap<string, string | undefined>,
): Simulation {
  const sets: StateSets = { down: new Set(state.down), unhealthy: new Set(state.unhealthy) };
  const holdings = plan.vips.map((vip): VipHolding => {
    const before = previous?.get(vip.key);
    if (plan.vrrp.nopreempt && before !== undefined) {
      const rank = vip.order.indexOf(before);
      const p = rank < 0 ? undefined : priorityAt(plan, vip, rank, before, sets);
      if (p !== undefined) return { vip, holder: before, priority: p };
    }
    return elect(plan, vip, sets);
  });
  const inAnOrder = new Set(plan.vips.flatMap((v) => v.order));
  const holdsCp = new Set<string>();
  const external = new Map<string, number>();
  for (const h of holdings) {
    if (h.holder === undefined) continue;
    if (h.vip.kind === "control-plane") holdsCp.add(h.holder);
    else if (h.vip.kind === "external") external.set(h.holder, (external.get(h.holder) ?? 0) + 1);
  }
  const loads = plan.nodes
    .map((n) => n.name)
    .filter((n) => inAnOrder.has(n))
    .map(
      (node): NodeLoad => ({
        node,
        up: !sets.down.has(node),
        healthy: !sets.unhealthy.has(node),
        controlPlaneVip: holdsCp.has(node),
        externalVips: external.get(node) ?? 0,
      }),
    );
  return { state, holdings, loads };
}

/** VIP key → holder, the shape the lab compares with what it observes. */
export function holderMap(sim: Simulation): Map<string, string | undefined> {
  return new Map(sim.holdings.map((h) => [h.vip.key, h.holder]));
}

const carriersOf = (plan: ClusterPlan): string[] => plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);

/** Max minus min external VIPs over the live carriers. */
export function loadSpread(sim: Simulation, carriers: readonly string[]): number {
  const loads = sim.loads.filter((l) => l.up && carriers.includes(l.node)).map((l) => l.externalVips);
  return loads.length === 0 ? 0 : Math.max(...loads) - Math.min(...loads);
}

/** External VIPs nobody holds. */
function lostExternalVips(sim: Simulation): number {
  return sim.holdings.filter((h) => h.vip.kind === "external" && h.holder === undefined).length;
}

/**
 * The two carriers whose joint failure loses the most external VIPs (with `externalVips.replicas` 2, a VIP held
 * only by the pair), then leaves the external pool most unbalanced (the first such pair in node order), or
 * undefined with fewer than three carriers or no pool: the case PLAN.md names (the keepalived package computes
 * the same pair incrementally, `worstCarrierPair`; this is the reference it is tested against).
 */
export function worstTwoCarrierFailure(
  plan: ClusterPlan,
): { down: [string, string]; simulation: Simulation } | undefined {
  const carriers = carriersOf(plan);
  if (carriers.length < 3 || !plan.vips.some((v) => v.kind === "external")) return undefined;
  let worst: { down: [string, string]; simulation: Simulation; lost: number; spread: number } | undefined;
  for (let a = 0; a < carriers.length; a++)
    for (let b = a + 1; b < carriers.length; b++) {
      const down: [string, string] = [carriers[a] ?? "", carriers[b] ?? ""];
      const simulation = simulateFailover(plan, { down, unhealthy: [] });
      const lost = lostExternalVips(simulation);
      const spread = loadSpread(simulation, carriers);
      if (worst === undefined || lost > worst.lost || (lost === worst.lost && spread > worst.spread))
        worst = { down, simulation, lost, spread };
    }
  return worst && { down: worst.down, simulation: worst.simulation };
}

/**
 * keepalived's Master_Down_Interval in seconds: a backup declares the master dead after three advert intervals
 * plus a skew that is shorter for higher priorities, so the best backup moves first ((256 - priority) / 256).
 */
export function masterDownSeconds(advertInterval: number, priority: number): number {
  return 3 * advertInterval + ((256 - priority) * advertInterval) / 256;
}

export interface TakeoverBound {
  /** Earliest takeover after the event, in seconds. */
  readonly min: number;
  /** Latest takeover after the event, in seconds. */
  readonly max: number;
}

/**
 * Predicted takeover times for a new holder at `priority`:
 * - node death (no goodbye advert): the backup's down timer runs from the master's last advert, which went out
 *   at most one interval before the death;
 * - apiserver check failing: `fall` failed runs `interval` apart (the first within one interval), then that
 *   same down timer, because a backup ignores the lowered master's adverts and waits it out (with weight 0 the
 *   master goes to FAULT and says goodbye: the skew alone);
 * - check recovering: `rise` good runs, then the down timer again (the recovered node ignores the
 *   lower-priority adverts of the current holder);
 * - a node coming back: it starts as a backup and takes its VIPs after one full down timer (plus its own start).
 */
export function takeoverBounds(
  plan: ClusterPlan,
  priority: number,
): { death: TakeoverBound; checkFailure: TakeoverBound; checkRecovery: TakeoverBound; rejoin: TakeoverBound } {
  const advert = plan.vrrp.advertInterval;
  const hc = plan.vrrp.healthCheck;
  const down = masterDownSeconds(advert, priority);
  const skew = down - 3 * advert;
  const fault = plan.vrrp.healthCheck.weight === 0;
  return {
    death: { min: down - advert, max: down },
    checkFailure: fault
      ? { min: (hc.fall - 1) * hc.interval, max: hc.fall * hc.interval + skew + advert }
      : { min: (hc.fall - 1) * hc.interval + down - advert, max: hc.fall * hc.interval + down },
    checkRecovery: { min: (hc.rise - 1) * hc.interval + down - advert, max: hc.rise * hc.interval + down },
    // A starting backup runs a fresh down timer: no advert of the current holder resets it.
    rejoin: { min: down, max: down },
  };
}
