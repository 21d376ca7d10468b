// The typed kubeadm knobs of issue 10: extraArgs, certSANs, extraVolumes, kubelet fields, dnsName, labels, taints.
import { type ClusterPlan, formatExtraArgs, loadSpec, parseYamlDocuments } from "@clusterspec/core";
import { buildSpec, mustInitNode, mustResolve, TEST_SECRETS } from "@clusterspec/core/testing";
import { ajv07 } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateKubeadm } from "../src/generate.js";
import { summarizeKubeadm } from "../src/summary.js";
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
        "authentication-config",
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
        "shutdown-delay-duration",
        "anonymous-auth",
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

describe("the apiserver drains while the control-plane VIP moves (issue 33)", () => {
  // keepalived's takeover after fall failed checks, computed here from the keepalived man page's formulas (down timer
  // 3 × advert_int + (256 − priority)/256 × advert_int; with weight 0 FAULT's goodbye: the skew, within one advert).
  const expected = (fall: number, interval: number, advert: number, weight: number, backup = 99): string => {
    const skew = ((256 - backup) * advert) / 256;
    return `${Math.ceil(fall * interval + (weight === 0 ? skew + advert : 3 * advert + skew))}s`;
  };
  const apiServerArgs = (plan: ClusterPlan): Record<string, string> =>
    argsRecord((docsOf(plan, mustInitNode(plan).name)[1] as Doc).apiServer.extraArgs);

  it("sets --shutdown-delay-duration to fall × interval plus the takeover, in both kubeadm API versions", () => {
    for (const minor of [30, 31, 34]) {
      const plan = base(minor);
      const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
      // v1beta3 (up to 1.30) writes a map, v1beta4 a {name, value} list
      expect(Array.isArray(cluster.apiServer.extraArgs)).toBe(minor >= 31);
      expect(apiServerArgs(plan)["shutdown-delay-duration"]).toBe("8s");
      expect(expected(2, 2, 1, -253)).toBe("8s");
      expect(schemaErrors(cluster)).toBe("");
    }
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 5 }),
        fc.constantFrom(0, -3, -253),
        (fall, interval, advert, weight) => {
          const plan = base(34, (s) => {
            s.vrrp = { ...s.vrrp, advertInterval: advert, healthCheck: { fall, interval, weight } };
          });
          expect(apiServerArgs(plan)["shutdown-delay-duration"]).toBe(expected(fall, interval, advert, weight));
        },
      ),
      { numRuns: 40 },
    );
  });

  it("leaves it out where the VIP cannot move: one control plane, or nopreempt with a negative weight", () => {
    const single = mustResolve(
      buildSpec({ controlPlanes: 1, workers: 1, poolSize: 0, cloud: false }, { minor: 34 }),
      "cluster.yaml",
      TEST_SECRETS,
    );
    expect(apiServerArgs(single)).not.toHaveProperty("shutdown-delay-duration");
    const held = base(34, (s) => {
      s.vrrp = { ...s.vrrp, nopreempt: true };
    });
    expect(apiServerArgs(held)).not.toHaveProperty("shutdown-delay-duration");
    const faulting = base(34, (s) => {
      s.vrrp = { ...s.vrrp, nopreempt: true, healthCheck: { weight: 0 } };
    });
    expect(apiServerArgs(faulting)["shutdown-delay-duration"]).toBe(expected(2, 2, 1, 0));
  });

  it("refuses shutdown-delay-duration in extraArgs: clusterspec derives it", () => {
    const r = loadSpec(`${specText()}  apiServer:\n    extraArgs: { shutdown-delay-duration: 70s }\n`);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => [e.path.join("."), e.line, e.message])).toEqual([
        [
          "kubernetes.apiServer.extraArgs.shutdown-delay-duration",
          15,
          "--shutdown-delay-duration is derived by clusterspec from vrrp.healthCheck (its fall × interval plus keepalived's takeover of the control-plane VIP): set that field instead of kubernetes.apiServer.extraArgs",
        ],
      ]);
  });
});

