// What keepalived does with the plan's priorities when nodes die or fail their apiserver check: who holds
// each VIP, each carrier's load, and how long a takeover takes. One model for PLAN.md, `clusterspec simulate`
// and the VRRP lab that checks it against the real daemons.
import { compareIps } from "../ip.js";
import type { ClusterPlan, VrrpCheckPlan } from "./types.js";
import { type PlannedVip, vipCarriers } from "./vrrp.js";

/**
 * Nodes that are down (no keepalived, no link), control-plane nodes whose apiserver check fails, and carriers
 * whose external-VIP check (the Cilium readiness check, or the uplink check) fails.
 */
export interface FailureState {
  readonly down: readonly string[];
  readonly unhealthy: readonly string[];
  readonly notReady?: readonly string[];
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
  const check = failingCheck(plan, vip, node, state);
  if (check === undefined) return base;
  return check.weight === 0 ? undefined : clampPriority(base + check.weight);
}

/** The check that tracks `vip` on `node` and fails in `state`, if any. */
function failingCheck(
  plan: ClusterPlan,
  vip: PlannedVip,
  node: string,
  state: FailureState,
): VrrpCheckPlan | undefined {
  if (vip.kind === "control-plane") return state.unhealthy.includes(node) ? plan.vrrp.healthCheck : undefined;
  if (!state.notReady?.includes(node)) return undefined;
  return externalCheck(plan);
}

/** The check that tracks the external VIPs (readiness, else uplink: they share timing and weight), if any. */
export function externalCheck(plan: ClusterPlan): VrrpCheckPlan | undefined {
  return plan.vrrp.readinessCheck ?? plan.vrrp.uplinkCheck;
}

function addressOn(plan: ClusterPlan, node: string, iface: string): string | undefined {
  return plan.nodes.find((n) => n.name === node)?.interfaces.find((f) => f.name === iface)?.address;
}

/** The failure state as sets, for the O(V × order) election below. */
interface StateSets {
  readonly down: ReadonlySet<string>;
  readonly unhealthy: ReadonlySet<string>;
  readonly notReady: ReadonlySet<string>;
}

