// The PLAN.md section: who holds which VIP, and who takes over when nodes fail.
// Everything here is O(output + N·V): a failure only moves the VIPs of the failed nodes, so each failure case
// corrects the all-up loads for those VIPs instead of recounting every carrier.
import {
  AT_REST,
  apiserverShutdownDelay,
  type ClusterPlan,
  externalCheck,
  failoverDiagram,
  holdingOf,
  mastersWith,
  mdTable,
  type PlannedVip,
  type TakeoverBound,
  takeoverBounds,
  type VrrpCheckPlan,
  vipCarriers,
  vipLabel,
} from "@clusterspec/core";
import {
  AUTH_FILE,
  CHECK_SCRIPT,
  CHECK_SCRIPT6,
  ciliumHealthPort,
  instanceName,
  instanceName6,
  OPENRC_CONF,
  READINESS_SCRIPT,
  UPLINK_SCRIPT,
} from "./view.js";

/** External VIPs each node masters while the `down` nodes are down. */
export function poolLoads(
  vips: readonly PlannedVip[],
  nodes: readonly string[],
  down: ReadonlySet<string>,
): Map<string, number> {
  const loads = new Map(nodes.filter((n) => !down.has(n)).map((n) => [n, 0]));
  const external = new Set(vips.filter((v) => v.kind === "external").map((v) => v.key));
  for (const [key, holder] of mastersWith(vips, down)) {
    if (holder === undefined || !external.has(key)) continue;
    loads.set(holder, (loads.get(holder) ?? 0) + 1);
  }
  return loads;
}

/** Up to this many carriers a failure row lists every survivor's load; beyond, the range. */
export const LOADS_LISTED_UP_TO = 8;
/** Backups named per VIP in the table; the full order follows in a collapsed block. */
export const TABLE_BACKUPS = 2;

/** The external pool's all-up loads, and a cheap view of them after some carriers fail. */
class PoolLoads {
  readonly base = new Map<string, number>();
  /** load value → how many carriers have it, all up */
  private readonly histogram = new Map<number, number>();
  readonly byMaster = new Map<string, PlannedVip[]>();

  constructor(
    readonly carriers: readonly string[],
    pool: readonly PlannedVip[],
  ) {
    for (const c of carriers) this.base.set(c, 0);
    for (const v of pool) {
      const m = v.order[0];
      if (m === undefined) continue;
      this.base.set(m, (this.base.get(m) ?? 0) + 1);
      const list = this.byMaster.get(m);
      if (list) list.push(v);
      else this.byMaster.set(m, [v]);
    }
    for (const l of this.base.values()) this.histogram.set(l, (this.histogram.get(l) ?? 0) + 1);
  }

  /** Loads of the carriers that change when `down` fail (the failed ones are dropped), and who holds what moved. */
  after(down: readonly string[]): { changed: Map<string, number>; moves: [PlannedVip, string | undefined][] } {
    const changed = new Map<string, number>();
    const moves: [PlannedVip, string | undefined][] = [];
    const isDown = (n: string): boolean => down.includes(n);
    for (const d of down)
      for (const v of this.byMaster.get(d) ?? []) {
        const holder = v.order.find((n) => !isDown(n)); // at most down.length + 1 steps
        moves.push([v, holder]);
        if (holder !== undefined) changed.set(holder, (changed.get(holder) ?? this.base.get(holder) ?? 0) + 1);
      }
    return { changed, moves };
  }

  /** Lowest and highest load over the live carriers, in O(changed) from the all-up histogram. */
  range(down: readonly string[], changed: ReadonlyMap<string, number>): { min: number; max: number } | undefined {
    const h = new Map(this.histogram);
    const drop = (n: string): void => {
      const l = this.base.get(n);
      if (l !== undefined) h.set(l, (h.get(l) ?? 0) - 1);
    };
    for (const d of down) drop(d);
    for (const [n, l] of changed) {
      drop(n);
      h.set(l, (h.get(l) ?? 0) + 1);
    }
    const present = [...h].filter(([, count]) => count > 0).map(([l]) => l);
    return present.length === 0 ? undefined : { min: Math.min(...present), max: Math.max(...present) };
  }

  /** `k8s-1: 2, k8s-3: 1` for a few carriers, else `1 to 2 (spread 1)`, or `1 to 2` without the spread. */
  describe(down: readonly string[], changed: ReadonlyMap<string, number>, withSpread = true): string {
    if (this.carriers.length <= LOADS_LISTED_UP_TO)
      return (
        this.carriers
          .filter((c) => !down.includes(c))
          .map((c) => `${c}: ${changed.get(c) ?? this.base.get(c) ?? 0}`)
          .join(", ") || "no carrier left"
      );
    const r = this.range(down, changed);
    if (r === undefined) return "no carrier left";
    if (r.min === r.max) return `${r.min} on each carrier`;
    return `${r.min} to ${r.max} on each carrier${withSpread ? ` (spread ${r.max - r.min})` : ""}`;
  }
}

