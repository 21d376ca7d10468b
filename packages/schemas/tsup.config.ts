import { defineConfig } from "tsup";
import { base } from "../../tsup.base.js";

// One entry per schema, shared code split out: a spec pays only for the schemas of the files it patches.
export default defineConfig({
  ...base,
  entry: ["src/index.ts", "src/kubernetes.ts", "src/cilium.ts", "src/cloud-init.ts", "src/terraform.ts"],
  splitting: true,
});
