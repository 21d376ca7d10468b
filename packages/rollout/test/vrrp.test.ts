// The keepalived planner on the change cases (4-node VLAN cluster): which cases roll node by node and which
// drain, and the planner's contract shape. The VRRP lab (keepalived-lab.test.ts) runs the same plans on real daemons.
import { describe, expect, it } from "vitest";
import { planKeepalivedRollout, planKeepalivedSteps } from "../src/vrrp.js";
import { changeCases, treeSide } from "./cases.js";

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
