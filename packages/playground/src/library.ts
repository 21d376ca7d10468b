// The one place the playground takes clusterspec from. Until the `clusterspec` entry is library-only
// (issue 14), generate comes from its own module so no CLI code (node:fs, node:path) reaches the page.
export { type GenerateResult, generate } from "../../cli/src/generate.js";
