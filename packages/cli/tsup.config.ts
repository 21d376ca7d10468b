import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig, type Options } from "tsup";
import { base } from "../../tsup.base.js";

type Plugin = NonNullable<Options["esbuildPlugins"]>[number];

const here = dirname(fileURLToPath(import.meta.url));
const lazyFflateShim = join(here, "src", "lazy-fflate.cjs");
const lazySchemasShim = join(here, "src", "lazy-schemas.ts");

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

/** @clusterspec/schemas, as generate imports it, becomes src/lazy-schemas.ts: it loads dist-chunks/schemas.cjs. */
const lazySchemas: Plugin = {
  name: "lazy-schemas",
  setup(build) {
    build.onResolve({ filter: /^@clusterspec\/schemas$/ }, (args) =>
      args.importer === lazySchemasShim ? undefined : { path: lazySchemasShim },
    );
  },
};

/** The checks every file bin.cjs compiles must pass, and its content hash (written to build-id beside it). */
function checkBinFile(folder: string, name: string): string {
  // No sourceMappingURL comment: --enable-source-maps would not know bin.cjs's wrapper line (stack.ts maps).
  const text = readFileSync(join(folder, name), "latin1").replace(/\n\/\/# sourceMappingURL=\S+\s*$/, "\n");
  writeFileSync(join(folder, name), text, "latin1");
  const bundle = Buffer.from(text, "latin1");
  // bin.cjs reads the bundle as latin1, twice as fast as decoding UTF-8: it must be ASCII (esbuild escapes
  // non-ASCII in strings, not in regular expression literals: write \u00b5 there, not µ).
  const at = bundle.findIndex((byte) => byte > 0x7f);
  if (at >= 0) throw new Error(`${folder}/${name} is not ASCII at byte ${at}: ${bundle.subarray(at - 40, at + 10)}`);
  // bin.cjs runs the bundle in a vm.Script, which cannot import() a module from outside it (a run would stop
  // with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING): every dynamic import must be of a module inside the bundle.
  const outside = /\bimport\(\s*["'`]([^"'`]+)/.exec(text);
  if (outside)
    throw new Error(
      `${folder}/${name} imports ${outside[1]} dynamically: import it statically in a module that is itself imported dynamically`,
    );
  return createHash("sha256").update(bundle).digest("hex");
}

/** The file is the function bin.cjs calls, as Node's own module wrapper would, plus bin.cjs's chunk loader. */
const wrapper = {
  banner: {
    js: `(function (exports, require, module, __filename, __dirname, __clusterspecChunk) {\nvar __bundleUrl = require("node:url").pathToFileURL(__filename).href;`,
  },
  footer: { js: "})" },
};

/** What both files bin.cjs compiles share: one minified CommonJS function each. */
const binFile: Options = {
  ...base,
  format: "cjs",
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
  // Wrapping it there instead made V8 copy the 1 MB source into a new string (370 more page faults a run).
  ...wrapper,
  minifyWhitespace: true,
  minifySyntax: true,
  minifyIdentifiers: true,
  esbuildOptions: (options) => {
    options.sourcesContent = false; // the sources ship in the package (src/)
  },
};

export default defineConfig([
  { ...base, entry: ["src/index.ts", "src/cli.ts", "src/main.ts"] },
  // The command's own build (bin.cjs runs it): one CommonJS file with the workspace packages and their dependencies
  // inlined, so a run reads one file and bin.cjs can keep one V8 code cache for it. Each command's dynamic imports
  // become lazily initialised parts of that file (--help initialises none of them). The upstream schemas are the
  // exception: they are dist-chunks/schemas.cjs (the next build), loaded on first use (src/lazy-schemas.ts).
  {
    ...binFile,
    entry: { main: "src/main.ts" },
    outDir: "dist-bin",
    noExternal: [/./],
    esbuildPlugins: [lazyFflate, lazySchemas],
    // The bundle's identity (a content hash): `generate` records it with each tree it writes, so a rebuilt or
    // upgraded clusterspec never takes a shortcut recorded by other code (main.ts's codeId adds the chunk's).
    onSuccess: async () => {
      writeFileSync(join("dist-bin", "build-id"), `${checkBinFile("dist-bin", "main.cjs")}\n`);
    },
  },
  // @clusterspec/schemas with ajv and the schemas' data, all but core, which the command's bundle hands it.
  {
    ...binFile,
    entry: { schemas: "../schemas/src/index.ts" },
    outDir: "dist-chunks",
    // no __bundleUrl: the schemas use no import.meta.url, and the chunk's require answers @clusterspec/core alone
    banner: { js: "(function (exports, require, module, __filename, __dirname) {" },
    noExternal: [/^(?!@clusterspec\/core$)/],
    external: ["@clusterspec/core"],
    onSuccess: async () => {
      writeFileSync(join("dist-chunks", "build-id"), `${checkBinFile("dist-chunks", "schemas.cjs")}\n`);
    },
  },
]);
