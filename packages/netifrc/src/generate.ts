import type { Artifact, ArtifactScope, ClusterPlan } from "@clusterspec/core";
import { nodesInScope } from "@clusterspec/core";
import { renderConfdNet, renderRtTables } from "./template.js";
import { rtTablesPath, toNetifrcView, toRtTablesViews } from "./view.js";

/** With a scope (explain): only the scope's node's files. */
export function generateNetifrc(plan: ClusterPlan, scope?: ArtifactScope): Artifact[] {
  const nodes = nodesInScope(plan.nodes, scope);
  if (nodes.length === 0) return [];
  const tables = toRtTablesViews(plan).map((t) => ({ path: rtTablesPath(t.table.name), content: renderRtTables(t) }));
  return nodes.flatMap((node) => [
    { path: `nodes/${node.name}/etc/conf.d/net`, content: renderConfdNet(toNetifrcView(plan, node)) },
    ...tables.map((t) => ({ path: `nodes/${node.name}/${t.path}`, content: t.content })),
  ]);
}
