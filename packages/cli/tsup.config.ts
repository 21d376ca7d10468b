import { defineConfig } from "tsup";
import { base } from "../../tsup.base.js";

export default defineConfig([
  { ...base, entry: ["src/index.ts", "src/cli.ts", "src/main.ts"] },
  // The command's own build: the workspace packages and their dependencies inlined, so a run resolves a few
  // files instead of hundreds; each command's dynamic imports stay separate chunks (--help loads none of them).
  // CommonJS dependencies (ejs) call require for Node built-ins, which an ES module must be given.
  {
    ...base,
    entry: ["src/main.ts"],
    outDir: "dist-bin",
    dts: false,
    sourcemap: false,
    splitting: true,
    noExternal: [/./],
    banner: {
      js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
    },
  },
]);
