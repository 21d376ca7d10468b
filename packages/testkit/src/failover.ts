// Failover scenarios run in the VRRP lab and judged against core's model (simulateFailover, takeoverBounds):
// the expectation of every step is computed from the plan, never written by hand.
import {
  AT_REST,
  type ClusterPlan,
  effectivePriority,
  type FailureState,
  holderMap,
  simulateFailover,
  type TakeoverBound,
  takeoverBounds,
  worstTwoCarrierFailure,
} from "@clusterspec/core";
import { canonicalIp } from "@clusterspec/core/testing";
import type { Observation, VrrpLab } from "./vrrp-lab.js";

export type LabAction =
  | { readonly kind: "kill"; readonly node: string }
  | { readonly kind: "revive"; readonly node: string }
  | { readonly kind: "fail"; readonly node: string }
  | { readonly kind: "recover"; readonly node: string }
  /** The node's external-VIP check (Cilium readiness) starts failing / passes again. */
  | { readonly kind: "unready"; readonly node: string }
  | { readonly kind: "ready"; readonly node: string };

export interface LabStep {
  readonly name: string;
  readonly actions: readonly LabAction[];
}

export type TakeoverEvent = "death" | "checkFailure" | "checkRecovery" | "rejoin" | "claim";

const EVENT_OF: Record<LabAction["kind"], TakeoverEvent> = {
  kill: "death",
  revive: "rejoin",
  fail: "checkFailure",
  recover: "checkRecovery",
  unready: "checkFailure",
  ready: "checkRecovery",
};

export interface Takeover {
  readonly address: string;
  readonly from: string | undefined;
  readonly to: string;
  readonly event: TakeoverEvent;
  /** Seconds from the step's action to the VIP's appearance on its new holder (kernel timestamp). */
  readonly seconds: number | undefined;
  readonly bound: TakeoverBound;
  readonly withinBound: boolean;
  /** A death whose race a lower backup won first: the expected holder took the VIP after preempt_delay. */
  readonly interim?: boolean;
}

export interface StepResult {
  readonly name: string;
  readonly state: FailureState;
  /** Observed holders matched the plan's (and `ip addr` agreed). */
  readonly ok: boolean;
  readonly diff: readonly string[];
  readonly takeovers: readonly Takeover[];
  /** VIP key → the holder the model expected (and, when ok, the lab observed). */
  readonly holders: ReadonlyMap<string, string | undefined>;
}

export interface LabReport {
  readonly steps: readonly StepResult[];
  readonly seconds: number;
}

/** Spread `count` picks evenly over `items` (all of them when count is undefined or large enough). */
function spread<T>(items: readonly T[], count: number | undefined): T[] {
  if (count === undefined || count >= items.length) return [...items];
  return Array.from({ length: count }, (_, i) => items[Math.floor((i * items.length) / count)] as T);
}

export interface StepOptions {
  /** How many lab nodes go down and come back one at a time (spread over the node list); default all. */
  readonly cycle?: number;
  /** How many control-plane nodes (in priority order) fail their check, cumulatively; default all. */
  readonly checks?: number;
}

/**
 * The scenarios of issue 12 as steps: the apiserver check failing on each control-plane node in priority order,
 * cumulatively (so every one of them in turn is the one whose failure should move the VIP), then recovering in
 * reverse; each node down and back; and the worst two-carrier failure PLAN.md names, down and back.
 */
export function failoverSteps(plan: ClusterPlan, labNodes: readonly string[], options: StepOptions = {}): LabStep[] {
  const steps: LabStep[] = [];
  // Checks first, from the state at rest: the first one fails on the VIP's master (with nopreempt too).
  const checks = spread(plan.controlPlane.vip.order, options.checks).filter((n) => labNodes.includes(n));
  for (const node of checks) steps.push({ name: `${node} apiserver check failing`, actions: [{ kind: "fail", node }] });
  for (const node of [...checks].reverse())
    steps.push({ name: `${node} apiserver check recovering`, actions: [{ kind: "recover", node }] });
  for (const node of spread(labNodes, options.cycle)) {
    steps.push({ name: `${node} down`, actions: [{ kind: "kill", node }] });
    steps.push({ name: `${node} back`, actions: [{ kind: "revive", node }] });
  }
  const worst = worstTwoCarrierFailure(plan);
  if (worst) {
    const [a, b] = worst.down;
    steps.push({
      name: `${a} and ${b} down (worst two-carrier failure)`,
      actions: [
        { kind: "kill", node: a },
        { kind: "kill", node: b },
      ],
    });
    steps.push({
      name: `${a} and ${b} back`,
      actions: [
        { kind: "revive", node: a },
        { kind: "revive", node: b },
      ],
    });
  }
  return steps;
}

function applyToState(state: FailureState, action: LabAction): FailureState {
  const without = (list: readonly string[]) => list.filter((n) => n !== action.node);
  switch (action.kind) {
    case "kill":
      return { ...state, down: [...without(state.down), action.node] };
    case "revive":
      return { ...state, down: without(state.down) };
    case "fail":
      return { ...state, unhealthy: [...without(state.unhealthy), action.node] };
    case "recover":
      return { ...state, unhealthy: without(state.unhealthy) };
    case "unready":
      return { ...state, notReady: [...without(state.notReady ?? []), action.node] };
    case "ready":
      return { ...state, notReady: without(state.notReady ?? []) };
  }
}

