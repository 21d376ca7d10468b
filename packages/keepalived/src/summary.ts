// The PLAN.md section: who holds which VIP, and who takes over when nodes fail.
import {
  AT_REST,
  type ClusterPlan,
  failoverDiagram,
  holderMap,
  loadSpread,
  mastersWith,
  mdTable,
  type PlannedVip,
  type Simulation,
  simulateFailover,
  type TakeoverBound,
  takeoverBounds,
  worstTwoCarrierFailure,
} from "@clusterspec/core";
import { AUTH_FILE, CHECK_SCRIPT, instanceName } from "./view.js";

/** External VIPs each node masters while the `down` nodes are down. */
export function poolLoads(
  vips: readonly PlannedVip[],
  nodes: readonly string[],
  down: ReadonlySet<string>,
): Map<string, number> {
  const loads = new Map(nodes.filter((n) => !down.has(n)).map((n) => [n, 0]));
  for (const [key, holder] of mastersWith(vips, down)) {
    if (holder === undefined || !vips.some((v) => v.key === key && v.kind === "external")) continue;
    loads.set(holder, (loads.get(holder) ?? 0) + 1);
  }
  return loads;
}

const formatLoads = (loads: ReadonlyMap<string, number>): string => [...loads].map(([n, l]) => `${n}: ${l}`).join(", ");

/** Live carriers' external VIP counts in a simulated state. */
const carrierLoads = (sim: Simulation, carriers: readonly string[]): Map<string, number> =>
  new Map(sim.loads.filter((l) => l.up && carriers.includes(l.node)).map((l) => [l.node, l.externalVips]));

const seconds = (x: number): string => `${x.toFixed(2)}s`;
const range = (b: TakeoverBound): string => (b.min === b.max ? seconds(b.max) : `${seconds(b.min)}–${seconds(b.max)}`);

export function summarizeKeepalived(plan: ClusterPlan): string {
  const vrrp = plan.vrrp;
  const hc = vrrp.healthCheck;
  const w = hc.weight;
  const vipTable = mdTable(
    ["VIP", "instance", "interface", "VRID", "master", "backups (priority)"],
    plan.vips.map((v) => [
      `${v.address}/${v.prefixLength}`,
      instanceName(v),
      v.interface,
      v.vrid,
      `${v.order[0] ?? "-"} (${v.priorities[0] ?? "-"})`,
      v.order
        .slice(1)
        .map((n, r) => `${n} (${v.priorities[r + 1]})`)
        .join(", ") || "none",
    ]),
  );
  // Every table below comes from core's failover model, starting from the cluster at rest.
  const rest = simulateFailover(plan, AT_REST);
  const restHolders = holderMap(rest);
  const from = (down: readonly string[], unhealthy: readonly string[] = []): Simulation =>
    simulateFailover(plan, { down, unhealthy }, restHolders);
  const nodes = rest.loads.map((l) => l.node);
  const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
  const pool = plan.vips.filter((v) => v.kind === "external");
  const failRows = nodes.map((dead) => {
    const after = from([dead]);
    const moves = after.holdings
      .filter((h) => restHolders.get(h.vip.key) === dead)
      .map((h) => `${h.vip.address} → ${h.holder ?? "nobody"}`);
    return [dead, moves.join(", ") || "nothing", pool.length === 0 ? "-" : formatLoads(carrierLoads(after, carriers))];
  });
  const cp = plan.controlPlane.vip;
  const cpAtRest = restHolders.get(cp.key);
  const checkRows = cp.order.map((node) => {
    const holder = holderMap(from([], [node])).get(cp.key);
    const what =
      holder === cpAtRest
        ? node === cpAtRest
          ? `stays on ${node}${vrrp.nopreempt ? " (nopreempt: no backup takes a VIP from a live master)" : ""}`
          : "nothing (a backup)"
        : `${cp.address} → ${holder ?? "nobody"}`;
    return [node, what];
  });
  // Takeover times: the fastest backup has the highest priority below the master, the slowest the lowest.
  const priorities = plan.vips.flatMap((v) => v.priorities.slice(1));
  const best = Math.max(...priorities, 1);
  const worst = Math.min(...priorities, 254);
  const top = Math.max(...plan.vips.map((v) => v.priorities[0] ?? 1));
  const span = (
    event: "death" | "checkFailure" | "checkRecovery" | "rejoin",
    lo: number,
    hi: number,
  ): TakeoverBound => ({
    min: takeoverBounds(plan, lo)[event].min,
    max: takeoverBounds(plan, hi)[event].max,
  });
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
              range(span("checkFailure", cpNext, cpNext)),
              w === 0
                ? `${hc.fall} failed checks ${hc.interval}s apart, then FAULT says goodbye: the skew`
                : `${hc.fall} failed checks ${hc.interval}s apart, then the backups wait out the down timer`,
            ],
            [
              "the check recovers",
              range(span("checkRecovery", cp.priorities[0] ?? 1, cp.priorities[0] ?? 1)),
              `${hc.rise} good checks, then the down timer`,
            ],
          ]
        : []),
      vrrp.nopreempt
        ? ["a node comes back", "never: nopreempt", "a backup does not take a VIP from a live master"]
        : [
            "a node comes back",
            `${range(span("rejoin", top, top))} after keepalived starts`,
            "it starts as a backup and runs one down timer",
          ],
    ],
  );
  const lines = [
    "## keepalived (VRRP)",
    "",
    `Every node that holds a VIP gets \`/etc/keepalived/keepalived.conf\`: one \`vrrp_instance\` per VIP it may hold, state ${vrrp.initialState}${vrrp.nopreempt ? " with nopreempt" : ""}, advert_int ${vrrp.advertInterval}, ${vrrp.unicast ? "unicast to the other nodes" : "multicast"}, ${vrrp.auth ? `auth_type ${vrrp.auth.type} with the password in \`${AUTH_FILE}\` (mode 0600, included by keepalived)` : "no authentication"}. The highest priority among the live nodes holds a VIP.`,
    "",
    vipTable,
    "",
    `Health check: \`${CHECK_SCRIPT}\` asks the kube-apiserver on the node's own address for \`/livez\` (curl, ${hc.timeout}s timeout; **curl is a host dependency** of every control-plane node) every ${hc.interval}s; after ${hc.fall} failures ${
      w === 0
        ? "the control-plane instance goes to FAULT and releases the VIP"
        : `the control-plane instance's priority drops by ${-w}, below every other control-plane node (${describeMargin(plan.controlPlane.vip, w)})`
    }; after ${hc.rise} successes it recovers.`,
    "",
    "### Failover: one node down",
    "",
    mdTable(["failed node", "VIPs taken over", "external VIPs per surviving carrier"], failRows),
  ];
  const worstPair = worstTwoCarrierFailure(plan);
  if (worstPair) {
    const loads = carrierLoads(worstPair.simulation, carriers);
    lines.push(
      "",
      `Two carriers down: the worst case is ${worstPair.down.join(" and ")}, leaving ${formatLoads(loads)} (imbalance ${loadSpread(worstPair.simulation, carriers)}).`,
    );
  }
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

function describeMargin(vip: PlannedVip, w: number): string {
  const top = vip.priorities[0] ?? 0;
  const low = vip.priorities[vip.priorities.length - 1] ?? 0;
  return vip.priorities.length < 2 ? "no other node" : `${top} - ${-w} = ${Math.max(1, top + w)} < ${low}`;
}
