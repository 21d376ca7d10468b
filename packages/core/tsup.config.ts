import { defineConfig } from "tsup";
import { base } from "../../tsup.base.js";

export default defineConfig({
  ...base,
  entry: ["src/index.ts", "src/testing.ts", "src/types.ts", "src/error-catalog.ts"],
  external: ["fast-check"],
});
