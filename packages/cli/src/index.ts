export {
  type GenerateOptions,
  type GenerateResult,
  generate,
  generateFromPlan,
  renderPlanMarkdown,
} from "./generate.js";
export { generatorModules } from "./generators.js";
