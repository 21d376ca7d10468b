// The keepalived planner as it was before the incremental holder model (packages/rollout/src/holders.ts): every
// step and every candidate re-simulated with core's simulateFailover over a plan of the live configs. Kept as the
// straightforward reference the fast planner must match step for step (vrrp-fast.test.ts); not used by the package.

// The keepalived part of a change plan: which nodes reload, stop or start keepalived, in what order, and which VIPs
// each step moves. Safe by construction: no moment has two live configs that disagree on a VRRP group (one VRID on
// one interface) about its VIP list, authentication or advert interval, nor one VIP in two groups. keepalived drops
// the adverts of such a peer (v2.2.7 vrrp.c ~1092-1101), so both sides would become master of the same address.
// Where a rolling order cannot avoid that, the nodes involved are drained: all but a set that cannot disagree stop,
// that set takes the new config, and the others start again on it. Every move is predicted by core's failover
// model (simulateFailover) over the configs that are live at that moment.
import {
  AT_REST,
  type ClusterPlan,
  instanceAddresses,
  ipFamily,
  type PlannedVip,
  simulateFailover,
  takeoverBounds,
} from "@clusterspec/core";
import type { NodeStepPlanner, TreeSide } from "../src/node-steps.js";
import type { ChangePlan, RolloutStep, VipMove } from "../src/types.js";

export const KEEPALIVED_RELOAD = "rc-service keepalived reload";
export const KEEPALIVED_STOP = "rc-service keepalived stop";
export const KEEPALIVED_START = "rc-service keepalived start";
export const KEEPALIVED_RESTART = "rc-service keepalived restart";
const COMMAND: Record<Action, string> = {
  reload: KEEPALIVED_RELOAD,
  stop: KEEPALIVED_STOP,
  start: KEEPALIVED_START,
  restart: KEEPALIVED_RESTART,
};

type Live = "old" | "new" | "down";
type Action = "reload" | "stop" | "start" | "restart";

/** One VRRP instance of a node's config, as its peers see it in the adverts. */
interface Instance {
  /** The VRRP group: interface and VRID (adverts of one VRID on one link meet). */
  readonly group: string;
  readonly vip: string;
  /** What a peer's advert must agree on, or keepalived drops it. */
  readonly terms: string;
  readonly address: string;
  readonly auth: string;
  readonly advert: string;
  readonly cast: string;
  /** The VIP's spec path, e.g. `externalVips.addresses[0]`. */
  readonly specPath: string;
}

