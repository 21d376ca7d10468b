// pnpm bench:startup [spec]: where a whole `clusterspec generate` process spends its CPU, without a code cache (cold,
// as on a fresh CI runner) and with one (warm), for the start-up targets that `pnpm bench` measures as ratios. Each
// run is sampled by V8's profiler (--cpu-prof, every 50 µs); its self time is summed by what ran: for the command's
// bundle (dist-bin/main.cjs) and chunks (dist-chunks/*.cjs), the package or source folder the source map names; for
// Node, the kind of work (its own start-up, builtins, vm.Script: compiling the bundle or reading its code cache,
// createCachedData: writing it, GC). The profiler slows a run by about half: read the shares, not the milliseconds,
// and take `pnpm bench` for the ratios. Not a test. BENCH_PROFILE_RUNS (default 5) warm runs, 3 cold ones.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(dirname(fileURLToPath(import.meta.url)));
const cli = join(root, "packages", "cli");
const bin = join(cli, "bin.cjs");
const spec = process.argv[2] ?? join(root, "examples", "bare-metal-ha", "cluster.yaml");
const WARM_RUNS = Number(process.env.BENCH_PROFILE_RUNS ?? 5);
const COLD_RUNS = 3;

const scratch = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "cs-startup-"));
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
const tmpDir = join(scratch, "tmp"); // bin.cjs keeps its code caches in the temporary folder
const profDir = join(scratch, "prof"); // one name for every run: bin.cjs names a cache by Node's options too
const bundle = join(cli, "dist-bin", "main.cjs");
// bin.cjs keeps no code cache for a bundle changed less than 2 s ago (as pnpm bench, wait for it).
const age = Date.now() - statSync(bundle).ctimeMs;
if (age < 2500) await new Promise((done) => setTimeout(done, 2500 - age));

let outs = 0;
/** One `generate` into a new folder under the profiler; its profile, parsed. */
function profiledRun() {
  rmSync(profDir, { recursive: true, force: true });
  const r = spawnSync(
    process.execPath,
    [
      "--cpu-prof",
      "--cpu-prof-interval",
      "50",
      "--cpu-prof-dir",
      profDir,
      bin,
      "generate",
      spec,
      "-o",
      join(scratch, `out-${++outs}`),
    ],
    {
      env: { ...process.env, NO_COLOR: "1", TMPDIR: tmpDir, CLUSTERSPEC_CACHE_DIR: join(scratch, "records") },
      encoding: "utf8",
    },
  );
  if (r.status !== 0) throw new Error(`generate exited ${r.status}: ${r.stderr.slice(0, 2000)}`);
  const [file] = readdirSync(profDir);
  return JSON.parse(readFileSync(join(profDir, file), "utf8"));
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
/** A source map's segments as [generated column, source index] per generated line, for lookups by position. */
function sourceLookup(file) {
  const map = JSON.parse(readFileSync(`${file}.map`, "utf8"));
  const lines = [];
  let source = 0;
  for (const line of map.mappings.split(";")) {
    const segments = [];
    let column = 0;
    for (const segment of line.split(",")) {
      if (!segment) continue;
      const fields = [];
      let value = 0;
      let shift = 0;
      for (const ch of segment) {
        const digit = BASE64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          fields.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      column += fields[0];
      if (fields.length > 1) source += fields[1];
      segments.push([column, source]);
    }
    lines.push(segments);
  }
  return (line, column) => {
    const segments = lines[line] ?? [];
    let lo = 0;
    let hi = segments.length - 1;
    let found = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (segments[mid][0] <= column) {
        found = mid;
        lo = mid + 1;
      } else hi = mid - 1;
    }
    return found < 0 ? undefined : map.sources[segments[found][1]];
  };
}

/** A source path as a group: an npm package by name, a workspace package's top folder or file under src/. */
function group(source) {
  const npm = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(source);
  if (npm) return `npm ${npm[1]}`;
  const own = /packages\/([^/]+)\/src\/([^/]+)/.exec(source);
  return own ? `${own[1]}/${own[2]}` : source.replace(/^(\.\.\/)+/, "");
}

const lookups = new Map();
function lookupFor(url) {
  const file = url.startsWith("file://") ? fileURLToPath(url) : url;
  if (!lookups.has(file)) lookups.set(file, existsSync(`${file}.map`) ? sourceLookup(file) : undefined);
  return lookups.get(file);
}

/** What a profile node's own time is counted as. */
function kindOf({ functionName, url, lineNumber, columnNumber }) {
  if (!url) {
    if (functionName === "createCachedData") return "Node: createCachedData (writing the code cache)";
    if (functionName === "(garbage collector)") return "V8: garbage collector";
    if (functionName.startsWith("(")) return `V8: ${functionName}`;
    return `Node native: ${functionName}`; // a binding, as fs's open, read, mkdir
  }
  if (url === "node:vm") return "Node: vm.Script (compiling the bundle or reading its code cache)";
  // node:internal/bootstrap/…, node:internal/modules/…, node:fs: by the first folder under internal/
  if (url.startsWith("node:"))
    return `Node: ${
      url
        .slice(5)
        .replace(/^internal\//, "")
        .split("/")[0]
    }`;
  if (/\/(dist-bin|dist-chunks)\/[^/]+\.cjs$/.test(url)) {
    const source = lookupFor(url)?.(lineNumber, columnNumber);
    return source ? group(source) : `${basename(url)} (unmapped)`;
  }
  return basename(url);
}

/** Self time (ms) of a profile by kind. */
function byKind(profile) {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const totals = new Map();
  profile.samples.forEach((id, i) => {
    const kind = kindOf(nodes.get(id).callFrame);
    totals.set(kind, (totals.get(kind) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return totals;
}

function report(name, profiles) {
  const sums = new Map();
  for (const p of profiles) for (const [k, ms] of byKind(p)) sums.set(k, (sums.get(k) ?? 0) + ms / profiles.length);
  const total = [...sums.values()].reduce((a, b) => a + b, 0);
  console.log(`\n${name}: ${total.toFixed(0)} ms sampled per run (mean of ${profiles.length})`);
  for (const [k, ms] of [...sums].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`  ${ms.toFixed(1).padStart(7)} ms ${((100 * ms) / total).toFixed(1).padStart(5)}%  ${k}`);
}

console.log(`clusterspec start-up profile: node ${process.version}, ${process.arch}; generate ${spec}`);
const cold = [];
for (let r = 0; r < COLD_RUNS; r++) {
  rmSync(tmpDir, { recursive: true, force: true });
  mkdirSync(tmpDir, { mode: 0o700 });
  cold.push(profiledRun());
}
report("cold (no code cache)", cold);
profiledRun(); // the last cold run left a cache: one more makes sure it is the one every later run reads
const warm = Array.from({ length: WARM_RUNS }, profiledRun);
report("warm (code cache)", warm);
