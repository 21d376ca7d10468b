// The keepalived part of a change plan: which nodes reload, stop or start keepalived, in what order, and which VIPs
// each step moves. Safe by construction: no moment has two live configs that disagree on a VRRP group (one VRID on
// one interface) about its VIP list, authentication or advert interval, nor one VIP in two groups. keepalived drops
// the adverts of such a peer (v2.2.7 vrrp.c ~1092-1101), so both sides would become master of the same address.
// Where a rolling order cannot avoid that, the nodes involved are drained: all but a set that cannot disagree stop,
// that set takes the new config, and the others start again on it. Every move is predicted by core's failover
// model (simulateFailover's rules) over the configs that are live at that moment, kept incrementally (holders.ts).
import {
  type Artifact,
  type ClusterPlan,
  type EqualParts,
  type IpFamily,
  instanceAddresses,
  instanceFamilies,
  ipFamily,
  sameContent,
  takeoverBounds,
  vipLabel,
} from "@clusterspec/core";
import { DOWN, HolderModel, type Live, type LiveCode, liveCode, NEW, NOBODY, prioritiesByAddress } from "./holders.js";
import type { NodeStepPlanner, TreeSide } from "./node-steps.js";
import type { ChangePlan, RolloutStep, VipMove } from "./types.js";

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
  /**
   * Which password the adverts carry, compared and never printed (nor put in `terms`): the resolved value when the
   * tree has it, else the secret reference (a review tree's placeholder is the same whatever the password).
   */
  readonly password: string;
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

/** A step as the planner records it, before the unavailability of VIPs left without a holder is known. */
interface PlannedStep {
  readonly node: string;
  readonly action: Action;
  readonly title: string;
  readonly files: readonly string[];
  readonly command: string;
  readonly vipMoves: readonly VipMove[];
  readonly warnings: readonly string[];
  readonly settleSeconds: number;
  /** Each VIP's holder after the step, by the HolderModel's indices. */
  readonly holders: Int32Array;
}

/**
 * The step as the planner returns it. `holdersAfter` (every VIP's holder, which the lab reads) is a getter that
 * builds the map when read: on 300 × 254 a map of 255 holders per step for 254 steps was garbage for every
 * `clusterspec changes`, which never reads it.
 */
