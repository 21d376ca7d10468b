import type { GeneratorModule } from "@clusterspec/core";
import { generateCilium } from "./generate.js";
import { summarizeCilium } from "./summary.js";
import { VALUES_PATH } from "./values.js";

/** The Helm values; `cilium.values` is merged into them, and the chart's schema is that of `cilium.version`. */
export const ciliumModule: GeneratorModule = {
  name: "cilium",
  generate: generateCilium,
  summarize: (plan) => summarizeCilium(plan),
  freeForm: [
    { specPath: ["cilium", "values"], value: (plan) => plan.cilium.values, carriedBy: (a) => a.path === VALUES_PATH },
  ],
  schemaParameters: { specPath: ["cilium", "version"], of: (plan) => ({ ciliumVersion: plan.cilium.version }) },
};
