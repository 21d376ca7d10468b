// Failover scenarios run in the VRRP lab and judged against core's model (simulateFailover, takeoverBounds):
// the expectation of every step is computed from the plan, never written by hand.
import {
  AT_REST,
  type ClusterPlan,
  effectivePriority,
  type FailureState,
  holderMap,
  instanceAddresses,
  simulateFailover,
  type TakeoverBound,
  takeoverBounds,
  worstTwoCarrierFailure,
} from "@clusterspec/core";
import { canonicalIp } from "@clusterspec/core/testing";
import { holderDifferences, type Observation, type VrrpLab } from "./vrrp-lab.js";

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
  /** With nopreempt, a death whose race a lower backup won and kept: the holder the model named. */
  readonly racedPast?: string;
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
  // Either way the bounds count from when every daemon has set up its instances (seconds, with hundreds of them
  // on a busy host: a node whose daemon is still starting neither claims nor preempts).
  await lab.whenInitialised(60_000);
  const alone = !lab.isolatedStart
    ? undefined
    : await lab.waitUntil(
        (observed) =>
          plan.vips.flatMap((v) =>
            instanceAddresses(v).flatMap(({ address }) => {
              const holders = observed.get(canonicalIp(address)) ?? [];
              const want = v.order.filter((n) => lab.nodes.includes(n));
              return holders.length === want.length
                ? []
                : [`${address}: ${holders.length} of ${want.length} isolated nodes master`];
            }),
          ),
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
    // With nopreempt nothing corrects a race lost: the winner keeps the VIP, and keepalived guarantees only that
    // one live backup holds it. A backup may win it if its skew is within the scheduling tolerance of the
    // model's winner's; the model then carries the actual holder into the next step.
    const contenders = new Map(
      event === "death" && plan.vrrp.nopreempt
        ? moved.map((v) => [v.key, raceContenders(plan, v, expected.get(v.key), next, tolerance)] as const)
        : [],
    );
    const waited = await lab.waitUntil((observed) => holderDifferences(plan, expected, observed, contenders), {
      deadlineMs: longest * 1000 + margin + raceMs,
      holdMs: moved.length === 0 ? longest * 1000 + advertMs : advertMs,
    });
    const actual = new Map(expected);
    if (waited.ok)
      for (const key of contenders.keys()) {
        const vip = plan.vips.find((v) => v.key === key);
        const holder = vip && waited.observed.get(canonicalIp(vip.address))?.[0];
        if (holder) actual.set(key, holder);
      }
    const confirmed = waited.ok ? await confirm(lab, plan, actual) : [];
    const takeovers = moved.map((v): Takeover => {
      const to = actual.get(v.key) ?? "";
      const racedPast = to !== expected.get(v.key) ? expected.get(v.key) : undefined;
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
      // A node coming back starts its timers once keepalived has set up every instance: allow that start as
      // measured (its log), at least startAllowance (reading its config).
      const startup = event === "rejoin" ? Math.max(startAllowance, lab.startupSeconds(to, at) ?? 0) : 0;
      return {
        address: v.address,
        from: holders.get(v.key),
        to,
        event: eventOf(v.key),
        ...(interim ? { interim: true } : {}),
        ...(racedPast ? { racedPast } : {}),
        seconds,
        bound,
        withinBound:
          seconds !== undefined && seconds >= bound.min - tolerance && seconds <= bound.max + tolerance + startup,
      };
    });
    const ok = waited.ok && confirmed.length === 0;
    finish({ name: step.name, state: next, ok, diff: [...waited.diff, ...confirmed], takeovers, holders: actual });
    if (!ok) break;
    state = next;
    holders = actual;
  }
  return { steps: results, seconds: (Date.now() - started) / 1000 };
}

/**
 * The live nodes that can win a nopreempt VIP's race after a death: the model's winner and every backup whose
 * down timer ends within `tolerance` seconds of its (skews (256 − priority)/256 × advert_int apart).
 */
