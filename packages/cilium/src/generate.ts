import { type Artifact, type ClusterPlan, type GeneratorModule, generatedMarker, toYaml } from "@clusterspec/core";
import { summarizeCilium } from "./summary.js";
import { ciliumValues } from "./values.js";

export const VALUES_PATH = "cluster/cilium-values.yaml";

export function generateCilium(plan: ClusterPlan): Artifact[] {
  return [
    {
      path: VALUES_PATH,
      content: `# ${generatedMarker(plan)}\n${toYaml(ciliumValues(plan))}`,
      schema: "cilium-values",
    },
  ];
}

export const ciliumModule: GeneratorModule = {
  name: "cilium",
  generate: generateCilium,
  summarize: summarizeCilium,
};
