// pnpm bench: whole `clusterspec` processes (validate, a fresh generate, a regenerate over the same folder) and
// in-process stages (load → validate → plan → each generator → PLAN.md, CPU time of this process) for the bare-metal example and synthetic
// clusters up to 300 nodes × 254 external VIPs. Each whole-process figure is CPU time (user + sys, from the child's
// own resource usage) as a ratio to `node -e 0` measured in the same run, interleaved, medians: on a loaded machine
// only ratios from one run compare. Not a test, except the doubling check (run first), which exits 1 when
// keepalived time grows with carriers² instead of carriers.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { loadSpec, resolvePlan, validateSpec } from "@clusterspec/core";
import { generate, generateChecked, generatorModules, renderPlanMarkdown } from "clusterspec";
import { parseDocument, stringify } from "yaml";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
// Whole-process pairs for the small cases: a 2-core machine shared with others swings a run's CPU time by 2×, so a
// median of 5 moves by 20%; of 15, still by 10-20% between cases of one run (node -e 0 read 77-113 ms); of 31,
// less (the 300-node cases take seconds each and run 3).
const PROCESS_RUNS = Number(process.env.BENCH_PROCESS_RUNS ?? 31);
const ONLY = process.env.BENCH_ONLY; // substring of a case name, or "doubling" for the doubling check alone
const gc = globalThis.gc ?? (() => {});
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const bin = join(root, "packages", "cli", "bin.cjs");
const preload = join(root, "bench", "rusage.cjs");
// BENCH_DIR: where the trees are written (default: the system's temporary folder). File creation is kernel time,
// and how much depends on the file system: compare a tmpfs with the disk your checkouts live on.
const scratch = mkdtempSync(join(process.env.BENCH_DIR ?? tmpdir(), "cs-bench-"));
const usageFile = join(scratch, "rusage.jsonl");
// generate's unchanged-tree records (input-digest.ts) and the command's V8 code caches (bin.cjs: in the temporary
// folder) go here, not into the user's folders.
const cacheDir = join(scratch, "cache");
const tmpDir = join(scratch, "tmp");
mkdirSync(tmpDir, { mode: 0o700 });
/**
 * `changes` on 300 × 254 within 1.5 s of CPU (issue 27) as a ratio, which a loaded machine does not move as much:
 * 1.5 s over `node -e 0`'s 75 ms on this 2-core machine when it is quiet.
 */
const CHANGES_RATIO = 20;
/** Every figure the issue's "Targets" name, filled in as the cases run and printed together at the end. */
const targets = [];
const target = (name, value, limit, unit = "×") => targets.push({ name, value, limit, unit, ok: value <= limit });
process.on("exit", () => rmSync(scratch, { recursive: true, force: true }));
// bin.cjs keeps no code cache for a bundle changed less than 2 s ago (its "racy clean" rule): `pnpm bench` has
// just built it, so wait until the command runs as it does after an install.
const bundleAge = Date.now() - statSync(join(root, "packages", "cli", "dist-bin", "main.cjs")).ctimeMs;
if (bundleAge < 2500) await new Promise((done) => setTimeout(done, 2500 - bundleAge));