function raceContenders(
  plan: ClusterPlan,
  vip: ClusterPlan["vips"][number],
  winner: string | undefined,
  state: FailureState,
  tolerance: number,
): readonly string[] {
  if (winner === undefined) return [];
  const top = effectivePriority(plan, vip, winner, state);
  if (top === undefined) return [winner];
  return vip.order.filter((n) => {
    const p = effectivePriority(plan, vip, n, state);
    return p !== undefined && ((top - p) / 256) * plan.vrrp.advertInterval <= tolerance;
  });
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
  // Every instance: a dual-stack pair's two addresses both on the pair's one expected holder.
  return plan.vips.flatMap((v) =>
    instanceAddresses(v).flatMap(({ address }) => {
      const got = snap.get(canonicalIp(address)) ?? [];
      const want = expected.get(v.key);
      const ok = want === undefined ? got.length === 0 : got.length === 1 && got[0] === want;
      return ok ? [] : [`ip addr: ${address} expected on ${want ?? "nobody"}, found on ${got.join(" + ") || "nobody"}`];
    }),
  );
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
    for (const t of s.takeovers.filter((x) => x.racedPast))
      lines.push(`    nopreempt race: ${t.address} won by ${t.to}, not the model's ${t.racedPast}; it keeps the VIP`);
    for (const t of s.takeovers.filter((x) => !x.withinBound))
      lines.push(
        `    OUT OF BOUNDS ${t.address} ${t.from ?? "-"} → ${t.to}: ${t.seconds === undefined ? "never seen" : `${fmt(t.seconds)}s`} (predicted ${fmt(t.bound.min)}–${fmt(t.bound.max)}s)`,
      );
  }
  lines.push(`lab wall time ${report.seconds.toFixed(1)}s`);
  return lines.join("\n");
}

// ---- change plans (issue 27): a rollout's keepalived steps applied to the lab as printed ----

/** A keepalived step of a change plan, as the lab needs it (structurally the rollout package's KeepalivedStep). */
export interface LabRolloutStep {
  readonly node: string;
  readonly title: string;
  readonly files: readonly string[];
  readonly commands: readonly string[];
  readonly vipMoves: readonly {
    readonly vip: string;
    readonly from: string | null;
    readonly to: string | null;
    readonly unavailableSeconds: number;
  }[];
  /** Seconds after the commands by which the planner predicts the step settled. */
  readonly settleSeconds: number;
  /** VIP address → predicted holder once the step settled. */
  readonly holdersAfter: ReadonlyMap<string, string | undefined>;
}

export interface RolloutMove {
  readonly vip: string;
  readonly from: string | null;
  readonly to: string | null;
}

export interface RolloutStepResult {
  readonly title: string;
  readonly ok: boolean;
  readonly diff: readonly string[];
  readonly predicted: readonly RolloutMove[];
  /** Holder changes between the settled state before the step and after it. */
  readonly observed: readonly RolloutMove[];
  /** Seconds from the commands to the settled state (undefined: never settled). */
  readonly settledAfter: number | undefined;
  /**
   * For a step that starts keepalived: seconds from the start until it had set every instance's first state, as the
   * lab measured it (its timers start only then, so a busy host delays a restarted node's return by this much).
   */
  readonly startupSeconds?: number | undefined;
}

export interface RolloutReport {
  readonly rest: { readonly ok: boolean; readonly diff: readonly string[] };
  readonly steps: readonly RolloutStepResult[];
  /** Every time two nodes held one VIP, with how long (ms), from the step it started in. */
  readonly doubleHolds: readonly {
    readonly vip: string;
    readonly nodes: string;
    readonly ms: number;
    readonly step: number;
  }[];
  /** Every time a VIP (still in the new tree, or not yet removed) had no holder: how long (ms), and where it started. */
  readonly gaps: readonly {
    readonly vip: string;
    readonly ms: number;
    readonly step: number;
    readonly allowed: boolean;
  }[];
  readonly seconds: number;
}

const canon = (a: string) => canonicalIp(a);

/**
 * Applies `steps` to a lab started on the old tree: waits for the predicted state at rest, then for each step
 * installs its files from `newTree`, runs its commands (mapped to the lab: reload → SIGHUP, stop → SIGTERM, start,
 * restart), and waits until the holders are the predicted ones and stay so. Throughout, every address change is
 * checked: a VIP on two nodes is recorded with its duration, and so is a VIP with no holder, allowed only in the
 * step whose predicted moves give it up (or leave it with nobody) until the step that brings it back.
 */