export interface RunOptions {
  /** Slack on every predicted bound for scheduling (seconds); default 0.75. */
  readonly tolerance?: number;
  /** Extra slack for a node coming back: keepalived's own start (reading its config), not a tunable; default 1. */
  readonly startAllowance?: number;
  /** Called after each step (progress, or to stop early). */
  readonly onStep?: (result: StepResult) => void;
}

/**
 * Connects the lab, checks the state at rest, then runs each step: the model gives the holders to expect
 * (nopreempt carries the previous holders over), the lab waits until exactly those hold every VIP, `ip addr`
 * confirms, and every VIP that moved is timed against takeoverBounds. Waits are deadlines derived from the
 * tunables; nothing sleeps a fixed time. Stops at the first step that does not match.
 */
export async function runFailoverScenarios(
  lab: VrrpLab,
  plan: ClusterPlan,
  steps: readonly LabStep[],
  options: RunOptions = {},
): Promise<LabReport> {
  const started = Date.now();
  const tolerance = options.tolerance ?? 0.75;
  const startAllowance = options.startAllowance ?? 1;
  const advertMs = plan.vrrp.advertInterval * 1000;
  const lowest = Math.max(
    1,
    Math.min(...plan.vips.flatMap((v) => v.priorities)) + Math.min(0, plan.vrrp.healthCheck.weight),
  );
  const worstBound = (event: TakeoverEvent) => takeoverBounds(plan, lowest)[event].max;
  const margin = advertMs + 1500;
  // Starting every daemon at once on a busy machine: allow each its start, not a measured failover.
  const nodeStarts = Math.max(1, Math.ceil(lab.nodes.length / 4));
  const results: StepResult[] = [];
  const finish = (r: StepResult) => {
    results.push(r);
    options.onStep?.(r);
  };

  // At rest. An isolated start first makes every node, alone, master of all its VIPs; then they meet and the
  // priorities decide. Otherwise they meet from the start: a down timer, then at most one round of preemption.
  const alone = !lab.isolatedStart
    ? undefined
    : await lab.waitUntil(
        (observed) =>
          plan.vips.flatMap((v) => {
            const holders = observed.get(canonicalIp(v.address)) ?? [];
            const want = v.order.filter((n) => lab.nodes.includes(n));
            return holders.length === want.length
              ? []
              : [`${v.address}: ${holders.length} of ${want.length} isolated nodes master`];
          }),
        { deadlineMs: 2 * worstBound("rejoin") * 1000 + margin + startAllowance * 1000 * nodeStarts, holdMs: 0 },
      );
  if (alone && !alone.ok) {
    finish({
      name: "every node alone (isolated start)",
      state: AT_REST,
      ok: false,
      diff: alone.diff,
      takeovers: [],
      holders: new Map(),
    });
    return { steps: results, seconds: (Date.now() - started) / 1000 };
  }
  await lab.connect();
  let state: FailureState = AT_REST;
  let holders = holderMap(simulateFailover(plan, state));
  const rest = await lab.waitFor(holders, {
    deadlineMs:
      (lab.isolatedStart ? worstBound("rejoin") : 2 * worstBound("rejoin") + startAllowance * nodeStarts) * 1000 +
      margin,
    holdMs: advertMs,
  });
  const restOk = rest.ok && (await confirm(lab, plan, holders)).length === 0;
  finish({ name: "at rest", state, ok: restOk, diff: rest.diff, takeovers: [], holders });
  if (!restOk) return { steps: results, seconds: (Date.now() - started) / 1000 };

  for (const step of steps) {
    const next = step.actions.reduce(applyToState, state);
    const expected = holderMap(simulateFailover(plan, next, holders));
    const moved = plan.vips.filter(
      (v) => expected.get(v.key) !== undefined && expected.get(v.key) !== holders.get(v.key),
    );
    const stepEvent = EVENT_OF[step.actions[0]?.kind ?? "kill"];
    // A node that comes back to a VIP nobody holds claims it after one down timer: nobody advertises to it.
    const eventOf = (key: string): TakeoverEvent =>
      stepEvent === "rejoin" && holders.get(key) === undefined ? "claim" : stepEvent;
    const boundOf = (key: string, to: string): TakeoverBound => {
      const vip = plan.vips.find((v) => v.key === key);
      const p = vip && effectivePriority(plan, vip, to, next);
      return takeoverBounds(plan, p ?? vip?.priorities[0] ?? 1, vip?.kind)[eventOf(key)];
    };
    const event = stepEvent;
    // Nothing should move: watch for as long as a wrong takeover would take to show. Otherwise hold one advert.
    const longest =
      moved.length === 0
        ? worstBound(event)
        : Math.max(...moved.map((v) => boundOf(v.key, expected.get(v.key) ?? "").max));
    let at = Date.now();
    for (const action of step.actions) {
      const t = await act(lab, action);
      if (action === step.actions[0]) at = t;
    }
    // After a death the backups race on skews (256 - priority)/256 × advert_int apart, a few ms: on a busy host
    // a lower backup can win. Without preempt_delay the right one preempts it at once; with it, only after the
    // delay. So a death is timed to the VIP's first appearance on any node (service back), and the final holder
    // may take up to the delay and a down timer longer.
    const race = event === "death" && plan.vrrp.preemptDelay > 0;
    const raceMs = race ? (plan.vrrp.preemptDelay + 2 * worstBound("death")) * 1000 + advertMs : 0;
    const waited = await lab.waitFor(expected, {
      deadlineMs: longest * 1000 + margin + raceMs,
      holdMs: moved.length === 0 ? longest * 1000 + advertMs : advertMs,
    });
    const confirmed = waited.ok ? await confirm(lab, plan, expected) : [];
    const takeovers = moved.map((v): Takeover => {
      const to = expected.get(v.key) ?? "";
      const first = race
        ? lab.nodes
            .flatMap((n) => lab.appearances(n, v.address))
            .filter((t) => t >= at)
            .sort((a, b) => a - b)[0]
        : undefined;
      const interim = first !== undefined && lab.appearedAt(to, v.address) !== first;
      const appeared = first ?? lab.appearedAt(to, v.address);
      const seconds = appeared === undefined ? undefined : (appeared - at) / 1000;
      const bound = boundOf(v.key, to);
      return {
        address: v.address,
        from: holders.get(v.key),
        to,
        event: eventOf(v.key),
        ...(interim ? { interim: true } : {}),
        seconds,
        bound,
        withinBound:
          seconds !== undefined &&
          seconds >= bound.min - tolerance &&
          seconds <= bound.max + tolerance + (event === "rejoin" ? startAllowance : 0),
      };
    });
    const ok = waited.ok && confirmed.length === 0;
    finish({ name: step.name, state: next, ok, diff: [...waited.diff, ...confirmed], takeovers, holders: expected });
    if (!ok) break;
    state = next;
    holders = expected;
  }
  return { steps: results, seconds: (Date.now() - started) / 1000 };
}

