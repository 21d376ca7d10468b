// pnpm bench: time and memory per stage (load → validate → plan → each generator) for synthetic
// clusters of 3, 30 and 300 nodes, on the built packages. Not a test: it prints figures to compare.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { loadSpec, resolvePlan, validateSpec } from "@clusterspec/core";
import { generate, generateChecked, generatorModules, renderPlanMarkdown } from "clusterspec";
import { parseDocument, stringify } from "yaml";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const gc = globalThis.gc ?? (() => {});

/** A valid spec: `cps` control planes, the rest workers, `carriers` nodes sharing `pool` external VIPs, one burst pool per 30 nodes. */
function syntheticSpec(nodes, cps, carriers, pool) {
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
    controlPlane: { vip: "10.118.255.100/16", port: 6443 },
    vrrp: { auth: { type: "AH", password: { env: "VRRP_AUTH_PASS" } } },
    externalVips: {
      addresses: Array.from({ length: pool }, (_, j) => `192.168.${Math.floor((2 + j) / 256)}.${(2 + j) % 256}`),
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
        ami: { lookup: { owners: ["125523088429"], name: "Fedora-Cloud-Base-AmazonEC2.aarch64-*" } },
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

function measure(fn) {
  const times = [];
  let heap = 0;
  let result;
  for (let r = 0; r < RUNS; r++) {
    gc();
    const before = process.memoryUsage().heapUsed;
    const t0 = process.hrtime.bigint();
    result = fn();
    const t1 = process.hrtime.bigint();
    heap = Math.max(heap, process.memoryUsage().heapUsed - before);
    times.push(Number(t1 - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { result, median: times[Math.floor(times.length / 2)], min: times[0], max: times[times.length - 1], heap };
}

// heap: the largest heapUsed growth over one run of the stage (GC before it): roughly what the stage allocates.
const fmt = (m) =>
  `${m.median.toFixed(2).padStart(9)} ms  (min ${m.min.toFixed(2)}, max ${m.max.toFixed(2)})  heap +${(m.heap / 2 ** 20).toFixed(1)} MiB`;

const sizes = [
  { nodes: 3, cps: 3, carriers: 3, pool: 3 },
  { nodes: 30, cps: 3, carriers: 10, pool: 30 },
  { nodes: 300, cps: 5, carriers: 16, pool: 254 },
];

console.log(`clusterspec bench: median of ${RUNS} runs per stage, node ${process.version}, ${process.arch}`);
const totals = [];
for (const s of sizes) {
  const text = stringify(syntheticSpec(s.nodes, s.cps, s.carriers, s.pool));
  console.log(
    `\n${s.nodes} nodes, ${s.carriers} carry a pool of ${s.pool} VIPs, ${Math.max(1, Math.floor(s.nodes / 30))} burst pool(s) (spec ${(text.length / 1024).toFixed(1)} KiB)`,
  );
  const stages = [];
  const load = measure(() => parseDocument(text).toJS());
  stages.push(["load (YAML)", load]);
  const validate = measure(() => validateSpec(load.result));
  if (!validate.result.ok) throw new Error(JSON.stringify(validate.result.errors.slice(0, 3)));
  stages.push(["validate", validate]);
  const plan = measure(() => resolvePlan(validate.result.value, { sourceName: "cluster.yaml" }));
  stages.push(["plan", plan]);
  let files = 0;
  let bytes = 0;
  for (const m of generatorModules) {
    const g = measure(() => m.generate(plan.result));
    files += g.result.length;
    bytes += g.result.reduce((n, a) => n + a.content.length, 0);
    stages.push([`generate ${m.name}`, g]);
  }
  stages.push(["PLAN.md", measure(() => renderPlanMarkdown(plan.result))]);
  const all = measure(() => {
    const v = loadSpec(text);
    if (!v.ok) throw new Error("invalid");
    const p = resolvePlan(v.value);
    for (const m of generatorModules) m.generate(p);
    renderPlanMarkdown(p);
  });
  stages.push(["end to end", all]);
  for (const [name, m] of stages) console.log(`  ${name.padEnd(26)}${fmt(m)}`);
  console.log(`  → ${files} files, ${(bytes / 1024).toFixed(0)} KiB`);
  totals.push({ nodes: s.nodes, ms: all.median });
}
const base = totals[0].ms;
console.log(
  `\nend-to-end growth: ${totals.map((t) => `${t.nodes} nodes ${(t.ms / base).toFixed(1)}x`).join(", ")} (relative to 3 nodes)`,
);
console.log(`peak RSS of the whole run ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);

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
const bare = JSON.stringify(readFileSync("examples/bare-metal-ha/cluster.yaml", "utf8"));
const custom = JSON.stringify(readFileSync("examples/customised/cluster.yaml", "utf8"));
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
const bareText = readFileSync("examples/bare-metal-ha/cluster.yaml", "utf8");
const customText = readFileSync("examples/customised/cluster.yaml", "utf8");
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
