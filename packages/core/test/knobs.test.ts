// Every message of the open spec parts (issue 10), as the user sees it: path and line.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { formatIssues, loadSpec } from "@clusterspec/core";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./helpers.js";

const exampleText = (name: string) => readFileSync(join(repoRoot, "examples", name, "cluster.yaml"), "utf8");

/** The reference spec with `yaml` inserted under the line `after` (indentation included in `yaml`). */
function edited(after: string, yaml: string): string {
  const text = exampleText("bare-metal-ha");
  const at = text.indexOf(`\n${after}\n`);
  if (at < 0) throw new Error(`no line ${after}`);
  const end = at + after.length + 2;
  return text.slice(0, end) + yaml + text.slice(end);
}

const messages = (text: string): string => {
  const r = loadSpec(text);
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml");
};

describe("kubeadm knobs", () => {
  it("asks to quote a YAML bool or number given as a flag value", () => {
    expect(
      messages(
        edited(
          "kubernetes:",
          "  scheduler:\n    extraArgs:\n      authentication-tolerate-lookup-failure: false\n      v: 4\n",
        ),
      ),
    ).toMatchInlineSnapshot(`
      "✖ kubeadm reads flag values as strings: quote it ("false")
        → at kubernetes.scheduler.extraArgs.authentication-tolerate-lookup-failure (cluster.yaml:9:7)
      ✖ kubeadm reads flag values as strings: quote it ("4")
        → at kubernetes.scheduler.extraArgs.v (cluster.yaml:10:7)"
    `);
  });

  it("refuses a flag written with its dashes", () => {
    expect(
      messages(edited("kubernetes:", "  apiServer:\n    extraArgs: { --oidc-issuer-url: https://id.example.com }\n")),
    ).toMatchInlineSnapshot(`
      "✖ invalid key: flag names are written without the leading --
        → at kubernetes.apiServer.extraArgs["--oidc-issuer-url"] (cluster.yaml:8:18)"
    `);
  });

  it("refuses a flag clusterspec derives, naming the flag's path and the owning field", () => {
    expect(
      messages(edited("kubernetes:", "  controllerManager:\n    extraArgs:\n      node-monitor-grace-period: 40s\n")),
    ).toMatchInlineSnapshot(`
      "✖ --node-monitor-grace-period is derived by clusterspec from kubernetes.nodeHealth.monitorGracePeriod: set that field instead of kubernetes.controllerManager.extraArgs
        → at kubernetes.controllerManager.extraArgs.node-monitor-grace-period (cluster.yaml:9:7)"
    `);
  });

  it("refuses a KubeletConfiguration field clusterspec owns, pointing at the typed field", () => {
    expect(
      messages(edited("kubernetes:", "  kubelet:\n    maxPods: 200\n    cgroupDriver: systemd\n")),
    ).toMatchInlineSnapshot(`
      "✖ KubeletConfiguration cgroupDriver is set by clusterspec from kubernetes.cgroupDriver: set that field instead
        → at kubernetes.kubelet.cgroupDriver (cluster.yaml:9:5)"
    `);
  });

  it("refuses an extra volume with a relative path", () => {
    expect(
      messages(
        edited(
          "kubernetes:",
          "  apiServer:\n    extraVolumes: [{ name: audit, hostPath: etc/audit.yaml, mountPath: /etc/audit.yaml }]\n",
        ),
      ),
    ).toMatchInlineSnapshot(`
      "✖ expected an absolute path, got "etc/audit.yaml"
        → at kubernetes.apiServer.extraVolumes[0].hostPath (cluster.yaml:8:35)"
    `);
  });

  it("refuses a controlPlane.dnsName that is not a lowercase DNS name", () => {
    expect(messages(edited("controlPlane:", "  dnsName: API.example.com\n"))).toMatchInlineSnapshot(`
      "✖ expected a lowercase DNS name such as api.k8s.example.com, got "API.example.com"
        → at controlPlane.dnsName (cluster.yaml:32:3)"
    `);
  });
});

