// The change cases of issue 27 item 4 on a 4-node VLAN cluster (3 control planes, 1 worker, every node a carrier,
// 3 external VIPs): old and new spec of each, generated in memory with the test secrets.

import { buildSpec, mustValidate, TEST_SECRETS } from "@clusterspec/core/testing";
import type { ClusterPlan, ClusterSpecInput, SecretValues } from "@clusterspec/core/types";
import { exampleInput } from "@clusterspec/testkit";
import { generate } from "clusterspec";
import type { TreeSide } from "../src/node-steps.js";

type Spec = ClusterSpecInput & Record<string, unknown>;
type NodeInput = Record<string, unknown> & { name: string };

/** The lab's base: preemptDelay short so a lab stays within its time (the default is 120 s). */
export function baseSpec(auth: "AH" | "PASS" | "none" = "none", advertInterval = 1): Spec {
  const spec = buildSpec({ controlPlanes: 3, workers: 1, poolSize: 3, cloud: false }, { vlan: 4000, auth }) as Spec;
  const vrrp = spec.vrrp as Record<string, unknown>;
  return { ...spec, vrrp: { ...vrrp, advertInterval, preemptDelay: 2 } } as Spec;
}

const clone = <T>(x: T): T => structuredClone(x);
const nodesOf = (s: Spec) => s.nodes as unknown as NodeInput[];
const poolOf = (s: Spec) => s.externalVips as unknown as { addresses: string[]; replicas?: number };

/** A worker carrier with the next addresses after the base's four nodes. */
function extraNode(name: string, n: number): NodeInput {
  return {
    name,
    roles: ["worker"],
    carriesExternalVips: true,
    rootFilesystem: "ext4",
    interfaces: {
      wan0: {
        mac: `52:54:00:10:00:${(0x10 + n).toString(16)}`,
        address: `198.18.11.${20 + n}/24`,
        gateway: "198.18.11.1",
      },
      "wan0.4000": { vlan: { parent: "wan0", id: 4000 }, address: `10.118.12.${20 + n}/24` },
    },
  };
}

export interface ChangeCase {
  readonly name: string;
  readonly old: Spec;
  readonly next: Spec;
}

export function changeCases(): ChangeCase[] {
  const base = baseSpec();
  const change = (name: string, edit: (s: Spec) => unknown, old = base): ChangeCase => {
    const next = clone(old);
    return { name, old, next: (edit(next) as Spec | undefined) ?? next };
  };
  const replicas3 = clone(base);
  poolOf(replicas3).replicas = 3;
  return [
    change("remove the first external VIP", (s) => {
      poolOf(s).addresses.shift();
    }),
    // With VRIDs following addresses, only an explicit VRID can hand one address's VRID to another: the old and
    // the new configs then disagree on that VRID's VIP, which no rolling order avoids.
    change("give a VIP the VRID of a removed one", (s) => {
      const pool = poolOf(s) as unknown as { addresses: unknown[] };
      const [removed, moved, ...rest] = pool.addresses as string[];
      pool.addresses = [{ address: moved, vrid: Number(removed?.split(".").at(-1)) }, ...rest];
    }),
    change("insert a carrier first in nodes", (s) => {
      nodesOf(s).unshift(extraNode("node-0", 0));
    }),
    change("append a carrier", (s) => {
      nodesOf(s).push(extraNode("node-5", 5));
    }),
    change("remove a carrier", (s) => {
      nodesOf(s).pop();
    }),
    change("change vrrp.basePriority", (s) => {
      (s.vrrp as Record<string, unknown>).basePriority = 150;
    }),
    change("enable AH authentication", () => baseSpec("AH")),
    change("change vrrp.advertInterval", () => baseSpec("none", 2)),
    change("add a VIP", (s) => {
      poolOf(s).addresses.push("192.168.11.5");
    }),
    change(
      "replicas 3 → 2",
      (s) => {
        poolOf(s).replicas = 2;
      },
      replicas3,
    ),
  ];
}

/** Generates a spec's tree in memory with the test secrets (the password the lab's daemons share). */
export function treeSide(input: unknown): TreeSide {
  const result = generate(input as ClusterSpecInput, { secrets: TEST_SECRETS });
  if (!result.ok) throw new Error(`generate failed: ${JSON.stringify(result.errors)}`);
  return { spec: mustValidate(input), plan: result.plan as ClusterPlan, artifacts: result.artifacts };
}

