// Dual stack (issue 30): kubeadm.yaml carries both families where kubeadm reads them, and passes the strict schemas
// in both API versions.
import { parseYamlDocuments } from "@clusterspec/core";
import { mustResolve, TEST_SECRETS } from "@clusterspec/core/testing";
import { exampleInput, specInput } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateKubeadm } from "../src/generate.js";
import { controllerManagerArgs } from "../src/node-health.js";
import { schemaErrors } from "./schema.js";

type Loose = any;

const dualInput = (version = "v1.34.2", spec = "dual-stack"): Loose => {
  const s = specInput(spec) as Loose;
  s.kubernetes.version = version;
  return s;
};

function docsOf(version: string, node = "k8s-1", spec = "dual-stack"): Record<string, Loose>[] {
  const plan = mustResolve(dualInput(version, spec), "cluster.yaml", TEST_SECRETS);
  const a = generateKubeadm(plan).find((x) => x.path === `nodes/${node}/kubeadm.yaml`);
  if (!a) throw new Error(`no kubeadm.yaml for ${node}`);
  return parseYamlDocuments(a.content) as Record<string, Loose>[];
}

describe("dual-stack kubeadm.yaml", () => {
  it.each([
    ["v1.30.4", "kubeadm.k8s.io/v1beta3"],
    ["v1.34.2", "kubeadm.k8s.io/v1beta4"],
  ])("passes the strict kubeadm and kubelet schemas for %s (%s), on init and join nodes", (version, api) => {
    for (const node of ["k8s-1", "k8s-2"]) {
      const docs = docsOf(version, node);
      expect(docs[0]?.apiVersion).toBe(api);
      for (const d of docs) expect(schemaErrors(d), `${node} ${d.kind}`).toBe("");
    }
  });

  it("writes both networks comma-separated, the primary family first, as kubeadm reads them", () => {
    const cluster = docsOf("v1.34.2").find((d) => d.kind === "ClusterConfiguration");
    expect(cluster?.networking).toEqual({
      podSubnet: "10.244.0.0/16,fd00:10:244::/56",
      serviceSubnet: "10.96.0.0/12,fd00:10:96::/112",
      dnsDomain: "cluster.local",
    });
  });

  it("registers every node with one address per family (node-ip), advertises the primary family's", () => {
    for (const [node, v4, v6] of [
      ["k8s-1", "10.118.12.20", "fd00:118:12::20"],
      ["k8s-2", "10.118.12.21", "fd00:118:12::21"],
    ] as const) {
      const docs = docsOf("v1.34.2", node);
      const reg = (docs.find((d) => d.kind === "InitConfiguration") ?? docs.find((d) => d.kind === "JoinConfiguration"))
        ?.nodeRegistration;
      expect(reg.kubeletExtraArgs).toContainEqual({ name: "node-ip", value: `${v4},${v6}` });
      const endpoint =
        docs.find((d) => d.kind === "InitConfiguration")?.localAPIEndpoint ??
        docs.find((d) => d.kind === "JoinConfiguration")?.controlPlane?.localAPIEndpoint;
      expect(endpoint.advertiseAddress).toBe(v4);
    }
  });

  it("advertises the IPv6 address and lists it first in node-ip when IPv6 is the primary family", () => {
    const s = dualInput();
    s.kubernetes.podSubnet.reverse();
    s.kubernetes.serviceSubnet.reverse();
    const plan = mustResolve(s, "cluster.yaml", TEST_SECRETS);
    const a = generateKubeadm(plan).find((x) => x.path === "nodes/k8s-1/kubeadm.yaml");
    const docs = parseYamlDocuments(a?.content ?? "") as Record<string, Loose>[];
    const init = docs.find((d) => d.kind === "InitConfiguration");
    expect(init?.localAPIEndpoint.advertiseAddress).toBe("fd00:118:12::20");
    expect(init?.nodeRegistration.kubeletExtraArgs).toContainEqual({
      name: "node-ip",
      value: "fd00:118:12::20,10.118.12.20",
    });
    expect(docs.find((d) => d.kind === "ClusterConfiguration")?.networking.podSubnet).toBe(
      "fd00:10:244::/56,10.244.0.0/16",
    );
    for (const d of docs) expect(schemaErrors(d), String(d.kind)).toBe("");
  });

  it("puts both control-plane VIPs and every control plane's address of both families in the apiserver certificate", () => {
    const cluster = docsOf("v1.34.2").find((d) => d.kind === "ClusterConfiguration");
    expect(cluster?.apiServer.certSANs).toEqual([
      "10.118.12.100",
      "fd00:118:12::100",
      "10.118.12.20",
      "fd00:118:12::20",
      "10.118.12.21",
      "fd00:118:12::21",
      "10.118.12.22",
      "fd00:118:12::22",
    ]);
  });

  it("gives the controller manager one node mask per family in a dual-stack cluster, one in a single-stack one", () => {
    const dual = controllerManagerArgs(mustResolve(dualInput()));
    expect(dual["node-cidr-mask-size-ipv4"]).toBe("24");
    expect(dual["node-cidr-mask-size-ipv6"]).toBe("64");
    expect(dual["node-cidr-mask-size"]).toBeUndefined();
    const v4 = controllerManagerArgs(mustResolve(exampleInput("bare-metal-ha")));
    expect(v4["node-cidr-mask-size"]).toBe("24");
    expect(v4["node-cidr-mask-size-ipv6"]).toBeUndefined();
  });
});

describe("IPv6-only kubeadm.yaml (fixture ipv6-only)", () => {
  it.each([
    ["v1.30.4", "kubeadm.k8s.io/v1beta3"],
    ["v1.34.2", "kubeadm.k8s.io/v1beta4"],
  ])("passes the strict kubeadm and kubelet schemas for %s (%s), on init and join nodes", (version, api) => {
    for (const node of ["k8s-1", "k8s-2"]) {
      const docs = docsOf(version, node, "fixture:ipv6-only");
      expect(docs[0]?.apiVersion).toBe(api);
      for (const d of docs) expect(schemaErrors(d), `${node} ${d.kind}`).toBe("");
    }
  });

  it("has IPv6 alone: networks, node-ip, advertised address, endpoint, certificate and node mask", () => {
    const docs = docsOf("v1.34.2", "k8s-1", "fixture:ipv6-only");
    const cluster = docs.find((d) => d.kind === "ClusterConfiguration");
    expect(cluster?.networking).toEqual({
      podSubnet: "fd00:10:244::/56",
      serviceSubnet: "fd00:10:96::/112",
      dnsDomain: "cluster.local",
    });
    expect(cluster?.controlPlaneEndpoint).toBe("[fd00:118:12::100]:6443");
    expect(cluster?.apiServer.certSANs).toEqual([
      "fd00:118:12::100",
      "fd00:118:12::20",
      "fd00:118:12::21",
      "fd00:118:12::22",
    ]);
    const init = docs.find((d) => d.kind === "InitConfiguration");
    expect(init?.localAPIEndpoint.advertiseAddress).toBe("fd00:118:12::20");
    expect(init?.nodeRegistration.kubeletExtraArgs).toContainEqual({ name: "node-ip", value: "fd00:118:12::20" });
    const args = controllerManagerArgs(mustResolve(specInput("fixture:ipv6-only")));
    expect([args["node-cidr-mask-size"], args["node-cidr-mask-size-ipv4"], args["node-cidr-mask-size-ipv6"]]).toEqual([
      "64",
      undefined,
      undefined,
    ]);
  });
});
