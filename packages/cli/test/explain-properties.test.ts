// explain's two promises over random valid specs, with changes explain's own perturbations did not choose: take a
// random valid spec A and another, B; give one field of A (present in both, defaults included) B's value; if A stays
// valid, generate both. Complete: a line that changed lists that field (or a path inside it, or one it is inside).
// Sound: a line that does not list it did not change. A field explain reports as unmeasured (it found no other valid
// value for it) is exempt, and counted: the report says so to the user.
import { isDeepStrictEqual } from "node:util";
import { arbClusterSpec } from "@clusterspec/core/testing";
import { type Artifact, explain, generate, validateSpec } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { changedLines, linesOf } from "../src/provenance.js";
import { type Path, primitives, setAt } from "./spec-fields.js";

/** `nodes[1].name` as explain prints it. */
const dot = (path: Path) => path.map((s, i) => (typeof s === "number" ? `[${s}]` : i === 0 ? s : `.${s}`)).join("");

/** One path is the other, or inside it. */
const related = (a: string, b: string) =>
  a === b ||
  (a.startsWith(b) && ".[".includes(a[b.length] ?? "")) ||
  (b.startsWith(a) && ".[".includes(b[a.length] ?? ""));

const small = { maxWorkers: 2, maxPool: 5 };

interface Case {
  readonly a: unknown;
  readonly path: string;
  readonly before: readonly Artifact[];
  /** By file of A: the lines (0-based) the change alters. */
  readonly changed: ReadonlyMap<string, Set<number>>;
}

/** A with one field set to B's value, both generated; undefined when no field differs or A is then not valid. */
function caseOf(a0: unknown, b0: unknown, pick: number): Case | undefined {
  const a = validateSpec(a0 as never);
  const b = validateSpec(b0 as never);
  if (!a.ok || !b.ok) return undefined;
  const inB = new Map(primitives(b.value).map((p) => [dot(p.path), p.value]));
  const differing = primitives(a.value).filter(
    (p) => inB.has(dot(p.path)) && !isDeepStrictEqual(inB.get(dot(p.path)), p.value),
  );
  if (differing.length === 0) return undefined;
  const field = differing[pick % differing.length] as { path: Path };
  const changedSpec = setAt(a.value, field.path, inB.get(dot(field.path)));
  const before = generate(a.value as never);
  const after = generate(changedSpec as never);
  if (!before.ok || !after.ok) return undefined; // not valid with B's value: nothing to explain
  const afterByPath = new Map(after.artifacts.map((f) => [f.path, f.content]));
  const changed = new Map<string, Set<number>>();
  for (const f of before.artifacts) {
    const other = afterByPath.get(f.path);
    if (other === f.content) continue;
    changed.set(f.path, changedLines(linesOf(f.content), other === undefined ? undefined : linesOf(other)));
  }
  return { a: a.value, path: dot(field.path), before: before.artifacts, changed };
}

/** Whether explain lists `path` (or a related one) for `line` of `file`, or reports the field unmeasured. */
function listed(c: Case, file: string, line: number): "listed" | "not listed" | "unmeasured" {
  const r = explain(c.a as never, { file, line: line + 1 });
  if (!r.ok) throw new Error(JSON.stringify(r).slice(0, 500));
  const sources = r.lines[0]?.sources ?? [];
  if (sources.some((s) => related(s.path, c.path))) return "listed";
  return r.unmeasured.some((u) => related(u, c.path)) ? "unmeasured" : "not listed";
}

describe("explain's provenance over random specs and random single-field changes", () => {
  const tally = { checked: 0, unmeasured: 0 };

  it("is complete: every line that changes lists the changed field", () => {
    fc.assert(
      fc.property(
        arbClusterSpec(small),
        arbClusterSpec(small),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (a, b, pickField, pickFile, pickLine) => {
          const c = caseOf(a, b, pickField);
          fc.pre(c !== undefined && c.changed.size > 0);
          if (!c) return;
          const files = [...c.changed.keys()].sort();
          const file = files[pickFile % files.length] as string;
          const lines = [...(c.changed.get(file) ?? [])].sort((x, y) => x - y);
          // two changed lines of the file: one picked at random and the first
          for (const line of new Set([lines[pickLine % lines.length] as number, lines[0] as number])) {
            const outcome = listed(c, file, line);
            tally.checked++;
            if (outcome === "unmeasured") tally.unmeasured++;
            else expect(outcome, `${file}:${line + 1} changes with ${c.path}`).toBe("listed");
          }
        },
      ),
      { numRuns: 6, maxSkipsPerRun: 200, endOnFailure: true },
    );
    // every run checked a line, and exempt fields stay the exception
    expect(tally.checked).toBeGreaterThanOrEqual(6);
    expect(tally.unmeasured).toBeLessThanOrEqual(tally.checked / 2);
  });

  it("is sound: a line that does not list the changed field did not change", () => {
    fc.assert(
      fc.property(
        arbClusterSpec(small),
        arbClusterSpec(small),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        fc.boolean(),
        (a, b, pickField, pickFile, pickLine, fromChanged) => {
          const c = caseOf(a, b, pickField);
          fc.pre(c !== undefined);
          if (!c) return;
          // half the time a file the change alters, else any file of A's tree
          const files = (
            fromChanged && c.changed.size > 0 ? [...c.changed.keys()] : c.before.map((f) => f.path)
          ).sort();
          const file = files[pickFile % files.length] as string;
          const count = linesOf(c.before.find((f) => f.path === file)?.content ?? "").length;
          const line = pickLine % count;
          if (listed(c, file, line) === "not listed")
            expect(c.changed.get(file)?.has(line) ?? false, `${file}:${line + 1} does not list ${c.path}`).toBe(false);
        },
      ),
      { numRuns: 6, maxSkipsPerRun: 200, endOnFailure: true },
    );
  });
});
