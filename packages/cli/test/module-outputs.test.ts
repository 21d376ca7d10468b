// A change plan generates its new tree only where the change reaches: ModuleOutputs (core/module.ts) hands a module
// the old tree's files when the module's inputs are unchanged. That is only right if the inputs are all the module
// reads (narrowedModule gives generateFrom nothing else) and sameInputs sees every difference. Checked here the way
// explain's properties are: a random valid spec A, one field of it set to another random spec's value, and the tree
// of A' rendered after A's through the same record must be the tree of A' rendered fresh, file for file.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { ModuleOutputs, resolvePlan, sameInputs, validateSpec } from "@clusterspec/core";
import { arbClusterSpec } from "@clusterspec/core/testing";
import type { Artifact, ClusterSpec } from "@clusterspec/core/types";
import { generatorModules } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { renderArtifacts } from "../src/generate.js";
import { type Path, primitives, setAt } from "./spec-fields.js";

const key = (path: Path) => JSON.stringify(path);

/** What a tree is, file by file: path, text, mode, secrecy. */
const files = (artifacts: readonly Artifact[]) =>
  artifacts.map((a) => ({ path: a.path, content: a.content, mode: a.mode, secret: a.secret === true }));

function render(spec: unknown, outputs?: ModuleOutputs): readonly Artifact[] | undefined {
  const validated = validateSpec(spec as never);
  if (!validated.ok) return undefined;
  const plan = resolvePlan(validated.value, { sourceName: "cluster.yaml" });
  return renderArtifacts(plan, generatorModules, outputs).artifacts;
}

describe("a tree rendered after another through ModuleOutputs", () => {
  it("is the tree rendered fresh, whichever field changed (and the record is used)", () => {
    let reused = 0;
    let cases = 0;
    fc.assert(
      fc.property(
        arbClusterSpec({ maxWorkers: 2, maxPool: 5 }),
        arbClusterSpec({ maxWorkers: 2, maxPool: 5 }),
        fc.nat(),
        (a0, b0, pick) => {
          const a = validateSpec(a0 as never);
          const b = validateSpec(b0 as never);
          if (!a.ok || !b.ok) return;
          const inB = new Map(primitives(b.value).map((p) => [key(p.path), p.value]));
          const differing = primitives(a.value).filter(
            (p) => inB.has(key(p.path)) && !isDeepStrictEqual(inB.get(key(p.path)), p.value),
          );
          const field = differing[pick % Math.max(1, differing.length)];
          const changed = field ? setAt(a.value, field.path, inB.get(key(field.path))) : a.value;
          const outputs = new ModuleOutputs();
          if (render(a.value, outputs) === undefined) return;
          const before = outputs.reused;
          const incremental = render(changed, outputs);
          const fresh = render(changed);
          if (fresh === undefined || incremental === undefined) return;
          cases++;
          reused += outputs.reused - before;
          expect(files(incremental), field ? key(field.path) : "no change").toEqual(files(fresh));
        },
      ),
      { numRuns: 60 },
    );
    // the property is about reuse: most single-field changes leave some module's inputs alone
    expect(cases).toBeGreaterThan(20);
    expect(reused).toBeGreaterThan(cases);
  });

  it("keeps keepalived's files, the same objects, when a worker is appended to the bare-metal example", () => {
    const text = readFileSync(
      fileURLToPath(new URL("../../../examples/bare-metal-ha/cluster.yaml", import.meta.url)),
      "utf8",
    );
    const spec = parse(text) as ClusterSpec & { nodes: Record<string, unknown>[] };
    const last = spec.nodes.at(-1) as Record<string, unknown>;
    const grown = parse(stringify(spec)) as typeof spec;
    grown.nodes.push({
      ...last,
      name: "k8s-4",
      roles: ["worker"],
      carriesExternalVips: false,
      interfaces: {
        wan0: { mac: "52:54:00:12:34:59", address: "10.118.10.23/24", gateway: "10.118.10.1" },
        wan1: { mac: "52:54:00:12:35:59", address: "10.118.12.23/24" },
      },
    });
    const outputs = new ModuleOutputs();
    const old = render(spec, outputs);
    const next = render(grown, outputs);
    expect(next?.some((a) => a.path.startsWith("nodes/k8s-4/"))).toBe(true);
    const keepalivedOf = (tree: readonly Artifact[] | undefined) =>
      (tree ?? []).filter((a) => a.path.includes("/etc/keepalived/") || a.path === "identities.json");
    expect(keepalivedOf(old).length).toBeGreaterThan(0);
    expect(keepalivedOf(next)).toEqual(keepalivedOf(old));
    expect(keepalivedOf(next).every((a, i) => a === keepalivedOf(old)[i])).toBe(true);
    // and a change keepalived reads is not reused: another advert interval
    const slower = parse(stringify(grown)) as typeof spec & { vrrp?: Record<string, unknown> };
    slower.vrrp = { ...(slower.vrrp ?? {}), advertInterval: 3 };
    const third = render(slower, outputs);
    expect(keepalivedOf(third).some((a) => a.content.includes("advert_int 3"))).toBe(true);
  });
});