export async function runRolloutSteps(
  lab: VrrpLab,
  oldPlan: ClusterPlan,
  newTree: string,
  holdersBefore: ReadonlyMap<string, string | undefined>,
  steps: readonly LabRolloutStep[],
  options: { readonly onStep?: (r: RolloutStepResult) => void } = {},
): Promise<RolloutReport> {
  const started = Date.now();
  const advertMs = oldPlan.vrrp.advertInterval * 1000;
  const margin = 2 * advertMs + 2500;
  const expectedDiff = (expected: ReadonlyMap<string, string | undefined>) => (observed: Observation) =>
    [...expected].flatMap(([vip, want]) => {
      const got = observed.get(canon(vip)) ?? [];
      const ok = want === undefined ? got.length === 0 : got.length === 1 && got[0] === want;
      return ok ? [] : [`${vip}: expected ${want ?? "nobody"}, observed ${got.join(" + ") || "nobody"}`];
    });
  const lowest = Math.max(1, Math.min(...oldPlan.vips.flatMap((v) => v.priorities)) - 10);
  const restDeadline = (2 * takeoverBounds(oldPlan, lowest).rejoin.max + Math.ceil(lab.nodes.length / 4)) * 1000;
  const rest = await lab.waitUntil(expectedDiff(holdersBefore), {
    deadlineMs: restDeadline + margin,
    holdMs: advertMs,
  });
  const results: RolloutStepResult[] = [];
  const doubleHolds: { vip: string; nodes: string; ms: number; step: number }[] = [];
  const gaps: { vip: string; ms: number; step: number; allowed: boolean }[] = [];
  if (!rest.ok) return { rest, steps: results, doubleHolds, gaps, seconds: (Date.now() - started) / 1000 };

  // Continuous watch: open double holds and gaps, closed (with their duration) when they end.
  let stepIndex = 0;
  /** VIPs allowed to have no holder now: given up in this step, or left with nobody until a later step. */
  const mayBeUnheld = new Set<string>();
  const openDouble = new Map<string, { since: number; nodes: string; step: number }>();
  const openGap = new Map<string, { since: number; step: number; allowed: boolean }>();
  const check = () => {
    const now = Date.now();
    for (const [vip, holders] of lab.observeAll()) {
      const d = openDouble.get(vip);
      if (holders.length > 1 && !d) openDouble.set(vip, { since: now, nodes: holders.join(" + "), step: stepIndex });
      else if (holders.length <= 1 && d) {
        doubleHolds.push({ vip, nodes: d.nodes, ms: now - d.since, step: d.step });
        openDouble.delete(vip);
      }
      const g = openGap.get(vip);
      if (holders.length === 0 && !g) openGap.set(vip, { since: now, step: stepIndex, allowed: mayBeUnheld.has(vip) });
      else if (holders.length > 0 && g) {
        gaps.push({ vip, ms: now - g.since, step: g.step, allowed: g.allowed });
        openGap.delete(vip);
      }
    }
  };
  const removedForGood = new Set<string>();
  const unsubscribe = lab.onChange(check);
  try {
    let holders = new Map(holdersBefore);
    for (const step of steps) {
      stepIndex++;
      // Every VIP this step moves may be out while it moves (for as long as predicted: the test checks how long).
      for (const m of step.vipMoves) mayBeUnheld.add(canon(m.vip));
      for (const [vip, g] of openGap) if (mayBeUnheld.has(vip)) openGap.set(vip, { ...g, allowed: true });
      lab.installFiles(step.node, newTree, step.files);
      let at = Date.now();
      let startedAt: number | undefined;
      for (const command of step.commands) {
        const t = await runCommand(lab, step.node, command);
        if (command === step.commands[0]) at = t.at;
        startedAt = t.startedAt ?? startedAt;
      }
      const moving = step.vipMoves.length > 0;
      const waited = await lab.waitUntil(expectedDiff(step.holdersAfter), {
        deadlineMs: step.settleSeconds * 1000 + margin,
        // Nothing should move: watch for as long as the planner says a move would take. Else hold one advert.
        holdMs: moving ? advertMs : step.settleSeconds * 1000,
      });
      const after = new Map(step.holdersAfter);
      const observed: RolloutMove[] = [];
      const seen = lab.observeAll();
      for (const vip of new Set([...holders.keys(), ...after.keys()])) {
        const before = holders.get(vip);
        const now = seen.get(canon(vip)) ?? [];
        const to = now.length === 1 ? (now[0] as string) : now.length === 0 ? null : now.join(" + ");
        if ((before ?? null) !== to) observed.push({ vip, from: before ?? null, to });
      }
      // A restart's VIP goes and comes back to the same node: predicted as a move from it to it, observed as none.
      const predicted = step.vipMoves.filter((m) => m.from !== m.to).map(({ vip, from, to }) => ({ vip, from, to }));
      const key = (m: RolloutMove) => `${m.vip} ${m.from} ${m.to}`;
      const sameMoves =
        predicted.length === observed.length && predicted.map(key).sort().join() === observed.map(key).sort().join();
      const result: RolloutStepResult = {
        title: step.title,
        ok: waited.ok && sameMoves,
        diff: [
          ...waited.diff,
          ...(sameMoves
            ? []
            : [
                `moves: predicted ${predicted.map(key).join(", ") || "none"}; observed ${observed.map(key).join(", ") || "none"}`,
              ]),
        ],
        predicted,
        observed,
        settledAfter: waited.reachedAt === undefined ? undefined : (waited.reachedAt - at) / 1000,
        ...(startedAt === undefined ? {} : { startupSeconds: lab.startupSeconds(step.node, startedAt) }),
      };
      results.push(result);
      options.onStep?.(result);
      if (!result.ok) break;
      holders = after;
      // A VIP is allowed to stay unheld only until a step brings it back.
      for (const [vip, holder] of after) {
        if (holder !== undefined) mayBeUnheld.delete(canon(vip));
        else removedForGood.add(canon(vip));
      }
      for (const vip of [...removedForGood]) if (after.get(vip) !== undefined) removedForGood.delete(vip);
    }
  } finally {
    unsubscribe();
    check();
    const now = Date.now();
    for (const [vip, d] of openDouble) doubleHolds.push({ vip, nodes: d.nodes, ms: now - d.since, step: d.step });
    // A VIP the new tree removed stays unheld for good: no gap of the rollout's.
    for (const [vip, g] of openGap)
      if (!removedForGood.has(vip)) gaps.push({ vip, ms: now - g.since, step: g.step, allowed: g.allowed });
  }
  return { rest, steps: results, doubleHolds, gaps, seconds: (Date.now() - started) / 1000 };
}

