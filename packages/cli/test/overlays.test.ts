// Overlays and free-form values through the whole pipeline: patched files pass their upstream schema or the run fails
// at the spec path that caused it, with its line; a spec without free-form parts never loads a schema.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { formatIssues, parseYamlDocuments } from "@clusterspec/core";
import { TEST_SECRETS } from "@clusterspec/core/testing";
import { loadArtifactChecker } from "@clusterspec/schemas";
import { run, toolAvailable } from "@clusterspec/testkit";
import { type Artifact, generate, generateChecked, renderArtifacts, schemasToLoad } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const base = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");

const messages = async (text: string) => {
  const r = await generateChecked(text, { sourceName: "cluster.yaml" });
  return r.ok
    ? `(ok) ${formatIssues(r.warnings, "cluster.yaml")}`
    : formatIssues([...r.errors, ...r.warnings], "cluster.yaml");
};

describe("a spec without free-form parts", () => {
  it("needs no schema, so generate stays synchronous and loads none", () => {
    const r = generate(base);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(schemasToLoad(renderArtifacts(r.plan))).toEqual(new Set());
  });
});

describe("overlays through generate", () => {
  it("patch a kubeadm document, list it in PLAN.md and warn about a derived value they change", async () => {
    const r = await generateChecked(
      `${base}overlays:\n  - target: nodes/k8s-1/kubeadm.yaml\n    document: ClusterConfiguration\n    patch:\n      imageRepository: registry.example.com/k8s\n      networking: { dnsDomain: k8s.example }\n`,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const cluster = parseYamlDocuments(
      r.artifacts.find((a) => a.path === "nodes/k8s-1/kubeadm.yaml")?.content ?? "",
    )[1];
    expect(cluster).toMatchObject({ networking: { dnsDomain: "k8s.example" } });
    expect(r.artifacts.find((a) => a.path === "PLAN.md")?.content).toContain(
      "| overlays[0] | nodes/k8s-1/kubeadm.yaml | ClusterConfiguration | nodes/k8s-1/kubeadm.yaml |",
    );
    expect(formatIssues(r.warnings, "cluster.yaml")).toMatchInlineSnapshot(`
      "⚠ overlay changes a value clusterspec derived: nodes/k8s-1/kubeadm.yaml (ClusterConfiguration) /networking/dnsDomain was "cluster.local", now "k8s.example"
        → at overlays[0].patch.networking.dnsDomain (cluster.yaml:76:21)"
    `);
  });

  it("fail at overlays[i].patch… with the line, the artifact and the JSON pointer when the result breaks its schema", async () => {
    expect(
      await messages(
        `${base}overlays:\n  - target: nodes/k8s-1/kubeadm.yaml\n    document: ClusterConfiguration\n    patch:\n      apiServer:\n        certSANz: [a.example.com]\n  - target: cluster/cilium-values.yaml\n    patch: { hubble: { relai: { enabled: true } } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ nodes/k8s-1/kubeadm.yaml (ClusterConfiguration) at /apiServer/certSANz fails its upstream schema: unknown field certSANz
        → at overlays[0].patch.apiServer.certSANz (cluster.yaml:76:9)
      ✖ cluster/cilium-values.yaml at /hubble/relai fails its upstream schema: unknown key hubble.relai: not in the Cilium 1.20.0 chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean hubble.relay?
        → at overlays[1].patch.hubble.relai (cluster.yaml:78:24)"
    `);
  });

  it("fail when a target matches nothing or a line-format file", async () => {
    expect(
      await messages(
        `${base}overlays:\n  - { target: nodes/*/kubeadm.yml, patch: { a: 1 } }\n  - { target: nodes/*/etc/conf.d/net, patch: { a: 1 } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ overlay target nodes/*/kubeadm.yml matches no generated file (paths look like nodes/<node>/kubeadm.yaml, cluster/cilium-values.yaml, cloud/<pool>/user-data.yaml, cloud/terraform/<name>.tf.json)
        → at overlays[0].target (cluster.yaml:72:7)
      ✖ overlay target nodes/*/etc/conf.d/net matches nodes/k8s-1/etc/conf.d/net (and 2 more), which is not a YAML/JSON file with an upstream schema and cannot be patched: set nodes[].interfaces and network.segments instead
        → at overlays[1].target (cluster.yaml:73:7)"
    `);
  });

  it("fail when a multi-document file is patched without document, or no file holds the document", async () => {
    expect(
      await messages(
        `${base}overlays:\n  - { target: nodes/k8s-1/kubeadm.yaml, patch: { a: 1 } }\n  - { target: cluster/cilium-values.yaml, document: KubeletConfiguration, patch: { a: 1 } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ nodes/k8s-1/kubeadm.yaml holds 3 documents (InitConfiguration, ClusterConfiguration, KubeletConfiguration): name the one to patch with document
        → at overlays[0].target (cluster.yaml:72:7)
      ✖ no file matching cluster/cilium-values.yaml holds a KubeletConfiguration document
        → at overlays[1].document (cluster.yaml:73:43)"
    `);
  });

  it("are refused by the synchronous generate without a checker, saying how to get one", () => {
    const r = generate(`${base}overlays:\n  - { target: cluster/cilium-values.yaml, patch: { l7Proxy: false } }\n`);
    expect(r.ok ? "(ok)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ this spec has free-form parts (overlays, cilium.values or kubernetes.kubelet) that must be checked against the upstream schemas: pass options.checker (loadArtifactChecker from @clusterspec/schemas) or call generateChecked
        → at (root) (<input>:3:1)"
    `);
  });

  it("pass the schema or fail the run, for arbitrary patches of ClusterConfiguration", async () => {
    const checker = await loadArtifactChecker({ schemas: ["kubeadm"], ciliumVersion: "1.20.0" });
    const key = fc.constantFrom(
      "apiServer",
      "networking",
      "certSANs",
      "clusterName",
      "etcd",
      "bogus",
      "dnsDomain",
      "timeoutForControlPlane",
    );
    const value = fc.oneof(
      fc.string({ maxLength: 6 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }),
    );
    const patch = fc.dictionary(key, fc.oneof(value, fc.dictionary(key, value, { maxKeys: 2 })), {
      minKeys: 1,
      maxKeys: 3,
    });
    fc.assert(
      fc.property(patch, (p) => {
        const spec = `${base}overlays:\n  - target: nodes/k8s-1/kubeadm.yaml\n    document: ClusterConfiguration\n    patch: ${JSON.stringify(p)}\n`;
        // real-shaped secrets: the placeholders are malformed on purpose and the direct check below would see them
        const r = generate(spec, { checker, secrets: TEST_SECRETS });
        if (r.ok) {
          const a = r.artifacts.find((x) => x.path === "nodes/k8s-1/kubeadm.yaml");
          expect(a && checker.check(a)).toEqual([]);
        } else {
          expect(r.errors.length).toBeGreaterThan(0);
          for (const e of r.errors) expect(e.path.slice(0, 3)).toEqual(["overlays", 0, "patch"]);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("cilium.values and kubernetes.kubelet through generate", () => {
  it("merge over the generated values and pass the chart schema", async () => {
    const r = await generateChecked(
      base.replace("cilium:\n", "cilium:\n  values: { l7Proxy: false, hubble: { enabled: true } }\n"),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const values = parseYamlDocuments(
      r.artifacts.find((a) => a.path === "cluster/cilium-values.yaml")?.content ?? "",
    )[0];
    expect(values).toMatchObject({ l7Proxy: false, hubble: { enabled: true }, routingMode: "native" });
  });

  it("accept a key only the chart's templates read (nodePort.directRoutingDevice, issue 33) and refuse its typo", async () => {
    const r = await generateChecked(
      base.replace("cilium:\n", "cilium:\n  values: { nodePort: { directRoutingDevice: eth0 } }\n"),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const values = parseYamlDocuments(
      r.artifacts.find((a) => a.path === "cluster/cilium-values.yaml")?.content ?? "",
    )[0];
    expect(values).toMatchObject({ nodePort: { directRoutingDevice: "eth0" } });
    expect(
      await messages(base.replace("cilium:\n", "cilium:\n  values:\n    nodePort: { directRoutingDevise: eth0 }\n")),
    ).toContain(
      "unknown key nodePort.directRoutingDevise: not in the Cilium 1.20.0 chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean nodePort.directRoutingDevice?\n  → at cilium.values.nodePort.directRoutingDevise (cluster.yaml:69:17)",
    );
  });

  it("fail at cilium.values… with a did-you-mean, and at kubernetes.kubelet… for a field the kubelet does not have", async () => {
    expect(
      await messages(
        base
          .replace("cilium:\n", "cilium:\n  values:\n    l7proxy: false\n")
          .replace("kubernetes:\n", "kubernetes:\n  kubelet:\n    maxPod: 200\n"),
      ),
    ).toMatchInlineSnapshot(`
      "✖ nodes/k8s-1/kubeadm.yaml (KubeletConfiguration) at /maxPod fails its upstream schema: unknown field maxPod
        → at kubernetes.kubelet.maxPod (cluster.yaml:8:5)
      ✖ cluster/cilium-values.yaml at /l7proxy fails its upstream schema: unknown key l7proxy: not in the Cilium 1.20.0 chart's values.schema.json, not documented in its values.yaml and read by none of its templates; did you mean l7Proxy?
        → at cilium.values.l7proxy (cluster.yaml:71:5)"
    `);
  });

  it("warn when the spec's Cilium chart is not stored and the nearest one checks the values", async () => {
    const r = await generateChecked(
      base
        .replace("version: 1.20.0", "version: 1.19.2")
        .replace("cilium:\n", "cilium:\n  values: { l7Proxy: false }\n"),
    );
    expect(r.ok).toBe(true);
    expect(formatIssues(r.warnings, "cluster.yaml")).toMatchInlineSnapshot(`
      "⚠ Cilium 1.19.2: its chart schema is not stored, values were checked against the nearest stored chart 1.19.6
        → at cilium.version (cluster.yaml:69:3)"
    `);
  });
});

describe("overlays on user data", () => {
  const hybrid = readFileSync(join(repo, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8");

  it("patch a pool's cloud-config, which passes cloud-init's schema", async () => {
    const r = await generateChecked(
      `${hybrid}overlays:\n  - { target: cloud/*/user-data.yaml, patch: { timezone: Europe/Berlin } }\n`,
    );
    expect(r.ok ? "(ok)" : formatIssues(r.errors)).toBe("(ok)");
    const text = r.ok ? (r.artifacts.find((a) => a.path === "cloud/ci-arm64/user-data.yaml")?.content ?? "") : "";
    expect(text.startsWith("#cloud-config\n")).toBe(true);
    expect(parseYamlDocuments(text)[0]).toMatchObject({ timezone: "Europe/Berlin" });
    // toolAvailable throws under CI when cloud-init is missing
    if (!toolAvailable("cloud-init")) return;
    const dir = mkdtempSync(join(tmpdir(), "cs-overlay-"));
    try {
      writeFileSync(join(dir, "user-data"), text);
      const out = run("cloud-init", ["schema", "--config-file", join(dir, "user-data")]);
      expect(`${out.status} ${out.stdout}${out.stderr}`).toMatch(/^0 Valid cloud-config/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("report in PLAN.md the size of the user data written, overlays included", async () => {
    const unpatched = generate(hybrid);
    const r = await generateChecked(
      `${hybrid}overlays:\n  - { target: cloud/*/user-data.yaml, patch: { bootcmd: ["${"x".repeat(400)}"] } }\n`,
    );
    expect(r.ok && unpatched.ok).toBe(true);
    if (!r.ok || !unpatched.ok) return;
    const size = (artifacts: readonly Artifact[]) =>
      new TextEncoder().encode(artifacts.find((a) => a.path === "cloud/ci-arm64/user-data.yaml")?.content).length;
    const plan = r.artifacts.find((a) => a.path === "PLAN.md")?.content ?? "";
    // 400 bytes: the generated user data leaves about 750 of EC2's 16384 (the join script ships without comments)
    expect(size(r.artifacts)).toBeGreaterThan(size(unpatched.artifacts) + 400);
    expect(plan).toContain(`| ci-arm64 | ${size(r.artifacts)} of 16384 bytes | no |`);
  });

  it("fail at the patch for a cloud-config key cloud-init does not know", async () => {
    expect(
      await messages(`${hybrid}overlays:\n  - { target: cloud/*/user-data.yaml, patch: { timezon: Europe/Berlin } }\n`),
    ).toMatchInlineSnapshot(`
      "⚠ evictionAfter 30s also applies to the burst nodes behind the internet tunnel: a WAN outage that long evicts their pods; Kubernetes has no per-pool toleration, so give the burst pods their own tolerations (node.kubernetes.io/unreachable and not-ready, NoExecute, tolerationSeconds 300 or more)
        → at kubernetes.nodeHealth.evictionAfter (cluster.yaml:17:5)
      ✖ cloud/ci-arm64/user-data.yaml at /timezon fails its upstream schema: unknown field timezon
        → at overlays[0].patch.timezon (cluster.yaml:108:48)"
    `);
  });

  it("fail when the patched user data outgrows what EC2 accepts", async () => {
    expect(
      await messages(
        `${hybrid}overlays:\n  - { target: cloud/*/user-data.yaml, patch: { timezone: UTC } }\n  - { target: cloud/*/user-data.yaml, patch: { bootcmd: ["${"x".repeat(17000)}"] } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ cloud/ci-arm64/user-data.yaml is 32656 bytes after overlays, over the 16384 bytes EC2 accepts as plain user data: patch less
        → at overlays[1].target (cluster.yaml:109:7)
      ⚠ evictionAfter 30s also applies to the burst nodes behind the internet tunnel: a WAN outage that long evicts their pods; Kubernetes has no per-pool toleration, so give the burst pods their own tolerations (node.kubernetes.io/unreachable and not-ready, NoExecute, tolerationSeconds 300 or more)
        → at kubernetes.nodeHealth.evictionAfter (cluster.yaml:17:5)"
    `);
  });
});

describe("overlays on Terraform JSON", () => {
  const hybrid = readFileSync(join(repo, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8");

  it("patch a resource and fail at the patch for an attribute the AWS provider does not have", async () => {
    const ok = await generateChecked(
      `${hybrid}overlays:\n  - target: cloud/terraform/*.tf.json\n    patch: { output: { asg: { value: "\${aws_autoscaling_group.ci-arm64.name}" } } }\n`,
    );
    expect(ok.ok ? "(ok)" : formatIssues(ok.errors)).toBe("(ok)");
    expect(
      await messages(
        `${hybrid}overlays:\n  - target: cloud/terraform/pool-ci-arm64.tf.json\n    patch: { resource: { aws_autoscaling_group: { ci-arm64: { max_sizee: 3 } } } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "⚠ evictionAfter 30s also applies to the burst nodes behind the internet tunnel: a WAN outage that long evicts their pods; Kubernetes has no per-pool toleration, so give the burst pods their own tolerations (node.kubernetes.io/unreachable and not-ready, NoExecute, tolerationSeconds 300 or more)
        → at kubernetes.nodeHealth.evictionAfter (cluster.yaml:17:5)
      ✖ cloud/terraform/pool-ci-arm64.tf.json at /resource/aws_autoscaling_group/ci-arm64/max_sizee fails its upstream schema: unknown argument or block max_sizee
        → at overlays[0].patch.resource.aws_autoscaling_group.ci-arm64.max_sizee (cluster.yaml:109:63)"
    `);
  });
});
