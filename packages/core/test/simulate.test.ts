// The failover model that PLAN.md, `clusterspec simulate` and the VRRP lab share.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  AT_REST,
  type ClusterPlan,
  effectivePriority,
  holderMap,
  loadSpread,
  mastersWith,
  simulateFailover,
  takeoverBounds,
  worstTwoCarrierFailure,
} from "../src/index.js";
import { masterDownSeconds } from "../src/plan/simulate.js";
import { arbPlan, mustResolve } from "../src/testing.js";
import { referenceSpec } from "./helpers.js";

const reference = (): ClusterPlan => mustResolve(referenceSpec());

/** A random subset of the plan's nodes. */
const arbPlanAndState = (options?: Parameters<typeof arbPlan>[0]) =>
  arbPlan(options).chain((plan) => {
    const names = plan.nodes.map((n) => n.name);
    return fc
      .record({
        down: fc.subarray(names),
        unhealthy: fc.subarray(plan.nodes.filter((n) => n.controlPlane).map((n) => n.name)),
      })
      .map((state) => ({ plan, state }));
  });

describe("simulateFailover", () => {
  it("at rest, every VIP is held by the first node of its order", () => {
    fc.assert(
      fc.property(arbPlan(), (plan) => {
        for (const h of simulateFailover(plan, AT_REST).holdings) expect(h.holder).toBe(h.vip.order[0]);
      }),
      { numRuns: 100 },
    );
  });

  it("with nodes down and every check passing, agrees with the plan's masters (mastersWith)", () => {
    fc.assert(
      fc.property(arbPlanAndState(), ({ plan, state }) => {
        const down = new Set(state.down);
        expect(holderMap(simulateFailover(plan, { down: state.down, unhealthy: [] }))).toEqual(
          mastersWith(plan.vips, down),
        );
      }),
      { numRuns: 100 },
    );
  });

  it("holds each VIP on the live node of highest effective priority, never on a down or FAULT node", () => {
    fc.assert(
      fc.property(arbPlanAndState(), ({ plan, state }) => {
        for (const h of simulateFailover(plan, state).holdings) {
          const live = h.vip.order.filter((n) => effectivePriority(plan, h.vip, n, state) !== undefined);
          if (h.holder === undefined) {
            expect(live).toEqual([]);
            continue;
          }
          expect(state.down).not.toContain(h.holder);
          const best = Math.max(...live.map((n) => effectivePriority(plan, h.vip, n, state) ?? 0));
          expect(h.priority).toBe(best);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("moves the control-plane VIP off an unhealthy master to the next healthy control plane", () => {
    fc.assert(
      fc.property(
        arbPlan().filter((p) => p.controlPlane.vip.order.length >= 2),
        (plan) => {
          const [first, second] = plan.controlPlane.vip.order;
          const sim = simulateFailover(plan, { down: [], unhealthy: [first ?? ""] });
          expect(sim.holdings[0]?.vip.kind).toBe("control-plane");
          expect(sim.holdings[0]?.holder).toBe(second);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("when every control plane is unhealthy: the highest address with the default weight, nobody with weight 0 (FAULT)", () => {
    const plan = reference();
    const all = plan.controlPlane.vip.order;
    // The default weight (-253) puts every failing node at keepalived's floor, 1: VRRP gives the tie to the
    // higher primary address, k8s-3's 10.118.12.13 here.
    const unhealthy = simulateFailover(plan, { down: [], unhealthy: all }).holdings[0];
    expect([unhealthy?.holder, unhealthy?.priority]).toEqual(["k8s-3", 1]);
    // From a holder that is still live, the tie stays where it is: a backup preempts only with a higher priority.
    const rest = holderMap(simulateFailover(plan, { down: [], unhealthy: [] }));
    expect(holderMap(simulateFailover(plan, { down: [], unhealthy: all }, rest)).get("control-plane")).toBe(all[0]);
    const fault = mustResolve({ ...referenceSpec(), vrrp: { ...referenceSpec().vrrp, healthCheck: { weight: 0 } } });
    expect(simulateFailover(fault, { down: [], unhealthy: all }).holdings[0]?.holder).toBeUndefined();
    expect(simulateFailover(fault, { down: [], unhealthy: [all[0] ?? ""] }).holdings[0]?.holder).toBe(all[1]);
  });

  it("with nopreempt keeps a live holder: a node that comes back, or whose check fails, takes nothing", () => {
    const plan = mustResolve({ ...referenceSpec(), vrrp: { ...referenceSpec().vrrp, nopreempt: true } });
    const [first = "", second] = plan.controlPlane.vip.order;
    const afterDeath = holderMap(simulateFailover(plan, { down: [first], unhealthy: [] }));
    expect(afterDeath.get("control-plane")).toBe(second);
    expect(holderMap(simulateFailover(plan, AT_REST, afterDeath)).get("control-plane")).toBe(second);
    // A failing check lowers the master's priority, but a nopreempt backup never takes over from a live master.
    const rest = holderMap(simulateFailover(plan, AT_REST));
    expect(holderMap(simulateFailover(plan, { down: [], unhealthy: [first] }, rest)).get("control-plane")).toBe(first);
    // Without nopreempt, the same history ends where the priorities say.
    expect(holderMap(simulateFailover(reference(), AT_REST, afterDeath)).get("control-plane")).toBe(first);
  });

  it("counts each live carrier's external VIPs; the counts add up to the VIPs held", () => {
    fc.assert(
      fc.property(arbPlanAndState(), ({ plan, state }) => {
        const sim = simulateFailover(plan, state);
        const held = sim.holdings.filter((h) => h.vip.kind === "external" && h.holder !== undefined).length;
        expect(sim.loads.reduce((sum, l) => sum + l.externalVips, 0)).toBe(held);
        for (const l of sim.loads) if (!l.up) expect(l.externalVips).toBe(0);
        expect(sim.loads.filter((l) => l.controlPlaneVip).length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 100 },
    );
  });
});

describe("worstTwoCarrierFailure", () => {
  it("names the pair that loses the most VIPs, then has the largest imbalance, of all pairs", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 30 }), (plan) => {
        const worst = worstTwoCarrierFailure(plan);
        const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
        if (carriers.length < 3 || !plan.vips.some((v) => v.kind === "external")) {
          expect(worst).toBeUndefined();
          return;
        }
        if (!worst) throw new Error("expected a worst pair");
        const score = (down: string[]) => {
          const sim = simulateFailover(plan, { down, unhealthy: [] });
          const lost = sim.holdings.filter((h) => h.vip.kind === "external" && h.holder === undefined).length;
          return lost * 1000 + loadSpread(sim, carriers);
        };
        for (let a = 0; a < carriers.length; a++)
          for (let b = a + 1; b < carriers.length; b++)
            expect(score([carriers[a] ?? "", carriers[b] ?? ""])).toBeLessThanOrEqual(score(worst.down));
      }),
      { numRuns: 50 },
    );
  });

  it("on the reference cluster, leaves the third node with every VIP", () => {
    const worst = worstTwoCarrierFailure(reference());
    expect(worst?.down).toEqual(["k8s-1", "k8s-2"]);
    expect(worst?.simulation.loads.find((l) => l.node === "k8s-3")?.externalVips).toBe(3);
  });
});

describe("takeoverBounds", () => {
  it("is keepalived's Master_Down_Interval: three adverts plus a skew shorter for higher priorities", () => {
    expect(masterDownSeconds(1, 100)).toBeCloseTo(3 + 156 / 256);
    expect(masterDownSeconds(2, 254)).toBeCloseTo(6 + 4 / 256);
    const plan = reference();
    expect(plan.vrrp.preemptDelay).toBe(120);
    const down = 3 + 157 / 256;
    // The control-plane VIP has no preempt_delay (kubelets reach the apiserver through it): interval 2 x fall 2,
    // then the down timer; init_fail: rise 2 x interval 2 before a returning node may take it.
    const b = takeoverBounds(plan, 99, "control-plane");
    expect(b.death.max).toBeCloseTo(down);
    expect(b.death.min).toBeCloseTo(down - 1);
    expect(b.checkFailure.max).toBeCloseTo(4 + down);
    expect(b.rejoin).toEqual({ min: down, max: 4 + down });
    // nobody holds the VIP: one down timer, whatever the checks say
    expect(b.claim).toEqual({ min: down, max: down });
    // External VIPs wait: the first lower advert within advert_int, preempt_delay 120, then the down timer
    const rc = plan.vrrp.readinessCheck;
    if (!rc) throw new Error("the example tracks Cilium");
    const e = takeoverBounds(plan, 99, "external");
    expect(e.checkFailure.max).toBeCloseTo(rc.fall * rc.interval + 1 + 120 + down);
    expect(e.checkFailure.min).toBeCloseTo((rc.fall - 1) * rc.interval + 120 + down - 1);
    expect(e.rejoin.max).toBeCloseTo(rc.rise * rc.interval + 1 + 120 + down);
    expect(e.rejoin.min).toBeCloseTo(120 + down - 1);
    // without preempt_delay the external VIPs too take the down timer after the checks
    const now = { ...plan, vrrp: { ...plan.vrrp, preemptDelay: 0 } };
    const n = takeoverBounds(now, 99, "external");
    expect(n.checkFailure.max).toBeCloseTo(rc.fall * rc.interval + down);
    expect(n.rejoin).toEqual({ min: down, max: rc.rise * rc.interval + down });
    // weight 0 (FAULT): the failing master says goodbye, preempt_delay plays no part
    const fault = { ...plan, vrrp: { ...plan.vrrp, healthCheck: { ...plan.vrrp.healthCheck, weight: 0 } } };
    expect(takeoverBounds(fault, 99, "control-plane").checkFailure.max).toBeCloseTo(4 + 157 / 256 + 1);
  });

  it("gives a healed split two advert intervals, AH or not (clusterspec writes vrrp_lower_prio_no_advert with AH)", () => {
    const plan = reference();
    for (const auth of [undefined, { type: "PASS" as const }, { type: "AH" as const }]) {
      const slow = { ...plan, vrrp: { ...plan.vrrp, auth, advertInterval: 3 } };
      expect(takeoverBounds(slow, 99).heal).toEqual({ min: 0, max: 6 });
    }
  });

  it("takes the external VIPs' timing from the readiness check", () => {
    const plan = reference();
    const rc = plan.vrrp.readinessCheck;
    if (!rc) throw new Error("the example tracks Cilium");
    const slow = { ...plan, vrrp: { ...plan.vrrp, readinessCheck: { ...rc, rise: 5, interval: 3 } } };
    const ext = takeoverBounds(slow, 100, "external");
    const cp = takeoverBounds(slow, 100, "control-plane");
    // rise 5 x 3 and preempt_delay 120 (with its first advert) against the apiserver check's rise 2 x 2 alone
    expect(ext.rejoin.max - cp.rejoin.max).toBeCloseTo(15 + 1 + 120 - 4);
    expect(takeoverBounds(slow, 100).rejoin.max).toBeCloseTo(ext.rejoin.max);
  });

  it("has min <= max for every event, for any tunables", () => {
    fc.assert(
      fc.property(arbPlan(), fc.integer({ min: 1, max: 254 }), (plan, priority) => {
        for (const bound of Object.values(takeoverBounds(plan, priority))) {
          expect(bound.min).toBeGreaterThanOrEqual(0);
          expect(bound.min).toBeLessThanOrEqual(bound.max);
        }
      }),
      { numRuns: 50 },
    );
  });
});
