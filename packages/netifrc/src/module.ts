import type { GeneratorModule } from "@clusterspec/core";
import { generateNetifrc } from "./generate.js";
import { summarizeNetifrc } from "./summary.js";

/** Each node's conf.d/net (addresses, routes, policy rules, resolvers) and its rt_tables entries. */
export const netifrcModule: GeneratorModule = {
  name: "netifrc",
  generate: generateNetifrc,
  summarize: (plan) => summarizeNetifrc(plan),
};