/** The four keepalived commands a change plan prints, as the lab runs them. */
async function runCommand(
  lab: VrrpLab,
  node: string,
  command: string,
): Promise<{ readonly at: number; readonly startedAt?: number }> {
  switch (command) {
    case "rc-service keepalived reload":
      return { at: lab.reload(node) };
    case "rc-service keepalived stop":
      return { at: await lab.stopKeepalived(node) };
    case "rc-service keepalived start": {
      const at = lab.startKeepalived(node);
      return { at, startedAt: at };
    }
    case "rc-service keepalived restart": {
      const at = await lab.stopKeepalived(node);
      return { at, startedAt: lab.startKeepalived(node) };
    }
    default:
      throw new Error(`the lab cannot run "${command}" (only the four keepalived commands of a change plan)`);
  }
}

/** One line per step (predicted vs observed moves), then double holds and gaps: for annotations and reports. */
export function formatRolloutReport(report: RolloutReport): string {
  const moves = (ms: readonly RolloutMove[]) =>
    ms.map((m) => `${m.vip} ${m.from ?? "-"}→${m.to ?? "-"}`).join(", ") || "none";
  const lines = [`${report.rest.ok ? "✔" : "✖"} at rest on the old tree`, ...report.rest.diff.map((d) => `    ${d}`)];
  report.steps.forEach((s, i) => {
    lines.push(
      `${s.ok ? "✔" : "✖"} ${i + 1}. ${s.title} — predicted ${moves(s.predicted)}; observed ${moves(s.observed)}; settled ${s.settledAfter === undefined ? "never" : `${s.settledAfter.toFixed(2)}s`}${s.startupSeconds === undefined ? "" : `; keepalived start-up ${s.startupSeconds.toFixed(2)}s`}`,
    );
    for (const d of s.diff) lines.push(`    ${d}`);
  });
  for (const d of report.doubleHolds) lines.push(`double hold ${d.vip} (${d.nodes}) ${d.ms} ms in step ${d.step}`);
  for (const g of report.gaps)
    lines.push(
      `gap ${g.vip} ${(g.ms / 1000).toFixed(2)}s from step ${g.step}${g.allowed ? " (predicted)" : " (NOT PREDICTED)"}`,
    );
  lines.push(`lab wall time ${report.seconds.toFixed(1)}s`);
  return lines.join("\n");
}
