// A Mermaid picture of the plan for PLAN.md (GitHub renders it in pull requests): the nodes inside the segment
// they run Kubernetes on, their interfaces, the control-plane VIP with its master and backups, and where each
// external VIP lives. Kept readable at 16 nodes: past a few VIPs the pool is grouped by master, past 16 nodes
// the nodes that hold no VIP are summarised in one box.
import type { ClusterPlan, PlannedNode } from "./types.js";
import { type PlannedVip, vipCarriers, vipLabel } from "./vrrp.js";

/** External VIPs drawn one by one up to this many; beyond, one box per master. */
export const DIAGRAM_MAX_SINGLE_VIPS = 12;
/** Nodes drawn one by one up to this many; beyond, nodes without a VIP share one box. */
export const DIAGRAM_MAX_NODES = 16;

/** Text inside a quoted Mermaid label: quotes and markup characters as entities. */
function label(text: string): string {
  return text.replace(/&/g, "#amp;").replace(/"/g, "#quot;").replace(/</g, "#lt;").replace(/>/g, "#gt;");
}

const roles = (n: PlannedNode): string =>
  [n.controlPlane ? "control plane" : "", n.worker ? "worker" : ""].filter(Boolean).join(", ");

export function failoverDiagram(plan: ClusterPlan): string {
  const vrrpNodes = vipCarriers(plan.vips);
  const quiet = plan.nodes.filter((n) => !vrrpNodes.has(n.name));
  const summarise = plan.nodes.length > DIAGRAM_MAX_NODES && quiet.length > 0;
  const drawn = summarise ? plan.nodes.filter((n) => vrrpNodes.has(n.name)) : [...plan.nodes];
  const id = new Map(plan.nodes.map((n, i) => [n.name, `n${i}`]));
  const lines = ["flowchart LR"];

  // Nodes, grouped by the segment of their Kubernetes interface.
  const segments = plan.network.segments;
  segments.forEach((seg, s) => {
    const members = drawn.filter(
      (n) => n.interfaces.find((f) => f.name === n.internalInterface)?.segment?.name === seg.name,
    );
    const extra = summarise
      ? quiet.filter((n) => n.interfaces.find((f) => f.name === n.internalInterface)?.segment?.name === seg.name)
      : [];
    if (members.length === 0 && extra.length === 0) return;
    const onLink = seg.onLink.length > 0 ? `, on-link ${seg.onLink.join(", ")}` : "";
    lines.push(`  subgraph s${s}["segment ${label(seg.name)}: ${label(seg.interface)} ${seg.subnet}${label(onLink)}"]`);
    for (const n of members) {
      const ifaces = n.interfaces.map((f) => label(`${f.name}${f.cidr ? ` ${f.cidr}` : ""}`)).join("<br/>");
      lines.push(`    ${id.get(n.name)}["<b>${label(n.name)}</b> (${roles(n)})<br/>${ifaces}"]`);
    }
    if (extra.length > 0) lines.push(`    s${s}rest["${extra.length} more nodes without VIPs"]`);
    lines.push("  end");
  });

  // The control-plane VIP: master, then every backup in order.
  const cp = plan.controlPlane.vip;
  lines.push(`  cp(["control-plane VIP<br/>${vipLabel(cp, true)} VRID ${cp.vrid}"])`);
  cp.order.forEach((node, r) => {
    lines.push(r === 0 ? `  cp ==>|"master"| ${id.get(node)}` : `  cp -.->|"backup ${r}"| ${id.get(node)}`);
  });

  // External VIPs: each one (master solid, first backup dotted, the rest in its label), or one box per master.
  const pool = plan.vips.filter((v) => v.kind === "external");
  if (pool.length > 0 && pool.length <= DIAGRAM_MAX_SINGLE_VIPS) {
    pool.forEach((v, i) => {
      const rest = v.order.slice(2);
      const then = rest.length > 0 ? `<br/>then ${label(rest.join(", "))}` : "";
      lines.push(`  x${i}(["${vipLabel(v)} VRID ${v.vrid}${then}"])`);
      const [master, backup] = v.order;
      if (master) lines.push(`  x${i} ==> ${id.get(master)}`);
      if (backup) lines.push(`  x${i} -.-> ${id.get(backup)}`);
    });
  } else if (pool.length > 0) {
    const byMaster = new Map<string, PlannedVip[]>();
    for (const v of pool) {
      const m = v.order[0] ?? "";
      byMaster.set(m, [...(byMaster.get(m) ?? []), v]);
    }
    [...byMaster].forEach(([master, vips], i) => {
      const backups = new Set(vips.map((v) => v.order[1]).filter((b): b is string => b !== undefined));
      const first = vips[0] === undefined ? "" : vipLabel(vips[0]);
      const more = vips.length > 1 ? ` and ${vips.length - 1} more` : "";
      lines.push(
        `  g${i}(["${vips.length} external VIP(s): ${first}${more}<br/>first backups on ${backups.size} node(s)"])`,
      );
      lines.push(`  g${i} ==> ${id.get(master)}`);
    });
  }
  return lines.join("\n");
}
