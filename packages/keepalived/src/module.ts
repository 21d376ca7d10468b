import type { GeneratorModule } from "@clusterspec/core";
import { generateKeepalived } from "./generate.js";
import { summarizeKeepalived } from "./summary.js";

/** keepalived for every node that holds a VIP: its config, auth include, check scripts and OpenRC precondition. */
export const keepalivedModule: GeneratorModule = {
  name: "keepalived",
  generate: generateKeepalived,
  summarize: (plan) => summarizeKeepalived(plan),
};
