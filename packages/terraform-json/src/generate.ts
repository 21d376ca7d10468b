// The AWS side of cloud burst in Terraform JSON syntax: one file per concern under cloud/terraform, written with stableJson.
import { type Artifact, type BurstPlan, generatedMarker, stableJson } from "@clusterspec/core";
import { AUTOSCALER_VALUES_PATH, renderAutoscalerValues } from "./autoscaler.js";
import { TERRAFORM_DIR } from "./constants.js";
import { type Json, tfLiteral } from "./escape.js";
import { iamResources } from "./iam.js";
import { provisionerIamResources } from "./provisioner-iam.js";
import { events, poolResources, providers } from "./resources.js";

function file(plan: BurstPlan, name: string, body: Json): Artifact {
  return {
    path: `${TERRAFORM_DIR}/${name}`,
    content: stableJson({ "//": tfLiteral(generatedMarker(plan)), ...body }),
    schema: "terraform-aws",
  };
}

export function generateTerraform(plan: BurstPlan): Artifact[] {
  const cloud = plan.cloud;
  if (!cloud) return [];
  return [
    file(plan, "providers.tf.json", providers(cloud)),
    file(plan, "events.tf.json", events(plan, cloud)),
    file(plan, "iam.tf.json", iamResources(plan, cloud)),
    file(plan, "provisioner-iam.tf.json", provisionerIamResources(plan)),
    ...cloud.pools.map((pool) => file(plan, `pool-${pool.name}.tf.json`, poolResources(plan, pool))),
  ];
}

/** Cluster Autoscaler's Helm values (a module of their own). */
export function generateAutoscalerValues(plan: BurstPlan): Artifact[] {
  const cloud = plan.cloud;
  if (!cloud) return [];
  return [{ path: AUTOSCALER_VALUES_PATH, content: renderAutoscalerValues(plan, cloud) }];
}
