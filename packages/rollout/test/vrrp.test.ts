// The keepalived planner on the change cases (4-node VLAN cluster): which cases roll node by node and which
// drain, and the planner's contract shape. The VRRP lab (keepalived-lab.test.ts) runs the same plans on real daemons.
import { exampleInput } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import type { TreeSide } from "../src/node-steps.js";
import { planKeepalivedRollout, planKeepalivedSteps } from "../src/vrrp.js";
import { changeCases, passwordCases, treeSide, treeSideWith, unicastCases } from "./cases.js";

const cases = new Map(changeCases().map((c) => [c.name, c]));
const rolloutOf = (name: string) => {
  const c = cases.get(name);
  if (!c) throw new Error(name);
  return planKeepalivedRollout(treeSide(c.old), treeSide(c.next));
};

describe("keepalived steps", () => {
  it.each(["give a VIP the VRID of a removed one", "enable AH authentication", "change vrrp.advertInterval"])(
    "%s: drains (a rolling order would leave two live configs disagreeing)",
    (name) => {
      const r = rolloutOf(name);
      expect(r.drained.length).toBeGreaterThan(0);
      expect(r.notInPlace.length).toBeGreaterThan(0);
      expect(r.notInPlace[0]?.reason).toContain("keepalived drops the other side's adverts");
      // Stops first, then the kept node(s) reload, then the drained ones start.
      const actions = r.steps.map((s) => s.action);
      const pivot = actions.map((a, i) => (a === "reload" || a === "restart" ? i : -1)).filter((i) => i >= 0);
      expect(pivot.length).toBeGreaterThan(0);
      expect(actions.lastIndexOf("stop")).toBeLessThan(Math.min(...pivot));
      expect(Math.max(...pivot)).toBeLessThan(actions.indexOf("start"));
    },
  );

  it.each([
    "remove the first external VIP",
    "insert a carrier first in nodes",
    "append a carrier",
    "remove a carrier",
    "change vrrp.basePriority",
    "add a VIP",
    "replicas 3 → 2",
  ])("%s: rolls node by node", (name) => {
    const r = rolloutOf(name);
    expect(r.drained).toEqual([]);
    expect(r.notInPlace).toEqual([]);
    expect(r.steps.every((s) => s.action !== "stop" || !s.files.length)).toBe(true);
  });

  it("adding the IPv6 half of a dual-stack pair changes its group's terms: drained, reported at the VIP", () => {
    const dual = exampleInput("dual-stack");
    const before = structuredClone(dual);
    before.externalVips.addresses[0] = { address: "10.118.11.20", vrid: 10 };
    const r = planKeepalivedRollout(treeSide(before), treeSide(dual));
    expect(r.drained.length).toBeGreaterThan(0);
    expect(r.notInPlace.map((n) => n.path)).toContain("externalVips.addresses[0].address");
    // The same tree on both sides: nothing to do.
    expect(planKeepalivedRollout(treeSide(dual), treeSide(dual)).steps).toEqual([]);
  });

  it.each([
    ["give a VIP the VRID of a removed one", "externalVips.addresses[0].address"],
    ["enable AH authentication", "vrrp.auth"],
    ["change vrrp.advertInterval", "vrrp.advertInterval"],
  ])("%s: reported as not in place at %s", (name, path) => {
    expect(rolloutOf(name).notInPlace.map((n) => n.path)).toContain(path);
  });

  it("reloads backups before masters when that moves nothing (append a carrier)", () => {
    const r = rolloutOf("append a carrier");
    const firstMaster = r.steps.findIndex((s) => [...r.holdersBefore.values()].includes(s.node));
    expect(r.steps.slice(0, firstMaster).every((s) => ![...r.holdersBefore.values()].includes(s.node))).toBe(true);
    expect(r.steps.flatMap((s) => s.vipMoves)).toEqual([]);
    expect(r.steps.find((s) => s.node === "node-5")?.commands).toEqual(["rc-service keepalived start"]);
  });

  it("a removed carrier stops and is told to remove its files", () => {
    const r = rolloutOf("remove a carrier");
    const stop = r.steps.find((s) => s.node === "node-4");
    expect(stop?.commands).toEqual(["rc-service keepalived stop"]);
    expect(stop?.warnings.join("\n")).toContain("remove /etc/keepalived");
  });

  it("a node that keeps a VIP in another VRRP group restarts (a reload can drop the address)", () => {
    const r = rolloutOf("give a VIP the VRID of a removed one");
    const pivot = r.steps.find((s) => s.action === "restart");
    expect(pivot?.commands).toEqual(["rc-service keepalived restart"]);
    expect(pivot?.vipMoves.filter((m) => m.from === m.to).every((m) => m.unavailableSeconds > 0)).toBe(true);
  });

  it("a removed VIP is no outage; a drained VIP's unavailability is predicted", () => {
    const r = rolloutOf("remove the first external VIP");
    const gone = r.steps.flatMap((s) => s.vipMoves).filter((m) => m.vip === "192.168.11.2" && m.to === null);
    expect(gone).toHaveLength(1);
    expect(gone[0]?.unavailableSeconds).toBe(0);
    for (const m of r.steps.flatMap((s) => s.vipMoves)) expect(m.unavailableSeconds).toBeGreaterThanOrEqual(0);
  });

  it("files are the node's new etc/keepalived paths; the contract carries no planner internals", () => {
    const c = cases.get("append a carrier");
    if (!c) throw new Error("case");
    const planned = planKeepalivedSteps(treeSide(c.old), treeSide(c.next));
    for (const s of planned.steps) {
      expect(Object.keys(s).sort()).toEqual(["commands", "files", "kind", "node", "title", "vipMoves", "warnings"]);
      expect(s.kind).toBe("keepalived");
      for (const f of s.files) expect(f.startsWith(`nodes/${s.node}/etc/keepalived/`)).toBe(true);
    }
  });
});

