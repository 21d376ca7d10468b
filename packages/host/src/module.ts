import { type BurstGeneratorModule, burstInputs, type GeneratorModule, narrowedModule } from "@clusterspec/core";
import { generateHost, generateHub } from "./generate.js";
import { summarizeHub } from "./hub-summary.js";
import { summarizeHost } from "./summary.js";

/** Each node's host files: sysctl, hosts, modules, kubelet and crictl settings, udev names, fstab, firewall. */
export const hostModule: GeneratorModule = {
  name: "host",
  generate: generateHost,
  summarize: (plan) => summarizeHost(plan),
};

/** The WireGuard hub's host files, in both layouts: forwarding sysctls and the forward filter of the tunnel. */
export const hubHostModule: BurstGeneratorModule = {
  ...narrowedModule({
    name: "hub-host",
    inputs: burstInputs,
    generateFrom: generateHub,
    summarize: (plan) => summarizeHub(plan),
  }),
  burst: true,
};
