// The library as a browser gets it: esbuild --platform=browser with no shims, aliases or externals, then run
// where `process`, `Buffer` and `require` do not exist, and compared with Node byte for byte. The playground
// generates with generateChecked, as the CLI does, so the bundle holds @clusterspec/schemas too; a second build with
// code splitting measures the part every page loads apart from the schema chunks it imports only on demand.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import vm from "node:vm";
import { gzipSync } from "node:zlib";
import { exampleNames, examplesDir, exampleText } from "@clusterspec/testkit";
import { generate, generateChecked } from "clusterspec";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactsDir } from "./support.js";

// Budgets, to notice growth; see .artifacts/bundle-size.json for the current numbers. The core (zod is most of it)
// is what every page loads; the schemas (ajv and the upstream JSON Schemas) load only for specs with free-form parts.
// Raised from 800 kB / 200 kB when the burst-node work (issue 17) took the core to 783 kB / 203 kB gzip.
const MAX_MINIFIED = 850_000;
const MAX_GZIP = 215_000;
// Every schema chunk together (both stored Cilium charts; a page loads at most the one its spec needs).
const MAX_SCHEMAS_MINIFIED = 1_000_000;
const MAX_SCHEMAS_GZIP = 250_000;

// @clusterspec/schemas' own files in a metafile (paths relative to this package).
const SCHEMAS_SOURCE = /(^|\/)schemas\/(src|data)\//;

// Node built-ins an accidental import would pull in (bare and `node:` forms).
const NODE_BUILTIN = /^(node:|(fs|path|os|util|crypto|zlib|stream|buffer|process|child_process|url|events)(\/|$))/;

interface BrowserLibrary {
  generate: typeof generate;
  generateChecked: typeof generateChecked;
}

/** What the playground imports from the library. */
const ENTRY = `export { generate, generateChecked } from "clusterspec";`;

let code = "";
let metafile: Metafile = { inputs: {}, outputs: {} };
let buildErrors: string[] = [];
/** The split build: chunk path → minified text, and which chunks each imports statically or dynamically. */
let split: { texts: Map<string, string>; metafile: Metafile } | undefined;

beforeAll(async () => {
  try {
    const result = await build({
      // The library entry, as a web app imports it (the CLI lives behind `clusterspec/cli`).
      stdin: { contents: ENTRY, resolveDir: import.meta.dirname },
      bundle: true,
      platform: "browser",
      format: "iife",
      globalName: "clusterspec",
      conditions: ["@clusterspec/source"],
      minify: true,
      metafile: true,
      write: false,
      logLevel: "silent",
    });
    code = result.outputFiles[0]?.text ?? "";
    metafile = result.metafile;
    // As Vite ships it: ES modules, each dynamic import a chunk of its own.
    const chunks = await build({
      entryPoints: ["playground-entry"],
      plugins: [
        {
          name: "entry",
          setup(b) {
            b.onResolve({ filter: /^playground-entry$/ }, () => ({ path: "playground-entry", namespace: "entry" }));
            b.onLoad({ filter: /.*/, namespace: "entry" }, () => ({
              contents: ENTRY,
              resolveDir: import.meta.dirname,
              loader: "js",
            }));
          },
        },
      ],
      bundle: true,
      splitting: true,
      outdir: join(artifactsDir, "bundle"),
      platform: "browser",
      format: "esm",
      conditions: ["@clusterspec/source"],
      minify: true,
      metafile: true,
      write: false,
      logLevel: "silent",
    });
    const outdir = resolve(process.cwd());
    split = {
      texts: new Map(chunks.outputFiles.map((f) => [relative(outdir, f.path).split(sep).join("/"), f.text])),
      metafile: chunks.metafile,
    };
  } catch (e) {
    // esbuild's failure lists every import it could not resolve; the first test shows them.
    buildErrors = ((e as { errors?: { text: string; location?: { file: string } | null }[] }).errors ?? []).map(
      (m) => `${m.location?.file ?? "?"}: ${m.text}`,
    );
    if (buildErrors.length === 0) throw e;
  }
});

/** A fresh global object with what a browser page has and Node's globals absent. */
function browserLikeContext(): vm.Context {
  return vm.createContext({ TextEncoder, TextDecoder, URL, URLSearchParams, atob, btoa, structuredClone });
}