/** A valid spec: `cps` control planes, the rest workers, `carriers` nodes sharing `pool` external VIPs, one burst pool per 30 nodes. */
function syntheticSpec({ nodes, cps, carriers, pool, replicas }) {
  const host = (i) => `${Math.floor((10 + i) / 256)}.${(10 + i) % 256}`;
  return {
    apiVersion: "clusterspec/v1alpha1",
    kind: "Cluster",
    name: `bench-${nodes}`,
    kubernetes: {
      version: "v1.34.2",
      podSubnet: "10.240.0.0/12",
      serviceSubnet: "10.96.0.0/12",
      nodeCidrMaskSize: 24,
      secrets: {
        bootstrapToken: { env: "KUBEADM_TOKEN" },
        certificateKey: { env: "KUBEADM_CERT_KEY" },
        caCertHash: { env: "KUBEADM_CA_HASH" },
      },
    },
    network: {
      segments: [
        {
          name: "internal",
          interface: "wan1",
          subnet: "10.118.0.0/16",
          onLink: ["192.168.0.0/23"],
          uplink: { gateway: "192.168.1.254", routingTable: { id: 1, name: "vswitch" } },
        },
      ],
      nameservers: ["1.1.1.1", "8.8.8.8"],
    },
    // VRID 1 given: the default (100, from the address) is one of the pool's, whose addresses from .2 take 2..255.
    controlPlane: { vip: "10.118.255.100/16", port: 6443, vrid: 1 },
    vrrp: {
      basePriority: 254,
      // 254 carriers per VIP leave no priority below the lowest for a failed master: FAULT moves the VIP instead.
      ...(carriers >= 254 && replicas === undefined ? { readinessCheck: { weight: 0 } } : {}),
      auth: { type: "AH", password: { env: "VRRP_AUTH_PASS" } },
    },
    externalVips: {
      addresses: Array.from({ length: pool }, (_, j) => `192.168.${Math.floor((2 + j) / 256)}.${(2 + j) % 256}`),
      ...(replicas === undefined ? {} : { replicas }),
    },
    nodes: Array.from({ length: nodes }, (_, i) => ({
      name: `node-${i + 1}`,
      roles: i < cps ? ["control-plane", "worker"] : ["worker"],
      carriesExternalVips: i < carriers,
      rootFilesystem: i % 2 ? "btrfs" : "ext4",
      interfaces: {
        wan0: {
          mac: `52:54:00:10:${(i >> 8).toString(16).padStart(2, "0")}:${(i & 255).toString(16).padStart(2, "0")}`,
          address: `198.18.${host(i)}/15`,
          gateway: "198.18.0.1",
        },
        wan1: {
          mac: `52:54:00:20:${(i >> 8).toString(16).padStart(2, "0")}:${(i & 255).toString(16).padStart(2, "0")}`,
          address: `10.118.${host(i)}/16`,
        },
      },
    })),
    cilium: { version: "1.20.0", routingMode: "tunnel" },
    // Burst pools too, so the cloud-init and Terraform stages do real work.
    cloud: {
      aws: { region: "eu-central-1", vpcCidr: "172.24.0.0/16" },
      provisioner: { url: "https://provisioner.example.com" },
      wireguard: { tunnelSubnet: "172.30.0.0/20" },
      pools: Array.from({ length: Math.max(1, Math.floor(nodes / 30)) }, (_, p) => ({
        name: `pool-${p}`,
        instanceType: "t4g.xlarge",
        architecture: "arm64",
        // One release, as a production pool names it: a wildcard across releases is a warning, and a run with
        // warnings is never recorded for generate's unchanged-tree shortcut (the regenerate target measures it).
        ami: { lookup: { owners: ["125523088429"], name: "Fedora-Cloud-Base-AmazonEC2.aarch64-43-*" } },
        maxSize: 10,
        subnets: ["subnet-0123456789abcdef0"],
        securityGroups: ["sg-0123456789abcdef0"],
        taints: [{ key: "example.com/ci", value: "true", effect: "NoSchedule" }],
        labels: { "example.com/pool": `pool-${p}` },
        resources: { "github.com/fuse": "1" },
      })),
    },
  };
}

