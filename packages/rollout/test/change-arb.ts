// Random single changes of the kinds issue 27 names (and a few more), for the keepalived planner's property tests.
import fc from "fast-check";

export type Spec = Record<string, unknown> & { nodes: Record<string, unknown>[] };

const clone = <T>(x: T): T => structuredClone(x);

/** One random change of the kinds issue 27 names (and a few more); undefined when it makes no valid spec. */
export const arbChange = fc.oneof(
  fc.record({ kind: fc.constant("remove-vip" as const), i: fc.nat(8) }),
  fc.record({ kind: fc.constant("add-vip" as const), i: fc.nat(8) }),
  fc.record({ kind: fc.constant("remove-node" as const), i: fc.nat(8) }),
  fc.record({ kind: fc.constant("toggle-carrier" as const), i: fc.nat(8) }),
  fc.record({ kind: fc.constant("swap-nodes" as const), i: fc.nat(8) }),
  fc.record({ kind: fc.constant("base-priority" as const), i: fc.integer({ min: 50, max: 250 }) }),
  fc.record({ kind: fc.constant("auth" as const), i: fc.nat(2) }),
  fc.record({ kind: fc.constant("advert" as const), i: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("replicas" as const), i: fc.integer({ min: 1, max: 6 }) }),
);

/** An external VIP entry: an address, or a dual-stack pair. */
type PoolEntry = string | { address: string; address6: string };

/** The next address: the last IPv4 octet or IPv6 group plus one (both halves of a pair). */
const nextAddress = (a: string): string =>
  a.includes(":")
    ? a.replace(/:([0-9a-f]+)$/, (_, x: string) => `:${(Number.parseInt(x, 16) + 1).toString(16)}`)
    : a.replace(/\.(\d+)$/, (_, x) => `.${Number(x) + 1}`);
const nextEntry = (e: PoolEntry): PoolEntry =>
  typeof e === "string" ? nextAddress(e) : { address: nextAddress(e.address), address6: nextAddress(e.address6) };

export function applyChange(input: Spec, change: { kind: string; i: number }): Spec {
  const s = clone(input);
  const pool = s.externalVips as { addresses: PoolEntry[]; replicas?: number } | undefined;
  const vrrp = s.vrrp as Record<string, unknown>;
  const n = s.nodes.length;
  switch (change.kind) {
    case "remove-vip":
      pool?.addresses.splice(change.i % Math.max(1, pool.addresses.length), 1);
      break;
    case "add-vip": {
      const last = pool?.addresses.at(-1);
      if (pool && last) pool.addresses.splice(change.i % (pool.addresses.length + 1), 0, nextEntry(last));
      break;
    }
    case "remove-node":
      s.nodes.splice(change.i % n, 1);
      break;
    case "toggle-carrier": {
      const node = s.nodes[change.i % n] as Record<string, unknown>;
      node.carriesExternalVips = !node.carriesExternalVips;
      break;
    }
    case "swap-nodes": {
      const a = change.i % n;
      const b = (a + 1) % n;
      [s.nodes[a], s.nodes[b]] = [s.nodes[b] as Record<string, unknown>, s.nodes[a] as Record<string, unknown>];
      break;
    }
    case "base-priority":
      vrrp.basePriority = change.i;
      break;
    case "auth":
      if (change.i === 0) delete vrrp.auth;
      else vrrp.auth = { type: change.i === 1 ? "AH" : "PASS", password: { env: "VRRP_AUTH_PASS" } };
      break;
    case "advert":
      vrrp.advertInterval = change.i;
      break;
    case "replicas":
      if (pool) pool.replicas = change.i;
      break;
  }
  return s;
}