describe("keepalived's blocks across two trees (the renderer's memo)", () => {
  it("keeps an instance block's parts, the same array, where only the file's head changed", () => {
    const text = readFileSync(
      fileURLToPath(new URL("../../../examples/bare-metal-ha/cluster.yaml", import.meta.url)),
      "utf8",
    );
    const spec = parse(text) as ClusterSpec & { controlPlane: { port: number } };
    const moved = { ...spec, controlPlane: { ...spec.controlPlane, port: 6444 } };
    const outputs = new ModuleOutputs();
    const old = render(spec, outputs) ?? [];
    const next = render(moved, outputs) ?? [];
    const confs = (tree: readonly Artifact[]) => tree.filter((a) => a.path.endsWith("/keepalived.conf"));
    expect(confs(next).length).toBeGreaterThan(0);
    for (const [k, file] of confs(next).entries()) {
      const before = confs(old)[k];
      if (!file.blocks || !before?.blocks) throw new Error("a multicast keepalived.conf comes in blocks");
      // the check script's port changed the module's inputs, so the file was generated again...
      expect(file).not.toBe(before);
      // ...but every instance block is the old one's, part for part
      const instances = file.blocks.filter((b) => b.key.startsWith("VI_"));
      expect(instances.length).toBeGreaterThan(0);
      for (const b of instances) expect(b.parts).toBe(before.blocks.find((x) => x.key === b.key)?.parts);
    }
    // and the tree is the one a fresh rendering gives
    expect(files(next)).toEqual(files(render(moved) ?? []));
  });
});

describe("sameInputs", () => {
  it("compares JSON-like values in depth, an undefined property as an absent one", () => {
    expect(sameInputs({ a: [1, { b: "x" }], c: undefined }, { a: [1, { b: "x" }] })).toBe(true);
    expect(sameInputs({ a: [1, { b: "x" }] }, { a: [1, { b: "y" }] })).toBe(false);
    expect(sameInputs({ a: [1, 2] }, { a: [1, 2, 3] })).toBe(false);
    expect(sameInputs({ a: 1 }, { a: 1, b: 2 })).toBe(false);
    expect(sameInputs({ a: 1, b: 2 }, { a: 1 })).toBe(false);
    expect(sameInputs([1], { 0: 1 })).toBe(false);
    expect(sameInputs(Number.NaN, Number.NaN)).toBe(true);
    expect(sameInputs(null, {})).toBe(false);
  });

  it("takes any other object as the same only when it is the same object", () => {
    const m = new Map([["a", 1]]);
    expect(sameInputs(m, m)).toBe(true);
    expect(sameInputs(new Map([["a", 1]]), new Map([["a", 2]]))).toBe(false);
    expect(sameInputs(new Set([1]), new Set([1]))).toBe(false);
    class Point {
      constructor(readonly x: number) {}
    }
    expect(sameInputs(new Point(1), new Point(1))).toBe(false);
  });

  it("is property-true for equal copies and false after any one primitive changes", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.nat(), (value, pick) => {
        expect(sameInputs(value, structuredClone(value))).toBe(true);
        const leaves = primitives(value).filter((p) => p.path.length > 0);
        const leaf = leaves[pick % Math.max(1, leaves.length)];
        if (leaf === undefined) return;
        const other = setAt(value, leaf.path, typeof leaf.value === "string" ? `${leaf.value}!` : "changed");
        expect(sameInputs(value, other)).toBe(false);
      }),
    );
  });
});
