export { tfExpr, tfLiteral } from "./escape.js";
export { generateTerraform, terraformModule } from "./generate.js";
export { poolResourceName } from "./resources.js";
export { summarizeTerraform } from "./summary.js";
