import type { BurstGeneratorModule } from "@clusterspec/core";
import { generateAutoscalerValues, generateTerraform } from "./generate.js";
import { summarizeAutoscaler, summarizeTerraform } from "./summary.js";

/** The AWS side of cloud burst in Terraform JSON, one file per concern under cloud/terraform. */
export const terraformModule: BurstGeneratorModule = {
  name: "terraform-json",
  burst: true,
  generate: generateTerraform,
  summarize: (plan) => summarizeTerraform(plan),
};

/** Cluster Autoscaler's Helm values: its own module, since the Terraform files are all JSON of one schema. */
export const autoscalerModule: BurstGeneratorModule = {
  name: "cluster-autoscaler",
  burst: true,
  generate: generateAutoscalerValues,
  summarize: (plan) => summarizeAutoscaler(plan),
};
