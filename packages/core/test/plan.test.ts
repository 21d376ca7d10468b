import {
  checkSecretValues,
  generatedMarker,
  resolvePlan,
  SECRET_KINDS,
  specJsonSchema,
  validateSpec,
} from "@clusterspec/core";
import { arbClusterSpec, mustInitNode, mustResolve, mustValidate, TEST_SECRETS } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { defaultMonitorGracePeriod, kubeadmApiVersionFor } from "../src/facts/kubernetes.js";
import { addressAt } from "../src/ip.js";
import { CLOUD_NODE_DEVICES } from "../src/plan/cilium.js";
import { referenceSpec } from "./helpers.js";

describe("resolvePlan", () => {
  it("resolves the reference cluster", () => {
    const plan = mustResolve(referenceSpec());
    expect(plan.controlPlane.endpoint).toBe("10.118.12.100:6443");
    expect(plan.kubernetes.kubeadmApiVersion).toBe("kubeadm.k8s.io/v1beta4");
    expect(mustInitNode(plan).name).toBe("k8s-1");
    expect(plan.nodes.map((n) => [n.name, n.internalAddress])).toEqual([
      ["k8s-1", "10.118.12.20"],
      ["k8s-2", "10.118.12.21"],
      ["k8s-3", "10.118.12.22"],
    ]);
    expect(plan.network.policyRoutes).toHaveLength(1);
    expect(plan.network.policyRoutes[0]?.sources).toEqual(["10.118.11.0/24"]);
    expect(plan.kubernetes.nodeHealth.seconds).toEqual({
      statusUpdateFrequency: 4,
      monitorPeriod: 2,
      monitorGracePeriod: 16,
      evictionAfter: 30,
    });
  });

  it("chooses the kubeadm API by version: v1beta3 below 1.31, v1beta4 from 1.31", () => {
    for (let minor = 22; minor <= 35; minor++)
      expect(kubeadmApiVersionFor(minor)).toBe(minor >= 31 ? "kubeadm.k8s.io/v1beta4" : "kubeadm.k8s.io/v1beta3");
    expect(defaultMonitorGracePeriod(31)).toBe("40s");
    expect(defaultMonitorGracePeriod(32)).toBe("50s");
  });

  it("resolves every valid spec, with one init node and every node's address in the Kubernetes segment", () => {
    fc.assert(
      fc.property(arbClusterSpec(), (spec) => {
        const plan = mustResolve(spec);
        expect(plan.nodes.filter((n) => n.init)).toHaveLength(1);
        expect(mustInitNode(plan).controlPlane).toBe(true);
        for (const n of plan.nodes) expect(n.internalInterface).toBe(plan.network.kubernetesSegment.interface);
        expect(plan.kubernetes.kubeadmApiVersion).toBe(kubeadmApiVersionFor(plan.kubernetes.version.minor));
      }),
      { numRuns: 100 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(arbClusterSpec(), (spec) => {
        const s = mustValidate(spec);
        expect(resolvePlan(s)).toEqual(resolvePlan(s));
      }),
      { numRuns: 50 },
    );
  });
});

describe("secrets", () => {
  it("renders placeholders when no value is given", () => {
    const plan = mustResolve(referenceSpec());
    for (const s of Object.values(plan.secrets)) {
      expect(s?.isPlaceholder).toBe(true);
      expect(s?.value).toBe(SECRET_KINDS[s?.id ?? "vrrpPassword"].placeholder);
    }
  });

  it("uses resolved values and checks their shape", () => {
    const plan = resolvePlan(mustValidate(referenceSpec()), { secrets: { vrrpPassword: "s3cret" } });
    expect(plan.secrets.vrrpPassword).toMatchObject({ value: "s3cret", isPlaceholder: false });
    expect(checkSecretValues({ vrrpPassword: "much-too-long", bootstrapToken: "nope" })).toMatchInlineSnapshot(`
      [
        {
          "message": "resolved VRRP auth_pass is invalid: a VRRP password is 1-8 characters from A-Z a-z 0-9 _ . : / + = , % - (keepalived truncates longer ones and reads others as comments, quotes or variables)",
          "path": [
            "vrrp",
            "auth",
            "password",
          ],
        },
        {
          "message": "resolved kubeadm bootstrap token is invalid: a bootstrap token matches [a-z0-9]{6}.[a-z0-9]{16}",
          "path": [
            "kubernetes",
            "secrets",
            "bootstrapToken",
          ],
        },
      ]
    `);
  });

  it("gives kubeadm placeholders it refuses, so an unresolved tree cannot join nodes with a public token", () => {
    for (const id of ["bootstrapToken", "certificateKey", "caCertHash"] as const)
      expect(SECRET_KINDS[id].check(SECRET_KINDS[id].placeholder), id).toBeDefined();
    // keepalived cannot be made to refuse a password; its placeholder is at least a valid one.
    expect(SECRET_KINDS.vrrpPassword.check(SECRET_KINDS.vrrpPassword.placeholder)).toBeUndefined();
  });

  it("accepts the sample secrets the tests deploy with", () => {
    expect(checkSecretValues(TEST_SECRETS)).toEqual([]);
  });
});

describe("specJsonSchema", () => {
  it("describes every top-level field and accepts nothing unknown", () => {
    const [full, burst] = (
      specJsonSchema() as {
        anyOf: { properties: Record<string, { description?: string }>; additionalProperties: unknown }[];
      }
    ).anyOf;
    if (!full || !burst) throw new Error("expected a cluster and a cloud burst alternative");
    expect(Object.keys(burst.properties)).toEqual(["apiVersion", "kind", "name", "existingCluster", "cloud"]);
    expect(burst.additionalProperties).toBe(false);
    const schema = full;
    expect(Object.keys(schema.properties)).toEqual([
      "apiVersion",
      "kind",
      "name",
      "kubernetes",
      "network",
      "controlPlane",
      "vrrp",
      "externalVips",
      "nodes",
      "host",
      "cilium",
      "cloud",
      "overlays",
    ]);
    for (const [key, prop] of Object.entries(schema.properties)) expect(prop.description, key).toBeTruthy();
    expect(schema.additionalProperties).toBe(false);
    expect(validateSpec(referenceSpec()).ok).toBe(true);
  });
});

describe("cloud burst routing", () => {
  it("runs Cilium in tunnel mode whenever burst nodes exist (pod traffic to them can only cross WireGuard)", () => {
    fc.assert(
      fc.property(arbClusterSpec({ cloud: true }), fc.constantFrom("native", "tunnel"), (spec, mode) => {
        const s = structuredClone(spec) as any;
        s.cilium.routingMode = mode;
        const r = validateSpec(s);
        if (r.ok) expect(mustResolve(s).cilium.routingMode).toBe("tunnel");
        else expect(mode).toBe("native");
      }),
      { numRuns: 60 },
    );
  });
});

describe("Cilium devices", () => {
  it("covers the Kubernetes interface, every default-route interface and, with burst nodes, the tunnel and the EC2 interface", () => {
    fc.assert(
      fc.property(arbClusterSpec(), (spec) => {
        const plan = mustResolve(spec);
        const devices = plan.cilium.devices;
        expect(new Set(devices).size).toBe(devices.length);
        expect(devices).toContain(plan.network.kubernetesSegment.interface);
        for (const node of plan.nodes)
          for (const f of node.interfaces) if (f.gateway) expect(devices, `${node.name} ${f.name}`).toContain(f.name);
        if (plan.cloud)
          expect(devices).toEqual(expect.arrayContaining([plan.cloud.wireguard.interface, ...CLOUD_NODE_DEVICES]));
        else for (const d of CLOUD_NODE_DEVICES) expect(devices).not.toContain(d);
      }),
      { numRuns: 60 },
    );
  });
});

describe("generatedMarker", () => {
  it("is one printable line whatever the spec file is called", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 30 }), (name) => {
        const marker = generatedMarker(resolvePlan(mustValidate(referenceSpec()), { sourceName: name }));
        const control = [...marker].filter((c) => {
          const code = c.codePointAt(0) ?? 0;
          return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
        });
        expect(control).toEqual([]);
        expect(marker.startsWith("generated by clusterspec from ")).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});

describe("local storage isolation on btrfs", () => {
  it("is switched off on btrfs nodes only: by the kubelet feature gate up to 1.24; from 1.25 cluster-wide when every node (and no burst node) needs it, else by a patch", () => {
    fc.assert(
      fc.property(arbClusterSpec(), (spec) => {
        const plan = mustResolve(spec);
        const everyNode = plan.nodes.every((n) => n.rootFilesystem === "btrfs") && plan.cloud === undefined;
        for (const n of plan.nodes) {
          const expected =
            n.rootFilesystem !== "btrfs"
              ? undefined
              : plan.kubernetes.version.minor <= 24
                ? "kubelet-feature-gate"
                : everyNode
                  ? "kubelet-config"
                  : "kubelet-config-patch";
          expect(n.localStorageIsolationOff, n.name).toBe(expected);
        }
      }),
      { numRuns: 60 },
    );
  });
});

describe("tunnel route to burst nodes", () => {
  it("routes the tunnel subnet through the hub on every on-prem node but the hub itself", () => {
    fc.assert(
      fc.property(arbClusterSpec({ cloud: true }), fc.nat(), fc.boolean(), (spec, k, onNode) => {
        const s = structuredClone(spec) as any;
        const seg = s.network.segments[0].subnet;
        const hubNode = s.nodes[k % s.nodes.length];
        const nodeAddr = hubNode.interfaces.wan1.address.split("/")[0];
        // a dual-stack tunnel (tunnelSubnet6) goes through the hub's address6, so its hub is always a node
        const tunnel6 = s.cloud.wireguard.tunnelSubnet6;
        const hubOnNode = onNode || tunnel6 !== undefined;
        s.cloud.wireguard.hub = hubOnNode ? nodeAddr : addressAt(seg, 250);
        const plan = mustResolve(s);
        for (const n of plan.nodes) {
          if (hubOnNode && n.name === hubNode.name) {
            expect(n.tunnelRoute).toBeUndefined();
            expect(n.tunnelRoute6).toBeUndefined();
          } else {
            expect(n.tunnelRoute).toEqual({
              subnet: s.cloud.wireguard.tunnelSubnet,
              via: s.cloud.wireguard.hub,
              interface: n.internalInterface,
            });
            expect(n.tunnelRoute6).toEqual(
              tunnel6 === undefined
                ? undefined
                : {
                    subnet: tunnel6,
                    via: hubNode.interfaces.wan1.address6.split("/")[0],
                    interface: n.internalInterface,
                  },
            );
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("rejects a hub outside the Kubernetes segment", () => {
    const spec = structuredClone(fc.sample(arbClusterSpec({ cloud: true }), 1)[0]) as any;
    spec.cloud.wireguard.hub = "203.0.113.9";
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain("cloud.wireguard.hub");
  });
});