const seconds = (x: number): string => `${x.toFixed(2)}s`;
const range = (b: TakeoverBound): string => (b.min === b.max ? seconds(b.max) : `${seconds(b.min)}–${seconds(b.max)}`);

/**
 * The pair of carriers whose joint failure loses the most VIPs, then leaves the live carriers most unbalanced
 * (the first such pair in node order). All C²/2 pairs are evaluated, each in O(VIPs of the pair) with typed
 * arrays and no allocation: only the two failed masters' VIPs move, to the first live node of their order.
 */
export function worstCarrierPair(
  carriers: readonly string[],
  pool: readonly PlannedVip[],
): { down: [string, string]; spread: number; lost: number } {
  const n = carriers.length;
  const index = new Map(carriers.map((c, i) => [c, i]));
  const base = new Int32Array(n);
  // For each master, the first three nodes of each of its VIPs' orders (-1: none), flattened.
  const heads: number[][] = Array.from({ length: n }, () => []);
  for (const v of pool) {
    const [m, f, s] = v.order.slice(0, 3).map((x) => index.get(x) ?? -1);
    if (m === undefined || m < 0) continue;
    base[m] = (base[m] ?? 0) + 1;
    heads[m]?.push(f ?? -1, s ?? -1);
  }
  const values = [...new Set(base)].sort((x, y) => x - y);
  const allCounts = Int32Array.from(values, (l) => base.filter((b) => b === l).length);
  // Each carrier's all-up load as an index into `values`, so a pair's loop allocates nothing (it runs n²/2 times).
  const loadIndex = Int32Array.from(base, (l) => values.indexOf(l));
  const counts = new Int32Array(values.length);
  const drop = (x: number): void => {
    const i = loadIndex[x] ?? 0;
    counts[i] = (counts[i] ?? 0) - 1;
  };
  const delta = new Int32Array(n);
  const touched = new Int32Array(2 * pool.length + 2);
  let worst = { a: 0, b: 1, spread: -1, lost: -1 };
  for (let a = 0; a < n; a++)
    for (let b = a + 1; b < n; b++) {
      let t = 0;
      let lost = 0;
      for (let q = 0; q < 2; q++) {
        const h = heads[q === 0 ? a : b] ?? [];
        for (let k = 0; k < h.length; k += 2) {
          const f = h[k] ?? -1;
          const s = h[k + 1] ?? -1;
          const holder = f >= 0 && f !== a && f !== b ? f : s >= 0 && s !== a && s !== b ? s : -1;
          if (holder < 0) lost++;
          else {
            if (delta[holder] === 0) touched[t++] = holder;
            delta[holder] = (delta[holder] ?? 0) + 1;
          }
        }
      }
      // Untouched live carriers keep their all-up load: which of the all-up values are still present?
      counts.set(allCounts);
      drop(a);
      drop(b);
      let min = Number.POSITIVE_INFINITY;
      let max = Number.NEGATIVE_INFINITY;
      for (let i = 0; i < t; i++) {
        const x = touched[i] ?? 0;
        drop(x);
        const l = (base[x] ?? 0) + (delta[x] ?? 0);
        if (l < min) min = l;
        if (l > max) max = l;
        delta[x] = 0;
      }
      for (let i = 0; i < values.length; i++)
        if ((counts[i] ?? 0) > 0) {
          const l = values[i] ?? 0;
          if (l < min) min = l;
          if (l > max) max = l;
        }
      const spread = max >= min ? max - min : 0;
      if (lost > worst.lost || (lost === worst.lost && spread > worst.spread)) worst = { a, b, spread, lost };
    }
  return { down: [carriers[worst.a] ?? "", carriers[worst.b] ?? ""], spread: worst.spread, lost: worst.lost };
}

const failures = (n: number): string => `${n} failure${n === 1 ? "" : "s"}`;

