// Issue 27: the node that runs `kubeadm init` is explicit (controlPlane.initNode), and a cluster marked
// controlPlane.bootstrapped has no InitConfiguration in any file and no PLAN.md step that says `kubeadm init`,
// whatever node is rebuilt, renamed or re-added. Checked on the whole tree every generator writes.
import { type Artifact, parseYamlDocuments } from "@clusterspec/core";
import { arbClusterSpec, TEST_SECRETS } from "@clusterspec/core/testing";
import { exampleText } from "@clusterspec/testkit";
import { type GenerateResult, generate, generateChecked } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";

/** `kubeadm init` as a command to run; `kubeadm init phase upload-certs` only renews a running cluster's certificates. */
const SAYS_INIT = /kubeadm init(?! phase)/;

function artifactsOf(r: GenerateResult): readonly Artifact[] {
  if (!r.ok) throw new Error(r.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("\n"));
  return r.artifacts;
}

/** The nodes whose kubeadm.yaml holds an InitConfiguration. */
function initFiles(artifacts: readonly Artifact[]): string[] {
  return artifacts
    .filter((a) => a.path.endsWith("/kubeadm.yaml"))
    .filter((a) =>
      parseYamlDocuments(a.content).some(
        (d) => typeof d === "object" && d !== null && (d as { kind?: unknown }).kind === "InitConfiguration",
      ),
    )
    .map((a) => a.path);
}

const planMd = (artifacts: readonly Artifact[]): string => artifacts.find((a) => a.path === "PLAN.md")?.content ?? "";

/** The bare-metal example with its controlPlane section changed and, optionally, its nodes. */
function bareMetal(controlPlane: Record<string, unknown>, nodes?: (list: any[]) => any[]): string {
  const spec = parse(exampleText("bare-metal-ha"));
  spec.controlPlane = { ...spec.controlPlane, ...controlPlane };
  if (nodes) spec.nodes = nodes(spec.nodes);
  return stringify(spec);
}

describe("bootstrap on the whole tree", () => {
  it("for every spec: exactly one node's kubeadm.yaml is an InitConfiguration iff the cluster is not bootstrapped, and PLAN.md says kubeadm init iff one is", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 3, maxPool: 4, bootstrap: true }), (spec) => {
        const artifacts = artifactsOf(generate(spec, { secrets: TEST_SECRETS }));
        const bootstrapped = spec.controlPlane.bootstrapped === true;
        const firstControlPlane = spec.nodes.find((n) => n.roles.includes("control-plane"))?.name;
        const init = spec.controlPlane.initNode ?? firstControlPlane;
        expect(initFiles(artifacts)).toEqual(bootstrapped ? [] : [`nodes/${init}/kubeadm.yaml`]);
        expect(SAYS_INIT.test(planMd(artifacts))).toBe(!bootstrapped);
      }),
      { numRuns: 25 },
    );
  });

  it("bootstrapped bare-metal example: no InitConfiguration anywhere, no PLAN.md step says kubeadm init", () => {
    const artifacts = artifactsOf(generate(bareMetal({ bootstrapped: true }), { secrets: TEST_SECRETS }));
    expect(initFiles(artifacts)).toEqual([]);
    const md = planMd(artifacts);
    expect(md).not.toMatch(SAYS_INIT);
    expect(md).toContain("| k8s-1 | join control plane | `kubeadm join --config kubeadm.yaml` |");
    expect(md).toContain("helm upgrade cilium cilium/cilium");
    expect(md).not.toContain("helm install");
    // Only the init node's kubeadm.yaml differs from the tree before the mark (and PLAN.md says so).
    const before = artifactsOf(generate(bareMetal({}), { secrets: TEST_SECRETS }));
    const changed = artifacts
      .filter((a) => before.find((b) => b.path === a.path)?.content !== a.content)
      .map((a) => a.path)
      .sort();
    // k8s-1's ClusterConfiguration and KubeletConfiguration move to cluster/kubeadm-config.yaml, unchanged.
    expect(changed).toEqual(["PLAN.md", "cluster/kubeadm-config.yaml", "nodes/k8s-1/kubeadm.yaml"]);
    const initDocs = parseYamlDocuments(before.find((a) => a.path === "nodes/k8s-1/kubeadm.yaml")?.content ?? "");
    const clusterDocs = parseYamlDocuments(
      artifacts.find((a) => a.path === "cluster/kubeadm-config.yaml")?.content ?? "",
    );
    expect(clusterDocs).toEqual(initDocs.slice(1));
  });

  it("bootstrapped customised example: its kubelet settings and a ClusterConfiguration overlay retargeted at cluster/kubeadm-config.yaml pass the upstream schemas; the old target is named", async () => {
    const spec = parse(exampleText("customised"));
    spec.controlPlane.bootstrapped = true;
    const stale = await generateChecked(stringify(spec), { secrets: TEST_SECRETS });
    expect(stale.ok ? [] : stale.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      ["overlays.0.document", "no file matching nodes/k8s-1/kubeadm.yaml holds a ClusterConfiguration document"],
    ]);
    spec.overlays[0].target = "cluster/kubeadm-config.yaml";
    const artifacts = artifactsOf(await generateChecked(stringify(spec), { secrets: TEST_SECRETS }));
    const [cluster, kubelet] = parseYamlDocuments(
      artifacts.find((a) => a.path === "cluster/kubeadm-config.yaml")?.content ?? "",
    ) as Record<string, unknown>[];
    expect(cluster?.imageRepository).toBe("registry.example.com/k8s");
    expect(kubelet?.maxPods).toBe(200);
    expect(initFiles(artifacts)).toEqual([]);
  });

  it("bootstrapped: replacing the first control plane under a new name, first or last in nodes, inits nowhere", () => {
    const rename = (list: any[]) => [{ ...list[0], name: "k8s-4" }, ...list.slice(1)];
    for (const nodes of [rename, (list: any[]) => [...list.slice(1), rename(list)[0]]]) {
      const artifacts = artifactsOf(generate(bareMetal({ bootstrapped: true }, nodes), { secrets: TEST_SECRETS }));
      expect(initFiles(artifacts)).toEqual([]);
      expect(planMd(artifacts)).not.toMatch(SAYS_INIT);
    }
    // The same change unmarked makes k8s-2 init a second cluster: what the mark is for.
    const unmarked = artifactsOf(
      generate(
        bareMetal({}, (list) => [...list.slice(1), rename(list)[0]]),
        { secrets: TEST_SECRETS },
      ),
    );
    expect(initFiles(unmarked)).toEqual(["nodes/k8s-2/kubeadm.yaml"]);
  });

  it("controlPlane.initNode k8s-2: k8s-2 inits, k8s-1 joins as a control plane", () => {
    const artifacts = artifactsOf(generate(bareMetal({ initNode: "k8s-2" }), { secrets: TEST_SECRETS }));
    expect(initFiles(artifacts)).toEqual(["nodes/k8s-2/kubeadm.yaml"]);
    const k8s1 = artifacts.find((a) => a.path === "nodes/k8s-1/kubeadm.yaml");
    const [join] = parseYamlDocuments(k8s1?.content ?? "") as { kind: string; controlPlane?: unknown }[];
    expect(join?.kind).toBe("JoinConfiguration");
    expect(join?.controlPlane).toBeDefined();
    expect(planMd(artifacts)).toContain("k8s-2 initialises the cluster (`controlPlane.initNode`)");
  });
});
