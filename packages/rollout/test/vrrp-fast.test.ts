// The incremental planner (holders.ts) against the straightforward one it replaced (vrrp-reference.ts: every step
// and every candidate re-simulated with core's simulateFailover): the same steps, moves, holders and drains on
// random clusters and random changes, with and without nopreempt, and past the greedy's candidate limit.

import { arbVrrpLabSpec, CLUSTER_FAMILIES } from "@clusterspec/core/testing";
import type { ClusterSpecInput } from "@clusterspec/core/types";
import { validateSpec } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planKeepalivedRollout } from "../src/vrrp.js";
import { treeSide } from "./cases.js";
import { applyChange, arbChange, type Spec } from "./change-arb.js";
import { planKeepalivedRollout as referenceRollout } from "./vrrp-reference.js";

type Rollout = ReturnType<typeof planKeepalivedRollout>;

/** Everything the planner returns, maps as entry lists (so their order is compared too). */
const comparable = (r: Rollout) => ({
  ...r,
  holdersBefore: [...r.holdersBefore],
  steps: r.steps.map((s) => ({ ...s, holdersAfter: [...s.holdersAfter] })),
});

/** Asserts agreement over `numRuns` cases; returns the most keepalived steps one case planned. */
const agree = (
  shape: Parameters<typeof arbVrrpLabSpec>[0],
  numRuns: number,
  allCarry = false,
  changes: fc.Arbitrary<{ kind: string; i: number }> = arbChange,
): number => {
  let most = 0;
  fc.assert(
    fc.property(arbVrrpLabSpec(shape), changes, (drawn, change) => {
      // The generator draws at most 16 carriers: a big rollout needs every node to carry the pool.
      // ... and every carrier in every VIP's order (no `replicas`), so that every node has instances.
      // (keys left out, not set to undefined: a spec holds no undefined values)
      const { replicas: _replicas, ...pool } = drawn.externalVips ?? {};
      const oldInput = allCarry
        ? {
            ...drawn,
            ...(drawn.externalVips ? { externalVips: pool } : {}),
            nodes: drawn.nodes.map((n) => ({ ...n, carriesExternalVips: true })),
          }
        : drawn;
      const newInput = applyChange(oldInput as unknown as Spec, change);
      fc.pre(validateSpec(newInput as unknown as ClusterSpecInput).ok);
      const old = treeSide(oldInput);
      const next = treeSide(newInput);
      const fast = planKeepalivedRollout(old, next);
      expect(comparable(fast)).toEqual(comparable(referenceRollout(old, next)));
      most = Math.max(most, fast.steps.length);
    }),
    { numRuns },
  );
  return most;
};

describe("the incremental keepalived planner", () => {
  it("plans the same rollout as the reference (preempting)", () => {
    expect(agree({ nodes: [2, 6], pool: [0, 5] }, 80)).toBeGreaterThan(3);
  });
  it("plans the same rollout as the reference (nopreempt)", () => {
    expect(agree({ nodes: [2, 6], pool: [0, 5], nopreempt: true }, 50)).toBeGreaterThan(3);
  });
  // Multicast only, as above: the reference has no unicast peer lists (the planner's unicastConflicts is its own).
  it("plans the same rollout as the reference (dual-stack pairs, IPv6 alone, IPv6-only)", () => {
    const families = CLUSTER_FAMILIES.filter((f) => f !== "ipv4");
    expect(agree({ nodes: [2, 6], pool: [0, 5], families }, 40)).toBeGreaterThan(3);
    expect(agree({ nodes: [2, 6], pool: [0, 5], nopreempt: true, families }, 30)).toBeGreaterThan(3);
  });
  it("plans the same rollout as the reference past the greedy's candidate limit", () => {
    // More than GREEDY_LIMIT (24) changed nodes: the first choices by holders and node order, the rest simulated.
    // A new basePriority (the lab specs use the default, 100) rewrites every carrier's keepalived.conf, so every
    // drawn case goes past the limit; a random change of another kind often touches too few nodes.
    const everyCarrier = fc.record({ kind: fc.constant("base-priority"), i: fc.integer({ min: 150, max: 250 }) });
    expect(agree({ nodes: [28, 32], pool: [2, 6], controlPlanes: 3 }, 8, true, everyCarrier)).toBeGreaterThan(24);
  });
});
