// The PLAN.md section: routes, policy routing tables and rules, and the manual steps.
import { type ClusterPlan, mdTable } from "@clusterspec/core";
import { ruleLine } from "./template.js";
import { type PlannedRule, policyRouteLines, policyRules, rtTablesPath } from "./view.js";

export function summarizeNetifrc(plan: ClusterPlan): string {
  const out = ["## Network interfaces and policy routing (netifrc)", ""];
  out.push(
    `Each node gets \`/etc/conf.d/net\` (addresses, MTUs, routes, rules, VLANs, DNS)${plan.network.policyRoutes.length > 0 ? ` and ${plan.network.policyRoutes.map((p) => `\`/${rtTablesPath(p.table.name)}\``).join(", ")} (the table's name; the distribution's \`/etc/iproute2/rt_tables\` stays as it is)` : ""}.`,
    "netifrc writes `/etc/resolv.conf` from `dns_servers_*`/`dns_search_*` on the Kubernetes interface (through `resolvconf` when it is installed): it is the file's only writer, so do not also install a static one.",
    "Manual steps: `ln -s net.lo /etc/init.d/net.<interface>` and `rc-update add net.<interface> default` for each physical interface (VLAN interfaces are started by their parent).",
    "",
  );
  const mtus = plan.nodes.flatMap((n) =>
    n.interfaces.filter((f) => f.mtu !== undefined).map((f) => `${n.name} ${f.name} ${f.mtu}`),
  );
  if (mtus.length > 0)
    out.push(
      `Link MTUs (\`mtu_<interface>\`, set by netifrc before the addresses; a VLAN's is at most its parent's): ${mtus.join(", ")}. Every other interface keeps the kernel's default (1500 on Ethernet).`,
      "",
    );
  if (plan.cloud) {
    const hub = plan.cloud.wireguard.hub;
    out.push(
      hub === undefined
        ? `**Burst nodes:** no \`cloud.wireguard.hub\` is declared, so no node routes the tunnel subnet ${plan.cloud.wireguard.tunnelSubnet}; on-prem nodes reach burst nodes only once such a route exists.`
        : `**Burst nodes:** the tunnel subnet ${plan.cloud.wireguard.tunnelSubnet} is routed through the WireGuard hub ${hub} on ${plan.network.kubernetesSegment.interface} (${plan.nodes.filter((n) => n.tunnelRoute).length} of ${plan.nodes.length} nodes; the hub itself holds the tunnel).`,
      "",
    );
  }
  if (plan.network.policyRoutes.length === 0) {
    out.push("No uplink is declared: every reply leaves through the main table.");
    return out.join("\n");
  }
  for (const pr of plan.network.policyRoutes) {
    out.push(
      `Table \`${pr.table.name}\` (id ${pr.table.id}) on ${pr.interface}: replies from ${pr.sources.join(", ")} leave through the uplink gateway ${pr.gateway}. Its routes, in the order netifrc adds them (the gateway is on-link in the table before the default route through it):`,
      "",
      "```",
      ...policyRouteLines(pr),
      "```",
      "",
    );
  }
  const meaning = (r: PlannedRule): string =>
    r.to !== undefined
      ? `traffic to the pod subnet ${r.to} is routed by the main table, so pod traffic never takes the uplink`
      : `replies from ${r.from ?? "all"} are routed by table \`${r.table}\``;
  const rules = policyRules(plan);
  out.push(
    `Rules, checked in priority order before the main table (32766); the first one that matches decides:`,
    "",
    mdTable(
      ["priority", "rule", "meaning"],
      rules.map((r) => [String(r.priority), `\`${ruleLine(r)}\``, meaning(r)]),
    ),
  );
  return out.join("\n");
}
