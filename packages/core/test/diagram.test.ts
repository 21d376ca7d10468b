// PLAN.md's Mermaid picture: every VIP's master is drawn, and it stays small at 16 nodes and a full pool.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { failoverDiagram } from "../src/index.js";
import { DIAGRAM_MAX_SINGLE_VIPS } from "../src/plan/diagram.js";
import { arbPlan, buildSpec, mustResolve } from "../src/testing.js";

const boxes = (d: string) => d.split("\n").filter((l) => /^\s+\w+(\[|\(\[)"/.test(l)).length;
const edges = (d: string) => d.split("\n").filter((l) => /==>|-\.->/.test(l)).length;

describe("failoverDiagram", () => {
  it("draws the control-plane VIP to every node of its order, and every external VIP (or its group) to its master", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 30 }), (plan) => {
        const d = failoverDiagram(plan);
        expect(d.startsWith("flowchart LR\n")).toBe(true);
        const id = (name: string) => `n${plan.nodes.findIndex((n) => n.name === name)}`;
        plan.controlPlane.vip.order.forEach((node, r) => {
          expect(d).toContain(r === 0 ? `cp ==>|"master"| ${id(node)}` : `cp -.->|"backup ${r}"| ${id(node)}`);
        });
        const pool = plan.vips.filter((v) => v.kind === "external");
        if (pool.length <= DIAGRAM_MAX_SINGLE_VIPS)
          pool.forEach((v, i) => {
            // a dual-stack pair is one box naming both halves
            const label = v.pair6 ? `${v.address} + ${v.pair6.address}` : v.address;
            expect(d).toContain(`x${i}(["${label} VRID ${v.vrid}`);
            expect(d).toContain(`x${i} ==> ${id(v.order[0] ?? "")}`);
          });
        else for (const v of pool) expect(d).toMatch(new RegExp(`g\\d+ ==> ${id(v.order[0] ?? "")}\\b`));
        // every edge points at a drawn node
        for (const m of d.matchAll(/(?:==>|-\.->)(?:\|"[^"]*"\|)? (\w+)/g)) expect(d).toContain(`${m[1]}["`);
      }),
      { numRuns: 60 },
    );
  });

  it("stays readable at 16 carriers with 254 VIPs and at 20 nodes: one box per node and per master", () => {
    const full = mustResolve(buildSpec({ controlPlanes: 5, workers: 11, poolSize: 254, cloud: false }));
    const d = failoverDiagram(full);
    expect(boxes(d)).toBe(16 + 1 + 16);
    expect(edges(d)).toBe(5 + 16);
    const wide = mustResolve(
      buildSpec(
        { controlPlanes: 3, workers: 17, poolSize: 6, cloud: false },
        { carriers: Array.from({ length: 20 }, (_, i) => i < 4) },
      ),
    );
    const w = failoverDiagram(wide);
    expect(w).toContain('s0rest["16 more nodes without VIPs"]');
    expect(boxes(w)).toBe(4 + 1 + 1 + 6);
  });
});
