import { createHash } from "node:crypto";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
    minifyWhitespace: true,
    minifySyntax: true,
    banner: {
      js: 'import { createRequire as __bundleRequire } from "node:module"; const require = __bundleRequire(import.meta.url);',
    },
    // The bundle's identity (a content hash of every chunk): `generate` records it with each tree it writes, so a
    // rebuilt or upgraded clusterspec never takes an unchanged-tree shortcut recorded by other code (main.ts).
    onSuccess: async () => {
      const hash = createHash("sha256");
      for (const name of readdirSync("dist-bin")
        .filter((n) => n.endsWith(".js"))
        .sort())
        hash.update(`${name}\0`).update(readFileSync(join("dist-bin", name)));
      writeFileSync(join("dist-bin", "build-id"), `${hash.digest("hex")}\n`);
    },
  },
]);