/**
 * Per node: VRRP group (interface, VRID and family: a dual-stack pair's halves share a VRID) → the node's unicast
 * source and the peers it sends adverts to.
 */
function unicastPeering(side: TreeSide): Map<string, Map<string, { src: string; peers: Set<string> }>> {
  const out = new Map<string, Map<string, { src: string; peers: Set<string> }>>();
  for (const a of side.artifacts) {
    const node = /^nodes\/([^/]+)\/etc\/keepalived\/keepalived\.conf$/.exec(a.path)?.[1];
    if (!node) continue;
    const groups = new Map<string, { src: string; peers: Set<string> }>();
    for (const block of a.content.split(/^vrrp_instance /m).slice(1)) {
      const iface = /^\s*interface (\S+)$/m.exec(block)?.[1];
      const vrid = /^\s*virtual_router_id (\d+)$/m.exec(block)?.[1];
      const src = /^\s*unicast_src_ip (\S+)$/m.exec(block)?.[1];
      const peers = /unicast_peer \{\n([^}]*)\}/.exec(block)?.[1]?.trim().split(/\s+/) ?? [];
      if (iface && vrid && src)
        groups.set(`${iface} ${vrid} IPv${src.includes(":") ? 6 : 4}`, { src, peers: new Set(peers) });
    }
    out.set(node, groups);
  }
  return out;
}

describe("keepalived steps: unicast peer lists", () => {
  const unicast = new Map(unicastCases().map((c) => [c.name, c]));

  it.each([...unicast.keys()])(
    "%s: after every step, two live nodes of one VRRP group send their adverts to each other (read from the files)",
    (name) => {
      const c = unicast.get(name);
      if (!c) throw new Error(name);
      const old = treeSide(c.old);
      const next = treeSide(c.next);
      const peering = { old: unicastPeering(old), new: unicastPeering(next) };
      const r = planKeepalivedRollout(old, next);
      const live = new Map<string, "old" | "new" | "down">([...peering.old.keys()].map((n) => [n, "old"]));
      const check = (after: string) => {
        const running = [...live].filter(([, l]) => l !== "down") as [string, "old" | "new"][];
        for (const [a, la] of running)
          for (const [b, lb] of running) {
            if (a === b) continue;
            for (const [group, x] of peering[la].get(a) ?? new Map()) {
              const y = peering[lb].get(b)?.get(group);
              if (y)
                expect(x.peers.has(y.src), `${after}: ${a} (${la}) does not send ${group} to ${b} (${lb})`).toBe(true);
            }
          }
      };
      check("before the first step");
      for (const s of r.steps) {
        live.set(s.node, s.action === "stop" ? "down" : "new");
        check(s.title);
      }
      expect([...live].filter(([n]) => peering.new.has(n)).every(([, l]) => l === "new")).toBe(true);
    },
  );

  it("appending a carrier: drained (vrrp.unicast), and the new carrier starts last, once every other runs the new peers", () => {
    const c = unicast.get("append a carrier (unicast)");
    if (!c) throw new Error("case");
    const r = planKeepalivedRollout(treeSide(c.old), treeSide(c.next));
    expect(r.drained).toContain("node-5");
    expect(r.notInPlace.map((n) => n.path)).toEqual(["vrrp.unicast"]);
    expect(r.notInPlace).toEqual([
      {
        path: "vrrp.unicast",
        reason:
          "keepalived cannot roll this change node by node: while node-1 runs the old config and node-5 the new one they disagree (VRID 2 on wan0.4000 (192.168.11.2), unicast: node-1's old config does not send its adverts to node-5 10.118.12.25), one side never hears the other's adverts and both can hold the VIP",
        procedure: [
          "drain keepalived on node-2, node-3, node-4: stop it there one node at a time (the VIPs gather on node-1)",
          "keep keepalived stopped on node-5 (it does not run yet)",
          "install the new files on node-1 and reload keepalived there",
          "install the new files on the drained nodes and start keepalived on them one at a time",
        ],
      },
    ]);
    expect(r.steps.at(-1)?.node).toBe("node-5");
    expect(r.steps.at(-1)?.action).toBe("start");
    expect(r.steps.filter((s) => s.node === "node-5")).toHaveLength(1);
  });
});

