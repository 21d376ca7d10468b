// The runtime schema checks: Cilium's chart made strict (with did-you-mean), the nearest stored chart, kubeadm strict.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadArtifactChecker } from "@clusterspec/schemas";
import { chartVersions, commentedKeys, loadCiliumChart, nearestChart } from "@clusterspec/schemas/cilium";
import { checkKubernetesDocuments } from "@clusterspec/schemas/kubernetes";
import { describe, expect, it } from "vitest";

const data = join(import.meta.dirname, "..", "data");

describe("embedded chart values", () => {
  // src/generated/cilium-<version>-values.ts is written by `pnpm codegen` (packages/cli/test/generated-sources.test.ts)
  it.each(chartVersions)("src/generated holds data/cilium/%s/values.yaml byte for byte", async (v) => {
    const embedded = (await import(`../src/generated/cilium-${v}-values.ts`)).default;
    expect(embedded, "stale: run pnpm codegen").toBe(readFileSync(join(data, "cilium", v, "values.yaml"), "utf8"));
  });

  it("finds the keys values.yaml documents only in comments", async () => {
    const keys = commentedKeys(readFileSync(join(data, "cilium", "1.20.0", "values.yaml"), "utf8"));
    for (const k of ["loadBalancer.mode", "loadBalancer.dsrDispatch"]) expect(keys.has(k), k).toBe(true);
    // keys that exist uncommented, and helm-schema annotations (`# type: [null, string]`), are not listed
    for (const k of ["l7Proxy", "type"]) expect(keys.has(k), k).toBe(false);
  });
});

describe("Cilium values, strictly", () => {
  it("accept keys of the schema, of values.yaml and of its comments, and label-keyed maps", async () => {
    const chart = await loadCiliumChart("1.20.0");
    expect(
      chart.check({
        l7Proxy: false,
        loadBalancer: { mode: "dsr", algorithm: "maglev" },
        hubble: { relay: { enabled: true } },
        nodeSelector: { "example.com/pool": "infra" },
      }),
    ).toEqual([]);
  });

  it.each(chartVersions)(
    "accept keys only the %s chart's templates read (nodePort.directRoutingDevice, issue 33), not their typos",
    async (v) => {
      const chart = await loadCiliumChart(v);
      // cilium-configmap.yaml: {{- if hasKey .Values.nodePort "directRoutingDevice" }}; neither schema nor values.yaml
      const schema = JSON.parse(readFileSync(join(data, "cilium", v, "values.schema.json"), "utf8"));
      expect(schema.properties.nodePort.properties.directRoutingDevice).toBeUndefined();
      expect(chart.check({ nodePort: { directRoutingDevice: "bond0" } })).toEqual([]);
      expect(chart.check({ nodePort: { directRoutingDevise: "bond0" } })).toEqual([
        {
          document: 0,
          pointer: ["nodePort", "directRoutingDevise"],
          message: `unknown key nodePort.directRoutingDevise: not in the Cilium ${v} chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean nodePort.directRoutingDevice?`,
        },
      ]);
      // read only by templates/validate.yaml, which fails the install: removed in 1.15
      expect(chart.check({ tunnel: "vxlan" }).map((p) => p.pointer)).toEqual([["tunnel"]]);
    },
  );

  it("derives the template keys from .Values paths and literal hasKey/index keys", async () => {
    // @ts-expect-error: a plain .mjs script without types
    const { templateKeyPaths } = await import("../scripts/derive-cilium-template-keys.mjs");
    const keys = [
      ...templateKeyPaths(
        '{{- if hasKey .Values.nodePort "directRoutingDevice" }}{{ index $.Values.a "b" "c" }}{{ .Values.x.y | quote }}{{ dig "z" "" .Values.AsMap }}',
      ),
    ].sort();
    expect(keys).toEqual(["a", "a.b.c", "nodePort", "nodePort.directRoutingDevice", "x.y"]);
    for (const v of chartVersions) {
      const stored = JSON.parse(readFileSync(join(data, "cilium", v, "template-keys.json"), "utf8"));
      expect(stored.source).toContain(`cilium-${v}.tgz (sha256 `);
      expect(stored.keys).toEqual([...stored.keys].sort());
      expect(stored.keys).toContain("nodePort.directRoutingDevice");
    }
  });

  it("refuse an unknown key with a did-you-mean, an undocumented value and a wrong type", async () => {
    const chart = await loadCiliumChart("1.20.0");
    expect(
      chart.check({ l7proxy: false, hubble: { relai: {} }, loadBalancer: { mode: "fast" }, l7Proxy: "no" }),
    ).toMatchInlineSnapshot(`
      [
        {
          "document": 0,
          "message": "unknown key l7proxy: not in the Cilium 1.20.0 chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean l7Proxy?",
          "pointer": [
            "l7proxy",
          ],
        },
        {
          "document": 0,
          "message": "unknown key hubble.relai: not in the Cilium 1.20.0 chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean hubble.relay?",
          "pointer": [
            "hubble",
            "relai",
          ],
        },
        {
          "document": 0,
          "message": "loadBalancer.mode must be one of ["snat","dsr","hybrid"] (the values the chart documents)",
          "pointer": [
            "loadBalancer",
            "mode",
          ],
        },
        {
          "document": 0,
          "message": "must be boolean",
          "pointer": [
            "l7Proxy",
          ],
        },
      ]
    `);
  });

  it("stand in the nearest stored chart for a version that is not stored, and say so", async () => {
    expect(nearestChart("1.19.2")).toBe("1.19.6");
    expect(nearestChart("1.21.0")).toBe("1.20.0");
    const checker = await loadArtifactChecker({ schemas: ["cilium-values"], ciliumVersion: "1.18.4" });
    expect(checker.notes).toMatchInlineSnapshot(`
      [
        "Cilium 1.18.4: its chart schema is not stored, values were checked against the nearest stored chart 1.19.6",
      ]
    `);
  });
});

describe("kubeadm and kubelet, strictly", () => {
  it("refuse an unknown field and an unknown kind at their pointers", () => {
    expect(
      checkKubernetesDocuments([
        { apiVersion: "kubeadm.k8s.io/v1beta4", kind: "ClusterConfiguration", apiServer: { certSANz: [] } },
        { apiVersion: "kubelet.config.k8s.io/v1beta1", kind: "KubeletConfiguration", maxPods: "many" },
        { apiVersion: "kubeadm.k8s.io/v1beta4", kind: "ResetConfiguration" },
      ]),
    ).toMatchInlineSnapshot(`
      [
        {
          "document": 0,
          "message": "unknown field certSANz",
          "pointer": [
            "apiServer",
            "certSANz",
          ],
        },
        {
          "document": 1,
          "message": "must be integer,null",
          "pointer": [
            "maxPods",
          ],
        },
        {
          "document": 2,
          "message": "kubeadm.k8s.io/v1beta4 ResetConfiguration is not a kubeadm or kubelet configuration kind",
          "pointer": [
            "kind",
          ],
        },
      ]
    `);
  });
});
