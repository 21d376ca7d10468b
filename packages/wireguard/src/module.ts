import { type BurstGeneratorModule, burstInputs, narrowedModule } from "@clusterspec/core";
import { generateWireguard } from "./generate.js";
import { summarizeWireguard } from "./summary.js";

/** The on-prem hub's wg-quick config and, with static peer keys, the slots' client configs as Secrets. */
export const wireguardModule: BurstGeneratorModule = {
  ...narrowedModule({
    name: "wireguard",
    inputs: burstInputs,
    generateFrom: generateWireguard,
    summarize: (plan) => summarizeWireguard(plan),
  }),
  burst: true,
};