export function summarizeKeepalived(plan: ClusterPlan): string {
  const vrrp = plan.vrrp;
  const hc = vrrp.healthCheck;
  const w = hc.weight;
  const named = (v: PlannedVip, r: number): string => `${v.order[r]} (${v.priorities[r]})`;
  const vipTable = mdTable(
    ["VIP", "instance", "interface", "VRID", "master", "backups (priority)", "survives"],
    plan.vips.map((v) => {
      const more = v.order.length - 1 - TABLE_BACKUPS;
      const backups = v.order
        .slice(1, 1 + TABLE_BACKUPS)
        .map((_, r) => named(v, r + 1))
        .join(", ");
      return [
        vipLabel(v, true),
        [instanceName(v), ...(v.pair6 ? [instanceName6(v)] : [])].join(" + "),
        v.interface,
        v.vrid,
        v.order.length > 0 ? named(v, 0) : "-",
        (backups || "none") + (more > 0 ? ` and ${more} more` : ""),
        failures(Math.max(0, v.order.length - 1)),
      ];
    }),
  );
  const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
  const pool = plan.vips.filter((v) => v.kind === "external");
  const loads = new PoolLoads(carriers, pool);
  const holdsVip = vipCarriers(plan.vips);
  const nodes = plan.nodes.map((n) => n.name).filter((n) => holdsVip.has(n));
  const cpVips = new Map<string, PlannedVip[]>();
  for (const v of plan.vips) {
    const m = v.order[0];
    if (v.kind === "control-plane" && m !== undefined) cpVips.set(m, [...(cpVips.get(m) ?? []), v]);
  }
  const failRows = nodes.map((dead) => {
    const { changed, moves } = loads.after([dead]);
    const cpMoves = (cpVips.get(dead) ?? []).map((v): [PlannedVip, string | undefined] => [v, v.order[1]]);
    return [
      dead,
      [...cpMoves, ...moves].map(([v, to]) => `${vipLabel(v)} → ${to ?? "nobody"}`).join(", ") || "nothing",
      pool.length === 0 ? "-" : loads.describe([dead], changed),
    ];
  });
  const replicas = pool[0]?.order.length ?? 0;
  // The apiserver-check rows come from core's failover model, starting from the cluster at rest; the node-down
  // rows and the two-carrier case move a failed master's VIPs to the first live node of its order, as the model does.
  const cp = plan.controlPlane.vip;
  const cpAtRest = holdingOf(plan, cp, AT_REST).holder;
  const checkRows = cp.order.map((node) => {
    const holder = holdingOf(plan, cp, { down: [], unhealthy: [node] }, cpAtRest).holder;
    const what =
      holder === cpAtRest
        ? node === cpAtRest
          ? `stays on ${node}${vrrp.nopreempt ? " (nopreempt: no backup takes a VIP from a live master)" : ""}`
          : "nothing (a backup)"
        : `${vipLabel(cp)} → ${holder ?? "nobody"}`;
    return [node, what];
  });
  // Takeover times: the fastest backup has the highest priority below the master, the slowest the lowest.
  // (loops, not Math.max(...spread): a large pool has tens of thousands of priorities)
  let best = 1;
  let worst = 254;
  let top = 1;
  for (const v of plan.vips) {
    top = Math.max(top, v.priorities[0] ?? 1);
    for (let r = 1; r < v.priorities.length; r++) {
      const p = v.priorities[r] ?? 1;
      best = Math.max(best, p);
      worst = Math.min(worst, p);
    }
  }
  const span = (
    event: "death" | "checkFailure" | "checkRecovery" | "rejoin",
    lo: number,
    hi: number,
    kind?: PlannedVip["kind"],
  ): TakeoverBound => ({
    min: takeoverBounds(plan, lo, kind)[event].min,
    max: takeoverBounds(plan, hi, kind)[event].max,
  });
  const d = vrrp.preemptDelay;
  const waitPreempt = d > 0 ? `, preempt_delay ${d}s` : "";
  const rc = externalCheck(plan);
  const extNext = pool.reduce((p, v) => Math.max(p, v.priorities[1] ?? 1), 1);
  const extRows: (readonly string[])[] =
    rc && pool.length > 0 && replicas > 1 && !(vrrp.nopreempt && rc.weight !== 0)
      ? [
          [
            `the ${vrrp.readinessCheck ? "readiness" : "uplink"} check fails on an external VIP's master`,
            range(span("checkFailure", extNext, extNext, "external")),
            rc.weight === 0
              ? `${rc.fall} failed checks ${rc.interval}s apart, then FAULT says goodbye: the skew`
              : `${rc.fall} failed checks ${rc.interval}s apart${waitPreempt}, then the down timer`,
          ],
          [
            "that check recovers",
            range(span("checkRecovery", top, top, "external")),
            `${rc.rise} good checks${d > 0 ? `, preempt_delay ${d}s` : ""}, then the down timer`,
          ],
        ]
      : [];
  const cpNext = cp.priorities[1] ?? cp.priorities[0] ?? 1;
  const adv = vrrp.advertInterval;
  const downTimer = `3 × advert_int ${adv}s + skew (256 − priority)/256 × advert_int`;
  const timing = mdTable(
    ["event", "VIP on its new holder after", "because"],
    [
      [
        "a node dies (no goodbye advert)",
        range(span("death", best, worst)),
        `${downTimer}, counted from the dead master's last advert`,
      ],
      ...(cp.order.length > 1 && !(vrrp.nopreempt && w !== 0)
        ? [
            [
              "the apiserver check fails on the control-plane master",
              range(span("checkFailure", cpNext, cpNext, "control-plane")),
              w === 0
                ? `${hc.fall} failed checks ${hc.interval}s apart, then FAULT says goodbye: the skew`
                : `${hc.fall} failed checks ${hc.interval}s apart (no preempt_delay here), then the down timer`,
            ],
            [
              "the check recovers",
              range(span("checkRecovery", cp.priorities[0] ?? 1, cp.priorities[0] ?? 1, "control-plane")),
              `${hc.rise} good checks, then the down timer`,
            ],
          ]
        : []),
      ...extRows,
      ...shutdownRows(plan),
      vrrp.nopreempt
        ? ["a node comes back", "never: nopreempt", "a backup does not take a VIP from a live master"]
        : [
            "a node comes back",
            `${range(span("rejoin", top, top))} after keepalived starts`,
            `checks run at once, passing until their first result (no init_fail): one good run${d > 0 ? `; external VIPs: preempt_delay ${d}s` : ""}; one down timer`,
          ],
      ...coldStartRows(plan, pool.length > 0, top),
    ],
  );
  const lines = [
    "## keepalived (VRRP)",
    "",
    `Every node that holds a VIP gets \`/etc/keepalived/keepalived.conf\`: one \`vrrp_instance\` per VIP it may hold, state ${vrrp.initialState}${vrrp.nopreempt ? " with nopreempt" : ""}, advert_int ${vrrp.advertInterval}, ${vrrp.unicast ? "unicast to the other nodes" : "multicast"}, ${vrrp.auth ? `auth_type ${vrrp.auth.type} with the password in \`${AUTH_FILE}\` (mode 0600, included by keepalived)` : "no authentication"}. The highest priority among the live nodes holds a VIP; a VIP survives as many node failures as it has backups.`,
  ];
  const pairs = plan.vips.filter((v) => v.pair6 !== undefined);
  if (pairs.length > 0)
    lines.push(
      "",
      `Dual-stack pairs (${pairs.map((v) => vipLabel(v)).join("; ")}): an instance is IPv4 or IPv6, never both, so each pair is two instances, the IPv6 one VRRPv3 (\`version 3\`), with one interface, VRID and priority order, in one \`vrrp_sync_group\` that moves them as one (a member going BACKUP or FAULT takes the other with it). Both halves track the same checks with the same weights${plan.controlPlane.vip.pair6 ? ` (the control-plane pair both \`${CHECK_SCRIPT}\` and \`${CHECK_SCRIPT6}\`, which asks the apiserver on the node's IPv6 address)` : ""}, and \`sync_group_tracking_weight\` keeps those weights in force (keepalived ignores weights in a sync group without it), so the two elections agree and every row below holds for both addresses of a pair. One caveat: when every holder of a pair fails its checks at once, the holders tie at priority 1 and VRRP breaks the tie by the sender's address, IPv4 for one half and the IPv6 link-local address for the other; the sync group then keeps the halves in one state, not necessarily on the node this model picks.`,
    );
  if (pool.length > 0 && replicas < carriers.length)
    lines.push(
      "",
      `Each external VIP is held by ${replicas} of the ${carriers.length} carriers (\`externalVips.replicas\`), so it survives any ${failures(replicas - 1)} and is lost only when ${replicas === 2 ? "both" : `all ${replicas}`} of its carriers are down. A VIP's carriers depend only on its place in the pool: appending an address moves no existing VIP.`,
    );
  lines.push(
    "",
    vipTable,
    "",
    `Health check: \`${CHECK_SCRIPT}\` asks the kube-apiserver on the node's own address for \`/readyz\` (curl, ${hc.timeout}s timeout; **curl is a host dependency** of every control-plane node) every ${hc.interval}s. ${startText(hc, vrrp.advertInterval, "the control-plane VIP from a healthy node", "its apiserver is down")}; after ${hc.fall} failures ${
      w === 0
        ? "the control-plane instance goes to FAULT and releases the VIP"
        : `the control-plane instance's priority drops by ${-w}, below every healthy control-plane node (${describeMargin(plan.controlPlane.vip, w)})`
    }; after ${hc.rise} successes it recovers. ${
      w === 0
        ? plan.bootstrap.bootstrapped
          ? "With weight 0 no node holds the VIP while no apiserver answers, so a cluster cannot be brought up again from nothing: go back to a negative weight for that."
          : "With weight 0 no node holds the VIP while no apiserver answers, so `kubeadm init` cannot reach its endpoint: bootstrap with a negative weight."
        : plan.bootstrap.bootstrapped
          ? "With a negative weight a node alone still takes the VIP while its apiserver is down, which bringing a cluster up needs."
          : "With a negative weight a node alone still takes the VIP while its apiserver is down, which `kubeadm init` needs."
    }`,
    ...externalTracking(plan, pool.length > 0),
    "",
    preemptText(plan),
    "",
    `Scripts: keepalived calls each check script directly (no \`/bin/sh\` in front, so \`enable_script_security\` checks the script itself) as \`script_user ${vrrp.scriptUser}\`${vrrp.scriptUser === "root" ? " (**root**: set `vrrp.scriptUser` to an unprivileged user)" : ", an unprivileged user (the cluster CA the apiserver check reads is world-readable)"}; notify scripts run as that user too.${vrrp.garpRefresh > 0 ? ` A master repeats its gratuitous ARPs every ${vrrp.garpRefresh}s (\`vrrp_garp_master_refresh\`), so switches and neighbours that lost them relearn where each VIP lives.` : ""}`,
    "",
    authText(plan),
    "",
    "### Failover: one node down",
    "",
    mdTable(["failed node", "VIPs taken over", "external VIPs per surviving carrier"], failRows),
  );
  if (pool.length > 0 && carriers.length >= 3) {
    const pair = worstCarrierPair(carriers, pool);
    const { changed } = loads.after(pair.down);
    lines.push(
      "",
      `Two carriers down: the worst case is ${pair.down.join(" and ")}, leaving ${loads.describe(pair.down, changed, false)} (imbalance ${pair.spread}${pair.lost > 0 ? `; ${pair.lost} VIP${pair.lost === 1 ? "" : "s"} held by nobody` : ""}).`,
    );
  }
  if (plan.vips.some((v) => v.order.length > 1 + TABLE_BACKUPS))
    lines.push(
      "",
      "<details><summary>Full priority order of every VIP</summary>",
      "",
      ...plan.vips.map(
        (v) => `- ${instanceName(v)} ${vipLabel(v)}: ${v.order.map((n, r) => `${n} ${v.priorities[r]}`).join(", ")}`,
      ),
      "",
      "</details>",
    );
  lines.push(
    "",
    "### Failover: apiserver check failing",
    "",
    mdTable(["failing node", "control-plane VIP"], checkRows),
    "",
    "### Takeover times (predicted)",
    "",
    timing,
    "",
    ...coldStartText(plan, pool.length > 0),
    ...partitionText(plan, pool.length > 0, top),
    ...(vrrp.nopreempt
      ? [
          `With nopreempt, which backup takes a VIP after a death is a race: the highest priority wins it by only (difference/256) × advert_int (${((1 / 256) * vrrp.advertInterval * 1000).toFixed(1)} ms per priority step), so on a busy node a lower backup may win, and then keeps the VIP.`,
          "",
        ]
      : []),
    "`clusterspec simulate <spec> --down <nodes> [--unhealthy <nodes>]` prints any other state from the same model; clusterspec's VRRP lab checks it against real keepalived daemons.",
    "",
    "### Picture",
    "",
    "```mermaid",
    failoverDiagram(plan),
    "```",
  );
  return lines.join("\n");
}

