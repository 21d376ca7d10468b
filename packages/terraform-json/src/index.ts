import type { GeneratorModule } from "@clusterspec/core";
import { generateTerraform, summarizeTerraform } from "./generate.js";

export { tfExpr, tfLiteral } from "./escape.js";
export { generateTerraform, poolResourceName, summarizeTerraform } from "./generate.js";

export const terraformModule: GeneratorModule = {
  name: "terraform-json",
  generate: generateTerraform,
  summarize: summarizeTerraform,
};
