// The VRRP lab (issue 12): the real keepalived of every node, talking VRRP over Linux bridges in network namespaces,
// must put every VIP where core's model (simulateFailover) says, at rest and through each failure, within the
// takeover times the tunables predict. Trees are written by the CLI with --with-secrets, so the real
// authentication (AH or PASS) runs with a test password.
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
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
  type LabReport,
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

/** Per lab; the whole file stays under three minutes because the labs run concurrently. */
const LAB_TIMEOUT = 170_000;

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

async function runLab(
  ctx: TestContext,
  plan: ClusterPlan,
  tree: string,
  steps: StepOptions,
  tweak?: (tree: string) => void,
): Promise<LabReport> {
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
    return report;
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

describe.concurrent("VRRP lab: real keepalived agrees with the plan", () => {
  it.for(clusterExampleNames())(
    "example %s: at rest, every node down and back, every apiserver check, the worst pair",
    { timeout: LAB_TIMEOUT },
    async (name, ctx) => {
      if (!labAvailable()) return ctx.skip("needs keepalived, iproute2 and root (installed by .ci/run)");
      const spec = labSpec(name, LAB_PREEMPT_DELAY);
      const tree = await generateTree(spec.path, name);
      const plan = mustResolve(spec.input, "cluster.yaml", { vrrpPassword: LAB_PASSWORD });
      expect(plan.vrrp.preemptDelay).toBe(LAB_PREEMPT_DELAY);
      expectAgreement(plan, await runLab(ctx, plan, tree, {}));
    },
  );
});

/** VRRP option corners, one random spec each: together they cover what issue 12 asks of the lab. */
const RANDOM_LABS: readonly (readonly [title: string, shape: VrrpLabShape])[] = [
  // 8 nodes: 16 × 254 instances with AH starved the daemons on this 2-core machine beside the other labs (two
  // masters at rest in 3 of today's clean runs, not on replay of their seeds); 254 VIPs stay.
  ["8 nodes, 254 external VIPs, multicast, AH", { nodes: [8, 8], pool: [254, 254], auth: "AH" }],
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
];

/** CLUSTERSPEC_LAB_SEED=<n> replays a run; otherwise every run draws new specs (the seed is in the annotations). */
const seed = Number(process.env.CLUSTERSPEC_LAB_SEED ?? Math.floor(Math.random() * 2 ** 31));

// One retry, of the same spec (the seed is drawn once per file): a disagreement of the plan and keepalived fails both
// times, while a lab whose daemons starve on this 2-core machine (seen with 16 nodes × 254 VIPs with AH) gets a second
// chance.
describe.concurrent("VRRP lab: random specs from the property arbitraries", () => {
  it.for(RANDOM_LABS)("%s", { timeout: LAB_TIMEOUT, retry: 1 }, async ([title, shape], ctx) => {
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
    // advert_int (4 ms a step at 1 s); on a busy machine a lower backup can win and then keeps the VIP (seen
    // here), so a nopreempt lab proves the checks and the rest state, not deaths.
    const report = await runLab(ctx, plan, tree, { cycle: plan.vrrp.nopreempt ? 0 : 2, checks: 2 });
    expect(report.steps.length, formatLabReport(report)).toBeGreaterThan(1);
    expectAgreement(plan, report, `seed ${seed} (CLUSTERSPEC_LAB_SEED=${seed} replays it)\n`);
  });
});

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

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