type Segment = { onLink: string[]; uplink: { gateway: string } };
const segmentOf = (s: Spec) => (s.network as unknown as { segments: Segment[] }).segments[0] as Segment;

/** Changes of issue 27 item 4 for netifrc: routes and rules in a namespace, against the new tree from scratch. */
export function netifrcCases(): ChangeCase[] {
  const base = baseSpec();
  const change = (name: string, edit: (s: Spec) => void): ChangeCase => {
    const next = clone(base);
    edit(next);
    return { name, old: base, next };
  };
  const added = change("add a route (an on-link network)", (s) => {
    segmentOf(s).onLink.push("192.168.12.0/24");
  });
  return [
    added,
    // The reverse: a rule only the old file has, which netifrc's stop (reading the new file) would leave behind.
    { name: "remove a route (an on-link network)", old: added.next, next: base },
    change("change the uplink gateway", (s) => {
      segmentOf(s).uplink.gateway = "192.168.11.254";
    }),
    change("add a VLAN interface", (s) => {
      nodesOf(s).forEach((n, i) => {
        (n.interfaces as Record<string, unknown>)["wan0.4001"] = {
          vlan: { parent: "wan0", id: 4001 },
          address: `10.119.12.${10 + i}/24`,
        };
      });
    }),
  ];
}

/** The same cluster with unicast VRRP: carrier changes alter every instance's unicast_peer list. */
export function unicastCases(): ChangeCase[] {
  const unicast = (s: Spec): Spec => ({ ...s, vrrp: { ...(s.vrrp as Record<string, unknown>), unicast: true } });
  return changeCases()
    .filter((c) =>
      ["insert a carrier first in nodes", "append a carrier", "remove a carrier", "replicas 3 → 2"].includes(c.name),
    )
    .map((c) => ({ name: `${c.name} (unicast)`, old: unicast(c.old), next: unicast(c.next) }))
    .concat(dualStackUnicastCases(unicast));
}

/** examples/dual-stack with unicast: a node's address of one family moves, so do the peers of that family's instances. */
function dualStackUnicastCases(unicast: (s: Spec) => Spec): ChangeCase[] {
  const old = unicast(exampleInput("dual-stack") as Spec);
  const moved = (field: "address" | "address6", to: string): Spec => {
    const next = structuredClone(old);
    const wan1 = (next.nodes[1]?.interfaces as Record<string, Record<string, unknown>> | undefined)?.wan1;
    if (wan1) wan1[field] = to;
    return next;
  };
  return [
    { name: "move a node's IPv4 address (dual-stack, unicast)", old, next: moved("address", "10.118.12.31/24") },
    { name: "move a node's IPv6 address (dual-stack, unicast)", old, next: moved("address6", "fd00:118:12::31/64") },
  ];
}

/** The VRRP password alone: another secret reference (a review tree), or another value behind the same one. */
export function passwordCases(): (ChangeCase & {
  readonly oldSecrets?: SecretValues;
  readonly newSecrets?: SecretValues;
})[] {
  const base = baseSpec("PASS");
  const renamed = clone(base);
  (renamed.vrrp as { auth: { password: unknown } }).auth.password = { env: "VRRP_AUTH_PASS_2026" };
  return [
    { name: "another password reference (review trees, no secrets)", old: base, next: renamed },
    {
      name: "another password behind the same reference (--with-secrets)",
      old: base,
      next: base,
      oldSecrets: TEST_SECRETS,
      newSecrets: { ...TEST_SECRETS, vrrpPassword: "n3w-pw" },
    },
  ];
}

/** A tree with these secrets (undefined: none resolved, a review tree's placeholders). */
export function treeSideWith(input: unknown, secrets: SecretValues | undefined): TreeSide {
  const result = generate(input as ClusterSpecInput, secrets === undefined ? {} : { secrets });
  if (!result.ok) throw new Error(`generate failed: ${JSON.stringify(result.errors)}`);
  return { spec: mustValidate(input), plan: result.plan as ClusterPlan, artifacts: result.artifacts };
}
