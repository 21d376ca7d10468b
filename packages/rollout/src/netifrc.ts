// The netifrc part of a change plan: for each node whose etc/conf.d/net or rt_tables.d changes, the net.<if>
// services to restart (start for a new interface, stop for a removed one), one node per step, with a warning when
// the interface carries the node's default route (SSH, management) or VRRP, and the VIP moves such a restart causes.
// netifrc's stop reads the file installed at that moment, the new one: a policy rule only the old file had would
// stay in the kernel, so the step deletes each such rule itself before the restart.
import { AT_REST, type ClusterPlan, holderMap, shellVar, simulateFailover, takeoverBounds } from "@clusterspec/core";
import type { NodeStepPlanner, TreeSide } from "./node-steps.js";
import type { RolloutStep, VipMove } from "./types.js";

const NET_FILE = /^nodes\/([^/]+)\/etc\/conf\.d\/net$/;
const RT_TABLES = /^nodes\/([^/]+)\/etc\/iproute2\/rt_tables\.d\/[^/]+$/;

interface NodeNet {
  /** Variable → value, as the shell reads `name="value"` lines (values may span lines). */
  readonly vars: ReadonlyMap<string, string>;
  /** Path → content of the node's conf.d/net and rt_tables.d files. */
  readonly files: ReadonlyMap<string, string>;
  /** Table name → id from rt_tables.d. */
  readonly tables: ReadonlyMap<string, string>;
}

function netOf(artifacts: TreeSide["artifacts"]): Map<string, NodeNet> {
  const out = new Map<string, { vars: Map<string, string>; files: Map<string, string>; tables: Map<string, string> }>();
  const entry = (node: string) => {
    let e = out.get(node);
    if (!e) {
      e = { vars: new Map(), files: new Map(), tables: new Map() };
      out.set(node, e);
    }
    return e;
  };
  for (const a of artifacts) {
    const net = NET_FILE.exec(a.path);
    const rt = RT_TABLES.exec(a.path);
    if (net?.[1]) {
      const e = entry(net[1]);
      e.files.set(a.path, a.content);
      for (const m of a.content.matchAll(/^([A-Za-z_][A-Za-z0-9_]*)="([^"]*)"/gm)) e.vars.set(m[1] ?? "", m[2] ?? "");
    } else if (rt?.[1]) {
      const e = entry(rt[1]);
      e.files.set(a.path, a.content);
      for (const m of a.content.matchAll(/^\s*(\d+)\s+(\S+)/gm)) e.tables.set(m[2] ?? "", m[1] ?? "");
    }
  }
  return out;
}

/** netifrc's arrays: one entry per non-empty line, trimmed, inner whitespace squeezed. */
const lines = (value: string | undefined): string[] =>
  (value ?? "")
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "))
    .filter(Boolean);

interface Iface {
  readonly name: string;
  readonly parent: string | undefined;
}

function interfacesOf(plan: ClusterPlan, node: string): Iface[] {
  return (plan.nodes.find((n) => n.name === node)?.interfaces ?? []).map((f) => ({
    name: f.name,
    parent: f.vlan?.parent,
  }));
}

/** The interface a variable belongs to: the longest shell-variable suffix among the node's interfaces. */
function ownerOf(variable: string, ifaces: readonly Iface[]): string | undefined {
  let best: string | undefined;
  for (const f of ifaces) {
    const suffix = `_${shellVar(f.name)}`;
    if (variable.endsWith(suffix) && (best === undefined || shellVar(f.name).length > shellVar(best).length))
      best = f.name;
  }
  return best;
}

function varsByInterface(net: NodeNet | undefined, ifaces: readonly Iface[]): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  for (const [name, value] of net?.vars ?? []) {
    const owner = ownerOf(name, ifaces) ?? "";
    const vars = out.get(owner) ?? new Map<string, string>();
    vars.set(name, value);
    out.set(owner, vars);
  }
  return out;
}