describe("keepalived steps: unicast peers per family (dual stack)", () => {
  const unicast = new Map(unicastCases().map((c) => [c.name, c]));
  it.each([
    ["move a node's IPv4 address (dual-stack, unicast)", "10.118.12.31"],
    ["move a node's IPv6 address (dual-stack, unicast)", "fd00:118:12::31"],
  ])("%s: drained (vrrp.unicast): the old peers of that family do not send to %s", (name, moved) => {
    const c = unicast.get(name);
    if (!c) throw new Error(name);
    const r = planKeepalivedRollout(treeSide(c.old), treeSide(c.next));
    expect(r.drained.length).toBeGreaterThan(0);
    expect(r.notInPlace.map((n) => n.path)).toEqual(["vrrp.unicast"]);
    // (a pair's peer is named by both its addresses)
    const peer = /does not send its adverts to k8s-2 ([^)]*)\)/.exec(r.notInPlace[0]?.reason ?? "")?.[1];
    expect(peer?.split(" + ")).toContain(moved);
    // and a pair's VIP by both its addresses too
    expect(r.notInPlace[0]?.reason).toMatch(/^[^)]*\(VRID \d+ on \S+ \([0-9.]+ \+ [0-9a-f:]+\), unicast/);
  });
});

describe("keepalived steps: VRIDs per family", () => {
  it("an IPv4 and an IPv6 VIP sharing a VRID are two groups: the same tree has nothing to do, a carrier toggled rolls", () => {
    const old = exampleInput("dual-stack");
    // fd00:118:11::21 has VRID 33 (0x21); an IPv4 VIP may take it too (allocateVrids keys VRIDs per family).
    old.externalVips.addresses.push({ address: "10.118.11.40", vrid: 33 });
    expect(planKeepalivedRollout(treeSide(old), treeSide(old)).steps).toEqual([]);
    const next = structuredClone(old);
    next.nodes[2].carriesExternalVips = false;
    const r = planKeepalivedRollout(treeSide(old), treeSide(next));
    expect(r.notInPlace).toEqual([]);
    expect(r.drained).toEqual([]);
    expect(r.steps.length).toBeGreaterThan(0);
  });
});

describe("keepalived steps: the VRRP password alone", () => {
  const [reference, value] = passwordCases();

  it("another secret reference: the files do not differ (placeholders), every carrier is still drained and reloaded", () => {
    if (!reference) throw new Error("case");
    const old = treeSideWith(reference.old, undefined);
    const next = treeSideWith(reference.next, undefined);
    const paths = (t: TreeSide) => t.artifacts.filter((a) => a.path.includes("/etc/keepalived/"));
    expect(paths(next)).toEqual(paths(old));
    const r = planKeepalivedRollout(old, next);
    expect(r.notInPlace.map((n) => n.path)).toEqual(["vrrp.auth.password"]);
    expect(r.notInPlace[0]?.reason).toBe(
      "keepalived cannot roll this change node by node: while node-1 runs the old config and node-2 the new one they disagree (wan0.4000 VRID 1: authentication PASS with another password on each side (another secret reference or value; the password is not shown)), keepalived drops the other side's adverts and both hold the VIP",
    );
    expect(r.drained.length).toBeGreaterThan(0);
    expect(new Set(r.steps.map((s) => s.node))).toEqual(new Set(["node-1", "node-2", "node-3", "node-4"]));
    expect(r.steps.find((s) => s.action === "reload")?.files).toContain("nodes/node-1/etc/keepalived/auth.conf");
  });

  it("another value behind the same reference (--with-secrets): drained, and neither password is ever printed", () => {
    if (!value) throw new Error("case");
    const r = planKeepalivedRollout(
      treeSideWith(value.old, value.oldSecrets),
      treeSideWith(value.next, value.newSecrets),
    );
    expect(r.notInPlace.map((n) => n.path)).toEqual(["vrrp.auth.password"]);
    expect(r.drained.length).toBeGreaterThan(0);
    const printed = JSON.stringify({ steps: r.steps.map(({ holdersAfter: _h, ...s }) => s), notInPlace: r.notInPlace });
    for (const secret of [value.oldSecrets?.vrrpPassword, value.newSecrets?.vrrpPassword]) {
      expect(secret).toBeTruthy();
      expect(printed).not.toContain(secret);
    }
  });

  it("the same password behind the same reference: nothing to do", () => {
    if (!value) throw new Error("case");
    const r = planKeepalivedRollout(
      treeSideWith(value.old, value.oldSecrets),
      treeSideWith(value.old, value.oldSecrets),
    );
    expect(r.steps).toEqual([]);
    expect(r.notInPlace).toEqual([]);
  });
});
