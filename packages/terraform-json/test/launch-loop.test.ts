// Issue 29 item 1: a failure that repeats on every burst instance must end in Cluster Autoscaler's back-off with the
// group back at its minimum, within a bounded number of launches. A discrete simulation (one step per Cluster
// Autoscaler scan) of the Auto Scaling Group, the instances and Cluster Autoscaler, driven by what the generated trees
// of the cloud examples say: the launch template's instance_initiated_shutdown_behavior, Cluster Autoscaler's
// max-node-provision-time and back-off flags from its values, and whether the join script in the user data powers a
// failed instance off. Cluster Autoscaler's rules modelled (cluster-autoscaler/clusterstate/clusterstate.go):
// an instance unregistered for max-node-provision-time is deleted with the group's target decremented (AWS
// TerminateInstanceInAutoScalingGroup with ShouldDecrementDesiredCapacity), never below the group's minimum; a
// scale-up whose nodes have not all registered by then fails and backs the group off (doubling up to the maximum);
// a group with upcoming (unregistered) nodes is not scaled up again. The group replaces an instance that ends by itself.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { parseYamlDocuments } from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failedScaleUpAttempts } from "../src/autoscaler.js";

interface Design {
  /** What the join script does on a failed join. */
  readonly failedInstance: "powers-off" | "stays-up";
  /** instance_initiated_shutdown_behavior = terminate (else stop: the group's health check replaces it too). */
  readonly shutdownTerminates: boolean;
  readonly maxNodeProvision: number;
  readonly initialBackoff: number;
  readonly maxBackoff: number;
}

interface Scenario {
  /** Nodes the pending pods need. */
  readonly nodes: number;
  /** When the pending pods go away (seconds). */
  readonly pendingUntil: number;
  /** Seconds after launch at which every boot fails (a 403 fails in a minute, an unreachable mirror at the deadline). */
  readonly failAfter: number;
  readonly minSize: number;
  readonly horizon: number;
}

const SCAN = 10;

function simulate(d: Design, s: Scenario) {
  let desired = s.minSize;
  let instances: { launchedAt: number; failed: boolean }[] = [];
  let launches = 0;
  let lastLaunchAt = -1;
  let request: { at: number } | undefined;
  let backoffUntil = 0;
  let backoff = 0;
  let scaleUps = 0;
  for (let now = 0; now <= s.horizon; now += SCAN) {
    // the instances: a boot fails; one that powers off ends (terminate) or is unhealthy (stop) and leaves the group
    for (const i of instances) if (!i.failed && now - i.launchedAt >= s.failAfter) i.failed = true;
    if (d.failedInstance === "powers-off") instances = instances.filter((i) => !i.failed);
    // the Auto Scaling Group keeps its desired capacity
    while (instances.length < desired) {
      instances.push({ launchedAt: now, failed: false });
      launches++;
      lastLaunchAt = now;
    }
    // Cluster Autoscaler: no instance ever registers a Node
    const old = instances.filter((i) => now - i.launchedAt >= d.maxNodeProvision);
    for (const i of old)
      if (desired - 1 >= s.minSize) {
        instances = instances.filter((x) => x !== i);
        desired--;
      }
    if (request && now - request.at >= d.maxNodeProvision && desired > 0) {
      backoff = backoff === 0 ? d.initialBackoff : Math.min(backoff * 2, d.maxBackoff);
      backoffUntil = now + backoff;
      request = undefined;
    } else if (request && desired === 0) request = undefined;
    const upcoming = desired > 0; // nothing registers: every instance of the target is upcoming
    if (now < s.pendingUntil && now >= backoffUntil && !request && !upcoming) {
      desired = Math.max(desired, s.nodes);
      request = { at: now };
      scaleUps++;
    }
  }
  return { launches, lastLaunchAt, desired, scaleUps };
}

const root = fileURLToPath(new URL("../../../", import.meta.url));
const read = (path: string) => readFileSync(`${root}${path}`, "utf8");

