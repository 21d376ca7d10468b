// Overlays: RFC 7386 merge patch semantics, globs over artifact paths, and what applyOverlays refuses or warns about.
import {
  type Artifact,
  applyOverlays,
  blameOverlay,
  formatIssues,
  mergePatch,
  parseYamlDocuments,
} from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { globMatches } from "../src/overlay/glob.js";

const arbKey = fc.constantFrom("a", "b", "c", "d", "e");
const arbScalar = fc.oneof(fc.integer(), fc.string({ maxLength: 4 }), fc.boolean());
const { doc: arbDoc } = fc.letrec<{ doc: unknown }>((tie) => ({
  doc: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    arbScalar,
    fc.array(tie("doc"), { maxLength: 3 }),
    fc.dictionary(arbKey, tie("doc"), { maxKeys: 4 }),
  ),
}));
const arbPatchValue: fc.Arbitrary<unknown> = fc.oneof(arbDoc, fc.constant(null));
const arbPatch = fc.dictionary(arbKey, fc.oneof(arbPatchValue, fc.dictionary(arbKey, arbPatchValue, { maxKeys: 3 })), {
  maxKeys: 4,
});
const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

describe("mergePatch (RFC 7386)", () => {
  it("deletes keys patched with null, replaces scalars and arrays, merges objects, keeps other keys", () => {
    fc.assert(
      fc.property(arbDoc, arbPatch, (target, patch) => {
        const before = structuredClone(target);
        const out = mergePatch(target, patch) as Record<string, unknown>;
        expect(target).toEqual(before); // never mutates
        expect(isMap(out)).toBe(true);
        for (const [k, v] of Object.entries(patch)) {
          if (v === null) expect(k in out).toBe(false);
          else if (!isMap(v)) expect(out[k]).toEqual(v);
          else expect(out[k]).toEqual(mergePatch(isMap(target) ? target[k] : undefined, v));
        }
        if (isMap(target)) for (const [k, v] of Object.entries(target)) if (!(k in patch)) expect(out[k]).toEqual(v);
      }),
      { numRuns: 300 },
    );
  });

  it("is idempotent and leaves no null behind", () => {
    fc.assert(
      fc.property(arbDoc, arbPatch, (target, patch) => {
        const once = mergePatch(target, patch);
        expect(mergePatch(once, patch)).toEqual(once);
        expect(JSON.stringify(once)).not.toMatch(/:null/);
      }),
      { numRuns: 200 },
    );
  });

  it("follows the examples of RFC 7386 appendix A", () => {
    expect(mergePatch({ a: "b" }, { a: "c" })).toEqual({ a: "c" });
    expect(mergePatch({ a: "b" }, { b: "c" })).toEqual({ a: "b", b: "c" });
    expect(mergePatch({ a: "b" }, { a: null })).toEqual({});
    expect(mergePatch({ a: [{ b: "c" }] }, { a: [1] })).toEqual({ a: [1] });
    expect(mergePatch(["a", "b"], ["c", "d"])).toEqual(["c", "d"]);
    expect(mergePatch({ a: "foo" }, "bar")).toEqual("bar");
    expect(mergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(mergePatch([1, 2], { a: "b", c: null })).toEqual({ a: "b" });
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });
});

describe("globs over artifact paths", () => {
  it("keep * and ? within one folder and let ** span folders", () => {
    expect(globMatches("nodes/*/kubeadm.yaml", "nodes/k8s-1/kubeadm.yaml")).toBe(true);
    expect(globMatches("nodes/*/kubeadm.yaml", "nodes/k8s-1/etc/kubeadm.yaml")).toBe(false);
    expect(globMatches("nodes/**/net", "nodes/k8s-1/etc/conf.d/net")).toBe(true);
    expect(globMatches("cloud/terraform/*.tf.json", "cloud/terraform/pool-ci.tf.json")).toBe(true);
    expect(globMatches("nodes/k8s-?/kubeadm.yaml", "nodes/k8s-12/kubeadm.yaml")).toBe(false);
    expect(globMatches("cluster/cilium-values.yaml", "cluster/cilium-valuesXyaml")).toBe(false);
  });
});

const kubeadm = (node: string, kinds: string[]): Artifact => ({
  path: `nodes/${node}/kubeadm.yaml`,
  content: `# marker\n${kinds.map((k) => `apiVersion: v\nkind: ${k}\nspec:\n  a: 1\n`).join("---\n")}`,
  schema: "kubeadm",
});
const artifacts: Artifact[] = [
  kubeadm("n1", ["InitConfiguration", "ClusterConfiguration"]),
  kubeadm("n2", ["JoinConfiguration"]),
  { path: "nodes/n1/etc/keepalived/keepalived.conf", content: "vrrp_instance x {}\n" },
  { path: "cloud/terraform/a.tf.json", content: '{\n  "resource": {}\n}\n', schema: "terraform-aws" },
];

describe("applyOverlays", () => {
  it("patches the named document, keeps the header comment and reports what each overlay changed", () => {
    const r = applyOverlays(artifacts, [
      { target: "nodes/*/kubeadm.yaml", document: "ClusterConfiguration", patch: { spec: { b: "x" } } },
      { target: "cloud/terraform/*.tf.json", patch: { output: { o: { value: 1 } } } },
    ]);
    expect(r.errors).toEqual([]);
    const n1 = r.artifacts[0] as Artifact;
    expect(n1.content.startsWith("# marker\napiVersion: v\n")).toBe(true);
    expect(parseYamlDocuments(n1.content)[1]).toEqual({
      apiVersion: "v",
      kind: "ClusterConfiguration",
      spec: { a: 1, b: "x" },
    });
    expect(r.artifacts[1]).toBe(artifacts[1]);
    expect(JSON.parse((r.artifacts[3] as Artifact).content)).toEqual({ output: { o: { value: 1 } }, resource: {} });
    expect(r.changed.map((c) => c.files)).toEqual([["nodes/n1/kubeadm.yaml"], ["cloud/terraform/a.tf.json"]]);
    expect(blameOverlay(r.applied.get("nodes/n1/kubeadm.yaml"), 1, ["spec", "b", "c"])).toEqual([
      "overlays",
      0,
      "patch",
      "spec",
      "b",
    ]);
    expect(blameOverlay(r.applied.get("nodes/n1/kubeadm.yaml"), 0, ["spec", "b"])).toBeUndefined();
  });

  it("warns when an overlay changes or deletes a value clusterspec derived", () => {
    const r = applyOverlays(artifacts, [{ target: "nodes/n2/kubeadm.yaml", patch: { spec: { a: 2 }, kind: null } }]);
    expect(formatIssues(r.warnings)).toMatchInlineSnapshot(`
      "⚠ overlay deletes a value clusterspec derived: nodes/n2/kubeadm.yaml /kind was "JoinConfiguration"
        → at overlays[0].patch.kind
      ⚠ overlay changes a value clusterspec derived: nodes/n2/kubeadm.yaml /spec/a was 1, now 2
        → at overlays[0].patch.spec.a"
    `);
  });

  it("refuses a target that matches nothing, a line-format file, a multi-document file without document, a missing kind", () => {
    const r = applyOverlays(artifacts, [
      { target: "nodes/*/kubeadm.yml", patch: { a: 1 } },
      { target: "nodes/*/etc/keepalived/keepalived.conf", patch: { a: 1 } },
      { target: "nodes/n1/kubeadm.yaml", patch: { a: 1 } },
      { target: "nodes/*/kubeadm.yaml", document: "KubeletConfiguration", patch: { a: 1 } },
    ]);
    expect(formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ overlay target nodes/*/kubeadm.yml matches no generated file (paths look like nodes/<node>/kubeadm.yaml, cluster/cilium-values.yaml, cloud/<pool>/user-data.yaml, cloud/terraform/<name>.tf.json)
        → at overlays[0].target
      ✖ overlay target nodes/*/etc/keepalived/keepalived.conf matches nodes/n1/etc/keepalived/keepalived.conf, which is not a YAML/JSON file with an upstream schema and cannot be patched: set controlPlane, vrrp and externalVips instead
        → at overlays[1].target
      ✖ nodes/n1/kubeadm.yaml holds 2 documents (InitConfiguration, ClusterConfiguration): name the one to patch with document
        → at overlays[2].target
      ✖ no file matching nodes/*/kubeadm.yaml holds a KubeletConfiguration document
        → at overlays[3].document"
    `);
  });
});
