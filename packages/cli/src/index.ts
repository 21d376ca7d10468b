// `clusterspec`: the library. Spec in, artifacts out; no file system (that is `clusterspec/cli`).
export {
  type GenerateOptions,
  type GenerateResult,
  generate,
  generateFromPlan,
  renderPlanMarkdown,
  type SecretReference,
  type SecretResolution,
} from "./generate.js";
export { generatorModules } from "./generators.js";