/** The design as one example's generated tree has it. */
function designOf(example: string, pool: string): Design {
  const tf = JSON.parse(read(`examples/${example}/generated/cloud/terraform/pool-${pool}.tf.json`)) as {
    resource: { aws_launch_template: Record<string, { instance_initiated_shutdown_behavior: string }> };
  };
  const lt = Object.values(tf.resource.aws_launch_template)[0];
  const [values] = parseYamlDocuments(read(`examples/${example}/generated/cloud/cluster-autoscaler-values.yaml`)) as {
    extraArgs: Record<string, string>;
  }[];
  const [userData] = parseYamlDocuments(read(`examples/${example}/generated/cloud/${pool}/user-data.yaml`)) as {
    write_files: { path: string; content: string }[];
  }[];
  const script = userData?.write_files.find((f) => f.path === "/usr/local/sbin/clusterspec-join")?.content ?? "";
  const minutes = (flag: string): number => {
    const v = values?.extraArgs[flag];
    if (v === undefined || !/^\d+m$/.test(v)) throw new Error(`${flag} is not set in minutes: ${v}`);
    return Number(v.slice(0, -1)) * 60;
  };
  expect(script).toContain("kubeadm join");
  return {
    failedInstance: /\bpoweroff\b/.test(script) ? "powers-off" : "stays-up",
    shutdownTerminates: lt?.instance_initiated_shutdown_behavior === "terminate",
    maxNodeProvision: minutes("max-node-provision-time"),
    initialBackoff: minutes("initial-node-group-backoff-duration"),
    maxBackoff: minutes("max-node-group-backoff-duration"),
  };
}

const HOUR = 3600;

describe("launch loop: a failure on every instance ends (simulation of consecutive failures)", () => {
  for (const [example, pool] of [
    ["cloud-burst-only", "ci-arm64"],
    ["hybrid-cloud-burst", "ci-arm64"],
  ] as const) {
    it(`${example}: bounded launches while pods are pending, none after they are gone, the group back at 0`, () => {
      const d = designOf(example, pool);
      expect(d.failedInstance).toBe("stays-up");
      for (const failAfter of [60, 720]) {
        const r = simulate(d, { nodes: 3, pendingUntil: 6 * HOUR, failAfter, minSize: 0, horizon: 8 * HOUR });
        const attempts = failedScaleUpAttempts(6 * HOUR);
        // one launch per node per attempt; scan delays make attempts a little later, never more
        expect(r.launches).toBeLessThanOrEqual(3 * attempts.length);
        expect(r.launches).toBeGreaterThanOrEqual(3 * (attempts.length - 1));
        expect(r.launches).toBe(3 * r.scaleUps);
        expect(r.lastLaunchAt).toBeLessThan(6 * HOUR);
        expect(r.desired).toBe(0);
      }
      // what PLAN.md states: attempts at 0, 20, 45, 80, 125 minutes; 3 in the first hour
      expect(failedScaleUpAttempts(4 * HOUR).map((s) => s / 60)).toEqual([0, 20, 45, 80, 125, 170, 215]);
      const hour = simulate(d, { nodes: 1, pendingUntil: HOUR, failAfter: 60, minSize: 0, horizon: 3 * HOUR });
      expect(hour.launches).toBe(3);
    });
  }

  it("the old design (power off a failed instance, terminate on shutdown) loops without end, even after the pods are gone", () => {
    const d: Design = { ...designOf("cloud-burst-only", "ci-arm64"), failedInstance: "powers-off" };
    const r = simulate(d, { nodes: 3, pendingUntil: HOUR, failAfter: 60, minSize: 0, horizon: 8 * HOUR });
    expect(r.launches).toBeGreaterThan(1000);
    expect(r.lastLaunchAt).toBeGreaterThan(7 * HOUR);
    expect(r.desired).toBe(3);
  });

  it("for any number of nodes, failure time and pending time: at most one launch per node per attempt, none after the pods", () => {
    const d = designOf("cloud-burst-only", "ci-arm64");
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 10, max: 890 }),
        fc.integer({ min: 1, max: 12 * HOUR }),
        (nodes, failAfter, pendingUntil) => {
          const r = simulate(d, { nodes, pendingUntil, failAfter, minSize: 0, horizon: pendingUntil + 2 * HOUR });
          expect(r.launches).toBeLessThanOrEqual(nodes * failedScaleUpAttempts(pendingUntil).length);
          // the group launches one scan after Cluster Autoscaler's last scale-up, which came while pods were pending
          expect(r.lastLaunchAt).toBeLessThanOrEqual(pendingUntil + SCAN);
          expect(r.desired).toBe(0);
        },
      ),
      { numRuns: 60 },
    );
  });

  it("a pool with minSize above 0 keeps its failed minimum: launched once, never replaced", () => {
    const d = designOf("cloud-burst-only", "ci-arm64");
    const r = simulate(d, { nodes: 2, pendingUntil: 0, failAfter: 60, minSize: 2, horizon: 6 * HOUR });
    expect(r.launches).toBe(2);
    expect(r.desired).toBe(2);
  });
});
