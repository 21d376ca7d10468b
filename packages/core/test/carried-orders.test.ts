// The priority orders carried forward from identities.json (facts/vrrp.ts carriedOrders): balance, the minimum
// number of master moves when a carrier is added, only the removed carrier's VIPs when one is removed, nothing when
// `nodes` is reordered, and the single-failure spread of priorityOrders/replicaOrders kept, for N ≤ 32 carriers,
// V ≤ 254 VIPs and every replicas 2..N.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { carriedOrders, type PreviousOrders, replicaOrders } from "../src/facts/vrrp.js";

const MAX_N = 32;
const MAX_V = 254;

const address = (k: number): string => `10.${Math.floor(k / 250)}.${k % 250}.1`;
const node = (k: number): string => `n-${k.toString(36)}`;

/** A cluster's VIP state: carriers (spec order), VIP addresses, replicas, and the orders by address. */
interface State {
  readonly carriers: string[];
  readonly vips: string[];
  readonly replicas: number;
  readonly orders: PreviousOrders;
}

const run = (s: Omit<State, "orders">, previous: PreviousOrders | undefined): State => {
  const orders = carriedOrders(s.carriers, s.vips, s.replicas, previous);
  return { ...s, orders: Object.fromEntries(s.vips.map((a, i) => [a, orders[i] ?? []])) };
};

type Op =
  | { kind: "add-carrier"; at: number; name: number }
  | { kind: "remove-carrier"; at: number }
  | { kind: "add-vip"; name: number }
  | { kind: "remove-vip"; at: number }
  | { kind: "shuffle"; seed: number };

const arbOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant("add-carrier" as const), at: fc.nat(), name: fc.nat({ max: 10_000 }) }),
  fc.record({ kind: fc.constant("remove-carrier" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("add-vip" as const), name: fc.nat({ max: 10_000 }) }),
  fc.record({ kind: fc.constant("remove-vip" as const), at: fc.nat() }),
  fc.record({ kind: fc.constant("shuffle" as const), seed: fc.nat() }),
);

