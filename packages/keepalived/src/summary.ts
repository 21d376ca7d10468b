// The PLAN.md section: who holds which VIP, and who takes over when nodes fail.
import { type ClusterPlan, mastersWith, mdTable, type PlannedVip } from "@clusterspec/core";
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

const spread = (loads: ReadonlyMap<string, number>): number =>
  loads.size === 0 ? 0 : Math.max(...loads.values()) - Math.min(...loads.values());

/** Every node that holds any VIP, in node-list order. */
function vrrpNodes(plan: ClusterPlan): string[] {
  return plan.nodes.map((n) => n.name).filter((n) => plan.vips.some((v) => v.order.includes(n)));
}

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
  const nodes = vrrpNodes(plan);
  const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
  const pool = plan.vips.filter((v) => v.kind === "external");
  const allUp = mastersWith(plan.vips, new Set());
  const failRows = nodes.map((dead) => {
    const after = mastersWith(plan.vips, new Set([dead]));
    const moves = plan.vips
      .filter((v) => allUp.get(v.key) === dead)
      .map((v) => `${v.address} → ${after.get(v.key) ?? "nobody"}`);
    return [
      dead,
      moves.join(", ") || "nothing",
      pool.length === 0 ? "-" : formatLoads(poolLoads(pool, carriers, new Set([dead]))),
    ];
  });
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
  if (pool.length > 0 && carriers.length >= 3) {
    let worst: { pair: string; loads: Map<string, number>; spread: number } | undefined;
    for (let a = 0; a < carriers.length; a++)
      for (let b = a + 1; b < carriers.length; b++) {
        const down = new Set([carriers[a] ?? "", carriers[b] ?? ""]);
        const loads = poolLoads(pool, carriers, down);
        if (worst === undefined || spread(loads) > worst.spread)
          worst = { pair: [...down].join(" and "), loads, spread: spread(loads) };
      }
    if (worst)
      lines.push(
        "",
        `Two carriers down: the worst case is ${worst.pair}, leaving ${formatLoads(worst.loads)} (imbalance ${worst.spread}).`,
      );
  }
  return lines.join("\n");
}

function describeMargin(vip: PlannedVip, w: number): string {
  const top = vip.priorities[0] ?? 0;
  const low = vip.priorities[vip.priorities.length - 1] ?? 0;
  return vip.priorities.length < 2 ? "no other node" : `${top} - ${-w} = ${Math.max(1, top + w)} < ${low}`;
}