/** The drain an apiserver gets before it stops (its shutdown-delay-duration), and why it is long enough. */
function shutdownRows(plan: ClusterPlan): (readonly string[])[] {
  const delay = apiserverShutdownDelay(plan);
  const next = plan.controlPlane.vip.priorities[1];
  if (delay === undefined || next === undefined) return [];
  const hc = plan.vrrp.healthCheck;
  const b = takeoverBounds(plan, next, "control-plane").checkFailure;
  const checks = hc.fall * hc.interval;
  return [
    [
      "the master's apiserver shuts down (upgrade, certificate renewal)",
      range(b),
      `/readyz fails, it serves on: ${hc.fall} × ${hc.interval}s + ${hc.weight === 0 ? "goodbye" : "down timer"} ${seconds(b.max - checks)} = ${seconds(b.max)} ≤ shutdown-delay-duration ${delay}s`,
    ],
  ];
}

/** Every keepalived starting together: when the VIPs reach their planned masters (the text below the table says why). */
function coldStartRows(plan: ClusterPlan, hasPool: boolean, top: number): (readonly string[])[] {
  const v = plan.vrrp;
  if (v.nopreempt) return [["every node starts at once", "never moves on", "nopreempt: the first election decides"]];
  const cp = takeoverBounds(plan, plan.controlPlane.vip.priorities[0] ?? 1, "control-plane").checkRecovery;
  const rows: (readonly string[])[] = [
    [
      "every node starts at once: the control-plane VIP",
      `${range(cp)} after its master's check passes`,
      `first checks fail everywhere; then ${v.healthCheck.rise} good checks and the down timer`,
    ],
  ];
  const ext = externalCheck(plan);
  if (!hasPool) return rows;
  const d = v.preemptDelay;
  rows.push(
    ext
      ? [
          "… the external VIPs",
          `${range(takeoverBounds(plan, top, "external").checkRecovery)} after its master's checks pass`,
          `first checks fail everywhere; then ${ext.rise} good checks${d > 0 ? `, preempt_delay ${d}s (no shorter one at startup)` : ""}, the down timer`,
        ]
      : [
          "… the external VIPs",
          range(takeoverBounds(plan, top, "external").death),
          `the first election, on the skew${d > 0 ? `; a lower winner yields after preempt_delay ${d}s` : ""}`,
        ],
  );
  return rows;
}