const shuffled = <T>(xs: readonly T[], seed: number): T[] => {
  const out = [...xs];
  let x = seed + 1;
  for (let i = out.length - 1; i > 0; i--) {
    x = (x * 1103515245 + 12345) % 2147483648;
    const j = x % (i + 1);
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
};

/** The spec after one change (the orders are not touched: the next run carries them). */
function apply(s: State, op: Op): Omit<State, "orders"> {
  const carriers = [...s.carriers];
  const vips = [...s.vips];
  switch (op.kind) {
    case "add-carrier": {
      const name = node(1000 + op.name);
      if (carriers.length < MAX_N && !carriers.includes(name)) carriers.splice(op.at % (carriers.length + 1), 0, name);
      break;
    }
    case "remove-carrier":
      if (carriers.length > 2) carriers.splice(op.at % carriers.length, 1);
      break;
    case "add-vip": {
      const a = address(1000 + op.name);
      if (vips.length < MAX_V && !vips.includes(a)) vips.push(a);
      break;
    }
    case "remove-vip":
      if (vips.length > 0) vips.splice(op.at % vips.length, 1);
      break;
    case "shuffle":
      return { ...s, carriers: shuffled(carriers, op.seed) };
  }
  return {
    carriers,
    vips,
    replicas: Math.min(s.replicas, carriers.length) === s.replicas ? s.replicas : carriers.length,
  };
}

/** Day 1 (positional orders), then a few changes, each carried forward: a state a cluster can be in. */
const arbState: fc.Arbitrary<State> = fc
  .record({
    n: fc.integer({ min: 2, max: MAX_N }),
    v: fc.integer({ min: 0, max: MAX_V }),
    replicasFrom: fc.double({ min: 0, max: 1, noNaN: true }),
    ops: fc.array(arbOp, { maxLength: 4 }),
  })
  .map(({ n, v, replicasFrom, ops }) => {
    const replicas = 2 + Math.floor(replicasFrom * (n - 1)); // 2..N
    let s = run(
      {
        carriers: Array.from({ length: n }, (_, k) => node(k)),
        vips: Array.from({ length: v }, (_, k) => address(k)),
        replicas: Math.min(replicas, n),
      },
      undefined,
    );
    for (const op of ops) s = run(apply(s, op), s.orders);
    return s;
  });

const spread = (xs: readonly number[]): number => (xs.length === 0 ? 0 : Math.max(...xs) - Math.min(...xs));

function masterLoads(s: State): Map<string, number> {
  const loads = new Map(s.carriers.map((c) => [c, 0]));
  for (const a of s.vips) {
    const m = s.orders[a]?.[0] ?? "";
    loads.set(m, (loads.get(m) ?? 0) + 1);
  }
  return loads;
}

/** Problems with a state's orders, as text (empty: none). */
function problems(s: State): string[] {
  const out: string[] = [];
  const n = s.carriers.length;
  const r = Math.min(s.replicas, n);
  const carriers = new Set(s.carriers);
  for (const a of s.vips) {
    const o = s.orders[a] ?? [];
    if (o.length !== r || new Set(o).size !== r || o.some((x) => !carriers.has(x))) out.push(`order of ${a}: ${o}`);
  }
  const loads = masterLoads(s);
  const lo = Math.floor(s.vips.length / n);
  const hi = Math.ceil(s.vips.length / n);
  for (const [c, l] of loads) if (l < lo || l > hi) out.push(`${c} masters ${l}, outside ${lo}..${hi}`);
  // Any single failure: the failed node's VIPs within one over the survivors, and the survivors' loads within one.
  for (const dead of s.carriers) {
    const taken = new Map(s.carriers.filter((c) => c !== dead).map((c) => [c, 0]));
    for (const a of s.vips) {
      const o = s.orders[a] ?? [];
      if (o[0] === dead && o[1] !== undefined) taken.set(o[1], (taken.get(o[1]) ?? 0) + 1);
    }
    if (spread([...taken.values()]) > 1) out.push(`${dead} fails: its VIPs go ${[...taken.values()]}`);
    // priorityOrders' bound with every carrier in every order, replicaOrders' below that
    const after = [...taken.keys()].map((c) => (loads.get(c) ?? 0) + (taken.get(c) ?? 0));
    if (spread(after) > (r >= n ? 1 : 2)) out.push(`${dead} fails: survivors hold ${after}`);
  }
  return out;
}

const moved = (before: State, after: State): string[] =>
  after.vips.filter((a) => before.orders[a] !== undefined && before.orders[a]?.[0] !== after.orders[a]?.[0]);

const RUNS = 150;

describe("carriedOrders", () => {
  it("without previous orders is today's positional replicaOrders", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: MAX_N }),
        fc.integer({ min: 0, max: MAX_V }),
        fc.integer({ min: 2, max: MAX_N }),
        (n, v, r) => {
          const carriers = Array.from({ length: n }, (_, k) => node(k));
          const vips = Array.from({ length: v }, (_, k) => address(k));
          const positional = replicaOrders(n, v, Math.min(r, n)).map((o) => o.map((j) => carriers[j]));
          expect(carriedOrders(carriers, vips, r, undefined)).toEqual(positional);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("keeps masters balanced and the single-failure spread within one, after any changes", () => {
    fc.assert(
      fc.property(arbState, (s) => {
        expect(problems(s)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it("adding a carrier moves exactly the minimum number of masters, and only to make room", () => {
    fc.assert(
      fc.property(arbState, fc.nat(), fc.nat({ max: 10_000 }), (s, at, name) => {
        fc.pre(s.carriers.length < MAX_N);
        const added = node(50_000 + name);
        const carriers = [...s.carriers];
        carriers.splice(at % (carriers.length + 1), 0, added);
        const replicas = s.replicas >= s.carriers.length ? carriers.length : s.replicas;
        const after = run({ ...s, carriers, replicas }, s.orders);
        // The minimum, worked out independently: the carried-forward loads (the new carrier at 0) must reach
        // ⌊V/N'⌋..⌈V/N'⌉; every master above ⌈V/N'⌉ must lose, every node below ⌊V/N'⌋ must gain.
        const loads = [...masterLoads(s).values(), 0];
        const lo = Math.floor(s.vips.length / carriers.length);
        const hi = Math.ceil(s.vips.length / carriers.length);
        const excess = loads.reduce((t, l) => t + Math.max(0, l - hi), 0);
        const deficit = loads.reduce((t, l) => t + Math.max(0, lo - l), 0);
        expect(moved(s, after).length).toBe(Math.max(excess, deficit));
        expect(problems(after)).toEqual([]);
        if (replicas >= carriers.length) for (const a of after.vips) expect(after.orders[a]).toContain(added);
      }),
      { numRuns: RUNS },
    );
  });

  it("removing a carrier changes the master of its VIPs only", () => {
    fc.assert(
      fc.property(arbState, fc.nat(), (s, at) => {
        fc.pre(s.carriers.length > 2);
        const removed = s.carriers[at % s.carriers.length] ?? "";
        const carriers = s.carriers.filter((c) => c !== removed);
        const replicas = Math.min(s.replicas, carriers.length);
        const after = run({ ...s, carriers, replicas }, s.orders);
        expect(moved(s, after).sort()).toEqual(s.vips.filter((a) => s.orders[a]?.[0] === removed).sort());
        expect(problems(after)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });

  it("changes nothing when the nodes are reordered, and nothing when carried forward again", () => {
    fc.assert(
      fc.property(arbState, fc.nat(), (s, seed) => {
        expect(run({ ...s, carriers: shuffled(s.carriers, seed) }, s.orders).orders).toEqual(s.orders);
        expect(run(s, s.orders).orders).toEqual(s.orders);
      }),
      { numRuns: RUNS },
    );
  });

  it("gives new VIPs to the least loaded and drops removed ones", () => {
    fc.assert(
      fc.property(arbState, fc.integer({ min: 1, max: 5 }), (s, extra) => {
        const vips = [...s.vips.slice(1), ...Array.from({ length: extra }, (_, k) => address(40_000 + k))].slice(
          0,
          MAX_V,
        );
        const after = run({ ...s, vips }, s.orders);
        expect(Object.keys(after.orders)).not.toContain(s.vips[0]);
        expect(problems(after)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
