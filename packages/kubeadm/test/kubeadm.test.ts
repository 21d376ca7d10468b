import {
  type ClusterPlan,
  type ClusterSpecInput,
  generatedMarker,
  type KubeadmApiVersion,
  loadSpec,
  parseYamlDocuments,
  resolvePlan,
  toYaml,
} from "@clusterspec/core";
import {
  arbClusterSpec,
  asClusterSpec,
  buildSpec,
  mustInitNode,
  mustResolve,
  mustValidate,
  TEST_SECRETS,
} from "@clusterspec/core/testing";
import { clusterExampleNames, exampleText } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  CLUSTER_CONFIG_PATH,
  controlPlaneTaints,
  KUBELET_PATCH_FILE,
  kubeadmDocuments,
  kubeletConfiguration,
  kubeletPatch,
  PATCHES_DIRECTORY,
} from "../src/documents.js";
import { generateKubeadm } from "../src/generate.js";
import { apiServerArgs, controllerManagerArgs, nodeHealthTiming } from "../src/node-health.js";
import { summarizeKubeadm } from "../src/summary.js";
import { allowedPaths, documentPaths, kubeadmSchema, schemaErrors } from "./schema.js";

type Doc = Record<string, unknown>;

// Plans with sample secrets of the real shape: the placeholders are rejected by kubeadm (and its schema) on purpose.
const arbSmallPlan = () =>
  arbClusterSpec({ maxWorkers: 3, maxPool: 3 }).map((s) => mustResolve(s, "cluster.yaml", TEST_SECRETS));

// The same, with controlPlane.initNode and controlPlane.bootstrapped varied too.
const arbBootstrapPlan = () =>
  arbClusterSpec({ maxWorkers: 3, maxPool: 3, bootstrap: true }).map((s) =>
    mustResolve(s, "cluster.yaml", TEST_SECRETS),
  );

const docsOf = (plan: ClusterPlan, name: string): Doc[] => {
  const a = generateKubeadm(plan).find((x) => x.path === `nodes/${name}/kubeadm.yaml`);
  if (!a) throw new Error(`no kubeadm.yaml for ${name}`);
  return parseYamlDocuments(a.content) as Doc[];
};

const get = (value: unknown, ...path: (string | number)[]): unknown =>
  path.reduce<unknown>((v, k) => (v === null || typeof v !== "object" ? undefined : (v as Doc)[k as string]), value);

/** extraArgs / kubeletExtraArgs as a record, whatever the API version's form. */
function argsRecord(value: unknown): Record<string, string> {
  if (Array.isArray(value))
    return Object.fromEntries(value.map((a: { name: string; value: string }) => [a.name, a.value]));
  return (value ?? {}) as Record<string, string>;
}

const MAP_FIELDS = new Set(["nodeRegistration.kubeletExtraArgs", "apiServer.extraArgs", "controllerManager.extraArgs"]);

function versionOf(minor: number): ClusterSpecInput {
  return buildSpec({ controlPlanes: 3, workers: 1, poolSize: 2, cloud: false }, { minor });
}