/** Below the timing table: what a whole-cluster start does, in keepalived 2.2.7's terms. */
function coldStartText(plan: ClusterPlan, hasPool: boolean): string[] {
  const v = plan.vrrp;
  if (v.nopreempt)
    return [
      "Every node starting at once (a power loss, every keepalived restarted together): with nopreempt each VIP stays where the first election puts it.",
      "",
    ];
  const first = (weight: number): string =>
    weight === 0
      ? "no node holds it until one passes, and the first that passes takes it"
      : "every node runs at priority 1: the first node up claims it and keeps it (a backup takes a VIP only from a lower priority)";
  const ext = externalCheck(plan);
  const d = v.preemptDelay;
  return [
    `Every node starting at once (a power loss, every keepalived restarted together): no apiserver answers yet, so every first apiserver check fails and ${first(v.healthCheck.weight)}; the planned master takes the control-plane VIP once its own check passes (no preempt_delay).${
      hasPool
        ? ext
          ? ` Cilium is not ready either, so for each external VIP ${first(ext.weight)}, or the first carrier whose checks pass; the planned master then takes it back${d > 0 ? ` only after preempt_delay ${d}s: a second move, ${d}s or more after the first. keepalived 2.2.7 has no shorter delay at startup: a backup starts it at the first lower-priority advert it hears (keepalived/vrrp/vrrp.c:1966) and \`vrrp_startup_delay\` only holds back the down timers (vrrp_scheduler.c:320), so avoiding the second move means \`vrrp.preemptDelay: 0\`, which also drops the wait after every other recovery` : " after one down timer"}.`
          : ` Nothing tracks the external VIPs: the planned masters win the first election on their skew, a few milliseconds apart${d > 0 ? `; should a lower one win on a busy node, the planned master takes the VIP after preempt_delay ${d}s` : ""}.`
        : ""
    }`,
    "",
  ];
}

