// Over random clusters and random single changes, replaying the keepalived steps: one node per step (so never two
// carriers of one VIP down in one step), and at no moment two live configs that disagree on a VRRP group. The
// configs are read back from the generated keepalived.conf files, not from the plan the planner used.

import { arbVrrpLabSpec, CLUSTER_FAMILIES } from "@clusterspec/core/testing";
import type { ClusterSpecInput } from "@clusterspec/core/types";
import { validateSpec } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { TreeSide } from "../src/node-steps.js";
import {
  KEEPALIVED_RELOAD,
  KEEPALIVED_RESTART,
  KEEPALIVED_START,
  KEEPALIVED_STOP,
  planKeepalivedRollout,
} from "../src/vrrp.js";
import { treeSide } from "./cases.js";
import { applyChange, arbChange, type Spec } from "./change-arb.js";

/**
 * A VRRP instance as its adverts show it: group (interface + VRID + family: IPv4 and IPv6 VRIDs are separate spaces,
 * RFC 5798, so a dual-stack pair's two halves share a VRID in two groups) and what a peer must agree on.
 */
interface Advertised {
  readonly group: string;
  readonly terms: string;
  readonly vips: readonly string[];
  /** Unicast: the address it sends from and the addresses it sends its adverts to (keepalived sends to no other). */
  readonly src?: string;
  readonly peers: readonly string[];
}

/** The instances of a keepalived.conf, parsed from the text. */
function parseKeepalived(text: string): Advertised[] {
  const out: Advertised[] = [];
  for (const block of text.split(/^vrrp_instance /m).slice(1)) {
    const field = (name: string) => new RegExp(`^\\s+${name} (\\S+)`, "m").exec(block)?.[1] ?? "";
    const vipBlock = /virtual_ipaddress \{([^}]*)\}/.exec(block)?.[1] ?? "";
    const vips = vipBlock
      .split("\n")
      .map((l) => l.trim().split(/\s+/)[0] ?? "")
      .filter(Boolean);
    const terms = `${vips.join(",")} version ${field("version") || "2"} auth ${field("auth_type") || "none"} advert ${field("advert_int")} ${block.includes("unicast_peer") ? "unicast" : "multicast"}`;
    const peers = (/unicast_peer \{([^}]*)\}/.exec(block)?.[1] ?? "").split(/\s+/).filter(Boolean);
    const src = field("unicast_src_ip") || undefined;
    out.push({
      group: `${field("interface")}/${field("virtual_router_id")}/${vips.some((v) => v.includes(":")) ? "IPv6" : "IPv4"}`,
      terms,
      vips,
      peers,
      ...(src ? { src } : {}),
    });
  }
  return out;
}

function configs(side: TreeSide): Map<string, Advertised[]> {
  const out = new Map<string, Advertised[]>();
  for (const a of side.artifacts) {
    const m = /^nodes\/([^/]+)\/etc\/keepalived\/keepalived\.conf$/.exec(a.path);
    if (m?.[1]) out.set(m[1], parseKeepalived(a.content));
  }
  return out;
}

/**
 * Disagreements between the live configs: one group with different terms, or one VIP in two groups, or (unicast)
 * two live instances of one group where one does not send its adverts to the other.
 */
function disagreements(live: ReadonlyMap<string, Advertised[]>): string[] {
  const members = new Map<string, { node: string; instance: Advertised }[]>();
  for (const [node, instances] of live)
    for (const i of instances) members.set(i.group, [...(members.get(i.group) ?? []), { node, instance: i }]);
  const deaf: string[] = [];
  for (const [group, list] of members)
    for (const x of list)
      for (const y of list)
        if (x !== y && x.instance.src !== undefined && y.instance.src !== undefined)
          if (!x.instance.peers.includes(y.instance.src))
            deaf.push(`${group}: ${x.node} does not send its adverts to ${y.node} (${y.instance.src})`);
  const groups = new Map<string, { node: string; terms: string }>();
  const vips = new Map<string, { node: string; group: string }>();
  const out: string[] = [];
  for (const [node, instances] of live)
    for (const i of instances) {
      const g = groups.get(i.group);
      if (g && g.terms !== i.terms) out.push(`${i.group}: ${g.node} has ${g.terms}, ${node} has ${i.terms}`);
      else groups.set(i.group, { node, terms: i.terms });
      for (const vip of i.vips) {
        const v = vips.get(vip);
        if (v && v.group !== i.group) out.push(`${vip}: ${v.node} in ${v.group}, ${node} in ${i.group}`);
        else vips.set(vip, { node, group: i.group });
      }
    }
  return [...out, ...deaf];
}

/** Replays the keepalived steps of `numRuns` random changes to specs of `specs`; returns how many drained and rolled. */
function replay(specs: fc.Arbitrary<ClusterSpecInput>, numRuns: number): { drained: number; rolled: number } {
  let drained = 0;
  let rolled = 0;
  fc.assert(
    fc.property(specs, arbChange, (oldInput, change) => {
      const newInput = applyChange(oldInput as unknown as Spec, change);
      fc.pre(validateSpec(newInput as unknown as ClusterSpecInput).ok);
      const old = treeSide(oldInput);
      const next = treeSide(newInput);
      const oldConfigs = configs(old);
      const newConfigs = configs(next);
      const rollout = planKeepalivedRollout(old, next);
      if (rollout.drained.length > 0) drained++;
      else if (rollout.steps.length > 0) rolled++;
      const live = new Map(oldConfigs);
      expect(disagreements(live)).toEqual([]);
      for (const step of rollout.steps) {
        expect(step.commands).toHaveLength(1);
        const command = step.commands[0];
        if (command === KEEPALIVED_STOP) live.delete(step.node);
        else if (command === KEEPALIVED_RELOAD || command === KEEPALIVED_START || command === KEEPALIVED_RESTART)
          live.set(step.node, newConfigs.get(step.node) ?? []);
        else throw new Error(`unexpected command ${command}`);
        expect(disagreements(live), `after "${step.title}" (${change.kind})`).toEqual([]);
      }
      // Every node ends on the new config: the plan left nothing out.
      expect([...live.keys()].sort()).toEqual([...newConfigs.keys()].sort());
      for (const [node, cfg] of live) expect(cfg, node).toEqual(newConfigs.get(node));
    }),
    { numRuns },
  );
  return { drained, rolled };
}

describe("keepalived steps, replayed", () => {
  it("one node per step, and no two live configs ever disagree on a VRRP group", () => {
    // The property must see both kinds of rollout, or it proves little.
    const { drained, rolled } = replay(
      fc.oneof(
        arbVrrpLabSpec({ nodes: [2, 6], pool: [0, 5] }),
        arbVrrpLabSpec({ nodes: [2, 6], pool: [0, 5], unicast: true }),
      ),
      80,
    );
    expect(drained, "runs with a drain").toBeGreaterThan(3);
    expect(rolled, "runs rolled node by node").toBeGreaterThan(3);
  });
  it("so on dual-stack (pairs, IPv6 alone) and IPv6-only clusters, multicast and unicast", () => {
    const families = CLUSTER_FAMILIES.filter((f) => f !== "ipv4");
    const { drained, rolled } = replay(
      fc.oneof(
        arbVrrpLabSpec({ nodes: [2, 6], pool: [0, 5], families }),
        arbVrrpLabSpec({ nodes: [2, 6], pool: [0, 5], unicast: true, families }),
      ),
      60,
    );
    expect(drained, "runs with a drain").toBeGreaterThan(2);
    expect(rolled, "runs rolled node by node").toBeGreaterThan(2);
  });
});