/** A worker after `last`, the spec's last node: its addresses and MACs one further, no VIPs. */
function grownNode(last, index) {
  const next = (address) => address.replace(/(\d+)(\/\d+)$/, (_, n, prefix) => `${Number(n) + 1}${prefix}`);
  const mac = (m) =>
    m.replace(/[0-9a-f]{2}$/, (x) => ((Number.parseInt(x, 16) + 1) & 255).toString(16).padStart(2, "0"));
  return {
    ...last,
    name: last.name.replace(/\d+$/, () => String(index + 1)),
    roles: ["worker"],
    carriesExternalVips: false,
    labels: undefined,
    taints: undefined,
    interfaces: Object.fromEntries(
      Object.entries(last.interfaces).map(([k, v]) => [k, { ...v, mac: mac(v.mac), address: next(v.address) }]),
    ),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// ---- whole processes ----

/** Run a command whose process appends its own { cpu, rss } to usageFile on exit (rusage.cjs, or the Python script). */
function spawnMeasured(command, args, env = process.env) {
  rmSync(usageFile, { force: true });
  const r = spawnSync(command, args, {
    cwd: scratch,
    env: { ...env, BENCH_RUSAGE: usageFile, NO_COLOR: "1", CLUSTERSPEC_CACHE_DIR: cacheDir, TMPDIR: tmpDir },
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0)
    throw new Error(`${command} ${args.join(" ")} exited ${r.status}: ${(r.stderr || r.stdout).slice(0, 2000)}`);
  const lines = readFileSync(usageFile, "utf8").trim().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

const node = (args, env) => spawnMeasured(process.execPath, ["--require", preload, ...args], env);
const baseline = (env) => node(["-e", "0"], env);
const cli = (args, env) => node([bin, ...args], env);

/**
 * `runs` interleaved pairs of (baseline, measured): medians of both and their ratio (the figure the targets use),
 * the median of the pairs' own ratios (each pair ran back to back, so it shows what slower stretches of the run
 * did to both), the measured run's peak RSS.
 */
function compare(runs, measured, before = () => {}, env = undefined) {
  const base = [];
  const own = [];
  const sys = [];
  let rss = 0;
  for (let r = 0; r < runs; r++) {
    before();
    base.push(baseline(env).cpu);
    const m = measured();
    own.push(m.cpu);
    sys.push(m.sys ?? 0);
    rss = Math.max(rss, m.rss);
  }
  const pairs = median(own.map((o, i) => o / base[i]));
  return { cpu: median(own), sys: median(sys), base: median(base), ratio: median(own) / median(base), pairs, rss };
}

function treeSize(dir) {
  let files = 0;
  let bytes = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true }))
    if (entry.isFile()) {
      files++;
      bytes += statSync(join(entry.parentPath ?? entry.path, entry.name)).size;
    }
  return { files, bytes };
}

const mib = (b) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const procLine = (name, m) =>
  `  ${name.padEnd(24)}${m.ratio.toFixed(2).padStart(7)}× node -e 0   (${(m.cpu * 1000).toFixed(0)} ms vs ${(m.base * 1000).toFixed(0)} ms CPU, of which ${(m.sys * 1000).toFixed(0)} ms kernel; pairs ${m.pairs.toFixed(2)}×; peak RSS ${mib(m.rss)})`;

// ---- in-process stages ----

function measure(fn, runs = RUNS) {
  const times = [];
  let heap = 0;
  let result;
  for (let r = 0; r < runs; r++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const t0 = process.cpuUsage();
    result = fn();
    const t = process.cpuUsage(t0);
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
    times.push((t.user + t.system) / 1000);
  }
  return { result, median: median(times), min: Math.min(...times), max: Math.max(...times), heap };
}

// CPU ms of this process (GC helper threads included); heap: the largest heapUsed growth over one run of the stage (GC before it): roughly what the stage allocates.
const fmt = (m) =>
  `${m.median.toFixed(2).padStart(9)} ms  (min ${m.min.toFixed(2)}, max ${m.max.toFixed(2)})  heap +${(m.heap / 2 ** 20).toFixed(1)} MiB`;

function stages(text, runs) {
  const out = [];
  const load = measure(() => parseDocument(text).toJS(), runs);
  out.push(["load (YAML)", load]);
  const validate = measure(() => validateSpec(load.result), runs);
  if (!validate.result.ok) throw new Error(JSON.stringify(validate.result.errors.slice(0, 3)));
  out.push(["validate", validate]);
  const plan = measure(() => resolvePlan(validate.result.value, { sourceName: "cluster.yaml" }), runs);
  out.push(["plan", plan]);
  let keepalivedBytes = 0;
  let keepalivedMs = 0;
  for (const m of generatorModules) {
    const g = measure(() => m.generate(plan.result), runs);
    if (m.name === "keepalived") {
      keepalivedBytes = g.result.reduce((n, a) => n + a.content.length, 0);
      keepalivedMs = g.median;
    }
    out.push([`generate ${m.name}`, g]);
  }
  const artifacts = generatorModules.flatMap((m) => m.generate(plan.result));
  out.push(["PLAN.md", measure(() => renderPlanMarkdown(plan.result, artifacts), runs)]);
  out.push([
    "end to end",
    measure(() => {
      const v = loadSpec(text);
      if (!v.ok) throw new Error("invalid");
      const p = resolvePlan(v.value);
      renderPlanMarkdown(
        p,
        generatorModules.flatMap((m) => m.generate(p)),
      );
    }, runs),
  ]);
  for (const [name, m] of out) console.log(`  ${name.padEnd(26)}${fmt(m)}`);
  const rate = keepalivedBytes / 2 ** 20 / (keepalivedMs / 1000);
  console.log(`  keepalived: ${mib(keepalivedBytes)} at ${rate.toFixed(0)} MiB/s`);
  return { keepalivedRate: rate };
}

// ---- the cases ----

const jinja2 = spawnSync("python3", ["-c", "import jinja2"]).status === 0;
const cases = [
  { name: "bare-metal example", file: join(root, "examples", "bare-metal-ha", "cluster.yaml") },
  { name: "30 nodes × 254 VIPs", shape: { nodes: 30, cps: 3, carriers: 30, pool: 254 }, jinja2: true },
  { name: "300 × 254, 254 carriers", shape: { nodes: 300, cps: 5, carriers: 254, pool: 254 } },
  { name: "300 × 254, 16 carriers", shape: { nodes: 300, cps: 5, carriers: 16, pool: 254 } },
  { name: "300 × 254, 254 carriers, replicas 3", shape: { nodes: 300, cps: 5, carriers: 254, pool: 254, replicas: 3 } },
].filter((c) => !ONLY || c.name.includes(ONLY));

// ---- doubling check, first (a fresh heap): keepalived time at fixed V must grow with carriers, not carriers² ----
if (!ONLY || ONLY === "doubling") {
  const planFor = (carriers) => {
    const v = loadSpec(stringify(syntheticSpec({ nodes: 300, cps: 5, carriers, pool: 254 })));
    if (!v.ok) throw new Error("invalid");
    return resolvePlan(v.value);
  };
  const keepalived = generatorModules.find((m) => m.name === "keepalived");
  // Both sizes produce more than V8's young generation holds (some 16 MiB), so each pays the same per-byte GC;
  // 64 → 128 straddles that threshold and measures the memory hierarchy (×3.6) rather than the algorithm.
  const small = planFor(125);
  const large = planFor(250);
  const t = { small: [], large: [] };
  for (let r = 0; r < Math.max(9, RUNS); r++) {
    for (const [k, p] of [
      ["small", small],
      ["large", large],
    ]) {
      gc();
      const t0 = process.cpuUsage();
      keepalived.summarize(p, keepalived.generate(p));
      const d = process.cpuUsage(t0);
      t[k].push((d.user + d.system) / 1000);
    }
  }
  // The least of several runs: what the work costs when the shared machine lets it run, not its queueing.
  const least = (xs) => Math.min(...xs);
  const ratio = least(t.large) / least(t.small);
  const ok = ratio < 3;
  console.log(
    `\ndoubling check: keepalived (files + PLAN.md section) at 254 VIPs, 125 → 250 carriers: ${least(t.small).toFixed(1)} → ${least(t.large).toFixed(1)} ms (least of ${t.small.length}), ×${ratio.toFixed(2)} (linear 2, quadratic 4): ${ok ? "ok" : "FAILED"}`,
  );
  if (!ok) process.exitCode = 1;
}

// ---- doubling check of reading one large mapping (issue 32 item 7): 25,000 → 50,000 keys under cilium.values ----
if (!ONLY || ONLY === "doubling") {
  const base = readFileSync(join(root, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
  const textOf = (n) => {
    const lines = ["    big:"];
    for (let i = 0; i < n; i++) lines.push(`      key${i}: ${i}`);
    return base.replace(/^cilium:\n/m, `cilium:\n  values:\n${lines.join("\n")}\n`);
  };
  const texts = { small: textOf(25_000), large: textOf(50_000) };
  const t = { small: [], large: [] };
  for (let r = 0; r < Math.max(5, Math.min(RUNS, 7)); r++) {
    for (const k of ["small", "large"]) {
      gc();
      const t0 = process.cpuUsage();
      if (!loadSpec(texts[k]).ok) throw new Error("invalid");
      const d = process.cpuUsage(t0);
      t[k].push((d.user + d.system) / 1000);
    }
  }
  const least = (xs) => Math.min(...xs);
  const ratio = least(t.large) / least(t.small);
  const ok = ratio < 3;
  console.log(
    `doubling check: loadSpec of one mapping, 25,000 → 50,000 keys: ${least(t.small).toFixed(0)} → ${least(t.large).toFixed(0)} ms (least of ${t.small.length}), ×${ratio.toFixed(2)} (linear 2, quadratic 4): ${ok ? "ok" : "FAILED"}`,
  );
  if (!ok) process.exitCode = 1;
}

console.log(
  `clusterspec bench: node ${process.version}, ${process.arch}; whole processes: median of ${PROCESS_RUNS} (3 past 100 nodes), CPU user+sys; in-process: median of ${RUNS}`,
);
cli(["--help"]); // its code cache
const help = compare(PROCESS_RUNS, () => cli(["--help"]));
console.log(procLine("--help", help));
// The two ratio targets take the pairs' median: each pair ran back to back, while the two medians can come from
// different stretches of a run on a shared machine (this one: --help 1.34× by medians, 1.15× by pairs, 1.08× in
// instructions under valgrind).
target("--help vs node -e 0 (pairs)", help.pairs, 1.3);

for (const c of cases) {
  const big = (c.shape?.nodes ?? 0) > 100;
  const runs = big ? Math.min(3, PROCESS_RUNS) : PROCESS_RUNS;
  const dir = join(scratch, c.name.replace(/[^a-z0-9]+/gi, "-"));
  mkdirSync(dir, { recursive: true });
  const spec = c.file ?? join(dir, "cluster.yaml");
  const text = c.file ? readFileSync(c.file, "utf8") : stringify(syntheticSpec(c.shape));
  if (!c.file) writeFileSync(spec, text);
  console.log(`\n${c.name} (spec ${(text.length / 1024).toFixed(1)} KiB)`);
  cli(["validate", spec]); // warm-up: its code cache
  const validate = compare(runs, () => cli(["validate", spec]));
  console.log(procLine("validate", validate));
  // Each fresh write goes to a new folder, and the trees are removed only when the bench ends: deleting thousands of
  // files just before a write makes the next file creations several times dearer on some file systems (this
  // machine's ext4: 0.3 s of kernel time for the 300-node tree becomes 1-1.6 s), which is not clusterspec's cost.
  let outs = 0;
  let out = join(dir, "out-0");
  const freshStart = (keepCodeCache) => () => {
    out = join(dir, `out-${++outs}`);
    if (keepCodeCache) return;
    rmSync(tmpDir, { recursive: true, force: true });
    mkdirSync(tmpDir, { mode: 0o700 });
  };
  // The first run after an install or upgrade, as on a fresh CI runner: no V8 code cache yet (bin.cjs saves one
  // when the run ends), so V8 compiles what the run needs from source.
  if (c.name === "bare-metal example") {
    const first = compare(runs, () => cli(["generate", spec, "-o", out]), freshStart(false));
    console.log(procLine("generate (first run)", first));
    target("bare-metal generate, no code cache (cold) vs node -e 0 (pairs)", first.pairs, 2);
  }
  // NODE_EXTRA_CA_CERTS makes every Node process read and parse that file of certificates when it starts, before
  // any script: a fixed cost in node -e 0 and clusterspec alike (on the machine this was written on, 4× the
  // instructions of node -e 0 without it), so it shrinks every ratio. Where it is set, the start-up pairs again
  // without it: clusterspec's own cost against a bare Node start.
  const bare = process.env.NODE_EXTRA_CA_CERTS === undefined ? undefined : { ...process.env };
  if (bare !== undefined && c.name === "bare-metal example") {
    delete bare.NODE_EXTRA_CA_CERTS;
    const first = compare(runs, () => cli(["generate", spec, "-o", out], bare), freshStart(false), bare);
    console.log(procLine("  without NODE_EXTRA_CA_CERTS: generate (first run)", first));
    cli(["generate", spec, "-o", join(dir, "warm-up-bare")], bare);
    const warm = compare(runs, () => cli(["generate", spec, "-o", out], bare), freshStart(true), bare);
    console.log(procLine("  without NODE_EXTRA_CA_CERTS: generate (fresh)", warm));
  }
  // A fresh write: a new folder (so no record of one); the code cache of an earlier run, as every run after the first has.
  cli(["generate", spec, "-o", join(dir, "warm-up")]);
  const fresh = compare(runs, () => cli(["generate", spec, "-o", out]), freshStart(true));
  const size = treeSize(out);
  console.log(procLine("generate (fresh)", fresh));
  const regenerate = compare(runs, () => cli(["generate", spec, "-o", out]));
  console.log(procLine("generate (regenerate)", regenerate));
  console.log(
    `  → ${size.files} files, ${mib(size.bytes)} written; regenerating the unchanged tree costs ${(regenerate.cpu / validate.cpu).toFixed(2)}× validate`,
  );
  if (c.name === "bare-metal example")
    target("bare-metal generate, code cache (warm) vs node -e 0 (pairs)", fresh.pairs, 1.5);
  if (c.shape?.carriers === 254 && c.shape.replicas === undefined) {
    target("300 × 254 (254 carriers) generate CPU", fresh.cpu, 2, " s");
    target("300 × 254 (254 carriers) generate peak RSS", fresh.rss / 2 ** 20, 250, " MiB");
    target("300 × 254 regenerate unchanged vs validate", regenerate.cpu / validate.cpu, 1.2);
  }
  if (c.shape?.replicas === 3) target("300 × 254 (254 carriers, replicas 3) generate CPU", fresh.cpu, 1, " s");
  // `clusterspec changes` from this spec to the same one with a worker appended: both trees generated, every
  // changed file's lines, the steps (text output). The bare-metal example and the 300 × 254 (254 carriers) case.
  if (c.file || (c.shape?.carriers === 254 && c.shape.replicas === undefined)) {
    const grown = join(dir, "grown.yaml");
    const parsed = parseDocument(text).toJS();
    const last = parsed.nodes.at(-1);
    parsed.nodes.push(grownNode(last, parsed.nodes.length));
    writeFileSync(grown, stringify(parsed));
    cli(["changes", spec, grown]); // warm-up: its code cache
    const changes = compare(runs, () => cli(["changes", spec, grown]));
    console.log(procLine("changes (add a worker)", changes));
    if (c.file) target("bare-metal changes (add a worker) vs node -e 0 (pairs)", changes.pairs, 4);
    else {
      target("300 × 254 (254 carriers) changes CPU", changes.cpu, 1.5, " s");
      target("300 × 254 (254 carriers) changes vs node -e 0 (pairs)", changes.pairs, CHANGES_RATIO);
      target("300 × 254 (254 carriers) changes peak RSS", changes.rss / 2 ** 20, 300, " MiB");
    }
  }
  // Two changes that rewrite keepalived.conf on every carrier, so the keepalived planner rolls 254 nodes: one
  // external VIP removed (the middle one: every carrier loses an instance), and a carrier appended (every VIP's
  // order gains a node, one loses one). The same targets as adding a worker.
  // On the quiet 2-core machine (docs/changes.md, "Cost", the eighth pass) a worker appended costs some 1.4 s of
  // CPU, these two 1.55-1.65 s: the new tree keeps the old one's files where a module's inputs are unchanged and
  // keepalived's unchanged instance blocks, but these two change every carrier's keepalived.conf, so both trees
  // still pay it, with the two parses, PLAN.md, the line attribution and the planner.
  if (c.shape?.carriers === 254 && c.shape.replicas === undefined) {
    const variants = [
      {
        name: "remove one VIP",
        edit: (parsed) => parsed.externalVips.addresses.splice(Math.floor(parsed.externalVips.addresses.length / 2), 1),
      },
      {
        // basePriority 254 gives at most 254 carriers distinct priorities: the last carrier (node-254) stops carrying
        // so the appended node can.
        name: "append a carrier",
        edit: (parsed) => {
          parsed.nodes.push({ ...grownNode(parsed.nodes.at(-1), parsed.nodes.length), carriesExternalVips: true });
          parsed.nodes.findLast((n) => n.carriesExternalVips && n !== parsed.nodes.at(-1)).carriesExternalVips = false;
        },
      },
    ];
    for (const v of variants) {
      const changed = join(dir, `${v.name.replace(/[^a-z0-9]+/gi, "-")}.yaml`);
      const parsed = parseDocument(text).toJS();
      v.edit(parsed);
      writeFileSync(changed, stringify(parsed));
      cli(["changes", spec, changed]); // warm-up: its code cache
      const changes = compare(runs, () => cli(["changes", spec, changed]));
      console.log(procLine(`changes (${v.name})`, changes));
      target(`300 × 254 (254 carriers) changes (${v.name}) CPU`, changes.cpu, 1.5, " s");
      target(`300 × 254 (254 carriers) changes (${v.name}) vs node -e 0 (pairs)`, changes.pairs, CHANGES_RATIO);
      target(`300 × 254 (254 carriers) changes (${v.name}) peak RSS`, changes.rss / 2 ** 20, 300, " MiB");
    }
  }
  // `explain` of one line (issue 27): each of its perturbations regenerates the file's module, asked for that file
  // alone (GeneratorModule's scope). The bare-metal example always; the 300-node cases only with BENCH_EXPLAIN=1,
  // since there one line takes tens of seconds (about a thousand regenerations, each validating all 300 nodes).
  if (c.file || (process.env.BENCH_EXPLAIN === "1" && c.shape?.carriers === 254 && c.shape.replicas === undefined)) {
    const first = c.file ? "k8s-1" : "node-1";
    // a line that depends on many fields: the first priority, the first address
    const lineOf = (file, pattern) =>
      `${file}:${
        readFileSync(join(out, file), "utf8")
          .split("\n")
          .findIndex((l) => pattern.test(l)) + 1
      }`;
    for (const target of [
      lineOf(`nodes/${first}/etc/keepalived/keepalived.conf`, /^\s*priority /),
      lineOf(`nodes/${first}/etc/conf.d/net`, /^config_/),
    ]) {
      cli(["explain", spec, target]); // warm-up: its code cache
      const explained = compare(c.file ? runs : 1, () => cli(["explain", spec, target]));
      console.log(procLine(`explain ${target.replace(/^nodes\/[^/]+\//, "")}`, explained));
    }
  }
  if (c.jinja2 && jinja2) {
    const json = join(dir, "cluster.json");
    writeFileSync(json, JSON.stringify(syntheticSpec(c.shape)));
    const script = join(root, "bench", "jinja2-keepalived.py");
    // a new folder per run, as clusterspec's fresh writes: creating files, not overwriting them
    let jout = join(dir, "jinja2-0");
    let jouts = 0;
    const j = compare(
      runs,
      () => spawnMeasured("python3", [script, json, jout]),
      () => {
        jout = join(dir, `jinja2-${++jouts}`);
      },
    );
    console.log(procLine("Jinja2 keepalived.conf", j));
    console.log(
      `  → clusterspec generate (all files) is ${(fresh.cpu / j.cpu).toFixed(2)}× the Jinja2 process by medians, ${(fresh.pairs / j.pairs).toFixed(2)}× by each one's pairs with node -e 0 (keepalived.conf only, ${mib(treeSize(jout).bytes)})`,
    );
    // By pairs, as the other ratio targets: each side against the node -e 0 runs beside it, so a slower stretch of
    // the run during one of the two measurements does not count as either's cost.
    target("30 × 254 generate (all files) vs Jinja2 (pairs)", fresh.pairs / j.pairs, 3);
  } else if (c.jinja2) console.log("  Jinja2 comparison skipped: python3 cannot import jinja2");
  const inProcess = stages(text, big ? Math.min(3, RUNS) : RUNS);
  // ≥ 100 MB/s: as a "≤" figure, the time per 100 MiB in seconds.
  if (c.jinja2)
    target("30 × 254 in-process keepalived, s per 100 MiB (≥ 100 MiB/s)", 100 / inProcess.keepalivedRate, 1, " s");
}

console.log(`\npeak RSS of this bench process ${mib(process.resourceUsage().maxRSS * 1024)}`);

// The upstream schemas are loaded only for specs with free-form parts (overlays, cilium.values, kubernetes.kubelet).
// Import and first-use costs need a fresh process each, so each figure is the median of RUNS child processes.
function childMs(script) {
  const times = [];
  for (let r = 0; r < RUNS; r++)
    times.push(Number(execFileSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8" })));
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}
const timed = (body) => `const t0 = performance.now(); ${body}; process.stdout.write(String(performance.now() - t0));`;
const bare = JSON.stringify(readFileSync(join(root, "examples", "bare-metal-ha", "cluster.yaml"), "utf8"));
const custom = JSON.stringify(readFileSync(join(root, "examples", "customised", "cluster.yaml"), "utf8"));
const rows = [
  ["import clusterspec (CLI library, no schema)", timed(`await import("clusterspec")`)],
  [
    "+ import @clusterspec/schemas (entry: ajv)",
    `await import("clusterspec"); ${timed(`await import("@clusterspec/schemas")`)}`,
  ],
  ...[
    ["kubeadm", "k.yaml", "apiVersion: kubelet.config.k8s.io/v1beta1\\nkind: KubeletConfiguration\\nmaxPods: 10\\n"],
    ["cilium-values", "v.yaml", "l7Proxy: false\\n"],
    ["cloud-config", "u.yaml", "packages: [curl]\\n"],
    ["terraform-aws", "x.tf.json", "{}\\n"],
  ].map(([id, path, content]) => [
    `+ load the ${id} schema and check one file`,
    `await import("clusterspec"); const { loadArtifactChecker } = await import("@clusterspec/schemas"); const t0 = performance.now(); const c = await loadArtifactChecker({ schemas: ["${id}"], ciliumVersion: "1.20.0" }); const p = c.check({ path: "${path}", content: "${content}", schema: "${id}" }); if (p.length) throw new Error(JSON.stringify(p)); process.stdout.write(String(performance.now() - t0));`,
  ]),
  [
    "first generate, bare-metal-ha (no free-form part)",
    `const { generateChecked } = await import("clusterspec"); ${timed(`await generateChecked(${bare})`)}`,
  ],
  [
    "first generate, customised (overlays + values)",
    `const { generateChecked } = await import("clusterspec"); ${timed(`await generateChecked(${custom})`)}`,
  ],
];
console.log(`\nschemas at generate time (fresh process each, median of ${RUNS})`);
for (const [name, script] of rows) console.log(`  ${name.padEnd(50)}${childMs(script).toFixed(1).padStart(9)} ms`);
const warm = (text, checked) => measure(() => (checked ? undefined : generate(text)));
const bareText = readFileSync(join(root, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const customText = readFileSync(join(root, "examples", "customised", "cluster.yaml"), "utf8");
console.log(`  warm generate, bare-metal-ha                     ${fmt(warm(bareText, false))}`);
const times = [];
for (let r = 0; r < RUNS; r++) {
  const t0 = process.hrtime.bigint();
  await generateChecked(customText);
  times.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
times.sort((a, b) => a - b);
console.log(
  `  warm generateChecked, customised                 ${times[Math.floor(times.length / 2)].toFixed(2).padStart(9)} ms`,
);

if (targets.length > 0) {
  console.log("\ntargets (issue 11), from this run:");
  for (const t of targets)
    console.log(
      `  ${t.ok ? "✔" : "✘"} ${t.name.padEnd(62)}${t.value.toFixed(2).padStart(8)}${t.unit}  (≤ ${t.limit}${t.unit})`,
    );
}
