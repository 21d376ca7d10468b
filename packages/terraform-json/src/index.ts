export { tfExpr, tfLiteral } from "./escape.js";
export { generateTerraform, poolResourceName, summarizeTerraform, terraformModule } from "./generate.js";
