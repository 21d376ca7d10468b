// The VRRP lab (issue 12): the real keepalived of every node, talking VRRP over Linux bridges in network namespaces,
// must put every VIP where core's model (simulateFailover) says, at rest and through each failure, within the
// takeover times the tunables predict. Trees are written by the CLI with --with-secrets, so the real
// authentication (AH or PASS) runs with a test password.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AT_REST,
  type ClusterPlan,
  effectivePriority,
  type FailureState,
  holderMap,
  simulateFailover,
  takeoverBounds,
} from "@clusterspec/core";
import { arbVrrpLabSpec, canonicalIp, mustResolve, TEST_SECRETS, type VrrpLabShape } from "@clusterspec/core/testing";
import {
  clusterExampleNames,
  examplesDir,
  failoverSteps,
  formatLabReport,
  holderDifferences,
  type LabReport,
  type Observation,
  runFailoverScenarios,
  type StepOptions,
  startVrrpLab,
  toolAvailable,
} from "@clusterspec/testkit";
import { runCli, simulationJson } from "clusterspec/cli";
import fc from "fast-check";
import { afterAll, describe, expect, it, type TestContext } from "vitest";
import { parse, stringify } from "yaml";

/** The test password the lab's trees are written with (through --with-secrets, like a deployment). */
const LAB_PASSWORD = "lab-pw7";
const LAB_ENV = {
  VRRP_AUTH_PASS: LAB_PASSWORD,
  KUBEADM_TOKEN: TEST_SECRETS.bootstrapToken,
  KUBEADM_CERT_KEY: TEST_SECRETS.certificateKey,
  KUBEADM_CA_HASH: TEST_SECRETS.caCertHash,
  WG_HUB_PRIVATE_KEY: TEST_SECRETS.wireguardHubPrivateKey,
};

/**
 * Per lab, a bound on a hang rather than a timing: the labs run concurrently, and the longest (customised, most
 * steps) took 162 s alone and over 170 s beside four others on 2 cores.
 */
const LAB_TIMEOUT = 360_000;

/**
 * vrrp.preemptDelay in the example labs: short, so the labs stay within their time (the examples keep the 120s
 * default); the preempt_delay lab below measures a longer one.
 */
const LAB_PREEMPT_DELAY = 2;

const labAvailable = (): boolean =>
  toolAvailable("keepalived", { root: true }) &&
  toolAvailable("unshare", { root: true }) &&
  toolAvailable("ip") &&
  toolAvailable("bridge");

/** Builds a lab spec from an example with `vrrp` settings on top (the example's own stay unless overridden). */
function labSpecWith(example: string, name: string, vrrp: Record<string, unknown>): { path: string; input: unknown } {
  const input = parse(readFileSync(join(examplesDir, example, "cluster.yaml"), "utf8")) as {
    vrrp?: Record<string, unknown>;
  };
  input.vrrp = { ...input.vrrp, ...vrrp };
  const path = join(scratch, `${name}.yaml`);
  writeFileSync(path, stringify(input));
  return { path, input };
}

