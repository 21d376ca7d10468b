import type { GeneratorModule } from "@clusterspec/core";
import { generateHost } from "./generate.js";
import { summarizeHost } from "./summary.js";

/** Each node's host files: sysctl, hosts, modules, kubelet and crictl settings, udev names, fstab, firewall. */
export const hostModule: GeneratorModule = {
  name: "host",
  generate: generateHost,
  summarize: (plan) => summarizeHost(plan),
};