/**
 * What keeps a (re)starting node off a VIP, as keepalived 2.2.7 does it: `init_fail` is ignored for a tracked script
 * (alloc_track_script, keepalived/vrrp/vrrp_track.c:277), so a check starts counted as passing and runs at once; its
 * first failure lowers the priority before the down timer can end, as long as the run ends first. With weight 0 the
 * instance stays in INIT until that first result (vrrp_track.c:662).
 */
function startText(c: VrrpCheckPlan, advertInterval: number, what: string, when: string): string {
  const down = 3 * advertInterval;
  const start = `keepalived runs it as soon as it starts and counts it as passing until that first run ends (keepalived 2.2.7 ignores \`init_fail\` for a tracked script: \`alloc_track_script\` resets it), and one good run is enough`;
  if (c.weight === 0)
    return `${start}; with weight 0 the instance waits in INIT for that first result, so a node that boots or restarts while ${when} never takes ${what}`;
  return c.timeout < down
    ? `${start}; the run ends within ${c.timeout}s (its own limit), before the ${down}s down timer (3 × advert_int, plus the skew) that a node must wait out before it takes a VIP, so a node that boots or restarts while ${when} does not take ${what}`
    : `${start}; **the run may take ${c.timeout}s, no less than the ${down}s down timer (3 × advert_int)**, so a node that restarts while ${when} and its check hangs may take ${what} until the run fails: keep the timeout below ${down}s`;
}

