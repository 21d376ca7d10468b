import type { Options } from "tsup";

/** Shared build options: every package's tsup.config.ts is `defineConfig(base)`. */
export const base: Options = {
  entry: ["src/index.ts"],
  format: "esm",
  dts: true,
  clean: true,
  sourcemap: true,
  target: "node20",
  tsconfig: "tsconfig.build.json",
};
