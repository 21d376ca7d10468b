// The typed kubeadm knobs of issue 10: extraArgs, certSANs, extraVolumes, kubelet fields, dnsName, labels, taints.
import { type ClusterPlan, formatExtraArgs, loadSpec, parseYamlDocuments } from "@clusterspec/core";
import { buildSpec, mustInitNode, mustResolve, TEST_SECRETS } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateKubeadm } from "../src/generate.js";
import { schemaErrors } from "./schema.js";

type Doc = Record<string, any>;

const docsOf = (plan: ClusterPlan, name: string): Doc[] =>
  parseYamlDocuments(
    generateKubeadm(plan).find((x) => x.path === `nodes/${name}/kubeadm.yaml`)?.content ?? "",
  ) as Doc[];

const argsRecord = (value: unknown): Record<string, string> =>
  Array.isArray(value)
    ? Object.fromEntries(value.map((a: { name: string; value: string }) => [a.name, a.value]))
    : ((value ?? {}) as Record<string, string>);

const base = (minor: number, edit: (s: any) => void = () => {}): ClusterPlan => {
  const s = buildSpec({ controlPlanes: 3, workers: 1, poolSize: 1, cloud: false }, { minor }) as any;
  edit(s);
  return mustResolve(s, "cluster.yaml", TEST_SECRETS);
};

const arbFlag = fc
  .stringMatching(/^[a-z][a-z0-9-]{0,20}$/)
  .filter(
    (f) =>
      !f.startsWith("default-") &&
      !f.startsWith("node-") &&
      ![
        "advertise-address",
        "secure-port",
        "service-cluster-ip-range",
        "etcd-servers",
        "allocate-node-cidrs",
        "cluster-cidr",
        "cluster-name",
        "pod-eviction-timeout",
        "name",
        "data-dir",
        "initial-cluster",
      ].includes(f) &&
      !f.includes("-urls"),
  );
const arbArgs = fc.dictionary(arbFlag, fc.string({ maxLength: 30 }), { maxKeys: 5 });

describe("extraArgs", () => {
  it("round-trip through both kubeadm API versions: a map in v1beta3, {name, value} lists in v1beta4", () => {
    fc.assert(
      fc.property(fc.constantFrom(28, 30, 31, 34), arbArgs, arbArgs, arbArgs, arbArgs, (minor, as, cm, sc, et) => {
        const plan = base(minor, (s) => {
          s.kubernetes.apiServer = { extraArgs: as };
          s.kubernetes.controllerManager = { extraArgs: cm };
          s.kubernetes.scheduler = { extraArgs: sc };
          s.kubernetes.etcd = { extraArgs: et };
        });
        const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
        const v4 = minor >= 31;
        for (const [value, expected] of [
          [cluster.apiServer.extraArgs, as],
          [cluster.controllerManager.extraArgs, cm],
          [cluster.scheduler?.extraArgs, sc],
          [cluster.etcd.local.extraArgs, et],
        ] as const) {
          if (Object.keys(expected).length === 0) continue;
          expect(Array.isArray(value)).toBe(v4);
          expect(argsRecord(value)).toMatchObject(expected);
        }
        expect(schemaErrors(cluster)).toBe("");
        // the formatting itself is lossless
        for (const api of ["kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4"] as const)
          expect(argsRecord(formatExtraArgs(api, as))).toEqual(as);
      }),
      { numRuns: 30 },
    );
  });

  it("keep the flags clusterspec derives next to the spec's", () => {
    const plan = base(34, (s) => {
      s.kubernetes.apiServer = { extraArgs: { "oidc-issuer-url": "https://id.example.com" } };
      s.kubernetes.scheduler = { extraArgs: { "authentication-tolerate-lookup-failure": "false" } };
    });
    const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
    expect(argsRecord(cluster.apiServer.extraArgs)).toMatchObject({
      "oidc-issuer-url": "https://id.example.com",
      "default-not-ready-toleration-seconds": expect.any(String),
    });
    expect(cluster.scheduler.extraArgs).toEqual([{ name: "authentication-tolerate-lookup-failure", value: "false" }]);
  });
});

