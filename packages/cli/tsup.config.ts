import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";
import { base } from "../../tsup.base.js";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

const here = dirname(fileURLToPath(import.meta.url));
const lazyFflateShim = join(here, "src", "lazy-fflate.cjs");

/** fflate/browser, as cloud-init imports it, becomes src/lazy-fflate.cjs, whose own require finds the real one. */
const lazyFflate: Plugin = {
  name: "lazy-fflate",
  setup(build) {
    build.onResolve({ filter: /^fflate\/browser$/ }, (args) => {
      if (args.pluginData === "real") return undefined;
      if (args.importer !== lazyFflateShim) return { path: lazyFflateShim };
      // fflate is cloud-init's dependency: resolve it from there
      return build.resolve(args.path, {
        kind: args.kind,
        resolveDir: join(here, "..", "cloud-init"),
        pluginData: "real",
      });
    });
  },
};

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
    // Minified names: a smaller V8 code cache that loads faster (4% of a small run); the source map beside it
    // lets an internal error print source positions (stack.ts).
    sourcemap: true,
    splitting: false,
    // import.meta.url as a real file URL of the bundle: tsup's shim writes `file:` + the path unencoded, so a `#`
    // or `%` in the install path would name another file.
    define: { "import.meta.url": "__bundleUrl" },
    // The file is the function bin.cjs calls, as Node's own module wrapper would: bin.cjs compiles the text as read.
    // Wrapping it there instead made V8 copy the 1.5 MB source into a new string (370 more page faults a run).
    banner: {
      js: `(function (exports, require, module, __filename, __dirname) {\nvar __bundleUrl = require("node:url").pathToFileURL(__filename).href;`,
    },
    footer: { js: "})" },
    noExternal: [/./],
    minifyWhitespace: true,
    minifySyntax: true,
    minifyIdentifiers: true,
    esbuildPlugins: [lazyFflate],
    esbuildOptions: (options) => {
      options.sourcesContent = false; // the sources ship in the package (src/)
    },
    // The bundle's identity (a content hash): `generate` records it with each tree it writes, so a rebuilt or
    // upgraded clusterspec never takes a shortcut recorded by other code.
    onSuccess: async () => {
      // No sourceMappingURL comment: --enable-source-maps would not know bin.cjs's wrapper line (stack.ts maps).
      const text = readFileSync(join("dist-bin", "main.cjs"), "latin1").replace(
        /\n\/\/# sourceMappingURL=\S+\s*$/,
        "\n",
      );
      writeFileSync(join("dist-bin", "main.cjs"), text, "latin1");
      const bundle = Buffer.from(text, "latin1");
      // bin.cjs reads the bundle as latin1, twice as fast as decoding UTF-8: it must be ASCII (esbuild escapes
      // non-ASCII in strings, not in regular expression literals: write \u00b5 there, not µ).
      const at = bundle.findIndex((byte) => byte > 0x7f);
      if (at >= 0)
        throw new Error(`dist-bin/main.cjs is not ASCII at byte ${at}: ${bundle.subarray(at - 40, at + 10)}`);
      // bin.cjs runs the bundle in a vm.Script, which cannot import() a module from outside it (a run would stop
      // with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): every dynamic import must be of a module inside the bundle.
      const outside = /\bimport\(\s*["'`]([^"'`]+)/.exec(text);
      if (outside)
        throw new Error(
          `dist-bin/main.cjs imports ${outside[1]} dynamically: import it statically in a module that is itself imported dynamically`,
        );
      writeFileSync(join("dist-bin", "build-id"), `${createHash("sha256").update(bundle).digest("hex")}\n`);
    },
  },
]);