async function act(lab: VrrpLab, action: LabAction): Promise<number> {
  switch (action.kind) {
    case "kill":
      return lab.kill(action.node);
    case "revive":
      return lab.revive(action.node);
    case "fail":
      return lab.setHealthy(action.node, false);
    case "recover":
      return lab.setHealthy(action.node, true);
    case "unready":
      return lab.setReady(action.node, false);
    case "ready":
      return lab.setReady(action.node, true);
  }
}

/** The settled state read again with `ip -n <ns> addr`: differences from the expectation, if any. */
async function confirm(
  lab: VrrpLab,
  plan: ClusterPlan,
  expected: ReadonlyMap<string, string | undefined>,
): Promise<string[]> {
  const snap: Observation = await lab.snapshot();
  return plan.vips.flatMap((v) => {
    const got = snap.get(canonicalIp(v.address)) ?? [];
    const want = expected.get(v.key);
    const ok = want === undefined ? got.length === 0 : got.length === 1 && got[0] === want;
    return ok ? [] : [`ip addr: ${v.address} expected on ${want ?? "nobody"}, found on ${got.join(" + ") || "nobody"}`];
  });
}

/** One line per step, its takeovers summed up (every out-of-bound one listed): for annotations and reports. */
export function formatLabReport(report: LabReport): string {
  const fmt = (x: number) => x.toFixed(2);
  const lines: string[] = [];
  for (const s of report.steps) {
    const timed = s.takeovers.filter((t) => t.seconds !== undefined);
    const secs = timed.map((t) => t.seconds ?? 0);
    const events = [...new Set(s.takeovers.map((t) => t.event))].join("/");
    const lo = Math.min(...s.takeovers.map((t) => t.bound.min));
    const hi = Math.max(...s.takeovers.map((t) => t.bound.max));
    const summary =
      s.takeovers.length === 0
        ? s.ok
          ? "no VIP moves, every VIP where the plan puts it"
          : "no VIP moves"
        : `${s.takeovers.length} VIP(s) moved in ${fmt(Math.min(...secs))}–${fmt(Math.max(...secs))}s (${events}; predicted ${fmt(lo)}–${fmt(hi)}s)`;
    lines.push(`${s.ok ? "✔" : "✖"} ${s.name}: ${summary}`);
    for (const d of s.diff) lines.push(`    ${d}`);
    const raced = s.takeovers.filter((t) => t.interim).map((t) => t.address);
    if (raced.length > 0) lines.push(`    race won first by a lower backup (then preempt_delay): ${raced.join(", ")}`);
    for (const t of s.takeovers.filter((x) => !x.withinBound))
      lines.push(
        `    OUT OF BOUNDS ${t.address} ${t.from ?? "-"} → ${t.to}: ${t.seconds === undefined ? "never seen" : `${fmt(t.seconds)}s`} (predicted ${fmt(t.bound.min)}–${fmt(t.bound.max)}s)`,
      );
  }
  lines.push(`lab wall time ${report.seconds.toFixed(1)}s`);
  return lines.join("\n");
}