const sameMap = (a: ReadonlyMap<string, string> | undefined, b: ReadonlyMap<string, string> | undefined) =>
  (a?.size ?? 0) === (b?.size ?? 0) && [...(a ?? [])].every(([k, v]) => b?.get(k) === v);

/** The netifrc steps of a change plan (NodeStepPlanner). */
export const planNetifrcSteps: NodeStepPlanner = (old, next) => {
  const oldNet = netOf(old.artifacts);
  const newNet = netOf(next.artifacts);
  const nodes = [...new Set([...next.plan.nodes.map((n) => n.name), ...old.plan.nodes.map((n) => n.name)])].filter(
    (n) => oldNet.has(n) || newNet.has(n),
  );
  // Who holds each VIP at rest, simulated only when a changed node carries VRRP (300 × 254: 65 ms for a worker).
  let atRest: ReadonlyMap<string, string | undefined> | undefined;
  const holders = () => {
    atRest ??= holderMap(simulateFailover(next.plan, AT_REST));
    return atRest;
  };

  interface Planned {
    readonly step: Omit<RolloutStep, "index">;
    /** Ordering: 0 touches no VRRP interface, 1 a backup's, 2 a holder's. */
    readonly rank: number;
  }
  const planned: Planned[] = [];
  for (const node of nodes) {
    const o = oldNet.get(node);
    const n = newNet.get(node);
    if (o && n && sameMap(o.files, n.files)) continue;
    // A node that no longer exists in the new tree is removed by the node runbooks, not by netifrc.
    if (!n) continue;
    const ifaces = [...interfacesOf(next.plan, node)];
    for (const f of interfacesOf(old.plan, node)) if (!ifaces.some((g) => g.name === f.name)) ifaces.push(f);
    const oldVars = varsByInterface(o, ifaces);
    const newVars = varsByInterface(n, ifaces);
    const inOld = new Set(interfacesOf(old.plan, node).map((f) => f.name));
    const inNew = new Set(interfacesOf(next.plan, node).map((f) => f.name));
    // Tables whose number changed (or that appear or go): the interfaces that route through them restart.
    const tablesChanged = new Set(
      [...new Set([...(o?.tables.keys() ?? []), ...(n?.tables.keys() ?? [])])].filter(
        (t) => o?.tables.get(t) !== n?.tables.get(t),
      ),
    );
    const globalsChanged = !sameMap(oldVars.get(""), newVars.get(""));
    const restart: string[] = [];
    const start: string[] = [];
    const stop: string[] = [];
    for (const f of ifaces) {
      const changed = !sameMap(oldVars.get(f.name), newVars.get(f.name));
      const usesTable = [...(newVars.get(f.name)?.entries() ?? []), ...(oldVars.get(f.name)?.entries() ?? [])].some(
        ([k, v]) =>
          /^(routes|rules6?)_/.test(k) &&
          lines(v).some((l) => [...tablesChanged].some((t) => l.split(" ").includes(t))),
      );
      if (!inNew.has(f.name)) stop.push(f.name);
      else if (!inOld.has(f.name)) start.push(f.name);
      else if (changed || usesTable || globalsChanged) restart.push(f.name);
    }
    // Restarting a VLAN's parent restarts the VLAN's service too (OpenRC restarts what needs it).
    const parentOf = (x: string) => ifaces.find((f) => f.name === x)?.parent;
    const restarted = restart.filter((x) => !restart.includes(parentOf(x) ?? ""));
    const byParentsFirst = (a: string, b: string) =>
      Number(parentOf(a) !== undefined) - Number(parentOf(b) !== undefined);
    restarted.sort(byParentsFirst);
    start.sort(byParentsFirst);
    // Rules that only the old file has: netifrc's stop reads the new file and would leave them in the kernel.
    const commands: string[] = [];
    for (const x of [...restart, ...stop]) {
      const sv = shellVar(x);
      for (const [kind, family] of [
        ["rules", "-4"],
        ["rules6", "-6"],
      ] as const) {
        const before = lines(oldVars.get(x)?.get(`${kind}_${sv}`));
        const after = new Set(lines(newVars.get(x)?.get(`${kind}_${sv}`)));
        for (const r of before) if (!after.has(r)) commands.push(`ip ${family} rule del ${r}`);
      }
    }
    for (const x of stop)
      commands.push(`rc-service net.${x} stop`, `rc-update del net.${x} default`, `rm /etc/init.d/net.${x}`);
    for (const x of restarted) commands.push(`rc-service net.${x} restart`);
    for (const x of start)
      commands.push(`ln -s net.lo /etc/init.d/net.${x}`, `rc-update add net.${x} default`, `rc-service net.${x} start`);

    // What the restarts touch: the default route (SSH, management) and VRRP (the VIPs this node may hold).
    const touched = new Set([...restart, ...stop]);
    for (const x of [...touched]) for (const f of ifaces) if (f.parent === x) touched.add(f.name);
    const planNode = next.plan.nodes.find((x) => x.name === node);
    const warnings: string[] = [];
    for (const x of touched) {
      const f = planNode?.interfaces.find((g) => g.name === x);
      if (
        f?.gateway !== undefined ||
        lines(newVars.get(x)?.get(`routes_${shellVar(x)}`)).some(
          (l) => l.startsWith("default via") && !l.includes(" table "),
        )
      )
        warnings.push(
          `net.${x} carries ${node}'s default route (SSH and management): run this from the console or with a fallback session`,
        );
    }
    const vrrpVips = next.plan.vips.filter((v) => touched.has(v.interface) && v.order.includes(node));
    if (vrrpVips.length > 0)
      warnings.push(
        `net.${[...new Set(vrrpVips.map((v) => v.interface))].join(", net.")} carries VRRP for ${vrrpVips.map((v) => v.address).join(", ")}: the VIPs ${node} holds move to a backup while it restarts, and back after`,
      );
    // The VIPs this node holds go to the best backup (no goodbye advert: the link went down) and come back.
    const moves: VipMove[] = [];
    const away =
      vrrpVips.length === 0
        ? new Map<string, string | undefined>()
        : holderMap(simulateFailover(next.plan, { down: [node], unhealthy: [] }));
    for (const v of vrrpVips) {
      if (holders().get(v.key) !== node) continue;
      const backup = away.get(v.key);
      const p = backup === undefined ? 1 : (v.priorities[v.order.indexOf(backup)] ?? 1);
      moves.push({
        vip: v.address,
        from: node,
        to: backup ?? null,
        unavailableSeconds: round(takeoverBounds(next.plan, p, v.kind).death.max),
      });
      if (backup !== undefined) moves.push({ vip: v.address, from: backup, to: node, unavailableSeconds: 0 });
    }
    const files = [...(n?.files.keys() ?? [])].filter((p) => o?.files.get(p) !== n?.files.get(p)).sort();
    const what = [
      ...restarted.map((x) => `restart net.${x}`),
      ...start.map((x) => `start net.${x}`),
      ...stop.map((x) => `stop net.${x}`),
    ];
    planned.push({
      rank: vrrpVips.length === 0 ? 0 : moves.length === 0 ? 1 : 2,
      step: {
        node,
        kind: "netifrc",
        title: `${node}: ${what.length > 0 ? what.join(", ") : "install the routing tables (no interface restarts)"}`,
        files,
        commands,
        vipMoves: moves,
        warnings,
      },
    });
  }
  // Interfaces that carry no VRRP first, then backups, then VIP holders; one node per step, so the VRRP interfaces
  // of two carriers of one VIP are never restarted together.
  const steps = planned
    .map((p, i) => ({ ...p, i }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((p) => p.step);
  return { steps, notInPlace: [], refused: [] };
};

const round = (x: number) => Math.round(x * 100) / 100;