/**
 * What each check's choice (a negative weight, or 0: FAULT) does when the VRRP segment splits with its links up:
 * a node that hears no peer becomes master of every instance it runs that is not in FAULT (the VRRP lab's partition
 * case shows it with real keepalived).
 */
function partitionText(plan: ClusterPlan, hasPool: boolean, top: number): string[] {
  const v = plan.vrrp;
  const choice = (weight: number, what: string, field: string, fails: string): string => {
    const fault = `with weight 0 (FAULT) the isolated node goes to FAULT and leaves the VIP to the other side`;
    const lower = `with a negative weight (lower priority) it keeps the VIP at priority 1, which nobody it can hear outranks, and both sides hold it`;
    return weight === 0
      ? `${what}: ${fails}; ${fault} (this spec: \`${field}: 0\`); ${lower}`
      : `${what}: ${fails}; ${lower} (this spec: \`${field}: ${weight}\`); ${fault}`;
  };
  const ext = externalCheck(plan);
  return [
    "### Partition: the VRRP segment split, links up",
    "",
    `A node that hears no peer (VRRP filtered between switches, a broken VLAN, links still up) is master of every VIP it has an instance for that is not in FAULT, whatever its priority: both sides then answer ARP for those VIPs, and the upstream neighbours follow whichever sent the last gratuitous ARP${v.garpRefresh > 0 ? ` (every ${v.garpRefresh}s: \`vrrp_garp_master_refresh\`)` : ""}. Only a check with weight 0 takes an isolated node out; a lower priority does nothing while nobody can hear it. Per check:`,
    "",
    `- ${choice(v.healthCheck.weight, "the apiserver check", "vrrp.healthCheck.weight", "once a minority control plane's etcd loses quorum its /readyz fails")}.`,
    ...(hasPool
      ? [
          v.readinessCheck
            ? "- the readiness check does not fail on a partition (Cilium on the node is fine): every isolated carrier keeps the external VIPs it has an instance for, whatever its weight."
            : "- nothing checks the external VIPs' readiness: every isolated carrier keeps the external VIPs it has an instance for.",
          ...(v.uplinkCheck && ext
            ? [
                `- ${choice(ext.weight, "the uplink check", "vrrp.readinessCheck.weight", "it fails where the split also cuts the node from its uplink gateway (where the gateway is still reachable it passes and changes nothing)")}.`,
              ]
            : []),
        ]
      : []),
    "",
    `The trade-off of weight 0: no node holds a VIP while its check fails everywhere (bringing a cluster up, every node restarting at once), and a failing master leaves at once, without preempt_delay's damping. After the split heals, the two masters of a VIP hear each other and the lower priority yields (no preempt_delay between masters): ${healSentence(plan, top)}`,
    "",
  ];
}

/** How long a healed split takes (takeoverBounds' heal), and what keeps it that short with AH. */
function healSentence(plan: ClusterPlan, top: number): string {
  const heal = `the plan's holders are back within two advert intervals, ${seconds(takeoverBounds(plan, top, undefined).heal.max)}: the higher master's next advert ends the clash`;
  if (plan.vrrp.auth?.type !== "AH") return `${heal}.`;
  return `${heal}. With AH that takes \`vrrp_lower_prio_no_advert\` (global_defs): keepalived otherwise restarts a master's advert timer on every packet it reads, even an advert it drops as an AH replay, so the master whose replay counter got ahead during the split would stay silent until the other's sequence numbers caught up, one per advert interval, for as long as that side had been silent.`;
}

function describeMargin(vip: PlannedVip, w: number): string {
  const top = vip.priorities[0] ?? 0;
  const low = vip.priorities[vip.priorities.length - 1] ?? 0;
  if (vip.priorities.length < 2) return "no other node";
  // keepalived clamps an effective priority to 1..254
  return top + w < 1 ? `${top} - ${-w} → 1, keepalived's floor, < ${low}` : `${top} - ${-w} = ${top + w} < ${low}`;
}

