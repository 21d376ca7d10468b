import type { Artifact, ClusterPlan } from "@clusterspec/core";
import { renderConfdNet, renderRtTables } from "./template.js";
import { rtTablesPath, toNetifrcView, toRtTablesViews } from "./view.js";

export function generateNetifrc(plan: ClusterPlan): Artifact[] {
  const tables = toRtTablesViews(plan).map((t) => ({ path: rtTablesPath(t.table.name), content: renderRtTables(t) }));
  return plan.nodes.flatMap((node) => [
    { path: `nodes/${node.name}/etc/conf.d/net`, content: renderConfdNet(toNetifrcView(plan, node)) },
    ...tables.map((t) => ({ path: `nodes/${node.name}/${t.path}`, content: t.content })),
  ]);
}
