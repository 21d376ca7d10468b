import { narrowedModule } from "@clusterspec/core";
import { generateKeepalived } from "./generate.js";
import { summarizeKeepalived } from "./summary.js";
import { keepalivedInputs } from "./view.js";

/** keepalived for every node that holds a VIP: its config, auth include, check scripts and OpenRC precondition. */
export const keepalivedModule = narrowedModule({
  name: "keepalived",
  inputs: keepalivedInputs,
  generateFrom: generateKeepalived,
  summarize: (plan) => summarizeKeepalived(plan),
});
