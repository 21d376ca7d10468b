// The netifrc planner on issue 27's routing changes, and the proof in a namespace: a node running the OLD
// conf.d/net gets the plan's netifrc step applied (files, then its commands as OpenRC and netifrc run them), and its
// routes and rules (every table) must equal the NEW conf.d/net applied from scratch.
import type { ClusterPlan } from "@clusterspec/core/types";
import { toolAvailable, withNetifrcNode } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { planNetifrcSteps } from "../src/netifrc.js";
import type { TreeSide } from "../src/node-steps.js";
import { planKeepalivedSteps } from "../src/vrrp.js";
import { baseSpec, changeCases, netifrcCases, treeSide } from "./cases.js";

const nsAvailable = (): boolean => toolAvailable("ip") && toolAvailable("unshare", { root: true });

function filesOf(side: TreeSide, node: string): { net: string; tables: Record<string, string> } {
  const prefix = `nodes/${node}/etc/iproute2/rt_tables.d/`;
  return {
    net: side.artifacts.find((a) => a.path === `nodes/${node}/etc/conf.d/net`)?.content ?? "",
    tables: Object.fromEntries(
      side.artifacts.filter((a) => a.path.startsWith(prefix)).map((a) => [a.path.slice(prefix.length), a.content]),
    ),
  };
}

/** Interfaces netifrc starts at boot: every planned one, parents before VLANs. */
const bootOrder = (plan: ClusterPlan, node: string): string[] => {
  const ifaces = plan.nodes.find((n) => n.name === node)?.interfaces ?? [];
  return [...ifaces.filter((f) => !f.vlan), ...ifaces.filter((f) => f.vlan)].map((f) => f.name);
};
const physical = (plans: readonly ClusterPlan[], node: string): string[] => [
  ...new Set(
    plans.flatMap((p) =>
      (p.nodes.find((n) => n.name === node)?.interfaces ?? []).filter((f) => !f.vlan).map((f) => f.name),
    ),
  ),
];

describe("netifrc steps", () => {
  it("nothing to do when conf.d/net and rt_tables.d are unchanged (a keepalived-only change)", () => {
    const c = changeCases().find((x) => x.name === "change vrrp.basePriority");
    if (!c) throw new Error("case");
    expect(planNetifrcSteps(treeSide(c.old), treeSide(c.next)).steps).toEqual([]);
  });

  it("restarts the changed interface, warns that it carries VRRP, and predicts the VIP's round trip", () => {
    const c = netifrcCases().find((x) => x.name === "change the uplink gateway");
    if (!c) throw new Error("case");
    const next = treeSide(c.next);
    const { steps } = planNetifrcSteps(treeSide(c.old), next);
    expect(steps.map((s) => s.node).sort()).toEqual(["node-1", "node-2", "node-3", "node-4"]);
    for (const s of steps) {
      expect(s.kind).toBe("netifrc");
      expect(s.commands).toContain("rc-service net.wan0.4000 restart");
      expect(s.warnings.join("\n")).toContain("carries VRRP");
      expect(s.files).toEqual([`nodes/${s.node}/etc/conf.d/net`]);
    }
    // Nodes holding no VIP first; every holder's VIPs go to a backup and come back.
    const holderSteps = steps.filter((s) => s.vipMoves.length > 0);
    expect(steps.findIndex((s) => s.vipMoves.length > 0)).toBeGreaterThanOrEqual(steps.length - holderSteps.length);
    for (const s of holderSteps) {
      const away = s.vipMoves.filter((m) => m.from === s.node);
      const back = s.vipMoves.filter((m) => m.to === s.node);
      expect(away.length).toBe(back.length);
      for (const m of away) expect(m.unavailableSeconds).toBeGreaterThan(0);
    }
  });

  it("a parent restart warns about the default route (SSH) and a new VLAN gets its service", () => {
    const c = netifrcCases().find((x) => x.name === "add a VLAN interface");
    if (!c) throw new Error("case");
    const { steps } = planNetifrcSteps(treeSide(c.old), treeSide(c.next));
    const s = steps[0];
    expect(s?.commands).toEqual([
      "rc-service net.wan0 restart",
      "ln -s net.lo /etc/init.d/net.wan0.4001",
      "rc-update add net.wan0.4001 default",
      "rc-service net.wan0.4001 start",
    ]);
    expect(s?.warnings.join("\n")).toContain("default route (SSH and management)");
  });

  it("deletes a rule only the old file has before the restart", () => {
    const c = netifrcCases().find((x) => x.name.startsWith("remove a route"));
    if (!c) throw new Error("case");
    const { steps } = planNetifrcSteps(treeSide(c.old), treeSide(c.next));
    expect(steps[0]?.commands).toEqual([
      "ip -4 rule del from 192.168.12.0/24 table vswitch priority 1002",
      "rc-service net.wan0.4000 restart",
    ]);
  });

  it("the same planner reads a spec change that touches both keepalived and netifrc", () => {
    const old = treeSide(baseSpec());
    const next = treeSide(netifrcCases()[0]?.next);
    expect(planKeepalivedSteps(old, next).steps).toEqual([]);
    expect(planNetifrcSteps(old, next).steps.length).toBe(4);
  });
});

describe.runIf(nsAvailable())("netifrc steps applied in a namespace", () => {
  for (const c of netifrcCases())
    it(`${c.name}: routes and rules equal the new tree's from scratch`, async () => {
      const old = treeSide(c.old);
      const next = treeSide(c.next);
      const { steps } = planNetifrcSteps(old, next);
      expect(steps.length).toBeGreaterThan(0);
      for (const step of steps) {
        const node = step.node ?? "";
        const before = filesOf(old, node);
        const after = filesOf(next, node);
        const ifaces = physical([old.plan, next.plan], node);
        const fresh = await withNetifrcNode(ifaces, (n) => {
          n.install(after.net, after.tables);
          n.boot(bootOrder(next.plan, node));
          return n.routing();
        });
        const applied = await withNetifrcNode(ifaces, (n) => {
          n.install(before.net, before.tables);
          n.boot(bootOrder(old.plan, node));
          // Before the step the node routes as the old tree says, unlike the new one (or the case proves nothing).
          expect(n.routing()).not.toEqual(fresh);
          // The step's files, then its commands, literally.
          for (const f of step.files)
            expect([
              `nodes/${node}/etc/conf.d/net`,
              ...Object.keys(after.tables).map((t) => `nodes/${node}/etc/iproute2/rt_tables.d/${t}`),
            ]).toContain(f);
          n.install(after.net, after.tables);
          for (const command of step.commands) n.command(command);
          return n.routing();
        });
        expect(applied, `${node}: ${step.title}`).toEqual(fresh);
      }
    });
});
