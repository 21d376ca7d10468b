// docs/spec-reference.md (issue 31 item 6): every example on the page validates, each section's example fits its
// shape, and every field the page says is "required when …" is refused when missing in such a spec.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatIssues, validateSpec } from "@clusterspec/core";
import { CONDITIONALLY_REQUIRED, SPEC_SHAPES } from "@clusterspec/core/testing";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const reference = readFileSync(join(import.meta.dirname, "..", "docs", "spec-reference.md"), "utf8");
type Spec = Record<string, unknown>;

function mustValidate(spec: unknown, what: string): void {
  const r = validateSpec(spec);
  expect(r.ok ? "(valid)" : formatIssues(r.errors), what).toBe("(valid)");
}

const shapeByMarker = (marker: string | undefined) => {
  const shape = SPEC_SHAPES.find((s) => s.marker === marker);
  if (!shape) throw new Error(`no shape ${marker}`);
  return shape;
};

/** A copy of `spec` without the field at the dotted `path`. */
function without(spec: Spec, path: string): Spec {
  const copy = structuredClone(spec);
  const keys = path.split(".");
  let node: Spec = copy;
  for (const k of keys.slice(0, -1)) node = node[k] as Spec;
  expect((keys.at(-1) as string) in node, `${path} is set in the example`).toBe(true);
  delete node[keys.at(-1) as string];
  return copy;
}

describe.each(SPEC_SHAPES.map((s) => [s.title, s] as const))("%s", (_title, shape) => {
  const example = parse(shape.example) as Spec;

  it("its example validates and is of this shape", () => {
    mustValidate(example, "the shape's example");
    if (shape.marker) expect(Object.keys(example)).toContain(shape.marker);
    else expect(Object.keys(example)).not.toContain("existingCluster");
  });

  it.each(Object.entries(shape.sections))("the example of %s validates in place of the shape's", (key, snippet) => {
    const part = parse(snippet) as Spec;
    expect(Object.keys(part)).toEqual([key]);
    mustValidate({ ...example, ...part }, `section ${key}`);
  });

  it("shows every example on the page", () => {
    expect(reference).toContain(shape.example.trimEnd());
    for (const snippet of Object.values(shape.sections)) expect(reference).toContain(snippet.trimEnd());
  });
});

describe("fields a rule requires", () => {
  const cluster = parse(shapeByMarker(undefined).example) as Spec;
  const burst = parse(shapeByMarker("existingCluster").example) as Spec;
  const burstWithKeys = { ...burst, ...(parse(shapeByMarker("existingCluster").sections.cloud ?? "") as Spec) };
  /** For each: a valid spec of the kind "when …" names, which has the field. */
  const specs: Record<string, Spec> = {
    "kubernetes.secrets": cluster,
    "cloud.wireguard.hub": burstWithKeys,
    "cloud.wireguard.publicKey": burstWithKeys,
    "cloud.wireguard.endpoint": burstWithKeys,
  };

  it("has a spec to try for every field the page marks", () => {
    expect(Object.keys(specs).sort()).toEqual(CONDITIONALLY_REQUIRED.map((c) => c.path).sort());
  });

  it.each(CONDITIONALLY_REQUIRED.map((c) => [c.path, c] as const))("%s: refused when missing", (path, c) => {
    const spec = specs[path] as Spec;
    mustValidate(spec, `${path} present`);
    const r = validateSpec(without(spec, path));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const named = r.errors.filter((e) => e.path.join(".") === path || e.message.includes(path));
    expect(
      named.map((e) => e.message),
      formatIssues(r.errors),
    ).not.toEqual([]);
    expect(reference).toContain(`| \`${path}\` |`);
    expect(reference).toMatch(
      new RegExp(
        `\\| \`${path.replace(/\./g, "\\.")}\` \\|[^|]*\\| when ${c.when.slice(0, 20).replace(/[.*+?^${}()|[\]\\`]/g, "\\$&")}`,
      ),
    );
  });
});
