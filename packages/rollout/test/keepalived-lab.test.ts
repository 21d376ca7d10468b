// Issue 27 item 4: every node of the 4-node VLAN cluster runs real keepalived on the OLD tree (the VRRP lab:
// network namespaces, veths on bridges); then the change plan's keepalived steps are applied exactly as printed
// (files installed, `rc-service keepalived reload|stop|start` mapped to SIGHUP, SIGTERM, a start), watching every
// address change. Each case reports the planner's predicted moves beside keepalived's observed ones.
import { appendFileSync, chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { TEST_SECRETS } from "@clusterspec/core/testing";
import {
  formatRolloutReport,
  type RolloutReport,
  runRolloutSteps,
  startVrrpLab,
  toolAvailable,
} from "@clusterspec/testkit";
import { afterAll, describe, expect, it, type TestContext } from "vitest";
import type { TreeSide } from "../src/node-steps.js";
import { planKeepalivedRollout } from "../src/vrrp.js";
import { type ChangeCase, changeCases, passwordCases, treeSideWith, unicastCases } from "./cases.js";

/** Issue 27's cases, then the planner's later ones: a carrier appended with unicast, the VRRP password alone. */
type LabCase = ChangeCase & Partial<Pick<ReturnType<typeof passwordCases>[number], "oldSecrets" | "newSecrets">>;
const labCases = (): LabCase[] => [
  ...changeCases(),
  ...unicastCases().filter((c) => c.name === "append a carrier (unicast)"),
  ...passwordCases().filter((c) => c.newSecrets !== undefined),
];

const labAvailable = (): boolean =>
  toolAvailable("keepalived", { root: true }) &&
  toolAvailable("unshare", { root: true }) &&
  toolAvailable("ip") &&
  toolAvailable("bridge");

const scratch = mkdtempSync(join(tmpdir(), "cs-rollout-lab-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The tree as `clusterspec generate --with-secrets -o <dir>` writes it (same artifacts, same modes). */
function writeTree(side: TreeSide, dir: string): string {
  for (const a of side.artifacts) {
    const path = join(dir, a.path);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, a.content);
    chmodSync(path, a.mode ?? (a.secret ? 0o600 : 0o644));
  }
  return dir;
}

/** A double hold shorter than this is the handover itself (new master's advert in flight), not two masters. */
const HANDOVER_MS = 250;
/** Slack on a predicted unavailability, for scheduling on a busy 2-core machine. */
const TOLERANCE_S = 0.75;
/**
 * keepalived's own stop and start around a restart's down timer (reading its config), not a tunable: at least this,
 * or the start-up the lab measured for that step when a loaded host made it longer.
 */
const START_ALLOWANCE_S = 1;

/** At most this many labs at once (4-5 daemons each): the machine has 2 cores shared with other test files. */
const LABS_AT_ONCE = 3;
let running = 0;
const waiting: (() => void)[] = [];
async function withLabSlot<T>(run: () => Promise<T>): Promise<T> {
  if (running >= LABS_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  running++;
  try {
    return await run();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

async function runCase(ctx: TestContext, name: string): Promise<RolloutReport> {
  const c = labCases().find((x) => x.name === name);
  if (!c) throw new Error(`no case ${name}`);
  const old = treeSideWith(c.old, c.oldSecrets ?? TEST_SECRETS);
  const next = treeSideWith(c.next, c.newSecrets ?? TEST_SECRETS);
  const slug = name.replace(/[^a-z0-9]+/gi, "-");
  const oldDir = writeTree(old, join(scratch, `${slug}-old`));
  const newDir = writeTree(next, join(scratch, `${slug}-new`));
  const rollout = planKeepalivedRollout(old, next);
  const lab = await startVrrpLab({ plan: old.plan, tree: oldDir, others: [{ plan: next.plan, tree: newDir }] });
  try {
    const report = await runRolloutSteps(lab, old.plan, newDir, rollout.holdersBefore, rollout.steps);
    const text = formatRolloutReport(report);
    await ctx.annotate(text);
    const reportFile = process.env.CLUSTERSPEC_LAB_REPORT;
    if (reportFile) appendFileSync(reportFile, `## ${ctx.task.name}\n${text}\n\n`);
    if (!report.rest.ok || report.steps.some((s) => !s.ok)) await ctx.annotate(lab.logs(30), "lab-logs");
    expect(report.rest.ok, text).toBe(true);
    expect(report.steps.length, text).toBe(rollout.steps.length);
    for (const s of report.steps) expect(s.ok, `${s.title}\n${text}`).toBe(true);
    expect(
      report.doubleHolds.filter((d) => d.ms > HANDOVER_MS),
      text,
    ).toEqual([]);
    for (const g of report.gaps) {
      expect(g.allowed, `unpredicted gap of ${g.vip}\n${text}`).toBe(true);
      // A VIP that moves between two holders is out for at most the predicted unavailability (a handover: ~0).
      const predicted = rollout.steps[g.step - 1]?.vipMoves.find((m) => m.vip === g.vip);
      if (predicted && predicted.to !== null && predicted.from !== null)
        expect(g.ms / 1000, `gap of ${g.vip} in step ${g.step}\n${text}`).toBeLessThanOrEqual(
          predicted.unavailableSeconds +
            TOLERANCE_S +
            (predicted.from === predicted.to
              ? Math.max(START_ALLOWANCE_S, report.steps[g.step - 1]?.startupSeconds ?? 0)
              : 0),
        );
    }
    return report;
  } finally {
    await lab.stop();
  }
}

/** A case takes 30-80 s; with LABS_AT_ONCE, a case may wait for two rounds of others first. */
const LAB_TIMEOUT = 420_000;

describe.runIf(labAvailable())("change plans on real keepalived (VRRP lab)", { concurrent: true }, () => {
  for (const c of labCases())
    it(c.name, (ctx) => withLabSlot(() => runCase(ctx, c.name)).then(() => undefined), LAB_TIMEOUT);
});