describe("kubeadm.yaml", () => {
  it("writes one kubeadm.yaml per node that parses back to the documents that were serialised", () => {
    fc.assert(
      fc.property(arbBootstrapPlan(), (plan) => {
        const artifacts = generateKubeadm(plan);
        for (const node of plan.nodes) {
          const a = artifacts.find((x) => x.path === `nodes/${node.name}/kubeadm.yaml`);
          expect(a?.content.startsWith(`# ${generatedMarker(plan)}\n`)).toBe(true);
          expect(parseYamlDocuments(a?.content ?? "")).toEqual(kubeadmDocuments(plan, node));
          expect(a?.content.endsWith("\n") && !a.content.endsWith("\n\n")).toBe(true);
        }
        expect(generateKubeadm(plan)).toEqual(artifacts);
      }),
      { numRuns: 40 },
    );
  });

  it("validates every document against the strict kubeadm/kubelet schema root of its apiVersion and kind", () => {
    fc.assert(
      fc.property(arbBootstrapPlan(), (plan) => {
        for (const node of plan.nodes) {
          for (const doc of docsOf(plan, node.name)) expect(schemaErrors(doc)).toBe("");
        }
      }),
      { numRuns: 50 },
    );
  });

  it("chooses kubeadm.k8s.io/v1beta3 below 1.31 and v1beta4 from 1.31, for 1.22 to 1.35", () => {
    for (let minor = 22; minor <= 35; minor++) {
      const plan = mustResolve(versionOf(minor));
      const expected: KubeadmApiVersion = minor < 31 ? "kubeadm.k8s.io/v1beta3" : "kubeadm.k8s.io/v1beta4";
      for (const node of plan.nodes) {
        for (const doc of docsOf(plan, node.name))
          if (doc.kind !== "KubeletConfiguration") expect(doc.apiVersion, `1.${minor}`).toBe(expected);
      }
    }
  });

  it("never writes a field of one kubeadm API version under the other", () => {
    const onlyIn = (a: KubeadmApiVersion, b: KubeadmApiVersion, kind: string) => {
      const other = allowedPaths(b, kind);
      return new Set([...allowedPaths(a, kind)].filter((p) => !other.has(p)));
    };
    // the schema knows fields that exist in only one version (sanity: the check below can fail)
    expect(onlyIn("kubeadm.k8s.io/v1beta4", "kubeadm.k8s.io/v1beta3", "InitConfiguration").has("timeouts")).toBe(true);
    expect(onlyIn("kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4", "ClusterConfiguration")).toContain(
      "apiServer.timeoutForControlPlane",
    );
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        for (const node of plan.nodes) {
          for (const doc of docsOf(plan, node.name)) {
            if (doc.kind === "KubeletConfiguration") continue;
            const api = doc.apiVersion as KubeadmApiVersion;
            const allowed = allowedPaths(api, String(doc.kind));
            const v4 = api === "kubeadm.k8s.io/v1beta4";
            const paths = documentPaths(doc, v4 ? new Set() : MAP_FIELDS);
            expect(paths.filter((p) => !allowed.has(p))).toEqual([]);
            // extraArgs are a map in v1beta3 and a list of {name, value} in v1beta4
            const args = get(doc, "nodeRegistration", "kubeletExtraArgs");
            if (args !== undefined) expect(Array.isArray(args)).toBe(v4);
            expect(doc.skipPhases === undefined).toBe(v4 || doc.kind !== "InitConfiguration");
            expect(get(doc, "proxy", "disabled")).toBe(v4 && doc.kind === "ClusterConfiguration" ? true : undefined);
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("writes only KubeletConfiguration fields the Kubernetes version has", () => {
    const since = kubeadmSchema["x-kubelet-field-since"];
    for (let minor = 22; minor <= 35; minor++) {
      const plan = mustResolve(
        buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: false }, { minor, btrfs: [true, false, true] }),
      );
      const doc = kubeletConfiguration(plan);
      for (const key of Object.keys(doc)) {
        if (key === "apiVersion" || key === "kind") continue;
        const first = since[key];
        expect(first, key).toBeDefined();
        if (first && !first.startsWith("<="))
          expect(Number(first.split(".")[1]), `${key} in 1.${minor}`).toBeLessThanOrEqual(minor);
      }
      expect(doc.containerRuntimeEndpoint === undefined, `1.${minor}`).toBe(minor < 27);
      // Below 1.25 btrfs nodes get the feature gate as a kubelet flag of their own (host conf.d), never cluster-wide.
      expect(get(doc, "featureGates"), `1.${minor}`).toBeUndefined();
    }
  });

  it("pins node-ip and the advertise address to the internal address, never a VIP", () => {
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        const vips = new Set(plan.vips.flatMap((v) => [v.address, ...(v.pair6 ? [v.pair6.address] : [])]));
        for (const node of plan.nodes) {
          for (const doc of docsOf(plan, node.name)) {
            if (doc.kind === "ClusterConfiguration" || doc.kind === "KubeletConfiguration") continue;
            const nodeIp = argsRecord(get(doc, "nodeRegistration", "kubeletExtraArgs"))["node-ip"];
            // one address per cluster family, the primary (the advertise address) first (kubernetes/kubernetes#100675)
            expect(nodeIp).toBe(node.internalAddresses.join(","));
            expect(nodeIp?.split(",")[0]).toBe(node.internalAddress);
            for (const ip of nodeIp?.split(",") ?? []) expect(vips.has(ip)).toBe(false);
            expect(get(doc, "nodeRegistration", "name")).toBe(node.name);
            expect(get(doc, "nodeRegistration", "criSocket")).toMatch(/^unix:\/\//);
            const endpoint =
              doc.kind === "InitConfiguration"
                ? get(doc, "localAPIEndpoint")
                : get(doc, "controlPlane", "localAPIEndpoint");
            if (node.controlPlane)
              expect(endpoint).toEqual({ advertiseAddress: node.internalAddress, bindPort: plan.controlPlane.port });
            else expect(get(doc, "controlPlane")).toBeUndefined();
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("puts the control-plane VIP wherever the API server is named, and every join discovers through it", () => {
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        const init = docsOf(plan, mustInitNode(plan).name);
        const cluster = init.find((d) => d.kind === "ClusterConfiguration");
        expect(get(cluster, "controlPlaneEndpoint")).toBe(plan.controlPlane.endpoint);
        // the VIP of the primary family (its IPv6 half, bracketed, in an IPv6-primary cluster with a dual-stack VIP)
        const vip = plan.controlPlane.vip;
        const primary6 = plan.kubernetes.families[0] === 6;
        const host = primary6 && vip.pair6 ? vip.pair6.address : vip.address;
        expect(get(cluster, "controlPlaneEndpoint")).toBe(
          `${host.includes(":") ? `[${host}]` : host}:${plan.controlPlane.port}`,
        );
        expect(get(cluster, "apiServer", "certSANs")).toContain(vip.address);
        if (vip.pair6) expect(get(cluster, "apiServer", "certSANs")).toContain(vip.pair6.address);
        for (const node of plan.nodes.filter((n) => !n.init)) {
          const [join] = docsOf(plan, node.name);
          expect(get(join, "discovery", "bootstrapToken", "apiServerEndpoint")).toBe(plan.controlPlane.endpoint);
        }
      }),
      { numRuns: 40 },
    );
  });

  it("meets kubeadm's own semantic checks: token, certificate key, CA hash, service subnet, node mask", () => {
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        for (const node of plan.nodes) {
          for (const doc of docsOf(plan, node.name)) {
            for (const t of (get(doc, "bootstrapTokens") ?? []) as { token: string }[])
              expect(t.token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
            const token = get(doc, "discovery", "bootstrapToken", "token");
            if (token !== undefined) expect(token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
            for (const key of [get(doc, "certificateKey"), get(doc, "controlPlane", "certificateKey")])
              if (key !== undefined) expect(key).toMatch(/^[0-9a-f]{64}$/);
            for (const h of (get(doc, "discovery", "bootstrapToken", "caCertHashes") ?? []) as string[])
              expect(h).toMatch(/^sha256:[0-9a-f]{64}$/);
            if (doc.kind !== "ClusterConfiguration") continue;
            // per family: a dual-stack cluster lists two networks and has one node mask flag per family
            for (const svc of String(get(doc, "networking", "serviceSubnet")).split(",")) {
              const [svcAddress, svcPrefix] = svc.split("/");
              expect((svcAddress?.includes(":") ? 128 : 32) - Number(svcPrefix)).toBeLessThanOrEqual(20);
            }
            const pods = String(get(doc, "networking", "podSubnet")).split(",");
            expect(pods.length).toBe(plan.kubernetes.families.length);
            const args = argsRecord(get(doc, "controllerManager", "extraArgs"));
            for (const pod of pods) {
              const [podAddress, podPrefix] = pod.split("/");
              const flag =
                pods.length === 2
                  ? `node-cidr-mask-size-ipv${podAddress?.includes(":") ? 6 : 4}`
                  : "node-cidr-mask-size";
              const mask = Number(args[flag]);
              expect(mask).toBeGreaterThanOrEqual(Number(podPrefix));
              expect(mask - Number(podPrefix)).toBeLessThanOrEqual(16);
            }
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it("marks every file with a secret (or its placeholder) secret and 0600, and writes real values once resolved", () => {
    const spec = mustValidate(buildSpec({ controlPlanes: 3, workers: 1, poolSize: 0, cloud: false }));
    const placeholder = resolvePlan(spec);
    for (const a of generateKubeadm(placeholder).filter((x) => x.path.endsWith("kubeadm.yaml")))
      expect([a.path, a.secret, a.mode]).toEqual([a.path, true, 0o600]);
    const secrets = {
      bootstrapToken: "q1w2e3.r4t5y6u7i8o9p0a1",
      certificateKey: "ab".repeat(32),
      caCertHash: `sha256:${"cd".repeat(32)}`,
    };
    const real = resolvePlan(spec, { secrets });
    const all = generateKubeadm(real)
      .map((a) => a.content)
      .join("");
    for (const v of Object.values(secrets)) expect(all).toContain(v);
    const worker = docsOf(real, "node-4")[0];
    expect(get(worker, "discovery", "bootstrapToken")).toEqual({
      apiServerEndpoint: real.controlPlane.endpoint,
      token: secrets.bootstrapToken,
      caCertHashes: [secrets.caCertHash],
    });
    expect(get(worker, "controlPlane")).toBeUndefined();
  });

  it("lets a single node without join secrets init alone, with no token in its file", () => {
    const input = buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: false });
    delete (input.kubernetes as { secrets?: unknown }).secrets;
    const plan = mustResolve(input);
    const [a] = generateKubeadm(plan);
    expect(a?.secret).toBeUndefined();
    const [init] = parseYamlDocuments(a?.content ?? "") as Doc[];
    expect(init?.bootstrapTokens).toBeUndefined();
    expect(init?.certificateKey).toBeUndefined();
    expect(summarizeKubeadm(plan)).toContain("No join secrets");
  });

  it("taints control planes with the key of the version unless they run workloads", () => {
    expect(controlPlaneTaints(22).map((t) => t.key)).toEqual(["node-role.kubernetes.io/master"]);
    expect(controlPlaneTaints(24).map((t) => t.key)).toEqual([
      "node-role.kubernetes.io/master",
      "node-role.kubernetes.io/control-plane",
    ]);
    expect(controlPlaneTaints(25).map((t) => t.key)).toEqual(["node-role.kubernetes.io/control-plane"]);
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        for (const node of plan.nodes) {
          const [first] = docsOf(plan, node.name);
          const taints = get(first, "nodeRegistration", "taints");
          if (!node.controlPlane) expect(taints).toBeUndefined();
          else if (plan.kubernetes.schedulableControlPlanes) expect(taints).toEqual([]);
          else expect(taints).toEqual(controlPlaneTaints(plan.kubernetes.version.minor));
        }
      }),
      { numRuns: 40 },
    );
  });
});

describe("bootstrap: controlPlane.initNode and controlPlane.bootstrapped", () => {
  const kinds = (plan: ClusterPlan, name: string): unknown[] => docsOf(plan, name).map((d) => d.kind);
  const initNodes = (plan: ClusterPlan): string[] =>
    plan.nodes.filter((n) => kinds(plan, n.name).includes("InitConfiguration")).map((n) => n.name);
  /** `kubeadm init` as a command to run; `kubeadm init phase upload-certs` renews a running cluster's certificates. */
  const SAYS_INIT = /kubeadm init(?! phase)/;

  it("for every spec: exactly one node has an InitConfiguration, the init node, unless bootstrapped; then none", () => {
    fc.assert(
      fc.property(arbBootstrapPlan(), (plan) => {
        const bootstrapped = plan.bootstrap.bootstrapped;
        expect(initNodes(plan)).toEqual(bootstrapped ? [] : [plan.bootstrap.initNodeName]);
        expect(plan.nodes.find((n) => n.name === plan.bootstrap.initNodeName)?.controlPlane).toBe(true);
        for (const node of plan.nodes) {
          const docs = docsOf(plan, node.name);
          if (node.init) {
            expect(docs.map((d) => d.kind)).toEqual([
              "InitConfiguration",
              "ClusterConfiguration",
              "KubeletConfiguration",
            ]);
            continue;
          }
          // A join: the file is one JoinConfiguration; a control plane's with its controlPlane section and the key.
          expect(docs.map((d) => d.kind)).toEqual(["JoinConfiguration"]);
          const [join] = docs;
          if (node.controlPlane)
            expect(get(join, "controlPlane")).toEqual({
              localAPIEndpoint: { advertiseAddress: node.internalAddress, bindPort: plan.controlPlane.port },
              certificateKey: TEST_SECRETS.certificateKey,
            });
          else expect(get(join, "controlPlane")).toBeUndefined();
          expect(generateKubeadm(plan).find((a) => a.path === `nodes/${node.name}/kubeadm.yaml`)?.secret).toBe(true);
        }
        expect(SAYS_INIT.test(summarizeKubeadm(plan))).toBe(!bootstrapped);
        // The cluster-wide documents ship once: in the init node's file, or once bootstrapped in cluster/kubeadm-config.yaml.
        const clusterFile = generateKubeadm(plan).find((a) => a.path === CLUSTER_CONFIG_PATH);
        if (!bootstrapped) expect(clusterFile).toBeUndefined();
        else {
          const docs = parseYamlDocuments(clusterFile?.content ?? "") as Doc[];
          expect(docs.map((d) => d.kind)).toEqual(["ClusterConfiguration", "KubeletConfiguration"]);
          for (const doc of docs) expect(schemaErrors(doc)).toBe("");
          expect([clusterFile?.schema, clusterFile?.secret]).toEqual(["kubeadm", undefined]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("the arbitraries cover bootstrapped and not, and an init node other than the first control plane", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(arbBootstrapPlan(), (plan) => {
        seen.add(plan.bootstrap.bootstrapped ? "bootstrapped" : "init");
        const first = plan.nodes.find((n) => n.controlPlane)?.name;
        if (!plan.bootstrap.bootstrapped && plan.initNode?.name !== first) seen.add("other init node");
      }),
      { numRuns: 80, seed: 7 },
    );
    expect([...seen].sort()).toEqual(["bootstrapped", "init", "other init node"]);
  });

  it("inits on controlPlane.initNode, and the first control plane joins as a control plane", () => {
    const plan = mustResolve(
      buildSpec({ controlPlanes: 3, workers: 1, poolSize: 2, cloud: false }, { initNode: 1 }),
      "cluster.yaml",
      TEST_SECRETS,
    );
    expect(initNodes(plan)).toEqual(["node-2"]);
    expect(mustInitNode(plan).name).toBe("node-2");
    const [first] = docsOf(plan, "node-1");
    expect(first?.kind).toBe("JoinConfiguration");
    expect(get(first, "controlPlane", "localAPIEndpoint", "advertiseAddress")).toBe("10.118.12.10");
    expect(summarizeKubeadm(plan)).toContain(
      "| node-2 | init (controlPlane.initNode) | `kubeadm init --config kubeadm.yaml --upload-certs` |",
    );
    expect(summarizeKubeadm(plan)).toContain("| node-1 | join control plane | `kubeadm join --config kubeadm.yaml` |");
  });

  it("bootstrapped: no node's file is an InitConfiguration, the init node's included, and PLAN.md's kubeadm section says no kubeadm init", () => {
    const plan = mustResolve(
      buildSpec({ controlPlanes: 3, workers: 1, poolSize: 2, cloud: false }, { bootstrapped: true }),
      "cluster.yaml",
      TEST_SECRETS,
    );
    expect(initNodes(plan)).toEqual([]);
    expect(plan.initNode).toBeUndefined();
    expect(kinds(plan, "node-1")).toEqual(["JoinConfiguration"]);
    expect(get(docsOf(plan, "node-1")[0], "controlPlane", "certificateKey")).toBe(TEST_SECRETS.certificateKey);
    const md = summarizeKubeadm(plan);
    expect(md).not.toMatch(SAYS_INIT);
    expect(md).toContain("| node-1 | join control plane | `kubeadm join --config kubeadm.yaml` |");
    expect(md).toContain(
      "`kubeadm init phase upload-certs --upload-certs --certificate-key <kubernetes.secrets.certificateKey>`",
    );
  });

  it("bootstrapped: replacing the first control plane under a new name makes no node init, wherever the new one is listed", () => {
    const base = buildSpec({ controlPlanes: 3, workers: 1, poolSize: 2, cloud: false }, { bootstrapped: true });
    const renamed = structuredClone(base);
    (renamed.nodes[0] as { name: string }).name = "node-9";
    const moved = structuredClone(renamed);
    moved.nodes.push(moved.nodes.shift() as (typeof moved.nodes)[number]);
    for (const spec of [renamed, moved]) {
      const plan = mustResolve(spec, "cluster.yaml", TEST_SECRETS);
      expect(initNodes(plan)).toEqual([]);
      expect(kinds(plan, "node-9")).toEqual(["JoinConfiguration"]);
      expect(summarizeKubeadm(plan)).not.toMatch(SAYS_INIT);
    }
    // Without the mark the next control plane inits: the second cluster the flag prevents.
    const unmarked = structuredClone(moved);
    (unmarked.controlPlane as { bootstrapped?: boolean }).bootstrapped = false;
    expect(initNodes(mustResolve(unmarked, "cluster.yaml", TEST_SECRETS))).toEqual(["node-2"]);
  });
});

describe("per-node kubelet patches", () => {
  it("patches btrfs nodes from 1.25 only when not every node needs it (else the cluster-wide KubeletConfiguration says it); only those nodes", () => {
    fc.assert(
      fc.property(arbSmallPlan(), (plan) => {
        const artifacts = generateKubeadm(plan);
        const minor = plan.kubernetes.version.minor;
        const everyNode = plan.nodes.every((n) => n.rootFilesystem === "btrfs") && plan.cloud === undefined;
        const clusterWide = minor >= 25 && everyNode;
        expect(kubeletConfiguration(plan).localStorageCapacityIsolation).toBe(clusterWide ? false : undefined);
        expect(schemaErrors(kubeletConfiguration(plan))).toBe("");
        for (const node of plan.nodes) {
          const patchPath = `nodes/${node.name}${PATCHES_DIRECTORY}/${KUBELET_PATCH_FILE}`;
          const patch = artifacts.find((a) => a.path === patchPath);
          const wanted = node.rootFilesystem === "btrfs" && minor >= 25 && !clusterWide;
          expect(patch !== undefined).toBe(wanted);
          const [first] = docsOf(plan, node.name);
          expect(get(first, "patches", "directory")).toBe(wanted ? PATCHES_DIRECTORY : undefined);
          if (!patch) continue;
          const [body] = parseYamlDocuments(patch.content) as Doc[];
          expect(body).toEqual({ localStorageCapacityIsolation: false });
          // the patched KubeletConfiguration is still valid
          expect(schemaErrors({ ...kubeletConfiguration(plan), ...body })).toBe("");
        }
      }),
      { numRuns: 40 },
    );
  });

  it("names the patch file as kubeadm expects: target[suffix][+patchtype].extension", () => {
    expect(KUBELET_PATCH_FILE).toMatch(/^kubeletconfiguration[A-Za-z0-9]*(\+(strategic|merge|json))?\.(yaml|json)$/);
    const plan = mustResolve(
      buildSpec({ controlPlanes: 1, workers: 1, poolSize: 0, cloud: false }, { btrfs: [true, false] }),
    );
    expect(kubeletPatch(plan, mustInitNode(plan))).toEqual({ localStorageCapacityIsolation: false });
  });

  it("puts localStorageCapacityIsolation in the cluster-wide KubeletConfiguration when every node is on btrfs, so kubeadm upgrade keeps it without --patches", () => {
    const plan = mustResolve(
      buildSpec({ controlPlanes: 1, workers: 1, poolSize: 0, cloud: false }, { btrfs: [true, true] }),
    );
    expect(plan.nodes.map((n) => kubeletPatch(plan, n))).toEqual([undefined, undefined]);
    expect(kubeletConfiguration(plan).localStorageCapacityIsolation).toBe(false);
    expect(generateKubeadm(plan).some((a) => a.path.includes(PATCHES_DIRECTORY))).toBe(false);
    expect(summarizeKubeadm(plan)).toContain("cluster-wide KubeletConfiguration");
  });
});

describe("node health", () => {
  const arbHealthSpec = fc
    .record({
      minor: fc.integer({ min: 22, max: 35 }),
      update: fc.integer({ min: 1, max: 20 }),
      period: fc.integer({ min: 1, max: 10 }),
      factor: fc.integer({ min: 2, max: 8 }),
      eviction: fc.integer({ min: 1, max: 600 }),
      explicitGrace: fc.boolean(),
    })
    .map((r) => {
      const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: false }, { minor: r.minor });
      return {
        r,
        spec: {
          ...spec,
          kubernetes: {
            ...spec.kubernetes,
            nodeHealth: {
              statusUpdateFrequency: `${r.update}s`,
              monitorPeriod: `${r.period}s`,
              ...(r.explicitGrace ? { monitorGracePeriod: `${r.update * r.factor + r.period}s` } : {}),
              evictionAfter: `${r.eviction}s`,
            },
          },
        } as ClusterSpecInput,
      };
    })
    .filter(({ spec }) => {
      try {
        mustValidate(spec);
        return true;
      } catch {
        return false;
      }
    });

  it("passes --pod-eviction-timeout only below 1.27 and the toleration seconds to the API server always", () => {
    fc.assert(
      fc.property(arbHealthSpec, ({ r, spec }) => {
        const plan = mustResolve(spec);
        const cm = controllerManagerArgs(plan);
        expect("pod-eviction-timeout" in cm).toBe(r.minor < 27);
        expect(cm["node-monitor-period"]).toBe(`${r.period}s`);
        expect(cm["node-monitor-grace-period"]).toBe(
          r.explicitGrace ? `${r.update * r.factor + r.period}s` : r.minor >= 32 ? "50s" : "40s",
        );
        const { "shutdown-delay-duration": _drain, ...toleration } = apiServerArgs(plan);
        expect(toleration).toEqual({
          "default-not-ready-toleration-seconds": String(r.eviction),
          "default-unreachable-toleration-seconds": String(r.eviction),
        });
        const t = nodeHealthTiming(plan);
        const h = plan.kubernetes.nodeHealth.seconds;
        expect(t.noticeSeconds).toBe(h.monitorGracePeriod + h.monitorPeriod);
        expect(t.evictSeconds).toBe(t.noticeSeconds + r.eviction);
        expect(t.toleratedMisses).toBeGreaterThanOrEqual(1);
        const cluster = kubeadmDocuments(plan, mustInitNode(plan)).find((d) => d.kind === "ClusterConfiguration");
        expect(argsRecord(get(cluster, "controllerManager", "extraArgs"))).toEqual(cm);
        expect(schemaErrors(cluster ?? {})).toBe("");
      }),
      { numRuns: 50 },
    );
  });

  it("reports the worst-case time to notice a dead node and to evict its pods in PLAN.md", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: false });
    spec.kubernetes.nodeHealth = {
      statusUpdateFrequency: "4s",
      monitorPeriod: "2s",
      monitorGracePeriod: "16s",
      evictionAfter: "30s",
    };
    const md = summarizeKubeadm(mustResolve(spec));
    expect(md.startsWith("## kubeadm\n")).toBe(true);
    expect(md).toContain("at most **18s** after its last heartbeat");
    expect(md).toContain("evicted at most **48s** after it died");
    expect(md).toContain("miss 3 status updates");
  });
});

describe("strings that YAML 1.1 would retype", () => {
  const tricky = ["yes", "no", "on", "off", "y", "n", "true", "null", "0777", "1e3", "0x1f", "0o17", "012", "1-2"];

  it("keep cluster and node names strings in kubeadm.yaml", () => {
    for (const name of tricky) {
      const spec = buildSpec(
        { controlPlanes: 3, workers: 0, poolSize: 0, cloud: false },
        { names: [name, `${name}-b`, `c-${name}`] },
      );
      spec.name = name;
      const plan = mustResolve(spec);
      const init = docsOf(plan, name);
      expect(get(init[0], "nodeRegistration", "name")).toBe(name);
      expect(get(init[1], "clusterName")).toBe(name);
    }
  });

  it("round-trip any string that reaches a document, including `a: b # c`", () => {
    const base = mustResolve(buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: false }));
    fc.assert(
      fc.property(
        fc.oneof(fc.constantFrom(...tricky, "a: b # c", "- x", "{a}", "'q'", '"d"', "~", ""), fc.string()),
        (s) => {
          const plan = { ...base, name: s };
          const docs = kubeadmDocuments(plan, mustInitNode(plan));
          const back = parseYamlDocuments(generateKubeadm(plan)[0]?.content ?? "") as Doc[];
          expect(back).toEqual(docs);
          expect(get(back[1], "clusterName")).toBe(s);
          expect(parseYamlDocuments(toYaml({ s }))).toEqual([{ s }]);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("arbitraries", () => {
  it("cover both API versions, btrfs and non-schedulable control planes", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 3, maxPool: 3 }), (s) => {
        const plan = mustResolve(s);
        seen.add(plan.kubernetes.kubeadmApiVersion);
        if (plan.nodes.some((n) => n.rootFilesystem === "btrfs")) seen.add("btrfs");
        if (!plan.kubernetes.schedulableControlPlanes) seen.add("tainted");
      }),
      { numRuns: 60, seed: 7 },
    );
    expect([...seen].sort()).toEqual(["btrfs", "kubeadm.k8s.io/v1beta3", "kubeadm.k8s.io/v1beta4", "tainted"]);
  });
});

describe("reference clusters", () => {
  // the reference clusters only; examples/customised has its own DNS endpoint and is checked in knobs.test.ts
  const examples = clusterExampleNames().filter((n) => n === "bare-metal-ha" || n === "hybrid-cloud-burst");

  it.each(examples)("%s: every kubeadm document is schema-valid, v1beta4, with the VIP and btrfs handled", (name) => {
    const text = exampleText(name);
    const loaded = loadSpec(text);
    if (!loaded.ok) throw new Error(`${name} is invalid`);
    const plan = resolvePlan(asClusterSpec(loaded.value), { secrets: TEST_SECRETS });
    const artifacts = generateKubeadm(plan);
    for (const node of plan.nodes) {
      for (const doc of docsOf(plan, node.name)) {
        expect(schemaErrors(doc)).toBe("");
        if (doc.kind !== "KubeletConfiguration") expect(doc.apiVersion).toBe("kubeadm.k8s.io/v1beta4");
      }
      // every on-prem node is on btrfs: a patch only where burst nodes share the kubelet-config ConfigMap
      expect(
        artifacts.map((a) => a.path).includes(`nodes/${node.name}${PATCHES_DIRECTORY}/${KUBELET_PATCH_FILE}`),
      ).toBe(plan.cloud !== undefined);
    }
    expect(kubeletConfiguration(plan).localStorageCapacityIsolation).toBe(plan.cloud === undefined ? false : undefined);
    const cluster = docsOf(plan, mustInitNode(plan).name)[1];
    expect(get(cluster, "controlPlaneEndpoint")).toBe("10.118.12.100:6443");
    expect(get(cluster, "apiServer", "certSANs")).toEqual([
      "10.118.12.100",
      "10.118.12.20",
      "10.118.12.21",
      "10.118.12.22",
    ]);
    expect(nodeHealthTiming(plan)).toEqual({
      heartbeatSeconds: 4,
      toleratedMisses: 3,
      noticeSeconds: 18,
      evictSeconds: 48,
    });
  });
});