/** The external VIPs' tracking: the Cilium readiness check and the optional uplink check. */
function externalTracking(plan: ClusterPlan, hasPool: boolean): string[] {
  if (!hasPool) return [];
  const v = plan.vrrp;
  const out: string[] = [];
  const effect = (weight: number): string =>
    weight === 0
      ? "the node's external VIP instances go to FAULT and release their VIPs"
      : `their priority drops by ${-weight} (keepalived stops at 1), below every healthy carrier of each VIP`;
  if (v.readinessCheck) {
    const c = v.readinessCheck;
    out.push(
      "",
      `Readiness check: \`${READINESS_SCRIPT}\` asks the Cilium agent on the node for \`http://127.0.0.1:${ciliumHealthPort(plan)}/healthz\` (its health API, Helm value \`healthPort\`; curl, ${c.timeout}s timeout) every ${c.interval}s, on every external VIP instance. After a boot keepalived starts long before containerd, the kubelet and Cilium: the check keeps the node from taking its external VIPs back and blackholing their traffic until Cilium has programmed it. ${startText(c, v.advertInterval, "an external VIP from a ready carrier", "Cilium is not serving")}. After ${c.fall} failures ${effect(c.weight)}; after ${c.rise} successes they recover.`,
    );
  } else
    out.push(
      "",
      "Readiness check: off (`vrrp.readinessCheck.enabled: false`): a node takes its external VIPs as soon as keepalived runs, before Cilium serves them.",
    );
  if (v.uplinkCheck) {
    const c = v.uplinkCheck;
    out.push(
      "",
      `Uplink check: \`${UPLINK_SCRIPT}\` pings the uplink gateway ${c.gateway} on ${c.interface} every ${c.interval}s (**ping must work for the script user**: iputils' cap_net_raw or \`net.ipv4.ping_group_range\`); after ${c.fall} failures ${effect(c.weight)}, so external VIPs leave a node that cannot route their replies.`,
    );
    if (v.readinessCheck && v.uplinkCheck && v.readinessCheck.weight !== 0)
      out.push(
        "",
        `Both checks failing on one carrier: keepalived subtracts the weight once per failing check, and clamps at 1. The bound that holds is that a carrier with any failing check runs below every carrier whose checks pass; between carriers that each fail a check it promises no order (each failure costs ${-v.readinessCheck.weight} and the priority stops at 1, where every failing carrier lands with the default -253, and a holder keeps a tie), so a master whose readiness and uplink checks both fail can keep its VIP while a backup with one failing check waits. Weight 0 (FAULT) takes any carrier with a failing check out.`,
      );
  } else
    out.push(
      "",
      "Uplink check: off (`vrrp.uplinkCheck`): keepalived tracks only the VIP interface's link, so a node whose uplink gateway is unreachable keeps its external VIPs.",
    );
  return out;
}

function preemptText(plan: ClusterPlan): string {
  const v = plan.vrrp;
  if (v.nopreempt)
    return "Preemption: off (`nopreempt`): a node that comes back, or whose check recovers, takes nothing back.";
  if (v.preemptDelay === 0)
    return "Preemption: immediate (`vrrp.preemptDelay: 0`): a node that comes back takes its VIPs as soon as its checks pass.";
  return `Preemption: external VIPs after \`preempt_delay ${v.preemptDelay}\` (\`vrrp.preemptDelay\`): a carrier that sees a lower-priority master (after a restart, or when its own check recovers) waits ${v.preemptDelay}s before it takes the VIP, so a returning node settles first. keepalived applies the same wait when the master's readiness check fails with a negative weight (the backups then hear a lower-priority master): that VIP moves after the delay, not at once (see the takeover times); weight 0 (FAULT) moves it at once. The control-plane VIP has no preempt_delay: every kubelet reaches the apiserver through it, and a failing apiserver check must move it well inside the node-monitor grace period (nodes would go NotReady and their pods leave the endpoints); a returning control plane is kept away by its apiserver check, whose first run fails before the node's down timer ends (see the health check). After a death the backups race on skews a few milliseconds apart: should a lower backup win an external VIP on a busy node, the right one takes it only after the delay.`;
}

function authText(plan: ClusterPlan): string {
  const a = plan.vrrp.auth;
  const tradeoffs =
    "RFC 3768 removed VRRP authentication: PASS sends the password in clear in every advert and only guards against misconfigured peers; AH (IP protocol 51) authenticates adverts but keepalived's man page marks it not recommended, it needs every switch and firewall on the segment to pass protocol 51, and it does not work with unicast peers. Without authentication any host on the segment can take a VIP, so keep VRRP on a segment only the nodes reach.";
  if (!a) return `Authentication: none (\`vrrp.auth\` unset). ${tradeoffs}`;
  return `Authentication: ${a.type}, the password in \`${AUTH_FILE}\` (0600). keepalived ignores an \`include\` whose file is missing, and would then run without the password its peers use: \`${OPENRC_CONF}\` gives OpenRC a \`start_pre\` and a \`reload_pre\` that refuse to start or reload keepalived unless that file has an \`auth_pass\` line. ${tradeoffs}`;
}