function keepalivedStep(
  s: PlannedStep,
  holdersAfter: () => ReadonlyMap<string, string | undefined>,
  vipMoves: readonly VipMove[],
): KeepalivedStep {
  let built: ReadonlyMap<string, string | undefined> | undefined;
  return {
    node: s.node,
    kind: "keepalived",
    action: s.action,
    title: s.title,
    files: s.files,
    commands: [s.command],
    vipMoves,
    warnings: s.warnings,
    settleSeconds: s.settleSeconds,
    get holdersAfter() {
      built ??= holdersAfter();
      return built;
    },
  };
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

/** node → (path → artifact) of its etc/keepalived files. */
function keepalivedFiles(artifacts: TreeSide["artifacts"]): Map<string, Map<string, Artifact>> {
  const out = new Map<string, Map<string, Artifact>>();
  for (const a of artifacts) {
    const m = KEEPALIVED_DIR.exec(a.path);
    if (!m?.[1]) continue;
    const files = out.get(m[1]) ?? new Map<string, Artifact>();
    files.set(a.path, a);
    out.set(m[1], files);
  }
  return out;
}

const sameFiles = (
  a: ReadonlyMap<string, Artifact> | undefined,
  b: ReadonlyMap<string, Artifact> | undefined,
  equal: EqualParts,
) =>
  a !== undefined && b !== undefined && a.size === b.size && [...a].every(([p, c]) => sameContent(c, b.get(p), equal));

/** The plan's instances by VIP address, built once per plan: every node carrying a VIP runs the same instance. */
const instanceIndex = new WeakMap<ClusterPlan, Map<string, Instance>>();
function planInstances(plan: ClusterPlan): Map<string, Instance> {
  let index = instanceIndex.get(plan);
  if (!index) {
    const auth = plan.vrrp.auth?.type ?? "none";
    const advert = `advert_int ${plan.vrrp.advertInterval}`;
    const cast = plan.vrrp.unicast ? "unicast" : "multicast";
    const password = passwordKey(plan);
    index = new Map(
      plan.vips.map((v): [string, Instance] => {
        // A dual-stack pair's IPv6 half is part of its group: adding, changing or removing it is a change of terms.
        const address = instanceAddresses(v)
          .map((a) => `${a.address}/${a.prefixLength}`)
          .join(" + ");
        return [
          v.address,
          {
            // IPv4 and IPv6 VRIDs are separate spaces (RFC 5798): an IPv4 and an IPv6 VIP may share one on an interface.
            group: `${v.interface} VRID ${v.vrid}${ipFamily(v.address) === 6 ? " (IPv6)" : ""}`,
            vip: v.address,
            terms: `${address}, authentication ${auth}, ${advert}, ${cast}`,
            address,
            auth,
            advert,
            cast,
            password,
            specPath: dotPath(v.specPath),
          },
        ];
      }),
    );
    instanceIndex.set(plan, index);
  }
  return index;
}

/**
 * What identifies the VRRP password of a plan, for comparison only: with `--with-secrets` the value (a changed
 * password behind the same reference changes it), else the reference (env or file name), which is all a review tree
 * knows. A tree with the value and one without never compare equal: the planner then drains, the safe side.
 */
function passwordKey(plan: ClusterPlan): string {
  if (!plan.vrrp.auth) return "";
  const secret = plan.secrets.vrrpPassword;
  if (!secret) return "";
  return secret.isPlaceholder ? `reference ${JSON.stringify(secret.ref)}` : `value ${secret.value}`;
}

/**
 * Each node's instances, in the plan's VIP order, built once per plan in one pass over the VIPs' priority orders:
 * filtering every VIP for every node was O(nodes × VIPs) map lookups (300 nodes × 254 VIPs, twice per plan).
 */
const nodeInstanceIndex = new WeakMap<ClusterPlan, Map<string, Instance[]>>();
function instancesOf(plan: ClusterPlan, node: string): Instance[] {
  let index = nodeInstanceIndex.get(plan);
  if (!index) {
    const priorities = prioritiesByAddress(plan);
    const instances = planInstances(plan);
    index = new Map();
    for (const v of plan.vips) {
      const instance = instances.get(v.address) as Instance;
      for (const carrier of priorities.get(v.address)?.keys() ?? []) {
        const list = index.get(carrier);
        if (list) list.push(instance);
        else index.set(carrier, [instance]);
      }
    }
    nodeInstanceIndex.set(plan, index);
  }
  return [...(index.get(node) ?? [])];
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
    if (g && g.terms === i.terms && g.password !== i.password)
      return {
        reason: `${i.group}: authentication ${i.auth} with another password on each side (another secret reference or value; the password is not shown)`,
        path: "vrrp.auth.password",
      };
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

/**
 * Numbers the distinct configs of one side: node → kind (undefined: no config on that side). Within one plan an
 * instance depends only on its VIP, so the VIP list identifies the config.
 */
function configKinds(
  nodes: readonly string[],
  configOf: (node: string) => readonly Instance[] | undefined,
): { kind: Map<string, number>; count: number } {
  const ids = new Map<string, number>();
  const kind = new Map<string, number>();
  for (const n of nodes) {
    const cfg = configOf(n);
    if (cfg === undefined) continue;
    const signature = cfg.map((i) => i.vip).join(" ");
    let id = ids.get(signature);
    if (id === undefined) {
      id = ids.size;
      ids.set(signature, id);
    }
    kind.set(n, id);
  }
  return { kind, count: Math.max(1, ids.size) };
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
  // Nodes that carry the same VIPs have the same instances (the plan's VIP settings are shared): each pair of
  // distinct configs is compared once, not each pair of nodes (300 nodes × 254 VIPs: 23 million comparisons).
  const oldKind = configKinds(nodes, (n) => (oldFiles.has(n) ? (oldCfg.get(n) ?? []) : undefined));
  const newKind = configKinds(nodes, (n) => (newFiles.has(n) ? (newCfg.get(n) ?? []) : undefined));
  // Each pair of distinct configs (an old kind, a new kind) is compared once; the node pairs are listed only for the
  // pairs that disagree (most changes have none: 300 × 300 node pairs of map lookups for nothing).
  const representative = (kinds: Map<string, number>) => {
    const first = new Map<number, string>();
    for (const [n, k] of kinds) if (!first.has(k)) first.set(k, n);
    return first;
  };
  const oldOf = representative(oldKind.kind);
  const newOf = representative(newKind.kind);
  const disagreeing = new Map<number, NonNullable<ReturnType<typeof disagreement>>>();
  for (const [kb, b] of newOf) {
    const index = indexInstances(newCfg.get(b) ?? []);
    for (const [ka, a] of oldOf) {
      const d = disagreement(oldCfg.get(a) ?? [], index);
      if (d) disagreeing.set(ka * newKind.count + kb, d);
    }
  }
  const conflicts: { a: string; b: string; reason: string; path: string }[] = [];
  if (disagreeing.size > 0)
    for (const a of nodes)
      for (const b of nodes) {
        const ka = oldKind.kind.get(a);
        const kb = newKind.kind.get(b);
        if (a === b || ka === undefined || kb === undefined) continue;
        const d = disagreeing.get(ka * newKind.count + kb);
        if (d) conflicts.push({ a, b, ...d });
      }
  conflicts.push(...unicastConflicts(old, next, oldFiles, newFiles, conflicts));
  const drain = new Set(conflicts.flatMap((c) => [c.a, c.b]));
  const clashes = new Set(conflicts.flatMap((c) => [`${c.a}\n${c.b}`, `${c.b}\n${c.a}`]));
  const clash = (x: string, y: string) => clashes.has(`${x}\n${y}`);

  const live = new Map<string, Live>(nodes.map((n) => [n, oldFiles.has(n) ? "old" : "down"]));
  const model = new HolderModel(old.plan, next.plan, nodes);
  // The same state by number, for the trials (model's indices): each node's live config, each VIP's holder.
  const liveNow = Int8Array.from(nodes, (n) => liveCode(live.get(n)));
  const affectedCache = new Map<string, Int32Array>();
  /** The VIPs (indices) `node` has an instance for in either config: only these can move in its step. */
  const affected = (node: string): Int32Array => {
    let list = affectedCache.get(node);
    if (!list) {
      // the old config's VIPs, then the new one's others, in that order (the order moves are listed in)
      const seen = new Uint8Array(model.vipCount);
      const vips: number[] = [];
      for (const config of [oldCfg.get(node) ?? [], newCfg.get(node) ?? []])
        for (let k = 0; k < config.length; k++) {
          const v = model.vipAt((config[k] as Instance).vip);
          if (seen[v] === 1) continue;
          seen[v] = 1;
          vips.push(v);
        }
      list = Int32Array.from(vips);
      affectedCache.set(node, list);
    }
    return list;
  };
  const holdersBefore = new Map<string, string | undefined>(
    model.addresses().map((address) => [address, model.holder(address, (n) => live.get(n), undefined)]),
  );
  const holderNow = Int32Array.from(model.addresses(), (address) => model.nodeAt(holdersBefore.get(address)));
  /** How many VIPs each node (index) holds (the greedy prefers a node that holds none). */
  const held = new Int32Array(nodes.length);
  const countHeld = () => {
    held.fill(0);
    for (let v = 0; v < holderNow.length; v++) {
      const h = holderNow[v] as number;
      if (h !== NOBODY) held[h] = (held[h] ?? 0) + 1;
    }
  };
  countHeld();
  const position = new Map(nodes.map((n, i) => [n, i]));
  const steps: PlannedStep[] = [];
  /** A step's holders (a snapshot of `holderNow`) as the map KeepalivedStep gives, built only when asked for. */
  const holdersMap = (snapshot: Int32Array) => () =>
    new Map(model.addresses().map((address, v) => [address, model.nameOf(snapshot[v] as number)]));

  // A password changed behind the files (a review tree writes the same placeholder for any reference): the node
  // still reloads, with the files written --with-secrets.
  const passwordChanged = passwordKey(old.plan) !== passwordKey(next.plan);
  // once per node: the greedy below asks for every candidate in every round
  const equalParts: EqualParts = new Map();
  const changedNodes = new Set(
    nodes.filter(
      (n) =>
        !sameFiles(oldFiles.get(n), newFiles.get(n), equalParts) ||
        (passwordChanged && (oldCfg.get(n)?.length ?? 0) > 0 && (newCfg.get(n)?.length ?? 0) > 0),
    ),
  );
  const changed = (n: string) => changedNodes.has(n);
  const actionOf = (n: string): Action | undefined =>
    !changed(n) ? undefined : !oldFiles.has(n) ? "start" : !newFiles.has(n) ? "stop" : "reload";

  /** Predicts the moves of `node` taking `action` from the live state now (which is left alone). */
  const trial = (node: string, action: Action) => {
    const self = model.nodeAt(node);
    const nodeAfter: LiveCode = action === "stop" ? DOWN : NEW;
    const liveAfter = (i: number): LiveCode => (i === self ? nodeAfter : (liveNow[i] as LiveCode));
    // Only the VIPs this node has an instance for (in either config) can move in its step.
    const vips = affected(node);
    // The holders after, beside `vips`: the greedy tries every candidate and keeps one, so the whole map is built
    // only for the step taken (on 300 × 254 a copy of every VIP's holder per trial was a third of the planner).
    const after = new Int32Array(vips.length);
    for (let k = 0; k < vips.length; k++) {
      const v = vips[k] as number;
      after[k] = model.holderAfterAt(v, self, liveAfter, holderNow[v] as number);
    }
    const plan = next.plan; // the timings read only the VRRP settings, the new tree's
    const moves: VipMove[] = [];
    let settle = 0;
    for (let k = 0; k < vips.length; k++) {
      const v = vips[k] as number;
      const from = holderNow[v] as number;
      const to = after[k] as number;
      if (from === to) continue;
      const address = model.addressOf(v);
      const kind = model.vips.get(address)?.kind;
      const toPriority = to === NOBODY ? NOBODY : model.priorityAt(v, to, liveAfter(to));
      const bounds = takeoverBounds(plan, toPriority === NOBODY ? 1 : toPriority, kind);
      const down = bounds.death.max;
      const a = plan.vrrp.advertInterval;
      // The old holder still runs an instance for it: the new one preempts (after preempt_delay), no gap. It gave
      // the VIP up (stopped, or reloaded without the instance): it said goodbye (priority 0), the best backup
      // takes over after its skew. Nobody held it: one down timer from the start.
      const stillThere = from !== NOBODY && model.priorityAt(v, from, liveAfter(from)) !== NOBODY;
      const delay = kind === "control-plane" ? 0 : plan.vrrp.preemptDelay;
      let unavailable = 0;
      if (to === NOBODY) settle = Math.max(settle, a);
      else if (from === NOBODY) settle = Math.max(settle, bounds.claim.max + a);
      else if (stillThere)
        // A node that (re)starts runs its checks from failed (init_fail): they rise before it may preempt.
        settle = Math.max(settle, delay + down + 2 * a, to === self ? bounds.rejoin.max + a : 0);
      else {
        unavailable = down - 3 * a + a;
        settle = Math.max(settle, unavailable + a);
      }
      moves.push({
        vip: address,
        from: model.nameOf(from) ?? null,
        to: model.nameOf(to) ?? null,
        unavailableSeconds: round(unavailable),
      });
    }
    // A restart gives up every VIP the node holds and claims it again after one down timer (or a backup holds it
    // meanwhile, after the goodbye's skew): the holder is the same before and after, with a gap.
    if (action === "restart") {
      const stopped = (i: number): LiveCode => (i === self ? DOWN : (liveNow[i] as LiveCode));
      for (let k = 0; k < vips.length; k++) {
        const v = vips[k] as number;
        if (holderNow[v] !== self || after[k] !== self) continue;
        const address = model.addressOf(v);
        const kind = model.vips.get(address)?.kind;
        const meanwhile = model.holderAfterAt(v, self, stopped, holderNow[v] as number);
        const priority = model.priorityAt(v, self, nodeAfter);
        const bounds = takeoverBounds(plan, priority === NOBODY ? 1 : priority, kind);
        const a = plan.vrrp.advertInterval;
        // keepalived's own shutdown and start come on top of the down timer: one advert interval is allowed for
        // them (the lab measured the whole gap at 1.4 s above the down timer with advert_int 1, on 2 busy cores).
        const unavailable = meanwhile === NOBODY ? bounds.claim.max + a : bounds.death.max - 2 * a;
        settle = Math.max(settle, bounds.rejoin.max + a, unavailable + a);
        moves.push({ vip: address, from: node, to: node, unavailableSeconds: round(unavailable) });
      }
    }
    // A step that moves nothing is still watched for as long as a wrong takeover would take to show.
    if (moves.length === 0) {
      const p = next.plan;
      settle = Math.max(p.vrrp.preemptDelay, 0) + takeoverBounds(p, 1).death.max + p.vrrp.advertInterval;
    }
    /** Takes the step: the live state and the holders become the trial's; returns the holders after it. */
    const apply = (): Int32Array => {
      for (let k = 0; k < vips.length; k++) holderNow[vips[k] as number] = after[k] as number;
      if (self !== NOBODY) liveNow[self] = nodeAfter;
      live.set(node, nodeAfter === DOWN ? "down" : "new");
      countHeld();
      return holderNow.slice();
    };
    return { apply, moves, settle };
  };

  /** A VIP the new tree no longer has: it goes for good, which is no outage of the plan's. */
  const nextAddresses = new Set(next.plan.vips.map((v) => v.address));
  const removed = (vip: string) => !nextAddresses.has(vip);
  const holds = (n: string) => (held[model.nodeAt(n)] ?? 0) > 0;
  const push = (node: string, action: Action, purpose: string) => {
    const t = trial(node, action);
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
    if (
      passwordChanged &&
      old.plan.vrrp.auth &&
      next.plan.vrrp.auth &&
      action !== "stop" &&
      (newCfg.get(node)?.length ?? 0) > 0
    )
      warnings.push(
        "the VRRP password changed: install auth.conf from a tree written with --with-secrets (a review tree holds a placeholder)",
      );
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
      action,
      title: `${node}: ${action} keepalived${purpose ? ` (${purpose})` : ""}: ${movesText}`,
      files,
      command,
      vipMoves: t.moves,
      warnings,
      settleSeconds: round(t.settle),
      holders: t.apply(),
    });
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
        const moved = left.length > GREEDY_LIMIT ? 0 : trial(n, actionFor(n)).moves.length;
        const score = [moved, holds(n) ? 1 : 0, position.get(n) ?? -1];
        if (!best || lexLess(score, best.score)) best = { n, score };
      }
      const n = (best as { n: string }).n;
      push(n, actionFor(n), purpose);
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
    const oldVipsOf = (n: string) => old.plan.vips.filter((v) => v.order.includes(n)).map((v) => v.address);
    const newCount = new Map(candidates.map((n) => [n, next.plan.vips.filter((v) => v.order.includes(n)).length]));
    const oldVips = new Map(candidates.map((n) => [n, oldVipsOf(n)]));
    for (;;) {
      const gains = new Map(
        candidates.map((n) => [
          n,
          (oldVips.get(n) ?? []).filter((a) => !covered.has(a)).length * 1000 + (newCount.get(n) ?? 0),
        ]),
      );
      const gain = (n: string) => gains.get(n) ?? 0;
      const pick = candidates
        .filter((n) => !keep.includes(n) && keep.every((k) => !clash(k, n)))
        .sort((x, y) => gain(y) - gain(x) || (position.get(x) ?? 0) - (position.get(y) ?? 0))[0];
      if (pick === undefined || (keep.length > 0 && gain(pick) < 1000)) break;
      keep.push(pick);
      for (const a of oldVipsOf(pick)) covered.add(a);
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
    const regrouped = (n: string) => {
      const newGroups = new Map((newCfg.get(n) ?? []).map((j) => [j.vip, j.group]));
      return (oldCfg.get(n) ?? []).some((i) => newGroups.has(i.vip) && newGroups.get(i.vip) !== i.group);
    };
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
  const finalSteps = steps.map((s, i) =>
    keepalivedStep(
      s,
      holdersMap(s.holders),
      s.vipMoves.map((m) => {
        if (m.to !== null || removed(m.vip)) return m;
        let seconds = 0;
        for (let j = i; j < steps.length; j++) {
          const back = steps[j]?.vipMoves.find((x) => x.vip === m.vip && x.from === null && j > i);
          seconds += steps[j]?.settleSeconds ?? 0;
          if (back) break;
        }
        return { ...m, unavailableSeconds: round(seconds) };
      }),
    ),
  );

  const notInPlace: ChangePlan["notInPlace"][number][] = [];
  const drainedNodes = nodes.filter((n) => drain.has(n) && !keep.includes(n));
  const running = drainedNodes.filter((n) => oldFiles.has(n));
  const notYet = drainedNodes.filter((n) => !oldFiles.has(n));
  for (const path of [...new Set(conflicts.map((c) => c.path))]) {
    const c = conflicts.find((x) => x.path === path);
    if (!c) continue;
    // Unicast: the adverts are not dropped, they are never sent to the other side.
    const consequence =
      path === "vrrp.unicast"
        ? "one side never hears the other's adverts and both can hold the VIP"
        : "keepalived drops the other side's adverts and both hold the VIP";
    notInPlace.push({
      path,
      reason: `keepalived cannot roll this change node by node: while ${c.a} runs the old config and ${c.b} the new one they disagree (${c.reason}), ${consequence}`,
      procedure: [
        running.length > 0
          ? `drain keepalived on ${running.join(", ")}: stop it there one node at a time (the VIPs gather on ${keep.join(", ") || "nobody"})`
          : "",
        notYet.length > 0 ? `keep keepalived stopped on ${notYet.join(", ")} (it does not run yet)` : "",
        keep.length > 0 ? `install the new files on ${keep.join(", ")} and reload keepalived there` : "",
        "install the new files on the drained nodes and start keepalived on them one at a time",
      ].filter(Boolean),
    });
  }
  return {
    steps: finalSteps,
    holdersBefore,
    drained: drainedNodes,
    notInPlace,
    refused: [],
  };
}

/**
 * Pairs of nodes that would not hear each other over unicast while one runs its old config and the other its new
 * one: keepalived sends a unicast advert only to the addresses in the instance's unicast_peer block (v2.2.7
 * keepalived/vrrp/vrrp.c ~1521, vrrp_send_adv: `list_for_each_entry(peer, &vrrp->unicast_peer, e_list)`), so an
 * old config that does not list a new carrier (or a new config that no longer lists a leaving one, or lists a
 * peer at another address) leaves one side deaf to the other's adverts, and both can be master. Receiving is not
 * the problem: without `check_unicast_src` an advert from an unlisted source is accepted (vrrp.c ~1104-1135).
 * Per VIP, only the carriers missing from the other side's peers can clash: O(VIPs × carriers) for the usual change.
 */
function unicastConflicts(
  old: TreeSide,
  next: TreeSide,
  oldFiles: ReadonlyMap<string, unknown>,
  newFiles: ReadonlyMap<string, unknown>,
  known: readonly { a: string; b: string }[],
): { a: string; b: string; reason: string; path: string }[] {
  if (!old.plan.vrrp.unicast || !next.plan.vrrp.unicast) return [];
  const seen = new Set(known.map((c) => `${c.a}\n${c.b}`));
  // A node's peer addresses for a VIP: its address of each family the VIP's instances have (a dual-stack pair's
  // IPv6 half sends to the peers' IPv6 addresses, its IPv4 half to their IPv4 ones).
  const addressOf = (plan: ClusterPlan, node: string, iface: string, families: ReadonlySet<IpFamily>) => {
    const f = plan.nodes.find((n) => n.name === node)?.interfaces.find((i) => i.name === iface);
    return [f?.address, f?.address6].filter((a) => a !== undefined && families.has(ipFamily(a))).join(" + ");
  };
  const newVips = new Map(next.plan.vips.map((v) => [v.address, v]));
  const out: { a: string; b: string; reason: string; path: string }[] = [];
  for (const o of old.plan.vips) {
    const n = newVips.get(o.address);
    if (!n || n.interface !== o.interface || n.vrid !== o.vrid) continue; // a VRRP group change clashes already
    const families = new Set(instanceFamilies(o));
    const peer = (plan: ClusterPlan, node: string) => `${node} ${addressOf(plan, node, o.interface, families)}`;
    const oldPeers = new Set(o.order.map((x) => peer(old.plan, x)));
    const newPeers = new Set(n.order.map((x) => peer(next.plan, x)));
    const oldSide = o.order.filter((x) => oldFiles.has(x));
    const newSide = n.order.filter((x) => newFiles.has(x));
    const deafOld = new Set(newSide.filter((b) => !oldPeers.has(peer(next.plan, b))));
    const deafNew = new Set(oldSide.filter((a) => !newPeers.has(peer(old.plan, a))));
    if (deafOld.size === 0 && deafNew.size === 0) continue;
    for (const a of oldSide)
      for (const b of newSide) {
        if (a === b || (!deafOld.has(b) && !deafNew.has(a)) || seen.has(`${a}\n${b}`)) continue;
        seen.add(`${a}\n${b}`);
        const reason = deafOld.has(b)
          ? `VRID ${o.vrid} on ${o.interface} (${vipLabel(o)}), unicast: ${a}'s old config does not send its adverts to ${peer(next.plan, b)}`
          : `VRID ${o.vrid} on ${o.interface} (${vipLabel(o)}), unicast: ${b}'s new config does not send its adverts to ${peer(old.plan, a)}`;
        out.push({ a, b, reason, path: "vrrp.unicast" });
      }
  }
  return out;
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
    // field by field: holdersAfter is built only when read
    steps: r.steps.map((s) => ({
      node: s.node,
      kind: s.kind,
      title: s.title,
      files: s.files,
      commands: s.commands,
      vipMoves: s.vipMoves,
      warnings: s.warnings,
    })),
    notInPlace: r.notInPlace,
    refused: r.refused,
  };
};
