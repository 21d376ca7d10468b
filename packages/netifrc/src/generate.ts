import type { Artifact, ClusterPlan, GeneratorModule } from "@clusterspec/core";
import { summarizeNetifrc } from "./summary.js";
import { renderConfdNet, renderRtTables } from "./template.js";
import { toNetifrcView, toRtTablesView } from "./view.js";

export function generateNetifrc(plan: ClusterPlan): Artifact[] {
  const rtTables = renderRtTables(toRtTablesView(plan));
  return plan.nodes.flatMap((node) => [
    { path: `nodes/${node.name}/etc/conf.d/net`, content: renderConfdNet(toNetifrcView(plan, node)) },
    { path: `nodes/${node.name}/etc/iproute2/rt_tables`, content: rtTables },
  ]);
}

export const netifrcModule: GeneratorModule = {
  name: "netifrc",
  generate: generateNetifrc,
  summarize: summarizeNetifrc,
};
