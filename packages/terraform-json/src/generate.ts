// The AWS side of cloud burst in Terraform JSON syntax: one file per concern under cloud/terraform, written with stableJson.
import {
  type Artifact,
  type ClusterPlan,
  type GeneratorModule,
  generatedMarker,
  stableJson,
  TERRAFORM_DIR,
} from "@clusterspec/core";
import { tfLiteral } from "./escape.js";
import { events, type Json, poolResources, providers } from "./resources.js";
import { summarizeTerraform } from "./summary.js";

function file(plan: ClusterPlan, name: string, body: Json): Artifact {
  return { path: `${TERRAFORM_DIR}/${name}`, content: stableJson({ "//": tfLiteral(generatedMarker(plan)), ...body }) };
}

export function generateTerraform(plan: ClusterPlan): Artifact[] {
  const cloud = plan.cloud;
  if (!cloud) return [];
  return [
    file(plan, "providers.tf.json", providers(cloud)),
    file(plan, "events.tf.json", events(plan, cloud)),
    ...cloud.pools.map((pool) => file(plan, `pool-${pool.name}.tf.json`, poolResources(plan, pool))),
  ];
}

export const terraformModule: GeneratorModule = {
  name: "terraform-json",
  generate: generateTerraform,
  summarize: summarizeTerraform,
};