describe("certSANs and controlPlane.dnsName", () => {
  it("always include the VIP, the DNS name and every control plane's address, each once, then the spec's", () => {
    const plan = base(34, (s) => {
      s.controlPlane.dnsName = "api.k8s.example.com";
      s.kubernetes.apiServer = { certSANs: ["127.0.0.1", "10.118.12.10", "api.k8s.example.com", "*.k8s.example.com"] };
    });
    const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
    expect(cluster.apiServer.certSANs).toEqual([
      plan.controlPlane.host,
      "api.k8s.example.com",
      "10.118.12.10",
      "10.118.12.11",
      "10.118.12.12",
      "127.0.0.1",
      "*.k8s.example.com",
    ]);
    expect(cluster.controlPlaneEndpoint).toBe("api.k8s.example.com:6443");
    const join = docsOf(plan, plan.nodes[3]?.name ?? "")[0] as Doc;
    expect(join.discovery.bootstrapToken.apiServerEndpoint).toBe("api.k8s.example.com:6443");
  });

  it("refuses a SAN that is neither an IP nor a DNS name, at its path and line", () => {
    const r = loadSpec(`${specText()}  apiServer:\n    certSANs: ["not a name"]\n`);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => [e.path.join("."), e.line, e.message])).toMatchInlineSnapshot(`
        [
          [
            "kubernetes.apiServer.certSANs.0",
            15,
            "certificate SANs are IP addresses or lowercase DNS names (a leading *. wildcard is allowed), got "not a name"",
          ],
        ]
      `);
  });
});

describe("extraVolumes and kubelet", () => {
  it("mount host paths into kube-apiserver and merge kubelet fields, schema-valid in both API versions", () => {
    for (const minor of [28, 34]) {
      const plan = base(minor, (s) => {
        s.kubernetes.apiServer = {
          extraVolumes: [
            {
              name: "oidc-ca",
              hostPath: "/etc/kubernetes/oidc-ca.pem",
              mountPath: "/etc/kubernetes/oidc-ca.pem",
              pathType: "File",
            },
          ],
        };
        s.kubernetes.kubelet = {
          maxPods: 250,
          serializeImagePulls: false,
          evictionHard: { "memory.available": "200Mi" },
        };
      });
      const [, cluster, kubelet] = docsOf(plan, mustInitNode(plan).name) as [Doc, Doc, Doc];
      expect(cluster.apiServer.extraVolumes).toEqual([
        {
          name: "oidc-ca",
          hostPath: "/etc/kubernetes/oidc-ca.pem",
          mountPath: "/etc/kubernetes/oidc-ca.pem",
          readOnly: true,
          pathType: "File",
        },
      ]);
      expect(kubelet).toMatchObject({ maxPods: 250, serializeImagePulls: false, cgroupDriver: "cgroupfs" });
      for (const doc of [cluster, kubelet]) expect(schemaErrors(doc)).toBe("");
    }
  });
});

describe("node labels and taints", () => {
  it("register with the kubelet on init and join, next to the control-plane taint", () => {
    for (const minor of [28, 34]) {
      const plan = base(minor, (s) => {
        s.kubernetes.schedulableControlPlanes = false;
        for (const n of s.nodes) {
          n.labels = { "example.com/rack": "r1", "node.kubernetes.io/exclude-from-external-load-balancers": "" };
          n.taints = [{ key: "example.com/dedicated", value: "infra", effect: "NoSchedule" }];
        }
      });
      for (const node of plan.nodes) {
        const first = docsOf(plan, node.name)[0] as Doc;
        expect(schemaErrors(first)).toBe("");
        const reg = first.nodeRegistration;
        expect(argsRecord(reg.kubeletExtraArgs)["node-labels"]).toBe(
          "example.com/rack=r1,node.kubernetes.io/exclude-from-external-load-balancers=",
        );
        expect(reg.taints.at(-1)).toEqual({ key: "example.com/dedicated", value: "infra", effect: "NoSchedule" });
        expect(reg.taints.length).toBe(node.controlPlane ? 2 : 1);
      }
    }
  });
});

function specText(): string {
  // the smallest spec text whose kubernetes section ends the document, for line-numbered errors
  return `apiVersion: clusterspec/v1alpha1
kind: Cluster
name: t
network:
  segments: [{ name: lan, interface: eth0, subnet: 10.0.0.0/24 }]
  nameservers: [1.1.1.1]
controlPlane: { vip: 10.0.0.100/24 }
nodes:
  - { name: n1, roles: [control-plane, worker], interfaces: { eth0: { mac: "52:54:00:00:00:01", address: 10.0.0.10/24 } } }
cilium: { version: 1.20.0 }
kubernetes:
  version: v1.34.2
  podSubnet: 10.244.0.0/16
`;
}
