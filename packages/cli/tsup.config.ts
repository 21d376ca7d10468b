import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { defineConfig } from "tsup";
import { base } from "../../tsup.base.js";

export default defineConfig([
  { ...base, entry: ["src/index.ts", "src/cli.ts", "src/main.ts"] },
  // The command's own build (bin.cjs runs it): one CommonJS file with the workspace packages and their dependencies
  // inlined, so a run reads one file and bin.cjs can keep one V8 code cache for it. Each command's dynamic imports
  // become lazily initialised parts of that file (--help initialises none of them).
  {
    ...base,
    entry: { main: "src/main.ts" },
    format: "cjs",
    outDir: "dist-bin",
    outExtension: () => ({ js: ".cjs" }),
    dts: false,
    sourcemap: false,
    splitting: false,
    shims: true,
    noExternal: [/./],
    minifyWhitespace: true,
    minifySyntax: true,
    // The bundle's identity (a content hash): bin.cjs names its code cache by it, and `generate` records it with
    // each tree it writes, so a rebuilt or upgraded clusterspec never takes a shortcut recorded by other code.
    onSuccess: async () => {
      const hash = createHash("sha256").update(readFileSync(join("dist-bin", "main.cjs")));
      writeFileSync(join("dist-bin", "build-id"), `${hash.digest("hex")}\n`);
    },
  },
]);