/** `["externalVips", "addresses", 0]` → `externalVips.addresses[0]` (the change plan's path style). */
const dotPath = (path: readonly (string | number)[]): string =>
  path.reduce<string>((acc, p) => (typeof p === "number" ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");

/** A planned step with what the lab and the timing estimates need beyond the contract's fields. */
export interface KeepalivedStep extends Omit<RolloutStep, "index"> {
  readonly action: Action;
  readonly node: string;
  /** Seconds after the commands by which the step's moves are predicted complete (the longest takeover bound). */
  readonly settleSeconds: number;
  /** VIP address → holder once the step has settled (undefined: nobody). */
  readonly holdersAfter: ReadonlyMap<string, string | undefined>;
}

export interface KeepalivedRollout {
  readonly steps: readonly KeepalivedStep[];
  /** VIP address → holder with every node on the old tree (the state the rollout starts from). */
  readonly holdersBefore: ReadonlyMap<string, string | undefined>;
  /** Whether some nodes are drained (stop, then start on the new config) because a rolling order is unsafe. */
  readonly drained: readonly string[];
  readonly notInPlace: ChangePlan["notInPlace"];
  readonly refused: ChangePlan["refused"];
}

const KEEPALIVED_DIR = /^nodes\/([^/]+)\/etc\/keepalived\/(.+)$/;

/** node → (path → content) of its etc/keepalived files. */
function keepalivedFiles(artifacts: TreeSide["artifacts"]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const a of artifacts) {
    const m = KEEPALIVED_DIR.exec(a.path);
    if (!m?.[1]) continue;
    const files = out.get(m[1]) ?? new Map<string, string>();
    files.set(a.path, a.content);
    out.set(m[1], files);
  }
  return out;
}

const sameFiles = (a: ReadonlyMap<string, string> | undefined, b: ReadonlyMap<string, string> | undefined) =>
  a !== undefined && b !== undefined && a.size === b.size && [...a].every(([p, c]) => b.get(p) === c);

function instancesOf(plan: ClusterPlan, node: string): Instance[] {
  const auth = plan.vrrp.auth?.type ?? "none";
  const priorities = prioritiesByAddress(plan);
  return plan.vips
    .filter((v) => priorities.get(v.address)?.has(node))
    .map((v) => {
      // A dual-stack pair's IPv6 half is part of its group's terms, as in the planner.
      const address = instanceAddresses(v)
        .map((a) => `${a.address}/${a.prefixLength}`)
        .join(" + ");
      const advert = `advert_int ${plan.vrrp.advertInterval}`;
      const cast = plan.vrrp.unicast ? "unicast" : "multicast";
      return {
        // IPv4 and IPv6 VRIDs are separate spaces (RFC 5798): an IPv4 and an IPv6 VIP may share one on an interface.
        group: `${v.interface} VRID ${v.vrid}${ipFamily(v.address) === 6 ? " (IPv6)" : ""}`,
        vip: v.address,
        terms: `${address}, authentication ${auth}, ${advert}, ${cast}`,
        address,
        auth,
        advert,
        cast,
        specPath: dotPath(v.specPath),
      };
    });
}

/** Why two live configs would not hear each other's adverts for some VIP, or undefined when they agree. */
interface InstanceIndex {
  readonly byGroup: ReadonlyMap<string, Instance>;
  readonly byVip: ReadonlyMap<string, Instance>;
}
const indexInstances = (b: readonly Instance[]): InstanceIndex => ({
  byGroup: new Map(b.map((i) => [i.group, i])),
  byVip: new Map(b.map((i) => [i.vip, i])),
});

function disagreement(
  a: readonly Instance[],
  { byGroup, byVip }: InstanceIndex,
): { reason: string; path: string } | undefined {
  for (const i of a) {
    const g = byGroup.get(i.group);
    if (g && g.terms !== i.terms) {
      // The spec field behind the difference: the VIP list (positional VRIDs), else the VRRP setting.
      const path =
        g.address !== i.address
          ? g.specPath
          : g.auth !== i.auth
            ? "vrrp.auth"
            : g.advert !== i.advert
              ? "vrrp.advertInterval"
              : "vrrp.unicast";
      return { reason: `${i.group}: ${i.terms} on one side, ${g.terms} on the other`, path };
    }
    const v = byVip.get(i.vip);
    if (v && v.group !== i.group)
      return { reason: `${i.vip} in ${i.group} on one side, ${v.group} on the other`, path: v.specPath };
  }
  return undefined;
}

/** A plan of the configs live at one moment, for simulateFailover: VIPs keyed by address. */
const priorityIndex = new WeakMap<ClusterPlan, Map<string, Map<string, number>>>();
/** VIP address → node → priority in the plan, built once per plan (the simulation asks it for every step). */
function prioritiesByAddress(plan: ClusterPlan): Map<string, Map<string, number>> {
  let index = priorityIndex.get(plan);
  if (!index) {
    index = new Map(
      plan.vips.map((v) => [v.address, new Map(v.order.map((node, rank) => [node, v.priorities[rank] ?? 0]))]),
    );
    priorityIndex.set(plan, index);
  }
  return index;
}

const vipIndex = new WeakMap<ClusterPlan, Map<string, PlannedVip>>();
function vipByAddress(plan: ClusterPlan): Map<string, PlannedVip> {
  let index = vipIndex.get(plan);
  if (!index) {
    index = new Map(plan.vips.map((v) => [v.address, v]));
    vipIndex.set(plan, index);
  }
  return index;
}

function livePlan(
  old: ClusterPlan,
  next: ClusterPlan,
  live: ReadonlyMap<string, Live>,
  only?: readonly string[],
): ClusterPlan {
  const planOf = (l: Live) => (l === "old" ? old : l === "new" ? next : undefined);
  const addresses = only ?? [...new Set([...old.vips, ...next.vips].map((v) => v.address))];
  const vips = addresses.map((address): PlannedVip => {
    const base = (vipByAddress(next).get(address) ?? vipByAddress(old).get(address)) as PlannedVip;
    const entries: { node: string; priority: number }[] = [];
    for (const [node, l] of live) {
      const p = planOf(l);
      const priority = p && prioritiesByAddress(p).get(address)?.get(node);
      if (priority !== undefined) entries.push({ node, priority });
    }
    entries.sort((x, y) => y.priority - x.priority);
    return {
      ...base,
      key: address as PlannedVip["key"],
      order: entries.map((e) => e.node),
      priorities: entries.map((e) => e.priority),
    };
  });
  const nodes = [...next.nodes, ...old.nodes.filter((n) => !next.nodes.some((m) => m.name === n.name))];
  return { ...next, vips, nodes };
}

/**
 * Holders once the live configs settle. With `plan` (a livePlan over some VIPs only), only those are simulated and
 * every other VIP keeps its previous holder: one node's step changes nothing else.
 */
function holdersOf(
  old: ClusterPlan,
  next: ClusterPlan,
  live: ReadonlyMap<string, Live>,
  previous: ReadonlyMap<string, string | undefined> | undefined,
  plan: ClusterPlan = livePlan(old, next, live),
): Map<string, string | undefined> {
  return new Map([
    ...(previous ?? []),
    ...simulateFailover(plan, AT_REST, previous).holdings.map((h): [string, string | undefined] => {
      // The election's tie-break (higher address) decides only between masters. A backup whose priority merely
      // equals the master's accepts its adverts (keepalived 2.2.7 preempts only from a strictly lower advert): a
      // master keeps a VIP against a newcomer of equal priority (mixed configs make such ties).
      const before = previous?.get(h.vip.address);
      const rank = before === undefined ? -1 : h.vip.order.indexOf(before);
      const keeps = rank >= 0 && h.vip.priorities[rank] === h.priority;
      return [h.vip.address, keeps ? before : h.holder];
    }),
  ]);
}

/** The planner with the extra detail the lab needs; planKeepalivedSteps returns its contract part. */
export function planKeepalivedRollout(old: TreeSide, next: TreeSide): KeepalivedRollout {
  const oldFiles = keepalivedFiles(old.artifacts);
  const newFiles = keepalivedFiles(next.artifacts);
  const nodeOrder = [...next.plan.nodes.map((n) => n.name), ...old.plan.nodes.map((n) => n.name)];
  const nodes = [...new Set(nodeOrder)].filter((n) => oldFiles.has(n) || newFiles.has(n));
  const oldCfg = new Map(nodes.map((n) => [n, oldFiles.has(n) ? instancesOf(old.plan, n) : []]));
  const newCfg = new Map(nodes.map((n) => [n, newFiles.has(n) ? instancesOf(next.plan, n) : []]));

  // Nodes whose old config disagrees with another node's new one: they must never run while the other runs new.
  const newIndex = new Map([...newCfg].map(([n, cfg]) => [n, indexInstances(cfg)]));
  const conflicts: { a: string; b: string; reason: string; path: string }[] = [];
  for (const a of nodes)
    for (const b of nodes) {
      if (a === b || !oldFiles.has(a) || !newFiles.has(b)) continue;
      const d = disagreement(oldCfg.get(a) ?? [], newIndex.get(b) ?? indexInstances([]));
      if (d) conflicts.push({ a, b, ...d });
    }
  const drain = new Set(conflicts.flatMap((c) => [c.a, c.b]));
  const clashes = new Set(conflicts.flatMap((c) => [`${c.a}\n${c.b}`, `${c.b}\n${c.a}`]));
  const clash = (x: string, y: string) => clashes.has(`${x}\n${y}`);

  const live = new Map<string, Live>(nodes.map((n) => [n, oldFiles.has(n) ? "old" : "down"]));
  const affectedCache = new Map<string, string[]>();
  const affected = (node: string): string[] => {
    let list = affectedCache.get(node);
    if (!list) {
      list = [...new Set([...(oldCfg.get(node) ?? []), ...(newCfg.get(node) ?? [])].map((i) => i.vip))];
      affectedCache.set(node, list);
    }
    return list;
  };
  const holdersBefore = holdersOf(old.plan, next.plan, live, undefined);
  let holders = holdersBefore;
  const steps: KeepalivedStep[] = [];

  const changed = (n: string) => !sameFiles(oldFiles.get(n), newFiles.get(n));
  const actionOf = (n: string): Action | undefined =>
    !changed(n) ? undefined : !oldFiles.has(n) ? "start" : !newFiles.has(n) ? "stop" : "reload";

  /** Applies an action to a copy of `live` and predicts its moves. */
  const trial = (node: string, action: Action, state: ReadonlyMap<string, Live>) => {
    const after = new Map(state);
    after.set(node, action === "stop" ? "down" : "new");
    // Only the VIPs this node has an instance for (in either config) can move in its step.
    const plan = livePlan(old.plan, next.plan, after, affected(node));
    const holdersAfter = holdersOf(old.plan, next.plan, after, holders, plan);
    const moves: VipMove[] = [];
    let settle = 0;
    for (const vip of plan.vips) {
      const from = holders.get(vip.address);
      const to = holdersAfter.get(vip.address);
      if (from === to) continue;
      const rank = to === undefined ? -1 : vip.order.indexOf(to);
      const bounds = takeoverBounds(plan, vip.priorities[rank] ?? 1, vip.kind);
      const down = bounds.death.max;
      const a = plan.vrrp.advertInterval;
      // The old holder still runs an instance for it: the new one preempts (after preempt_delay), no gap. It gave
      // the VIP up (stopped, or reloaded without the instance): it said goodbye (priority 0), the best backup
      // takes over after its skew. Nobody held it: one down timer from the start.
      const stillThere = from !== undefined && vip.order.includes(from);
      const delay = vip.kind === "control-plane" ? 0 : plan.vrrp.preemptDelay;
      let unavailable = 0;
      if (to === undefined) settle = Math.max(settle, a);
      else if (from === undefined) settle = Math.max(settle, bounds.claim.max + a);
      else if (stillThere)
        // A node that (re)starts runs its checks from failed (init_fail): they rise before it may preempt.
        settle = Math.max(settle, delay + down + 2 * a, to === node ? bounds.rejoin.max + a : 0);
      else {
        unavailable = down - 3 * a + a;
        settle = Math.max(settle, unavailable + a);
      }
      moves.push({ vip: vip.address, from: from ?? null, to: to ?? null, unavailableSeconds: round(unavailable) });
    }
    // A restart gives up every VIP the node holds and claims it again after one down timer (or a backup holds it
    // meanwhile, after the goodbye's skew): the holder is the same before and after, with a gap.
    if (action === "restart")
      for (const vip of plan.vips) {
        const from = holders.get(vip.address);
        if (from !== node || holdersAfter.get(vip.address) !== node) continue;
        const stopped = new Map(state);
        stopped.set(node, "down");
        const meanwhile = holdersOf(
          old.plan,
          next.plan,
          stopped,
          holders,
          livePlan(old.plan, next.plan, stopped, [vip.address]),
        ).get(vip.address);
        const bounds = takeoverBounds(plan, vip.priorities[vip.order.indexOf(node)] ?? 1, vip.kind);
        const a = plan.vrrp.advertInterval;
        // keepalived's own shutdown and start come on top of the down timer: one advert interval is allowed for
        // them (the lab measured the whole gap at 1.4 s above the down timer with advert_int 1, on 2 busy cores).
        const unavailable = meanwhile === undefined ? bounds.claim.max + a : bounds.death.max - 2 * a;
        settle = Math.max(settle, bounds.rejoin.max + a, unavailable + a);
        moves.push({ vip: vip.address, from: node, to: node, unavailableSeconds: round(unavailable) });
      }
    // A step that moves nothing is still watched for as long as a wrong takeover would take to show.
    if (moves.length === 0) {
      const p = next.plan;
      settle = Math.max(p.vrrp.preemptDelay, 0) + takeoverBounds(p, 1).death.max + p.vrrp.advertInterval;
    }
    return { after, holdersAfter, moves, settle };
  };

  /** A VIP the new tree no longer has: it goes for good, which is no outage of the plan's. */
  const removed = (vip: string) => !next.plan.vips.some((v) => v.address === vip);
  const holds = (n: string) => [...holders.values()].includes(n);
  const push = (node: string, action: Action, purpose: string, state: Map<string, Live>) => {
    const t = trial(node, action, state);
    const files = action === "stop" ? [] : [...(newFiles.get(node)?.keys() ?? [])].sort();
    const command = COMMAND[action];
    const movesText =
      t.moves.length === 0
        ? "no VIP moves"
        : t.moves.map((m) => `${m.vip} ${m.from ?? "nobody"} → ${m.to ?? "nobody"}`).join(", ");
    const warnings: string[] = [];
    for (const m of t.moves)
      if (m.to === null && !removed(m.vip))
        warnings.push(`${m.vip} has no holder after this step, until a later step brings it back`);
    if (action === "stop" && !newFiles.has(node))
      warnings.push(
        `${node} no longer runs keepalived: remove /etc/keepalived and \`rc-update del keepalived default\``,
      );
    if (action === "start" && !oldFiles.has(node))
      warnings.push(
        `${node} runs keepalived for the first time: \`rc-update add keepalived default\` to start it at boot`,
      );
    steps.push({
      node,
      kind: "keepalived",
      action,
      title: `${node}: ${action} keepalived${purpose ? ` (${purpose})` : ""}: ${movesText}`,
      files,
      commands: [command],
      vipMoves: t.moves,
      warnings,
      settleSeconds: round(t.settle),
      holdersAfter: t.holdersAfter,
    });
    for (const [n, l] of t.after) state.set(n, l);
    holders = t.holdersAfter;
  };

  /**
   * Greedy: the candidate whose step moves the fewest VIPs, then one that holds nothing, then node order. Each
   * choice simulates every candidate; past GREEDY_LIMIT candidates (a big cluster) only holders and node order
   * decide, so the plan stays O(nodes × VIPs × nodes).
   */
  const runGreedy = (candidates: readonly string[], actionFor: (n: string) => Action, purpose: string) => {
    const left = [...candidates];
    while (left.length > 0) {
      let best: { n: string; score: number[] } | undefined;
      for (const n of left) {
        const moved = left.length > GREEDY_LIMIT ? 0 : trial(n, actionFor(n), live).moves.length;
        const score = [moved, holds(n) ? 1 : 0, nodes.indexOf(n)];
        if (!best || lexLess(score, best.score)) best = { n, score };
      }
      const n = (best as { n: string }).n;
      push(n, actionFor(n), purpose, live);
      left.splice(left.indexOf(n), 1);
    }
  };

  // 1. Rolling: every changed node that disagrees with nobody, while the rest keep running.
  runGreedy(
    nodes.filter((n) => !drain.has(n) && actionOf(n) !== undefined),
    (n) => actionOf(n) as Action,
    "",
  );

  // 2. Drain: keep a set of nodes that cannot disagree with one another (old or new) and carry the most VIPs;
  //    stop the others, switch the kept ones to the new config, start the others on it.
  const keep: string[] = [];
  if (drain.size > 0) {
    const covered = new Set(
      old.plan.vips.filter((v) => v.order.some((n) => !drain.has(n) && live.get(n) !== "down")).map((v) => v.address),
    );
    const candidates = nodes.filter((n) => drain.has(n) && oldFiles.has(n) && newFiles.has(n));
    for (;;) {
      const gain = (n: string) =>
        old.plan.vips.filter((v) => v.order.includes(n) && !covered.has(v.address)).length * 1000 +
        next.plan.vips.filter((v) => v.order.includes(n)).length;
      const pick = candidates
        .filter((n) => !keep.includes(n) && keep.every((k) => !clash(k, n)))
        .sort((x, y) => gain(y) - gain(x) || nodes.indexOf(x) - nodes.indexOf(y))[0];
      if (pick === undefined || (keep.length > 0 && gain(pick) < 1000)) break;
      keep.push(pick);
      for (const v of old.plan.vips) if (v.order.includes(pick)) covered.add(v.address);
    }
    const drained = nodes.filter((n) => drain.has(n) && !keep.includes(n));
    runGreedy(
      drained.filter((n) => oldFiles.has(n)),
      () => "stop",
      "drain",
    );
    // keepalived 2.2.7 applies a reload instance by instance: an address that moves from one instance to another
    // on the same node can be added by the one and then deleted by the other (seen in the lab: the VIP stayed
    // gone). Such a node restarts instead.
    const regrouped = (n: string) =>
      (oldCfg.get(n) ?? []).some((i) => (newCfg.get(n) ?? []).some((j) => j.vip === i.vip && j.group !== i.group));
    runGreedy(
      keep.filter((n) => changed(n) || regrouped(n)),
      (n) => (regrouped(n) ? "restart" : "reload"),
      "alone on its VRIDs",
    );
    runGreedy(
      drained.filter((n) => newFiles.has(n)),
      () => "start",
      "after the drain",
    );
  }

  // A VIP that lost its holder: its unavailability runs until the step that brings it back (at the least the
  // predicted settle times of the steps between, as fast as an operator can go).
  const finalSteps = steps.map((s, i) => ({
    ...s,
    vipMoves: s.vipMoves.map((m) => {
      if (m.to !== null || removed(m.vip)) return m;
      let seconds = 0;
      for (let j = i; j < steps.length; j++) {
        const back = steps[j]?.vipMoves.find((x) => x.vip === m.vip && x.from === null && j > i);
        seconds += steps[j]?.settleSeconds ?? 0;
        if (back) break;
      }
      return { ...m, unavailableSeconds: round(seconds) };
    }),
  }));

  const notInPlace: ChangePlan["notInPlace"][number][] = [];
  for (const path of [...new Set(conflicts.map((c) => c.path))]) {
    const c = conflicts.find((x) => x.path === path);
    if (!c) continue;
    notInPlace.push({
      path,
      reason: `keepalived cannot roll this change node by node: while ${c.a} runs the old config and ${c.b} the new one they disagree (${c.reason}), keepalived drops the other side's adverts and both hold the VIP`,
      procedure: [
        `drain keepalived on ${nodes.filter((n) => drain.has(n) && !keep.includes(n)).join(", ")}: stop it there one node at a time (the VIPs gather on ${keep.join(", ") || "nobody"})`,
        keep.length > 0 ? `install the new files on ${keep.join(", ")} and reload keepalived there` : "",
        "install the new files on the drained nodes and start keepalived on them one at a time",
      ].filter(Boolean),
    });
  }
  return {
    steps: finalSteps,
    holdersBefore,
    drained: nodes.filter((n) => drain.has(n) && !keep.includes(n)),
    notInPlace,
    refused: [],
  };
}

const GREEDY_LIMIT = 24;

const round = (x: number) => Math.round(x * 100) / 100;

function lexLess(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) < (b[i] ?? 0);
  return false;
}

/** The keepalived steps of a change plan (NodeStepPlanner): see planKeepalivedRollout. */
export const planKeepalivedSteps: NodeStepPlanner = (old, next) => {
  const r = planKeepalivedRollout(old, next);
  return {
    steps: r.steps.map(({ action: _a, settleSeconds: _s, holdersAfter: _h, ...step }) => step),
    notInPlace: r.notInPlace,
    refused: r.refused,
  };
};