describe("anonymous-auth and the /readyz check (issue 33)", () => {
  const errorsOf = (text: string) => {
    const r = loadSpec(text);
    return r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.line, e.message]);
  };
  const refusal = (version: string, value: string) =>
    errorsOf(`${specText().replace("v1.34.2", version)}  apiServer:\n    extraArgs: { anonymous-auth: "${value}" }\n`);

  it("refuses anonymous-auth false with the way that keeps the check working from 1.32", () => {
    for (const value of ["false", "0", "f", "F", "FALSE", "False"])
      expect(refusal("v1.34.2", value)).toEqual([
        [
          "kubernetes.apiServer.extraArgs.anonymous-auth",
          15,
          "--anonymous-auth=false stops the control-plane VIP from following the apiserver: keepalived's check asks /readyz without credentials and would get 401 on every control plane. Kubernetes 1.34 can allow anonymous requests to the health endpoints only: drop anonymous-auth and set kubernetes.apiServer.anonymousAuth: healthEndpoints (clusterspec then writes an AuthenticationConfiguration that allows anonymous requests to /healthz, /livez and /readyz only)",
        ],
      ]);
    expect(refusal("v1.32.0", "false")[0]?.[2]).toContain("Kubernetes 1.32 can allow anonymous requests");
  });

  it("refuses it below 1.32, where the health endpoints cannot be the only anonymous ones", () => {
    expect(refusal("v1.31.4", "false")).toEqual([
      [
        "kubernetes.apiServer.extraArgs.anonymous-auth",
        15,
        "--anonymous-auth=false stops the control-plane VIP from following the apiserver: keepalived's check asks /readyz without credentials and would get 401 on every control plane. Kubernetes 1.31 cannot allow anonymous requests to the health endpoints only (that needs 1.32), so keep anonymous-auth on: RBAC's system:public-info-viewer lets anonymous users read only /healthz, /livez, /readyz and /version",
      ],
    ]);
  });

  it("accepts anonymous-auth true", () => {
    expect(refusal("v1.31.4", "true")).toEqual([]);
    expect(refusal("v1.34.2", "true")).toEqual([]);
  });

  const healthOnly = (version: string, extra = "") =>
    `${specText().replace("v1.34.2", version)}  apiServer:\n    anonymousAuth: healthEndpoints\n${extra}`;

  it("refuses anonymousAuth healthEndpoints below 1.32 with the reason", () => {
    expect(errorsOf(healthOnly("v1.31.4"))).toEqual([
      [
        "kubernetes.apiServer.anonymousAuth",
        15,
        "anonymousAuth healthEndpoints needs an AuthenticationConfiguration anonymous section (Kubernetes 1.32 and newer; alpha and off in 1.31). Kubernetes 1.31 cannot allow anonymous requests to the health endpoints only (that needs 1.32), so keep anonymous-auth on: RBAC's system:public-info-viewer lets anonymous users read only /healthz, /livez, /readyz and /version, and leave anonymousAuth unset",
      ],
    ]);
    expect(errorsOf(healthOnly("v1.32.0"))).toEqual([]);
  });

  it("refuses --anonymous-auth, --authentication-config and its volume next to anonymousAuth healthEndpoints", () => {
    expect(errorsOf(healthOnly("v1.34.2", '    extraArgs: { anonymous-auth: "true" }\n'))).toEqual([
      [
        "kubernetes.apiServer.extraArgs.anonymous-auth",
        16,
        "kube-apiserver refuses --anonymous-auth together with an AuthenticationConfiguration anonymous section, which anonymousAuth healthEndpoints writes: drop anonymous-auth from kubernetes.apiServer.extraArgs",
      ],
    ]);
    expect(errorsOf(healthOnly("v1.34.2", "    extraArgs: { authentication-config: /etc/a.yaml }\n"))).toEqual([
      [
        "kubernetes.apiServer.extraArgs.authentication-config",
        16,
        "--authentication-config is derived by clusterspec from kubernetes.apiServer.anonymousAuth (healthEndpoints writes /etc/kubernetes/authentication-config.yaml): set that field instead of kubernetes.apiServer.extraArgs",
      ],
    ]);
    expect(errorsOf(healthOnly("v1.34.2", "    extraArgs: { oidc-client-id: kubernetes }\n"))).toEqual([
      [
        "kubernetes.apiServer.extraArgs.oidc-client-id",
        16,
        "kube-apiserver refuses --oidc-client-id together with --authentication-config, which anonymousAuth healthEndpoints sets (the --oidc-* flags and an AuthenticationConfiguration are mutually exclusive; clusterspec writes no jwt authenticators): use one of the two",
      ],
    ]);
    expect(
      errorsOf(
        healthOnly(
          "v1.34.2",
          "    extraVolumes: [{ name: authentication-config, hostPath: /etc/x, mountPath: /etc/x }]\n",
        ),
      ),
    ).toEqual([
      [
        "kubernetes.apiServer.extraVolumes.0",
        16,
        "anonymousAuth healthEndpoints mounts its AuthenticationConfiguration as volume authentication-config at /etc/kubernetes/authentication-config.yaml: give this volume another name and mount path",
      ],
    ]);
  });

  // What kube-apiserver reads (k8s.io/apiserver/pkg/apis/apiserver/v1beta1 and v1 types.go, AuthenticationConfiguration:
  // jwt, anonymous (AnonymousAuthConfig: enabled, conditions[] of AnonymousAuthCondition: path), also
  // authorization's and httpSignature's sections we never write); validation.go: conditions need enabled: true.
  const authenticationConfigurationSchema = {
    type: "object",
    additionalProperties: false,
    required: ["apiVersion", "kind"],
    properties: {
      apiVersion: { enum: ["apiserver.config.k8s.io/v1beta1", "apiserver.config.k8s.io/v1"] },
      kind: { const: "AuthenticationConfiguration" },
      jwt: { type: "array" },
      anonymous: {
        type: "object",
        additionalProperties: false,
        required: ["enabled"],
        properties: {
          enabled: { type: "boolean" },
          conditions: {
            type: "array",
            items: {
              type: "object",
              additionalProperties: false,
              required: ["path"],
              properties: { path: { type: "string", minLength: 1 } },
            },
          },
        },
        if: { required: ["conditions"], properties: { conditions: { minItems: 1 } } },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then
        then: { properties: { enabled: { const: true } } },
      },
    },
  };

  it("writes an AuthenticationConfiguration of the version's apiVersion, mounted and passed to every control plane", () => {
    for (const [minor, apiVersion] of [
      [32, "apiserver.config.k8s.io/v1beta1"],
      [33, "apiserver.config.k8s.io/v1beta1"],
      [34, "apiserver.config.k8s.io/v1"],
    ] as const) {
      const plan = base(minor, (s) => {
        s.kubernetes.apiServer = { anonymousAuth: "healthEndpoints" };
      });
      const artifacts = generateKubeadm(plan);
      const files = artifacts.filter((a) => a.path.endsWith("/etc/kubernetes/authentication-config.yaml"));
      expect(files.map((a) => a.path)).toEqual(
        plan.nodes
          .filter((n) => n.controlPlane)
          .map((n) => `nodes/${n.name}/etc/kubernetes/authentication-config.yaml`),
      );
      for (const f of files) {
        const [doc] = parseYamlDocuments(f.content) as Doc[];
        expect(doc).toEqual({
          apiVersion,
          kind: "AuthenticationConfiguration",
          anonymous: { enabled: true, conditions: [{ path: "/healthz" }, { path: "/livez" }, { path: "/readyz" }] },
        });
        const validate = ajv07().compile(authenticationConfigurationSchema);
        expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
      }
      const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
      expect(argsRecord(cluster.apiServer.extraArgs)["authentication-config"]).toBe(
        "/etc/kubernetes/authentication-config.yaml",
      );
      expect(argsRecord(cluster.apiServer.extraArgs)["anonymous-auth"]).toBeUndefined();
      expect(cluster.apiServer.extraVolumes).toEqual([
        {
          name: "authentication-config",
          hostPath: "/etc/kubernetes/authentication-config.yaml",
          mountPath: "/etc/kubernetes/authentication-config.yaml",
          readOnly: true,
          pathType: "File",
        },
      ]);
      expect(schemaErrors(cluster)).toBe("");
    }
  });

  it("the schema it is checked against refuses what kube-apiserver refuses", () => {
    const validate = ajv07().compile(authenticationConfigurationSchema);
    const doc = (anonymous: unknown) => ({
      apiVersion: "apiserver.config.k8s.io/v1",
      kind: "AuthenticationConfiguration",
      anonymous,
    });
    expect(validate(doc({ enabled: false, conditions: [{ path: "/readyz" }] }))).toBe(false);
    expect(validate(doc({ enabled: true, conditions: [{ paths: "/readyz" }] }))).toBe(false);
    expect(validate(doc({ enabled: true, conditions: [{ path: "/readyz" }] }))).toBe(true);
  });

  it("PLAN.md says which paths stay anonymous and where the file lives, only when it is written", () => {
    const plan = base(33, (s) => {
      s.kubernetes.apiServer = { anonymousAuth: "healthEndpoints" };
    });
    expect(summarizeKubeadm(plan)).toContain(
      "- Anonymous requests reach kube-apiserver only at `/healthz`, `/livez`, `/readyz` (`kubernetes.apiServer.anonymousAuth: healthEndpoints`): every control plane carries `/etc/kubernetes/authentication-config.yaml` (an `apiserver.config.k8s.io/v1beta1` AuthenticationConfiguration)",
    );
    expect(summarizeKubeadm(base(33))).not.toContain("Anonymous requests");
  });

  it("writes none without anonymousAuth healthEndpoints", () => {
    const plan = base(34);
    expect(generateKubeadm(plan).some((a) => a.path.includes("authentication-config"))).toBe(false);
    const cluster = docsOf(plan, mustInitNode(plan).name)[1] as Doc;
    expect(argsRecord(cluster.apiServer.extraArgs)["authentication-config"]).toBeUndefined();
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