const scratch = mkdtempSync(join(tmpdir(), "cs-vrrp-lab-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The example's spec with a lab preempt_delay, written next to the trees; returns its path and input. */
function labSpec(example: string, preemptDelay: number, name = example): { path: string; input: unknown } {
  const input = parse(readFileSync(join(examplesDir, example, "cluster.yaml"), "utf8")) as {
    vrrp?: Record<string, unknown>;
  };
  input.vrrp = { ...input.vrrp, preemptDelay };
  const path = join(scratch, `${name}.yaml`);
  writeFileSync(path, stringify(input));
  return { path, input };
}

/** `clusterspec generate <spec> --with-secrets -o <dir>`, as a user deploying the cluster runs it. */
async function generateTree(specPath: string, name: string): Promise<string> {
  const out = join(scratch, name);
  let stderr = "";
  const code = await runCli(["generate", specPath, "--with-secrets", "-o", out], {
    cwd: scratch,
    env: LAB_ENV,
    stdout: () => undefined,
    stderr: (t) => (stderr += t),
    version: "0.0.0-lab",
  });
  if (code !== 0) throw new Error(`clusterspec generate failed (${code}): ${stderr}`);
  return out;
}

/** What a lab throws when its daemons were starved of CPU: the only failure the labs retry. */
const STARVED = "keepalived starved of CPU";

/** A lab's report with what says whether a daemon was starved of CPU meanwhile. */
type StarvableReport = LabReport & { readonly lateTimerSeconds: number; readonly droppedAdverts: number };

async function runLab(
  ctx: TestContext,
  plan: ClusterPlan,
  tree: string,
  steps: StepOptions,
  tweak?: (tree: string) => void,
): Promise<StarvableReport> {
  tweak?.(tree);
  const lab = await startVrrpLab({ plan, tree });
  try {
    const report = await runFailoverScenarios(lab, plan, failoverSteps(plan, lab.nodes, steps));
    await ctx.annotate(formatLabReport(report));
    // CLUSTERSPEC_LAB_REPORT=<file>: keep the figures (takeover times, wall time) of every lab of the run.
    const reportFile = process.env.CLUSTERSPEC_LAB_REPORT;
    if (reportFile) appendFileSync(reportFile, `## ${ctx.task.name}\n${formatLabReport(report)}\n\n`);
    const failed = report.steps.find((s) => !s.ok);
    if (failed) await ctx.annotate(lab.logs(), "lab-logs");
    return { ...report, lateTimerSeconds: lab.lateTimerSeconds(), droppedAdverts: lab.droppedAdverts() };
  } finally {
    await lab.stop();
  }
}

function expectAgreement(plan: ClusterPlan, report: LabReport, context = ""): void {
  const text = `${context}${formatLabReport(report)}`;
  expect(
    report.steps.every((s) => s.ok),
    text,
  ).toBe(true);
  expect(
    report.steps.flatMap((s) => s.takeovers).every((t) => t.withinBound),
    text,
  ).toBe(true);
  // `clusterspec simulate` (from rest) names the same holders in every state keepalived went through; with
  // nopreempt the history matters, so there it is compared on the state at rest only. So it does where two live
  // nodes tie for a VIP's top priority (the default check weight puts every failing node at keepalived's floor, 1):
  // the holder keeps a tie, so who holds it depends on the order the checks failed in.
  const tied = (state: FailureState): boolean =>
    plan.vips.some((v) => {
      const ps = v.order.map((n) => effectivePriority(plan, v, n, state)).filter((p) => p !== undefined);
      const top = Math.max(...ps);
      return ps.filter((p) => p === top).length > 1;
    });
  for (const step of report.steps) {
    if (plan.vrrp.nopreempt && step !== report.steps[0]) continue;
    if (tied(step.state)) continue;
    const simulated = simulationJson(plan, step.state) as { vips: { key: string; holder: string | null }[] };
    expect(
      simulated.vips.map((v) => [v.key, v.holder ?? undefined]),
      `clusterspec simulate disagrees at "${step.name}"`,
    ).toEqual([...step.holders]);
  }
}

// Retried, with the same spec (an example, or the seed drawn once per file), only when a daemon was starved: keepalived logged a
// timer run late by an advert interval or more, or the kernel dropped adverts a daemon did not read in time. Seen:
// 8 daemons × 255 instances with AH beside the other labs of a 2-core machine, timers 3.7 s late and one node master
// of most VIPs for 20 s; in CI a priority-99 node taking the control-plane VIP from a live 100 while the 254 VIPs
// still elected; 128 adverts dropped with the cores busy. A disagreement of the plan and an unstarved keepalived
// fails at once; a second try comes after a pause, when the labs that ran beside it may have finished.
const retryStarved = { count: 2, delay: 20_000, condition: new RegExp(STARVED) };

describe.concurrent("VRRP lab: real keepalived agrees with the plan", () => {
  it.for(clusterExampleNames())(
    "example %s: at rest, every node down and back, every apiserver check, the worst pair",
    { timeout: LAB_TIMEOUT, retry: retryStarved },
    async (name, ctx) => {
      if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
      const spec = labSpec(name, LAB_PREEMPT_DELAY);
      const tree = await generateTree(spec.path, name);
      const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
      expect(plan.vrrp.preemptDelay).toBe(LAB_PREEMPT_DELAY);
      const report = await runLab(ctx, plan, tree, {});
      throwIfStarved(plan, report);
      expectAgreement(plan, report);
    },
  );
});

/** VRRP option corners, one random spec each: together they cover what issue 12 asks of the lab. */
const RANDOM_LABS: readonly (readonly [title: string, shape: VrrpLabShape])[] = [
  [
    "3-6 nodes on a VLAN interface, unicast, PASS, nopreempt",
    {
      nodes: [3, 6],
      controlPlanes: 3,
      pool: [0, 12],
      unicast: true,
      auth: "PASS",
      vlan: true,
      nopreempt: true,
    },
  ],
  [
    "3-8 nodes, multicast, PASS, a failing check goes to FAULT",
    { nodes: [3, 8], controlPlanes: 3, pool: [1, 40], auth: "PASS", fault: true },
  ],
  // Issue 30: VRRPv3 over IPv6 on random specs (examples/dual-stack covers multicast dual stack). Unicast per family
  // (each instance's peers the other nodes' addresses of its family), both halves of every pair on one node; and
  // multicast to ff02::12 where every VIP is IPv6. No auth: VRRPv3 has none.
  [
    "3-6 nodes, dual-stack (either family first, at least one pair), unicast",
    { nodes: [3, 6], controlPlanes: 3, pool: [1, 6], unicast: true, families: ["dual-ipv4", "dual-ipv6"] },
  ],
  ["3-6 nodes, IPv6-only, multicast", { nodes: [3, 6], controlPlanes: 3, pool: [1, 6], families: ["ipv6"] }],
];

/**
 * The lab at the size users reach, run alone after the others. 8 nodes: 16 × 254 instances with AH starved the
 * daemons on this 2-core machine beside the other labs (two masters at rest in 3 of today's clean runs, not on replay
 * of their seeds); 254 VIPs stay. Beside the four other random labs it failed in CI still electing at rest.
 */
const LARGEST_LAB = [
  "8 nodes, 254 external VIPs, multicast, AH",
  { nodes: [8, 8], pool: [254, 254], auth: "AH" },
] as const;

/** CLUSTERSPEC_LAB_SEED=<n> replays a run; otherwise every run draws new specs (the seed is in the annotations). */
const seed = Number(process.env.CLUSTERSPEC_LAB_SEED ?? Math.floor(Math.random() * 2 ** 31));

describe.concurrent("VRRP lab: random specs from the property arbitraries", () => {
  it.for(RANDOM_LABS)("%s", { timeout: LAB_TIMEOUT, retry: retryStarved }, ([title, shape], ctx) =>
    runRandomLab(title, shape, ctx),
  );
});

describe("VRRP lab: random specs, the largest alone", () => {
  const [title, shape] = LARGEST_LAB;
  it(title, { timeout: LAB_TIMEOUT, retry: retryStarved }, (ctx) => runRandomLab(title, shape, ctx));
});

/** Runs the failover scenarios on one spec drawn (by `seed`) from `shape`; throws STARVED when a daemon was. */
async function runRandomLab(title: string, shape: VrrpLabShape, ctx: TestContext): Promise<void> {
  if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
  const [input] = fc.sample(arbVrrpLabSpec(shape), { numRuns: 1, seed });
  if (!input) throw new Error("no sample");
  await ctx.annotate(`seed ${seed} (CLUSTERSPEC_LAB_SEED=${seed} replays it)`);
  const name = title.replace(/[^a-z0-9]+/gi, "-");
  const specPath = join(scratch, `${name}.yaml`);
  writeFileSync(specPath, stringify(input));
  const tree = await generateTree(specPath, name);
  const plan = mustResolve(input, `${name}.yaml`, { vrrpPassword: LAB_PASSWORD });
  // With nopreempt, which backup takes over after a death is a race its priority wins by only (Δp/256) x
  // advert_int (4 ms a step at 1 s); on a busy machine a backup just below can win and then keeps the VIP (seen
  // in CI, seed 308154431): runFailoverScenarios accepts the race's contenders and carries the winner on.
  const report = await runLab(ctx, plan, tree, { cycle: 2, checks: 2 });
  throwIfStarved(plan, report);
  expect(report.steps.length, formatLabReport(report)).toBeGreaterThan(1);
  expectAgreement(plan, report, `seed ${seed} (CLUSTERSPEC_LAB_SEED=${seed} replays it)\n`);
}

/** Throws STARVED (retried) when a step failed while a daemon was starved: then its failure says nothing of the plan. */
function throwIfStarved(plan: ClusterPlan, report: StarvableReport): void {
  const failed = report.steps.find((s) => !s.ok || s.takeovers.some((t) => !t.withinBound));
  if (failed && (report.lateTimerSeconds >= plan.vrrp.advertInterval || report.droppedAdverts > 0))
    throw new Error(
      `${STARVED}: a timer ran ${report.lateTimerSeconds.toFixed(2)}s late (advert_int ${plan.vrrp.advertInterval}s) and the kernel dropped ${report.droppedAdverts} adverts unread, so "${failed.name}" failing says nothing of the plan\n${formatLabReport(report)}`,
    );
}

/** Swaps the priorities two nodes give one instance: keepalived then elects someone the plan did not choose. */
function swapPriority(tree: string, instance: string, a: string, b: string): void {
  const file = (node: string) => join(tree, "nodes", node, "etc", "keepalived", "keepalived.conf");
  const block = new RegExp(`(vrrp_instance ${instance} \\{[^}]*?\\n\\s*priority )(\\d+)`);
  const read = (node: string) => readFileSync(file(node), "utf8");
  const priorityOf = (node: string) => block.exec(read(node))?.[2];
  const [pa, pb] = [priorityOf(a), priorityOf(b)];
  if (pa === undefined || pb === undefined) throw new Error(`no ${instance} priority on ${a} or ${b}`);
  writeFileSync(file(a), read(a).replace(block, `$1${pb}`));
  writeFileSync(file(b), read(b).replace(block, `$1${pa}`));
}

describe("VRRP lab: can fail", () => {
  it("reports a dual-stack pair whose halves are on two nodes, also among a nopreempt race's contenders", () => {
    const input = parse(readFileSync(join(examplesDir, "dual-stack", "cluster.yaml"), "utf8"));
    const plan = mustResolve(input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
    const holders = holderMap(simulateFailover(plan, AT_REST));
    const pair = plan.vips.find((v) => v.kind === "external" && v.pair6 !== undefined);
    const [first, second] = pair?.order ?? [];
    if (!pair?.pair6 || !first || !second) throw new Error("examples/dual-stack has no external pair over two nodes");
    const observe = (holderOf6: string): Observation =>
      new Map(
        plan.vips.flatMap((v) => {
          const at = holders.get(v.key);
          const held = (node: string | undefined) => (node === undefined ? [] : [node]);
          return [
            [canonicalIp(v.address), held(at)] as const,
            ...(v.pair6 ? [[canonicalIp(v.pair6.address), held(v === pair ? holderOf6 : at)] as const] : []),
          ];
        }),
      );
    expect(holderDifferences(plan, holders, observe(first))).toEqual([]);
    expect(holderDifferences(plan, holders, observe(second))).toEqual([
      `${pair.pair6.address} (${pair.key}): expected ${first}, observed ${second}`,
    ]);
    // Either contender may win a race, but one of them wins both halves.
    const race = new Map([[pair.key, [first, second]]]);
    expect(holderDifferences(plan, holders, observe(first), race)).toEqual([]);
    expect(holderDifferences(plan, holders, observe(second), race)).toEqual([
      `${pair.pair6.address} (${pair.key}): expected ${first} or ${second}, observed ${second}`,
    ]);
  });

  it("reports a mismatch when a node's priorities contradict the plan", { timeout: LAB_TIMEOUT }, async (ctx) => {
    if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
    const spec = labSpec("bare-metal-ha", LAB_PREEMPT_DELAY, "wrong-order");
    const tree = await generateTree(spec.path, "wrong-order");
    const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
    const vip = plan.vips.find((v) => v.kind === "external");
    const [master, , last] = vip?.order ?? [];
    if (!vip || !master || !last) throw new Error("the example has no external VIP over three nodes");
    const report = await runLab(ctx, plan, tree, { cycle: 0, checks: 0 }, (t) =>
      swapPriority(t, `VI_${vip.key.replace(/-/g, "_")}`, master, last),
    );
    const rest = report.steps[0];
    expect(rest?.name).toBe("at rest");
    expect(rest?.ok).toBe(false);
    expect(rest?.diff).toEqual([`${vip.address} (${vip.key}): expected ${master}, observed ${last}`]);
  });
});

/** The preempt_delay the lab below measures: long against the down timer, short against the lab's time. */
const MEASURED_DELAY = 5;

describe("VRRP lab: VIPs wait for their services (issue 18)", () => {
  it("a node restarting with a failing check never holds the control-plane VIP, nor with failing readiness an external VIP; a returning node waits preempt_delay", {
    timeout: LAB_TIMEOUT,
  }, async (ctx) => {
    if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
    const spec = labSpec("bare-metal-ha", MEASURED_DELAY, "waits-for-services");
    const tree = await generateTree(spec.path, "waits-for-services");
    const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
    expect(plan.vrrp.preemptDelay).toBe(MEASURED_DELAY);
    const cp = plan.controlPlane.vip;
    const [cpMaster, cpBackup] = cp.order;
    const external = plan.vips.filter((v) => v.kind === "external");
    // The external VIP a control-plane backup masters: its readiness check is the one that fails below.
    const ext = external.find((v) => v.order[0] !== cpMaster);
    const extMaster = ext?.order[0];
    const extOfCpMaster = external.find((v) => v.order[0] === cpMaster);
    if (!cpMaster || !cpBackup || !ext || !extMaster || !extOfCpMaster) throw new Error("unexpected example shape");
    const lab = await startVrrpLab({ plan, tree });
    const figures: string[] = [];
    try {
      // At rest, then the readiness check failing and recovering on a carrier, then the control-plane master dies.
      const report = await runFailoverScenarios(lab, plan, [
        { name: `${extMaster} not ready`, actions: [{ kind: "unready", node: extMaster }] },
        { name: `${extMaster} ready again`, actions: [{ kind: "ready", node: extMaster }] },
        { name: `${cpMaster} down`, actions: [{ kind: "kill", node: cpMaster }] },
      ]);
      await ctx.annotate(formatLabReport(report));
      expect(
        report.steps.every((s) => s.ok && s.takeovers.every((t) => t.withinBound)),
        formatLabReport(report),
      ).toBe(true);
      // The readiness check moved the carrier's VIP away, and back only after preempt_delay.
      const away = report.steps[1]?.takeovers.find((t) => t.address === ext.address);
      const back = report.steps[2]?.takeovers.find((t) => t.address === ext.address);
      expect(away?.to).toBe(ext.order[1]);
      expect(back?.to).toBe(extMaster);
      expect(back?.seconds ?? 0).toBeGreaterThanOrEqual(MEASURED_DELAY);
      figures.push(
        `readiness failing: ${ext.address} left ${extMaster} after ${away?.seconds?.toFixed(2)}s (predicted ${away?.bound.min.toFixed(2)}–${away?.bound.max.toFixed(2)}s)`,
        `readiness back: ${ext.address} returned after ${back?.seconds?.toFixed(2)}s (predicted ${back?.bound.min.toFixed(2)}–${back?.bound.max.toFixed(2)}s, preempt_delay ${MEASURED_DELAY}s)`,
      );
      let state = report.steps[report.steps.length - 1]?.state ?? { down: [cpMaster], unhealthy: [] };
      let holders = report.steps[report.steps.length - 1]?.holders ?? new Map();

      /** Applies `change`, then waits for the model's holders and keeps them for `holdMs`. */
      const settle = async (next: typeof state, holdMs: number) => {
        const expected = holderMap(simulateFailover(plan, next, holders));
        const r = await lab.waitFor(expected, { deadlineMs: 60_000, holdMs });
        expect(r.ok, `${r.diff.join("; ")}\n${lab.logs()}`).toBe(true);
        state = next;
        holders = expected;
        return expected;
      };
      const cpRejoin = takeoverBounds(plan, cp.priorities[0] ?? 1, "control-plane").rejoin;
      const extRejoin = takeoverBounds(plan, extOfCpMaster.priorities[0] ?? 1, "external").rejoin;

      // 1. The control-plane master comes back with its apiserver check failing: it takes its external VIP back
      //    (after its readiness check rises and preempt_delay), but the control-plane VIP never.
      lab.setHealthy(cpMaster, false);
      const revivedAt = await lab.revive(cpMaster);
      await settle({ ...state, down: [], unhealthy: [cpMaster] }, 1000);
      const extBackAt = lab.appearedAt(cpMaster, extOfCpMaster.address);
      // Watch at least as long as a healthy node would have needed to take the control-plane VIP back.
      const watched = Date.now() - revivedAt;
      if (watched < cpRejoin.max * 1000 + 2000) await sleep(cpRejoin.max * 1000 + 2000 - watched);
      expect(lab.appearances(cpMaster, cp.address).filter((t) => t >= revivedAt)).toEqual([]);
      expect(holderMap(simulateFailover(plan, state, holders)).get(cp.key)).toBe(cpBackup);
      expect(lab.observe().get(canonicalIp(cp.address))).toEqual([cpBackup]);
      const extSeconds = extBackAt === undefined ? undefined : (extBackAt - revivedAt) / 1000;
      expect(extSeconds, "the restarted node's external VIP").toBeDefined();
      expect(extSeconds ?? 0).toBeGreaterThanOrEqual(MEASURED_DELAY);
      expect(extSeconds ?? 0).toBeLessThanOrEqual(extRejoin.max + 1.75);
      figures.push(
        `${cpMaster} back with a failing apiserver check: never held ${cp.address} in ${((Date.now() - revivedAt) / 1000).toFixed(1)}s (a healthy node takes it within ${cpRejoin.max.toFixed(2)}s); took ${extOfCpMaster.address} back after ${extSeconds?.toFixed(2)}s (predicted ${extRejoin.min.toFixed(2)}–${extRejoin.max.toFixed(2)}s)`,
      );

      // 2. Its apiserver check passes: it takes the control-plane VIP back after its rise and one down timer, with
      //    no preempt_delay (the control-plane instance has none: see preemptDelayFor).
      const recoveredAt = lab.setHealthy(cpMaster, true);
      await settle({ ...state, unhealthy: [] }, 1000);
      const cpBackAt = lab.appearedAt(cpMaster, cp.address);
      const cpSeconds = cpBackAt === undefined ? undefined : (cpBackAt - recoveredAt) / 1000;
      const recovery = takeoverBounds(plan, cp.priorities[0] ?? 1, "control-plane").checkRecovery;
      expect(cpSeconds, "the control-plane VIP back").toBeDefined();
      expect(cpSeconds ?? 0).toBeLessThan(MEASURED_DELAY + recovery.min);
      expect(cpSeconds ?? 0).toBeGreaterThanOrEqual(recovery.min - 0.75);
      expect(cpSeconds ?? 0).toBeLessThanOrEqual(recovery.max + 0.75);
      figures.push(
        `${cpMaster} apiserver check passing: took ${cp.address} back after ${cpSeconds?.toFixed(2)}s (predicted ${recovery.min.toFixed(2)}–${recovery.max.toFixed(2)}s, no preempt_delay on the control-plane VIP)`,
      );

      // 3. A carrier restarts while its Cilium readiness check fails: it takes no external VIP back.
      await lab.kill(extMaster);
      await settle({ ...state, down: [extMaster] }, 1000);
      lab.setReady(extMaster, false);
      const extRevivedAt = await lab.revive(extMaster);
      await settle({ ...state, down: [], notReady: [extMaster] }, 1000);
      const extWatched = Date.now() - extRevivedAt;
      if (extWatched < extRejoin.max * 1000 + 2000) await sleep(extRejoin.max * 1000 + 2000 - extWatched);
      for (const v of external)
        expect(
          lab.appearances(extMaster, v.address).filter((t) => t >= extRevivedAt),
          v.address,
        ).toEqual([]);
      expect(lab.observe().get(canonicalIp(ext.address))).toEqual([ext.order[1]]);
      figures.push(
        `${extMaster} back with a failing readiness check: held no external VIP in ${((Date.now() - extRevivedAt) / 1000).toFixed(1)}s`,
      );
      await ctx.annotate(figures.join("\n"));
      const reportFile = process.env.CLUSTERSPEC_LAB_REPORT;
      if (reportFile) appendFileSync(reportFile, `## ${ctx.task.name}\n${figures.join("\n")}\n\n`);
      // keepalived ran every check script itself, as the unprivileged script_user, and disabled none.
      expect(lab.logs(10_000)).not.toMatch(/SECURITY VIOLATION|disabling|cannot be accessed|Unable to access/i);
    } finally {
      await lab.stop();
    }
  });
});

/** VIP key → every node holding it, sorted: a partition can give one VIP two holders. */
const holdersOf = (plan: ClusterPlan, observed: ReadonlyMap<string, readonly string[]>): Map<string, string[]> =>
  new Map(plan.vips.map((v) => [v.key, [...(observed.get(canonicalIp(v.address)) ?? [])].sort()]));

function holderDiff(plan: ClusterPlan, expected: ReadonlyMap<string, readonly string[]>) {
  return (observed: ReadonlyMap<string, readonly string[]>): string[] => {
    const got = holdersOf(plan, observed);
    return plan.vips.flatMap((v) => {
      const want = [...(expected.get(v.key) ?? [])].sort();
      const seen = got.get(v.key) ?? [];
      return want.join(",") === seen.join(",")
        ? []
        : [`${v.address}: expected ${want.join(" + ") || "nobody"}, observed ${seen.join(" + ") || "nobody"}`];
    });
  };
}

describe("VRRP lab: a partition with the links up (issue 33)", () => {
  it("an isolated control plane leaves the control-plane VIP with weight 0 (FAULT) and keeps every external VIP with a lower priority; the heal restores the plan", {
    timeout: LAB_TIMEOUT,
    retry: retryStarved,
  }, async (ctx) => {
    if (!labAvailable() || !toolAvailable("nft", { root: true }))
      return ctx.skip("needs keepalived, iproute2, nft and root (installed by .ci/run)");
    // The apiserver check FAULTs (weight 0), the readiness check lowers the priority (the default -253).
    const spec = labSpecWith("bare-metal-ha", "partition", {
      preemptDelay: LAB_PREEMPT_DELAY,
      healthCheck: { weight: 0 },
    });
    const tree = await generateTree(spec.path, "partition");
    const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
    expect(plan.vrrp.healthCheck.weight).toBe(0);
    expect(plan.vrrp.readinessCheck?.weight).toBe(-253);
    const cp = plan.controlPlane.vip;
    const [isolated, majorityBest] = cp.order;
    if (!isolated || !majorityBest) throw new Error("unexpected example shape");
    const lab = await startVrrpLab({ plan, tree });
    const figures: string[] = [];
    try {
      const rest = holderMap(simulateFailover(plan, AT_REST));
      const atRest = await lab.waitFor(rest, { deadlineMs: 30_000, holdMs: 1000 });
      expect(atRest.ok, atRest.diff.join("; ")).toBe(true);

      // The control-plane master is cut off from VRRP (links up); its etcd loses quorum, so its /readyz fails, and
      // its Cilium stops being ready too. What PLAN.md's partition section says: the FAULT check takes it off the
      // control-plane VIP, the lower-priority check takes it off nothing, so both sides hold its external VIPs.
      await lab.partition([isolated]);
      const cutAt = Date.now();
      lab.setHealthy(isolated, false);
      lab.setReady(isolated, false);
      const majority = holderMap(simulateFailover(plan, { down: [isolated], unhealthy: [] }));
      const split = new Map(
        plan.vips.map((v) => {
          const other = majority.get(v.key);
          const sides = [...(other === undefined ? [] : [other])];
          // the isolated node holds every VIP it has an instance for that is not in FAULT
          if (v.order.includes(isolated) && !(v.kind === "control-plane" && plan.vrrp.healthCheck.weight === 0))
            sides.push(isolated);
          return [v.key, sides] as const;
        }),
      );
      const partitioned = await lab.waitUntil(holderDiff(plan, split), { deadlineMs: 30_000, holdMs: 3000 });
      expect(partitioned.ok, `${partitioned.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      expect(holdersOf(plan, partitioned.observed).get(cp.key)).toEqual([majorityBest]);
      const doubled = plan.vips.filter((v) => v.kind === "external" && (split.get(v.key)?.length ?? 0) > 1);
      expect(doubled.length).toBeGreaterThan(0);
      figures.push(
        `partition: ${cp.address} on ${majorityBest} only (${isolated} in FAULT), ${doubled.length} external VIP(s) on both sides, settled ${(((partitioned.reachedAt ?? cutAt) - cutAt) / 1000).toFixed(2)}s after the cut`,
      );

      // Healthy again but still cut off, the isolated node leaves FAULT and, hearing no adverts, claims the
      // control-plane VIP on its side too. Waiting for that (not for a fixed time) makes the heal a clash of two
      // masters for every doubled VIP: healing while it was still a backup made it a preemption instead
      // (preempt_delay and a down timer after the first advert it hears).
      const recoveredAt = lab.setHealthy(isolated, true);
      lab.setReady(isolated, true);
      const bothSides = new Map(split);
      bothSides.set(cp.key, [majorityBest, isolated]);
      const recovered = await lab.waitUntil(holderDiff(plan, bothSides), { deadlineMs: 30_000, holdMs: 2000 });
      expect(recovered.ok, `${recovered.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      figures.push(
        `recovery: ${cp.address} on both sides ${(((recovered.reachedAt ?? recoveredAt) - recoveredAt) / 1000).toFixed(2)}s after ${isolated}'s checks passed again`,
      );

      // The split heals: every VIP back where the plan puts it.
      const healAt = Date.now();
      await lab.heal();
      const healed = await lab.waitFor(rest, { deadlineMs: 30_000, holdMs: 3000 });
      expect(healed.ok, `${healed.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      const settle = ((healed.reachedAt ?? healAt) - healAt) / 1000;
      // the clash of two masters: the lower one yields at the higher one's next advert (takeoverBounds' heal); with
      // AH, vrrp_lower_prio_no_advert keeps that master advertising through the replays it drops (without it: 3.0-5.6 s)
      expect(plan.vrrp.auth?.type).toBe("AH");
      const bound = takeoverBounds(plan, cp.priorities[0] ?? 1).heal.max;
      if (settle > bound && lab.lateTimerSeconds() >= plan.vrrp.advertInterval)
        throw new Error(`${STARVED}: a timer ran ${lab.lateTimerSeconds().toFixed(2)}s late; the heal took ${settle}s`);
      expect(settle).toBeLessThanOrEqual(bound);
      figures.push(
        `heal: the plan's holders ${settle.toFixed(2)}s after the filter went (allowed ${bound.toFixed(2)}s)`,
      );
      await ctx.annotate(figures.join("\n"));
      const reportFile = process.env.CLUSTERSPEC_LAB_REPORT;
      if (reportFile) appendFileSync(reportFile, `## ${ctx.task.name}\n${figures.join("\n")}\n\n`);
    } finally {
      await lab.stop();
    }
  });
});

describe("VRRP lab: every node starting at once (issue 33)", () => {
  it("with nothing ready the first node up keeps every VIP; once the checks pass each planned master takes its external VIPs after preempt_delay, the control-plane VIP without it", {
    timeout: LAB_TIMEOUT,
  }, async (ctx) => {
    if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
    const spec = labSpec("bare-metal-ha", MEASURED_DELAY, "cold-start");
    const tree = await generateTree(spec.path, "cold-start");
    const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
    const lab = await startVrrpLab({ plan, tree });
    const figures: string[] = [];
    try {
      const rest = holderMap(simulateFailover(plan, AT_REST));
      const first = await lab.waitFor(rest, { deadlineMs: 30_000, holdMs: 1000 });
      expect(first.ok, first.diff.join("; ")).toBe(true);
      // A power loss: every node down; they come back before any apiserver or Cilium answers, the first one a little
      // ahead of the rest (boot times differ): alone, it claims every VIP; the others, at the same priority 1 (every
      // first check fails), leave it there (a backup takes a VIP only from a lower priority).
      await Promise.all(lab.nodes.map((n) => lab.kill(n)));
      const cps = plan.nodes.filter((n) => n.controlPlane).map((n) => n.name);
      const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
      for (const n of cps) lab.setHealthy(n, false);
      for (const n of carriers) lab.setReady(n, false);
      const firstUp = lab.nodes[lab.nodes.length - 1] ?? "";
      const startedAt = await lab.revive(firstUp);
      const claimed = new Map(plan.vips.map((v) => [v.key, firstUp]));
      const alone = await lab.waitFor(claimed, { deadlineMs: 30_000, holdMs: 500 });
      expect(alone.ok, `${alone.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      await Promise.all(lab.nodes.filter((n) => n !== firstUp).map((n) => lab.revive(n)));
      const landed = await lab.waitFor(claimed, { deadlineMs: 30_000, holdMs: 5000 });
      expect(landed.ok, `${landed.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      const highest = claimed;
      figures.push(
        `cold start, nothing ready: every VIP on ${firstUp}, the first node up, ${(((alone.reachedAt ?? startedAt) - startedAt) / 1000).toFixed(2)}s after its start, and still there 5s after the others started`,
      );

      // Every apiserver and Cilium answers at once: the second move.
      const readyAt = Date.now();
      for (const n of cps) lab.setHealthy(n, true);
      for (const n of carriers) lab.setReady(n, true);
      const settled = await lab.waitFor(rest, { deadlineMs: 60_000, holdMs: 2000 });
      expect(settled.ok, `${settled.diff.join("; ")}\n${lab.logs()}`).toBe(true);
      let moved = 0;
      for (const v of plan.vips) {
        const master = v.order[0];
        if (!master || highest.get(v.key) === master) continue;
        moved++;
        const at = lab.appearedAt(master, v.address);
        expect(at, v.address).toBeDefined();
        const seconds = ((at ?? 0) - readyAt) / 1000;
        const bound = takeoverBounds(plan, v.priorities[0] ?? 1, v.kind).checkRecovery;
        // the second move of an external VIP waits preempt_delay (keepalived has no shorter one at startup)
        if (v.kind === "external") expect(seconds, v.address).toBeGreaterThanOrEqual(MEASURED_DELAY);
        expect(seconds, v.address).toBeLessThanOrEqual(bound.max + 1.75);
        figures.push(
          `${v.address} → ${master} ${seconds.toFixed(2)}s after the checks passed (predicted ${bound.min.toFixed(2)}–${bound.max.toFixed(2)}s${v.kind === "external" ? `, preempt_delay ${MEASURED_DELAY}s` : ", no preempt_delay"})`,
        );
      }
      expect(moved, "some VIP must land away from its planned master first").toBeGreaterThan(0);
      await ctx.annotate(figures.join("\n"));
      const reportFile = process.env.CLUSTERSPEC_LAB_REPORT;
      if (reportFile) appendFileSync(reportFile, `## ${ctx.task.name}\n${figures.join("\n")}\n\n`);
    } finally {
      await lab.stop();
    }
  });
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