/** effectivePriority for the node at `rank` of the VIP's order (no search of the order). */
function priorityAt(plan: ClusterPlan, vip: PlannedVip, rank: number, node: string, state: StateSets) {
  const base = vip.priorities[rank];
  if (base === undefined || state.down.has(node)) return undefined;
  const check =
    vip.kind === "control-plane"
      ? state.unhealthy.has(node)
        ? plan.vrrp.healthCheck
        : undefined
      : state.notReady.has(node)
        ? externalCheck(plan)
        : undefined;
  if (check === undefined) return base;
  return check.weight === 0 ? undefined : clampPriority(base + check.weight);
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

const stateSets = (state: FailureState): StateSets => ({
  down: new Set(state.down),
  unhealthy: new Set(state.unhealthy),
  notReady: new Set(state.notReady ?? []),
});

function settle(plan: ClusterPlan, vip: PlannedVip, sets: StateSets, before: string | undefined): VipHolding {
  const rank = before === undefined ? -1 : vip.order.indexOf(before);
  const kept = rank < 0 || before === undefined ? undefined : priorityAt(plan, vip, rank, before, sets);
  if (kept === undefined || before === undefined) return elect(plan, vip, sets);
  const holding: VipHolding = { vip, holder: before, priority: kept };
  if (plan.vrrp.nopreempt) return holding;
  // A backup takes a VIP only with a strictly higher priority (RFC 3768 6.4.2: keepalived's backup resets its down
  // timer on an advert of equal priority), so a live holder keeps a tie: several failing nodes all run at
  // keepalived's floor, 1, with the default check weight.
  const best = elect(plan, vip, sets);
  return best.priority !== undefined && best.priority > kept ? best : holding;
}

/** simulateFailover for one VIP, which held by `before` until `state` (the whole cluster is V times the work). */
export function holdingOf(plan: ClusterPlan, vip: PlannedVip, state: FailureState, before?: string): VipHolding {
  return settle(plan, vip, stateSets(state), before);
}

/**
 * Who holds every VIP once keepalived has settled in `state`. Without `previous` the election decides; with it a
 * live holder keeps a VIP that no node outranks (a tie stays where it is). With nopreempt a backup never takes a VIP
 * from a live master, whatever its priority:
 * so a holder that is still up and not in FAULT keeps the VIP (even while its apiserver check fails, unless
 * the check's weight is 0), and a node that comes back takes nothing back.
 */
export function simulateFailover(
  plan: ClusterPlan,
  state: FailureState,
  previous?: ReadonlyMap<string, string | undefined>,
): Simulation {
  const sets = stateSets(state);
  const holdings = plan.vips.map((vip): VipHolding => settle(plan, vip, sets, previous?.get(vip.key)));
  const inAnOrder = vipCarriers(plan.vips);
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
 * The preempt_delay an instance of this kind gets. Only external VIPs wait: with a negative check weight keepalived
 * also waits it before taking the control-plane VIP from a master whose apiserver check fails, and every kubelet
 * reaches the apiserver through that VIP, so a 120 s wait outlasts the node-monitor grace period (nodes NotReady,
 * their pods out of endpoints, then evicted). A returning control plane is kept away by its apiserver check instead,
 * which keepalived runs at start: its first failure lands before the node's down timer (init_fail is ignored).
 */
export function preemptDelayFor(plan: Pick<ClusterPlan, "vrrp">, kind: PlannedVip["kind"] | undefined): number {
  return kind === "control-plane" ? 0 : plan.vrrp.preemptDelay;
}

/**
 * The kube-apiserver's `--shutdown-delay-duration` in whole seconds, or undefined when the control-plane VIP cannot
 * move on a failing /readyz (one control-plane node, or nopreempt with a negative weight). From the moment an
 * apiserver starts shutting down its /readyz fails while it keeps serving for this long
 * (k8s.io/apiserver/pkg/server/options/server_run_options.go, ShutdownDelayDuration), so it is the worst case of the
 * apiserver check failing on the master until the best backup holds the VIP: fall failed runs `interval` apart, then
 * keepalived's takeover (the down timer; the skew with weight 0), rounded up.
 */
export function apiserverShutdownDelay(plan: ClusterPlan): number | undefined {
  const cp = plan.controlPlane.vip;
  const next = cp.priorities[1];
  if (next === undefined || (plan.vrrp.nopreempt && plan.vrrp.healthCheck.weight !== 0)) return undefined;
  return Math.ceil(takeoverBounds(plan, next, "control-plane").checkFailure.max);
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

export interface TakeoverBounds {
  readonly death: TakeoverBound;
  readonly checkFailure: TakeoverBound;
  readonly checkRecovery: TakeoverBound;
  /** A node coming back to a VIP that a lower-priority node holds: its checks rise, then it preempts. */
  readonly rejoin: TakeoverBound;
  /** A node coming back to a VIP nobody holds: one down timer, whatever its checks say. */
  readonly claim: TakeoverBound;
  /** A VRRP split healing: from the moment both sides hear each other again until the lower of two masters yields. */
  readonly heal: TakeoverBound;
}

/**
 * Predicted takeover times for a new holder at `priority` of a VIP of `kind` (both kinds when omitted: the
 * widest bounds). `down` is keepalived's down timer, `d` the preempt_delay, `advert` advert_int.
 * - node death (no goodbye advert): the backup's down timer runs from the master's last advert, which went out
 *   at most one interval before the death; preempt_delay plays no part (no advert is heard);
 * - check failing on the master: `fall` failed runs `interval` apart (the first within one interval). With a
 *   negative weight the master goes on advertising at its lowered priority: a backup that hears a lower-priority
 *   master starts its preempt_delay at that advert (within one interval), keeps accepting adverts until the delay
 *   is over, then ignores them and waits out the down timer from the last one it accepted. With weight 0 the
 *   master goes to FAULT and says goodbye: the skew alone;
 * - check recovering: `rise` good runs, then the same preempt_delay and down timer;
 * - a node coming back: keepalived 2.2.7 ignores init_fail, so its checks start counted as passing and run at once
 *   (one good run is enough); the bound still allows `rise` runs (at most that long before the first good one),
 *   then the preempt_delay and the down timer; at the earliest the delay has run meanwhile (measured); without a
 *   delay, the down timer from its start or from the last advert it accepted meanwhile;
 * - a node coming back to a VIP nobody holds: one down timer from its start (nobody advertises);
 * - a split healing: the two masters of a VIP hear each other and the lower priority yields at the first advert
 *   of the higher one (no preempt_delay between masters): within one interval, the bound allows a lost one. With
 *   AH that holds only because clusterspec writes `vrrp_lower_prio_no_advert`: keepalived 2.2.7 otherwise restarts
 *   a master's advert timer on every packet it reads (vrrp_scheduler.c, vrrp_dispatcher_read), even one it drops
 *   as an AH replay (vrrp.c, vrrp_in_chk_ipsecah), so the master whose replay counter is ahead stays silent until
 *   the other one's sequence numbers pass it (in the VRRP lab: heals of 3.0-5.6 s, now 1.0 s).
 */
export function takeoverBounds(plan: ClusterPlan, priority: number, kind?: PlannedVip["kind"]): TakeoverBounds {
  const advert = plan.vrrp.advertInterval;
  const hc = plan.vrrp.healthCheck;
  const d = preemptDelayFor(plan, kind);
  const down = masterDownSeconds(advert, priority);
  const skew = down - 3 * advert;
  // The checks that track a VIP of this kind.
  const ext = externalCheck(plan);
  const checks = [...(kind !== "external" ? [hc] : []), ...(kind !== "control-plane" && ext ? [ext] : [])];
  const failing = kind === "external" ? ext : hc;
  const fault = failing?.weight === 0;
  /** Takeover once the node may preempt from `from`: preempt_delay from the first lower advert, then the down timer. */
  const preempt = (from: TakeoverBound): TakeoverBound => ({
    min: from.min + d + down - advert,
    max: from.max + advert + d + down,
  });
  const rise = (c: VrrpCheckPlan | undefined): TakeoverBound =>
    c ? { min: (c.rise - 1) * c.interval, max: c.rise * c.interval } : { min: 0, max: 0 };
  const gate = checks.reduce<TakeoverBound>(
    (acc, c) => ({ min: Math.max(acc.min, rise(c).min), max: Math.max(acc.max, rise(c).max) }),
    { min: 0, max: 0 },
  );
  const fall = failing ? { min: (failing.fall - 1) * failing.interval, max: failing.fall * failing.interval } : gate;
  const checkFailure =
    fault && failing
      ? { min: (failing.fall - 1) * failing.interval, max: failing.fall * failing.interval + skew + advert }
      : d > 0
        ? preempt(fall)
        : { min: fall.min + down - advert, max: fall.max + down };
  const recovery = rise(failing);
  return {
    death: { min: down - advert, max: down },
    checkFailure,
    checkRecovery: d > 0 ? preempt(recovery) : { min: recovery.min + down - advert, max: recovery.max + down },
    // The lower bound does not count the checks' rise: in the lab, keepalived 2.2.7 took a VIP back d + down
    // after its start (rise 2 × interval 2, d 2): its preempt delay had run while the checks were rising.
    rejoin: d > 0 ? { min: d + down - advert, max: gate.max + advert + d + down } : { min: down, max: gate.max + down },
    claim: { min: down, max: down },
    heal: { min: 0, max: 2 * advert },
  };
}
