// Properties of the change plan over random valid clusters and random changes: never two control planes down in
// one step, a readiness check after each step that takes a control plane down, steps numbered in order; and the
// structural diff's edits each apply alone and revert alone.

import { type ArtifactBlock, blockArtifact, linePart, resolvePlan, sameContent } from "@clusterspec/core";
import { arbClusterSpec, mustValidate } from "@clusterspec/core/testing";
import type { ClusterSpec } from "@clusterspec/core/types";
import { renderArtifacts } from "clusterspec";
import { diffArrays } from "diff";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planChanges, type TreeSide } from "../src/index.js";
import { blockDelta, fileDelta, type LineDelta, lineDelta, lineTable } from "../src/lines.js";
import { applyEdit, deepEqual, diffSpecs, revertEdit } from "../src/spec-diff.js";

type Mutable = Record<string, any>;

function tree(spec: ClusterSpec): TreeSide | undefined {
  const plan = resolvePlan(spec, { sourceName: "cluster.yaml" });
  if (!("nodes" in plan)) return undefined;
  const rendered = renderArtifacts(plan);
  return rendered.errors.length > 0 ? undefined : { spec, plan, artifacts: rendered.artifacts };
}

/** One change an operator makes on day 2, applied to a copy of the spec input. */
const CHANGES: Record<string, (s: Mutable, pick: number) => void> = {
  certSAN: (s) => {
    s.kubernetes.apiServer = { ...s.kubernetes.apiServer, certSANs: ["api.example.com"] };
  },
  apiserverFlag: (s) => {
    s.kubernetes.apiServer = { ...s.kubernetes.apiServer, extraArgs: { "audit-log-maxage": "7" } };
  },
  schedulerFlag: (s) => {
    s.kubernetes.scheduler = { extraArgs: { v: "2" } };
  },
  etcdFlag: (s) => {
    s.kubernetes.etcd = { extraArgs: { "snapshot-count": "5000" } };
  },
  kubelet: (s) => {
    s.kubernetes.kubelet = { maxPods: 150 };
  },
  label: (s, pick) => {
    const n = s.nodes[pick % s.nodes.length];
    n.labels = { ...n.labels, zone: "b" };
  },
  taint: (s, pick) => {
    const n = s.nodes[pick % s.nodes.length];
    n.taints = [{ key: "dedicated", value: "infra", effect: "NoSchedule" }];
  },
  removeWorker: (s) => {
    const i = s.nodes.findLastIndex((n: Mutable) => !n.roles.includes("control-plane"));
    if (i >= 0) s.nodes.splice(i, 1);
  },
  ciliumValues: (s) => {
    s.cilium.values = { debug: { enabled: true } };
  },
};

describe("the change plan", () => {
  it("never takes two control planes down in one step, and checks readiness after each one it takes down", () => {
    let tookControlPlanesDown = 0;
    fc.assert(
      fc.property(
        arbClusterSpec({ maxWorkers: 3, maxPool: 6, cloud: false }),
        fc.subarray(Object.keys(CHANGES), { minLength: 1, maxLength: 4 }),
        fc.nat(),
        (input, kinds, pick) => {
          const changed = structuredClone(input) as Mutable;
          for (const k of kinds) CHANGES[k]?.(changed, pick);
          const old = tree(mustValidate(input));
          let next: TreeSide | undefined;
          try {
            next = tree(mustValidate(changed));
          } catch {
            return; // the change made this random spec invalid (e.g. a removed worker carried the last VIPs)
          }
          if (!old || !next) return;
          const plan = planChanges(old, next);
          const controlPlanes = new Set(
            [...old.plan.nodes, ...next.plan.nodes].filter((n) => n.controlPlane).map((n) => n.name),
          );
          expect(plan.steps.map((s) => s.index)).toEqual(plan.steps.map((_, i) => i + 1));
          for (const step of plan.steps) {
            const down = (step.down ?? []).filter((n) => controlPlanes.has(n));
            expect(down.length, step.title).toBeLessThanOrEqual(1);
            // a step that takes a node down runs on that node
            for (const n of step.down ?? []) expect(step.node).toBe(n);
            if (down.length > 0) expect(step.waitFor, step.title).toBeDefined();
          }
          if (plan.steps.some((s) => (s.down ?? []).some((n) => controlPlanes.has(n)))) tookControlPlanesDown++;
          // the control-plane components are regenerated on every control plane that stays, each in its own step
          if (kinds.includes("apiserverFlag")) {
            const cpSteps = plan.steps.filter(
              (s) => s.kind === "kubeadm" && s.commands.some((c) => c.includes("control-plane apiserver")),
            );
            expect(cpSteps.map((s) => s.node).sort()).toEqual(
              next.plan.nodes
                .filter((n) => n.controlPlane)
                .map((n) => n.name)
                .sort(),
            );
          }
        },
      ),
      { numRuns: 30 },
    );
    // not vacuous: most runs restart control-plane components
    expect(tookControlPlanesDown).toBeGreaterThan(10);
  });
});

const arbJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    fc.integer({ min: 0, max: 3 }),
    fc.constantFrom("a", "b"),
    fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom("x", "y", "z"), tie("value"), { maxKeys: 3 }),
    fc
      .uniqueArray(fc.constantFrom("n1", "n2", "n3", "n4"), { maxLength: 4 })
      .chain((names) =>
        fc.tuple(...names.map((name) => fc.record({ name: fc.constant(name), v: fc.integer({ min: 0, max: 2 }) }))),
      ),
  ),
})).value;

describe("the structural diff", () => {
  it("has no edit for equal values, and each edit of a single-change pair applies and reverts exactly", () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.constantFrom("p", "q", "r"), arbJson, { maxKeys: 3 }),
        fc.dictionary(fc.constantFrom("p", "q", "r"), arbJson, { maxKeys: 3 }),
        (a, b) => {
          expect(diffSpecs(a, a)).toEqual([]);
          const edits = diffSpecs(a, b);
          if (edits.length === 1 && edits[0]) {
            expect(deepEqual(applyEdit(a, edits[0]), b)).toBe(true);
            expect(deepEqual(revertEdit(b, edits[0]), a)).toBe(true);
          }
          if (edits.length === 0) expect(deepEqual(a, b)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("matches named items by name: an appended node is one insertion, a new order one reorder", () => {
    const a = { nodes: [{ name: "k1" }, { name: "k2" }] };
    expect(diffSpecs(a, { nodes: [{ name: "k1" }, { name: "k2" }, { name: "k3" }] })).toEqual([
      { kind: "insert", newPath: ["nodes", 2], new: { name: "k3" } },
    ]);
    expect(diffSpecs(a, { nodes: [{ name: "k2" }, { name: "k1" }] })).toEqual([
      { kind: "reorder", oldPath: ["nodes"], newPath: ["nodes"], old: ["k1", "k2"], new: ["k2", "k1"] },
    ]);
    expect(diffSpecs(a, { nodes: [{ name: "k2" }] })).toEqual([
      { kind: "remove", oldPath: ["nodes", 0], old: { name: "k1" } },
    ]);
  });
});

describe("the line delta", () => {
  it("finds every added and removed line, in the new and old numbering", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 }),
        fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 30 }),
        (x, y) => {
          const text = (l: string[]) => (l.length === 0 ? "" : `${l.join("\n")}\n`);
          const d = lineDelta(text(x), text(y));
          // what is neither removed nor added is a common subsequence, kept in order
          const keptOld = x.filter((_, i) => !d.removed.includes(i + 1));
          const keptNew = y.filter((_, i) => !d.added.includes(i + 1));
          expect(keptOld).toEqual(keptNew);
          if (x.join() === y.join()) expect(d).toEqual({ added: [], removed: [] });
        },
      ),
      { numRuns: 300 },
    );
  });

  // The reference: lineDelta as it was before the shortcuts (trim the common head and tail, Myers within 64
  // edits, else the multiset over the whole middles). Skipping Myers when the multiset alone already shows more
  // than 64 edits must never change the answer; pairing lines in step before the multiset (align) may change which
  // occurrences of a repeated text count as the unmatched ones, never how many of each text, nor that the lines
  // left are the same texts on both sides.
  const reference = (oldText: string, newText: string): LineDelta & { multiset: boolean } => {
    const lines = (t: string) => (t === "" ? [] : t.slice(0, -1).split("\n"));
    const a = lines(oldText);
    const b = lines(newText);
    let head = 0;
    while (head < a.length && head < b.length && a[head] === b[head]) head++;
    let tail = 0;
    while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail])
      tail++;
    const am = a.slice(head, a.length - tail);
    const bm = b.slice(head, b.length - tail);
    const range = (from: number, n: number) => Array.from({ length: n }, (_, k) => from + k + 1);
    if (am.length === 0 || bm.length === 0)
      return { added: range(head, bm.length), removed: range(head, am.length), multiset: false };
    const changes = diffArrays(am, bm, { maxEditLength: 64 });
    if (changes === undefined) {
      // the multiset as it was written first: one count table per side, each side's first occurrences matched
      const unmatched = (from: readonly string[], against: readonly string[]) => {
        const count = new Map<string, number>();
        for (const l of against) count.set(l, (count.get(l) ?? 0) + 1);
        return from.flatMap((l, k) => {
          const c = count.get(l) ?? 0;
          count.set(l, c - 1);
          return c > 0 ? [] : [head + k + 1];
        });
      };
      return { added: unmatched(bm, am), removed: unmatched(am, bm), multiset: true };
    }
    const added: number[] = [];
    const removed: number[] = [];
    let i = head;
    let j = head;
    for (const c of changes) {
      const n = c.count ?? c.value.length;
      for (let k = 0; k < n; k++) {
        if (c.added) added.push(++j);
        else if (c.removed) removed.push(++i);
        else {
          i++;
          j++;
        }
      }
    }
    return { added, removed, multiset: false };
  };
  const lines = (l: readonly string[], at: readonly number[]) => at.map((n) => l[n - 1]).sort();
  const expectReference = (x: readonly string[], y: readonly string[]) => {
    const text = (l: readonly string[]) => (l.length === 0 ? "" : `${l.join("\n")}\n`);
    const d = lineDelta(text(x), text(y));
    const { multiset, ...ref } = reference(text(x), text(y));
    if (!multiset) {
      expect(d).toEqual(ref);
      return;
    }
    expect(lines(y, d.added)).toEqual(lines(y, ref.added));
    expect(lines(x, d.removed)).toEqual(lines(x, ref.removed));
    const kept = (l: readonly string[], flagged: readonly number[]) =>
      l.filter((_, i) => !flagged.includes(i + 1)).sort();
    expect(kept(x, d.removed)).toEqual(kept(y, d.added));
    for (const [l, flagged] of [
      [x, d.removed],
      [y, d.added],
    ] as const) {
      expect([...flagged].sort((m, n) => m - n)).toEqual(flagged);
      expect(new Set(flagged).size).toBe(flagged.length);
      expect(flagged.every((n) => Number.isInteger(n) && n >= 1 && n <= l.length)).toBe(true);
    }
  };
  it("answers as the bounded Myers diff would, with the multiset when that diff gives up", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 120 }),
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { maxLength: 120 }),
        (x, y) => expectReference(x, y),
      ),
      { numRuns: 300 },
    );
    // Two long unrelated files: past 64 edits, the multiset's answer (which occurrences of a repeated text count as
    // the unmatched ones) must be the two-table one's.
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { minLength: 200, maxLength: 400 }),
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { minLength: 200, maxLength: 400 }),
        (x, y) => expectReference(x, y),
      ),
      { numRuns: 60 },
    );
    // A long file with a few edits (the common case: a priority or a name changed in a keepalived.conf): the answer
    // of the cheap first search (8 edits) must be the 64-edit search's, past it and at its boundary.
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f"), { minLength: 1, maxLength: 200 }),
        fc.array(
          fc.record({
            at: fc.nat(),
            kind: fc.constantFrom("insert", "delete", "replace"),
            text: fc.constantFrom("a", "g"),
          }),
          { maxLength: 14 },
        ),
        (x, edits) => {
          const y: string[] = [...x];
          for (const e of edits) {
            const at = e.at % (y.length + 1);
            if (e.kind === "insert") y.splice(at, 0, e.text);
            else if (at < y.length) y.splice(at, 1, ...(e.kind === "replace" ? [e.text] : []));
          }
          expectReference(x, y);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers as the reference on files of repeated blocks with a line changed in many and whole blocks moved", () => {
    // The shape align is for (a keepalived.conf: instance blocks alike but for a name, a priority): most blocks
    // with one line replaced, some removed and some inserted, so the walk in step must find its offsets.
    fc.assert(
      fc.property(
        fc.integer({ min: 20, max: 60 }),
        fc.array(fc.record({ kind: fc.constantFrom("keep", "priority", "drop", "insert"), priority: fc.nat(4) }), {
          minLength: 20,
          maxLength: 60,
        }),
        (count, edits) => {
          const block = (id: number, priority: number) => [
            `# block ${id}`,
            `instance ${id} {`,
            "    state BACKUP",
            `    priority ${priority}`,
            "}",
            "",
          ];
          const x = Array.from({ length: count }, (_, id) => block(id, id % 5)).flat();
          const y = Array.from({ length: count }, (_, id) => {
            const e = edits[id % edits.length] ?? { kind: "keep", priority: 0 };
            if (e.kind === "drop") return [];
            if (e.kind === "priority") return block(id, e.priority);
            if (e.kind === "insert") return [...block(1000 + id, e.priority), ...block(id, id % 5)];
            return block(id, id % 5);
          }).flat();
          expectReference(x, y);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("answers the same with one count table shared by many files (planChanges') as with a fresh one each", () => {
    // planChanges passes one table to every file's delta: a call must leave it as it found it (every count at zero),
    // whatever texts the earlier files had, including the ones skipped before the multiset (few edits, or none left
    // in the middle once the common head and tail are off).
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h"), { maxLength: 200 }),
            fc.array(fc.constantFrom("a", "b", "c", "d", "e", "f", "g", "h", "i"), { maxLength: 200 }),
          ),
          { minLength: 1, maxLength: 8 },
        ),
        (files) => {
          const text = (l: string[]) => (l.length === 0 ? "" : `${l.join("\n")}\n`);
          const table = lineTable();
          for (const [x, y] of files) expect(lineDelta(text(x), text(y), table)).toEqual(lineDelta(text(x), text(y)));
          expect(table.counts.every((c) => c === 0)).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });

  // Its cost is measured in `pnpm bench` (changes on 300 × 254), never timed here.
  it("answers a file rewritten throughout (a multiset past the edit bound)", () => {
    const old = Array.from({ length: 20000 }, (_, i) => `priority ${i % 250}`).join("\n");
    // every line changes (0..249 → 1..250): far past Myers' bound; the texts that appear and vanish are found
    const next = Array.from({ length: 20000 }, (_, i) => `priority ${(i % 250) + 1}`).join("\n");
    const d = lineDelta(`${old}\nend\n`, `${next}\nend\n`);
    expect(d.added).toEqual(Array.from({ length: 80 }, (_, k) => 250 * k + 250));
    expect(d.removed).toEqual(Array.from({ length: 80 }, (_, k) => 250 * k + 1));
  });
});

describe("the block delta", () => {
  // Blocks as keepalived's renderer makes them: a key per block, each part whole lines, parts repeated across blocks
  // and files (so the per-table cache of part deltas is exercised).
  const arbPart = fc
    .array(fc.constantFrom("}", "", "state BACKUP", "priority 1", "priority 2", "# comment"), {
      minLength: 1,
      maxLength: 4,
    })
    .map((lines) => linePart(`${lines.join("\n")}\n`));
  const arbBlocks = fc
    .uniqueArray(
      fc.record({ key: fc.constantFrom("#head", "a", "b", "c", "d", "e"), parts: fc.array(arbPart, { maxLength: 3 }) }),
      {
        selector: (b) => b.key,
        maxLength: 6,
      },
    )
    .map((blocks): ArtifactBlock[] => blocks);
  const text = (blocks: readonly ArtifactBlock[]) => blocks.map((b) => b.parts.join("")).join("");
  const lines = (t: string) => (t === "" ? [] : t.slice(0, -1).split("\n"));

  it("is a line delta of the joined texts: what it keeps is equal and in order, numbered in each file", () => {
    fc.assert(
      fc.property(arbBlocks, arbBlocks, (x, y) => {
        const d = blockDelta(x, y, lineTable());
        const a = lines(text(x));
        const b = lines(text(y));
        for (const [found, length] of [
          [d.removed, a.length],
          [d.added, b.length],
        ] as const) {
          expect([...found].sort((m, n) => m - n)).toEqual(found);
          expect(new Set(found).size).toBe(found.length);
          expect(found.every((l) => l >= 1 && l <= length)).toBe(true);
        }
        expect(a.filter((_, i) => !d.removed.includes(i + 1))).toEqual(b.filter((_, i) => !d.added.includes(i + 1)));
        // the same text cut into other blocks is no change (fileDelta asks sameContent first)
        if (text(x) === text(y))
          expect(fileDelta(blockArtifact("f", x), blockArtifact("f", y))).toEqual({ added: [], removed: [] });
      }),
      { numRuns: 500 },
    );
  });

  it("leaves a block that is the same on both sides, in the same order of keys, untouched", () => {
    fc.assert(
      fc.property(arbBlocks, fc.array(fc.option(arbPart, { nil: undefined }), { maxLength: 6 }), (x, edits) => {
        // y: x with some parts of some blocks replaced, same keys in the same order
        const y = x.map((block, i) => {
          const e = edits[i];
          return e === undefined || block.parts.length === 0
            ? block
            : { ...block, parts: [e, ...block.parts.slice(1)] };
        });
        const d = blockDelta(x, y, lineTable());
        let oldLine = 0;
        let newLine = 0;
        x.forEach((block, i) => {
          const n = lines(block.parts.join("")).length;
          const m = lines((y[i] as ArtifactBlock).parts.join("")).length;
          if (block.parts.join("") === (y[i] as ArtifactBlock).parts.join("")) {
            for (let k = 1; k <= n; k++) {
              expect(d.removed).not.toContain(oldLine + k);
              expect(d.added).not.toContain(newLine + k);
            }
          }
          oldLine += n;
          newLine += m;
        });
      }),
      { numRuns: 300 },
    );
  });

  it("answers the same with one table shared by many files as with a fresh one each, and as fileDelta", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(arbBlocks, arbBlocks), { minLength: 1, maxLength: 6 }), (files) => {
        const table = lineTable();
        for (const [x, y] of files) {
          const fresh = blockDelta(x, y, lineTable());
          expect(blockDelta(x, y, table)).toEqual(fresh);
          // fileDelta answers equal texts without their blocks: blocks of other keys around the same lines (seed
          // -2111948766: one "}" line keyed "#head", then "a") are a remove and an add to blockDelta, nothing to it
          const same = sameContent(blockArtifact("f", x), blockArtifact("f", y));
          const delta = fileDelta(blockArtifact("f", x), blockArtifact("f", y), table);
          expect(delta).toEqual(same ? { added: [], removed: [] } : fresh);
        }
        expect(table.counts.every((c) => c === 0)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it("diffs by text when either side has no blocks, and counts an added or removed file's lines from its blocks", () => {
    const blocks: ArtifactBlock[] = [
      { key: "#head", parts: ["global_defs {\n", "}\n"].map(linePart) },
      { key: "a", parts: ["vrrp_instance a {\n", "    priority 2\n", "}\n"].map(linePart) },
    ];
    const file = blockArtifact("f", blocks);
    const plain = { path: "f", content: "global_defs {\n}\nvrrp_instance a {\n    priority 3\n}\n" };
    expect(fileDelta(file, plain)).toEqual(lineDelta(file.content, plain.content));
    expect(fileDelta(undefined, file)).toEqual({ added: [1, 2, 3, 4, 5], removed: [] });
    expect(fileDelta(file, undefined)).toEqual({ added: [], removed: [1, 2, 3, 4, 5] });
  });
});