describe("the library bundled for the browser", () => {
  it("resolves no Node built-in and leaves nothing external", () => {
    expect(buildErrors).toEqual([]);
    // `<runtime>` is esbuild's own helper module, not an import of ours.
    const imports = Object.values(metafile.inputs)
      .flatMap((i) => i.imports)
      .filter((i) => i.path !== "<runtime>");
    expect(imports.filter((i) => i.external || NODE_BUILTIN.test(i.path)).map((i) => i.path)).toEqual([]);
    expect(Object.keys(metafile.inputs).filter((p) => NODE_BUILTIN.test(p))).toEqual([]);
  });

  it("runs without process, Buffer or require and matches Node byte for byte on every example", async () => {
    expect(code).not.toBe("");
    const context = browserLikeContext();
    vm.runInContext(code, context);
    expect(vm.runInContext("[typeof process, typeof Buffer, typeof require, typeof global]", context)).toEqual([
      "undefined",
      "undefined",
      "undefined",
      "undefined",
    ]);
    const lib = context.clusterspec as BrowserLibrary;
    for (const name of exampleNames()) {
      const text = exampleText(name);
      // The CLI's pipeline: the schemas load (inside the bundle) only for examples with free-form parts.
      const inBrowser = await lib.generateChecked(text, { sourceName: "cluster.yaml" });
      const inNode = await generateChecked(text, { sourceName: "cluster.yaml" });
      if (!inBrowser.ok || !inNode.ok) throw new Error(`example ${name} did not generate`);
      const files = (r: typeof inNode) => (r.ok ? r.artifacts.map((a) => [a.path, a.content, a.mode, a.secret]) : []);
      expect(files(inBrowser), name).toEqual(files(inNode));
      expect(JSON.parse(JSON.stringify(inBrowser.warnings)), name).toEqual(JSON.parse(JSON.stringify(inNode.warnings)));
      for (const a of inBrowser.artifacts)
        expect(a.content, `${name}/${a.path}`).toBe(readFileSync(join(examplesDir, name, "generated", a.path), "utf8"));
    }
  });

  it("reports invalid specs the same way as in Node", () => {
    expect(code).not.toBe("");
    const context = browserLikeContext();
    vm.runInContext(code, context);
    const lib = context.clusterspec as BrowserLibrary;
    const broken = exampleText().replace("vrid: 5", "vrid: 500");
    expect(JSON.parse(JSON.stringify(lib.generate(broken)))).toEqual(JSON.parse(JSON.stringify(generate(broken))));
  });

  // Each library package on its own too: a generator that is not registered yet must not slip a built-in in.
  const packagesDir = resolve(import.meta.dirname, "../..");
  // Not libraries for the browser: the CLI, the test kit, the playground itself and the provisioner (a Node service).
  const libraryPackages = readdirSync(packagesDir).filter(
    (p) => !["cli", "testkit", "playground", "provisioner"].includes(p),
  );
  it.each(libraryPackages)("bundles @clusterspec/%s alone", async (name) => {
    const pkg = JSON.parse(readFileSync(join(packagesDir, name, "package.json"), "utf8")) as { name: string };
    const result = await build({
      stdin: { contents: `export * from ${JSON.stringify(pkg.name)};`, resolveDir: join(packagesDir, "cli") },
      bundle: true,
      platform: "browser",
      format: "esm",
      conditions: ["@clusterspec/source"],
      write: false,
      logLevel: "silent",
    });
    expect(result.errors).toEqual([]);
  });

  it("stays within its size budget (sizes in .artifacts/bundle-size.json)", () => {
    expect(split).toBeDefined();
    if (!split) return;
    const outputs = split.metafile.outputs;
    // Every dynamic import is an entry point of its own: the page's is ours.
    const entry = Object.keys(outputs).find((p) => outputs[p]?.entryPoint === "entry:playground-entry");
    expect(entry).toBeDefined();
    // Core: the entry chunk and every chunk it imports statically, i.e. what a page loads before any schema.
    const core = new Set<string>();
    const visit = (path: string): void => {
      if (core.has(path)) return;
      core.add(path);
      for (const i of outputs[path]?.imports ?? []) if (i.kind === "import-statement") visit(i.path);
    };
    visit(entry ?? "");
    const lazy = Object.keys(outputs).filter((p) => !core.has(p) && p.endsWith(".js"));
    const measure = (paths: readonly string[]) => {
      const text = paths.map((p) => split?.texts.get(p) ?? "").join("\n");
      const minified = Buffer.byteLength(text);
      const gzip = paths.reduce((n, p) => n + gzipSync(split?.texts.get(p) ?? "", { level: 9 }).length, 0);
      const byPackage = new Map<string, number>();
      for (const p of paths)
        for (const [input, { bytesInOutput }] of Object.entries(outputs[p]?.inputs ?? {})) {
          const pkg =
            /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ??
            (SCHEMAS_SOURCE.test(input) ? "@clusterspec/schemas" : "clusterspec");
          byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
        }
      const shares = Object.fromEntries(
        [...byPackage]
          .sort((a, b) => b[1] - a[1])
          .map(([pkg, bytes]) => [pkg, `${((100 * bytes) / Math.max(minified, 1)).toFixed(1)}%`]),
      );
      const largest = Math.max(0, ...paths.map((p) => Buffer.byteLength(split?.texts.get(p) ?? "")));
      return { chunks: paths.length, minified, gzip, largestChunk: largest, shares };
    };
    const sizes = { core: measure([...core]), schemas: measure(lazy) };
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(join(artifactsDir, "bundle-size.json"), `${JSON.stringify(sizes, null, 2)}\n`);
    // The core must not pull a schema in: zod, yes; ajv and the upstream JSON Schemas, only on demand.
    const coreInputs = [...core].flatMap((p) => Object.keys(outputs[p]?.inputs ?? {}));
    expect(coreInputs.filter((i) => SCHEMAS_SOURCE.test(i) || /node_modules\/(.*\/)?ajv/.test(i))).toEqual([]);
    expect(lazy.length).toBeGreaterThan(0);
    expect(sizes.core.minified).toBeLessThan(MAX_MINIFIED);
    expect(sizes.core.gzip).toBeLessThan(MAX_GZIP);
    expect(sizes.schemas.minified).toBeLessThan(MAX_SCHEMAS_MINIFIED);
    expect(sizes.schemas.gzip).toBeLessThan(MAX_SCHEMAS_GZIP);
  });
});
