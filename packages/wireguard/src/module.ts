import type { BurstGeneratorModule } from "@clusterspec/core";
import { generateWireguard } from "./generate.js";
import { summarizeWireguard } from "./summary.js";

/** The on-prem hub's wg-quick config and, with static peer keys, the slots' client configs as Secrets. */
export const wireguardModule: BurstGeneratorModule = {
  name: "wireguard",
  burst: true,
  generate: generateWireguard,
  summarize: (plan) => summarizeWireguard(plan),
};
