// The library as a browser gets it: esbuild --platform=browser with no shims, aliases or externals, then run
// where `process`, `Buffer` and `require` do not exist, and compared with Node byte for byte.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import vm from "node:vm";
import { gzipSync } from "node:zlib";
import { exampleNames, examplesDir, exampleText } from "@clusterspec/testkit";
import { generate } from "clusterspec";
import { build, type Metafile } from "esbuild";
import { beforeAll, describe, expect, it } from "vitest";
import { artifactsDir } from "./support.js";

// Budgets, to notice growth (zod is most of it); see .artifacts/bundle-size.json for the current numbers.
const MAX_MINIFIED = 800_000;
const MAX_GZIP = 200_000;

// Node built-ins an accidental import would pull in (bare and `node:` forms).
const NODE_BUILTIN = /^(node:|(fs|path|os|util|crypto|zlib|stream|buffer|process|child_process|url|events)(\/|$))/;

interface BrowserLibrary {
  generate: typeof generate;
}

let code = "";
let metafile: Metafile = { inputs: {}, outputs: {} };
let buildErrors: string[] = [];

beforeAll(async () => {
  try {
    const result = await build({
      // The library entry, as a web app imports it (the CLI lives behind `clusterspec/cli`).
      stdin: { contents: `export { generate } from "clusterspec";`, resolveDir: import.meta.dirname },
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

  it("runs without process, Buffer or require and matches Node byte for byte on every example", () => {
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
      const inBrowser = lib.generate(text, { sourceName: "cluster.yaml" });
      const inNode = generate(text, { sourceName: "cluster.yaml" });
      if (!inBrowser.ok || !inNode.ok) throw new Error(`example ${name} did not generate`);
      const files = (r: typeof inNode) => (r.ok ? r.artifacts.map((a) => [a.path, a.content, a.mode, a.secret]) : []);
      expect(files(inBrowser), name).toEqual(files(inNode));
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
  const libraryPackages = readdirSync(packagesDir).filter((p) => !["cli", "testkit", "playground"].includes(p));
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
    expect(code).not.toBe("");
    const minified = Buffer.byteLength(code);
    const gzip = gzipSync(code, { level: 9 }).length;
    const output = Object.values(metafile.outputs)[0];
    const byPackage = new Map<string, number>();
    for (const [path, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
      const pkg =
        /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? "clusterspec";
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    }
    const shares = Object.fromEntries(
      [...byPackage]
        .sort((a, b) => b[1] - a[1])
        .map(([pkg, bytes]) => [pkg, `${((100 * bytes) / minified).toFixed(1)}%`]),
    );
    mkdirSync(artifactsDir, { recursive: true });
    writeFileSync(join(artifactsDir, "bundle-size.json"), `${JSON.stringify({ minified, gzip, shares }, null, 2)}\n`);
    expect(minified).toBeLessThan(MAX_MINIFIED);
    expect(gzip).toBeLessThan(MAX_GZIP);
  });
});
