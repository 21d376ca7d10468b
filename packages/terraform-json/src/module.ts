import { type BurstGeneratorModule, burstInputs, narrowedModule } from "@clusterspec/core";
import { generateAutoscalerValues, generateTerraform } from "./generate.js";
import { summarizeAutoscaler, summarizeTerraform } from "./summary.js";

/** The AWS side of cloud burst in Terraform JSON, one file per concern under cloud/terraform. */
export const terraformModule: BurstGeneratorModule = {
  ...narrowedModule({
    name: "terraform-json",
    inputs: burstInputs,
    generateFrom: generateTerraform,
    summarize: (plan) => summarizeTerraform(plan),
  }),
  burst: true,
};

/** Cluster Autoscaler's Helm values: its own module, since the Terraform files are all JSON of one schema. */
export const autoscalerModule: BurstGeneratorModule = {
  ...narrowedModule({
    name: "cluster-autoscaler",
    inputs: burstInputs,
    generateFrom: generateAutoscalerValues,
    summarize: (plan) => summarizeAutoscaler(plan),
  }),
  burst: true,
};
