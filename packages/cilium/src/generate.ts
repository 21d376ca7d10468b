import { type Artifact, type ClusterPlan, generatedMarker, toYaml } from "@clusterspec/core";
import { ciliumValues, VALUES_PATH } from "./values.js";

export function generateCilium(plan: ClusterPlan): Artifact[] {
  return [
    {
      path: VALUES_PATH,
      content: `# ${generatedMarker(plan)}\n${toYaml(ciliumValues(plan))}`,
      schema: "cilium-values",
    },
  ];
}