describe("node labels and taints", () => {
  it("explains how to apply a label NodeRestriction forbids the kubelet to set", () => {
    expect(
      messages(edited("    rootFilesystem: btrfs", '    labels: { node-role.kubernetes.io/worker: "" }\n')),
    ).toMatchInlineSnapshot(`
      "✖ the kubelet may not set label node-role.kubernetes.io/worker on its own node (the NodeRestriction admission plugin forbids node-role.kubernetes.io/* and other kubernetes.io/k8s.io keys outside its allowed list): apply it after the node joined with \`kubectl label node k8s-1 node-role.kubernetes.io/worker=\`, or use a key of your own (example.com/role) or under node.kubernetes.io/
        → at nodes[0].labels["node-role.kubernetes.io/worker"] (cluster.yaml:48:15)"
    `);
  });

  it("checks label keys and values with Kubernetes' syntax rules", () => {
    expect(
      messages(
        edited(
          "    rootFilesystem: btrfs",
          `    labels: { "example.com/-bad": ok, example.com/rack: "a b", example.com/${"x".repeat(64)}: "" }\n`,
        ),
      ),
    ).toMatchInlineSnapshot(`
      "✖ invalid key: label key "example.com/-bad" is not a Kubernetes qualified name ([prefix/]name: name of letters, digits, '-', '_', '.', starting and ending with a letter or digit; prefix a lowercase DNS subdomain)
        → at nodes[0].labels["example.com/-bad"] (cluster.yaml:48:15)
      ✖ label values are empty or letters, digits, '-', '_', '.', starting and ending with a letter or digit, got "a b"
        → at nodes[0].labels["example.com/rack"] (cluster.yaml:48:39)
      ✖ invalid key: label key "example.com/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": the name after the prefix is at most 63 characters
        → at nodes[0].labels["example.com/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"] (cluster.yaml:48:64)"
    `);
  });

  it("refuses the same taint key and effect twice", () => {
    expect(
      messages(
        edited(
          "    rootFilesystem: btrfs",
          "    taints:\n      - { key: example.com/gpu, effect: NoSchedule }\n      - { key: example.com/gpu, value: x, effect: NoSchedule }\n",
        ),
      ),
    ).toMatchInlineSnapshot(`
      "✖ taint example.com/gpu with effect NoSchedule is listed twice on k8s-1
        → at nodes[0].taints[1] (cluster.yaml:50:9)"
    `);
  });
});

describe("cilium.values", () => {
  it("refuses a key clusterspec owns, pointing at the typed field", () => {
    expect(
      messages(edited("cilium:", "  values: { l7Proxy: false, loadBalancer: { mode: dsr }, ipam: null }\n")),
    ).toMatchInlineSnapshot(`
      "✖ Cilium value ipam.mode is set by clusterspec from cilium.ipamMode: set that field instead of cilium.values
        → at cilium.values.ipam (cluster.yaml:68:58)
      ✖ Cilium value loadBalancer.mode is set by clusterspec from cilium.loadBalancerMode: set that field instead of cilium.values
        → at cilium.values.loadBalancer.mode (cluster.yaml:68:45)"
    `);
  });
});

describe("overlays", () => {
  it("let an image digest through: only a bare 64-hex value looks like a certificate key", () => {
    expect(
      messages(edited("cilium:", `  values: { image: { digest: "sha256:${"ab".repeat(32)}", useDigest: true } }\n`)),
    ).toBe("(valid)");
  });

  it("refuses a literal that looks like a secret", () => {
    expect(
      messages(
        `${exampleText("bare-metal-ha")}overlays:\n  - target: nodes/k8s-2/kubeadm.yaml\n    document: JoinConfiguration\n    patch: { discovery: { bootstrapToken: { token: abcdef.0123456789abcdef } } }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ this looks like a kubeadm bootstrap token: secrets are never written in the spec; kubeadm secrets come from kubernetes.secrets references ({ env } or { file })
        → at overlays[0].patch.discovery.bootstrapToken.token (cluster.yaml:74:45)"
    `);
  });

  it("refuses a patch that is not a mapping and a document that is not a kind", () => {
    expect(
      messages(
        `${exampleText("bare-metal-ha")}overlays:\n  - { target: nodes/*/kubeadm.yaml, document: cluster-configuration, patch: [1] }\n`,
      ),
    ).toMatchInlineSnapshot(`
      "✖ document is the kind of one document, e.g. ClusterConfiguration, got "cluster-configuration"
        → at overlays[0].document (cluster.yaml:72:37)
      ✖ a patch is a mapping (an RFC 7386 JSON merge patch)
        → at overlays[0].patch (cluster.yaml:72:70)"
    `);
  });
});
