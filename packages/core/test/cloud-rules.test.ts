import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  autoscalerTags,
  BURST_NODES_REPORT_EPHEMERAL_STORAGE,
  ephemeralStorageOf,
  kubeletMaySetLabel,
} from "../src/facts/cloud.js";
import { ASG_TAG_LIMITS, formatIssues, tunnelOverheadOf, validateSpec } from "../src/index.js";
import type { ClusterSpecInput } from "../src/spec/schema.js";
import { buildSpec, mustValidate } from "../src/testing.js";

type PoolInput = Record<string, unknown>;

function withPool(change: (pool: PoolInput) => PoolInput, extra: Record<string, unknown> = {}): ClusterSpecInput {
  const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true });
  const cloud = spec.cloud as Record<string, unknown> & { pools: PoolInput[] };
  return { ...spec, cloud: { ...cloud, ...extra, pools: cloud.pools.map(change) } } as ClusterSpecInput;
}

function errors(spec: ClusterSpecInput): string {
  const r = validateSpec(spec);
  return r.ok ? "" : formatIssues(r.errors);
}

describe("cloud pool tags", () => {
  it("builds the Cluster Autoscaler tags of a pool", () => {
    const spec = mustValidate(withPool((p) => p));
    const pool = spec.cloud?.pools[0];
    if (!pool) throw new Error("no pool");
    expect(autoscalerTags(spec.name, pool, ["cloud", "pools", 0]).map((t) => `${t.key}=${t.value}`)).toEqual([
      "Name=prop-cluster-ci-arm64",
      "k8s.io/cluster-autoscaler/enabled=true",
      "k8s.io/cluster-autoscaler/prop-cluster=owned",
      "k8s.io/cluster-autoscaler/node-template/label/node.kubernetes.io/ci=",
      "k8s.io/cluster-autoscaler/node-template/taint/ci=true:NoSchedule",
      "k8s.io/cluster-autoscaler/node-template/resources/github.com/fuse=1",
    ]);
    // Fedora Cloud's btrfs root: the kubelet reports no ephemeral-storage, so none is promised to Cluster Autoscaler
    expect(BURST_NODES_REPORT_EPHEMERAL_STORAGE).toBe(false);
    // a root that reports it: the root volume (30 GiB by default) less the kubelet's 10% hard eviction threshold
    expect(
      autoscalerTags(spec.name, pool, ["cloud", "pools", 0], true)
        .filter((t) => t.key.endsWith("/ephemeral-storage"))
        .map((t) => `${t.key}=${t.value}`),
    ).toEqual(["k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage=27648Mi"]);
    // an explicit ephemeral-storage resource replaces the derived one
    const own = { ...pool, resources: { ...pool.resources, "ephemeral-storage": "20Gi" } };
    expect(
      autoscalerTags(spec.name, own, ["cloud", "pools", 0], true)
        .filter((t) => t.key.endsWith("/ephemeral-storage"))
        .map((t) => `${t.value} from ${t.specPath.join(".")}`),
    ).toEqual(["20Gi from cloud.pools.0.resources.ephemeral-storage"]);
  });

  it("derives the ephemeral-storage tag from the root volume for any size: below it, within the value limit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 8, max: 16384 }), (gib) => {
        const [value, unit] = [
          Number.parseInt(ephemeralStorageOf(gib), 10),
          ephemeralStorageOf(gib).replace(/^\d+/, ""),
        ];
        expect(unit).toBe("Mi");
        expect(value).toBeLessThan(gib * 1024);
        expect(value).toBeGreaterThanOrEqual(Math.floor(gib * 1024 * 0.9));
        const tags = autoscalerTags("prop-cluster", { ...basePool(), rootVolumeGiB: gib }, ["cloud", "pools", 0], true);
        const tag = tags.find((t) => t.key === "k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage");
        expect(tag?.value).toBe(ephemeralStorageOf(gib));
        expect(tag?.specPath).toEqual(["cloud", "pools", 0, "rootVolumeGiB"]);
      }),
      { numRuns: 100 },
    );
  });

  it("rejects more than 50 tags, long keys, long values and two taints on one key", () => {
    const labels = Object.fromEntries(Array.from({ length: 46 }, (_, i) => [`example.com/l${i}`, "x"]));
    expect(errors(withPool((p) => ({ ...p, labels })))).toMatchInlineSnapshot(`
      "✖ pool ci-arm64 needs 51 Auto Scaling Group tags (labels, taints and resources for Cluster Autoscaler); AWS allows 50
        → at cloud.pools[0]"
    `);
    const longKey = `${"a".repeat(70)}.example.com/${"b".repeat(20)}`;
    expect(errors(withPool((p) => ({ ...p, labels: { [longKey]: "x" } })))).toMatchInlineSnapshot(`
      "✖ tag key k8s.io/cluster-autoscaler/node-template/label/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com/bbbbbbbbbbbbbbbbbbbb has 149 characters; AWS allows 128
        → at cloud.pools[0].labels["aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa.example.com/bbbbbbbbbbbbbbbbbbbb"]"
    `);
    expect(errors(withPool((p) => ({ ...p, resources: { "example.com/r": "9".repeat(300) } })))).toMatchInlineSnapshot(`
      "✖ tag k8s.io/cluster-autoscaler/node-template/resources/example.com/r has a value of 300 characters; AWS allows 256
        → at cloud.pools[0].resources["example.com/r"]"
    `);
    const taints = [
      { key: "ci", value: "a", effect: "NoSchedule" },
      { key: "ci", value: "b", effect: "NoExecute" },
    ];
    expect(errors(withPool((p) => ({ ...p, taints })))).toMatchInlineSnapshot(`
      "✖ tag k8s.io/cluster-autoscaler/node-template/taint/ci is produced twice: Cluster Autoscaler reads one taint per key
        → at cloud.pools[0].taints[1]"
    `);
  });

  it("accepts a pool exactly when its tags fit AWS's limits", () => {
    const key = fc.stringMatching(/^([a-z]{1,60}\.){0,3}example\.com\/[a-z][a-z0-9]{0,40}$/);
    fc.assert(
      fc.property(
        fc.dictionary(key, fc.constantFrom("", "x", "value"), { maxKeys: 55 }),
        fc.dictionary(key, fc.stringMatching(/^[1-9][0-9]{0,300}$/), { maxKeys: 3 }),
        fc.option(fc.stringMatching(/^[1-9][0-9]{0,3}Gi$/), { nil: undefined }),
        fc.integer({ min: 8, max: 16384 }),
        (labels, extended, ephemeral, rootVolumeGiB) => {
          // with or without an explicit ephemeral-storage (else derived from the root volume): one tag either way
          const resources = ephemeral === undefined ? extended : { ...extended, "ephemeral-storage": ephemeral };
          const spec = withPool((p) => ({ ...p, labels, resources, rootVolumeGiB }));
          const pool = { ...basePool(), labels, resources, rootVolumeGiB };
          const tags = autoscalerTags("prop-cluster", pool, ["cloud", "pools", 0]);
          const fits =
            tags.length <= ASG_TAG_LIMITS.count &&
            tags.every((t) => t.key.length <= ASG_TAG_LIMITS.keyLength && t.value.length <= ASG_TAG_LIMITS.valueLength);
          // an explicit one is a tag; none is derived on btrfs burst nodes (they report no ephemeral-storage)
          expect(tags.filter((t) => t.key.endsWith("/resources/ephemeral-storage"))).toHaveLength(
            ephemeral === undefined ? 0 : 1,
          );
          // where the root reports it, the derived tag is one more and fits too
          const reported = autoscalerTags("prop-cluster", pool, ["cloud", "pools", 0], true);
          expect(reported.filter((t) => t.key.endsWith("/resources/ephemeral-storage"))).toHaveLength(1);
          expect(reported.every((t) => t.value.length <= ASG_TAG_LIMITS.valueLength)).toBe(true);
          expect(validateSpec(spec).ok).toBe(fits);
        },
      ),
      { numRuns: 200 },
    );
  });
});

/** The example pool as the schema outputs it. */
function basePool() {
  const pool = mustValidate(withPool((p) => p)).cloud?.pools[0];
  if (!pool) throw new Error("no pool");
  return pool;
}

describe("pool labels", () => {
  it("follows the kubelet's self-labelling rules", () => {
    expect(
      [
        "example.com/pool",
        "node.kubernetes.io/ci",
        "ci.node.kubernetes.io/x",
        "kubelet.kubernetes.io/x",
        "kubernetes.io/arch",
        "topology.kubernetes.io/zone",
        "pool",
        "node-role.kubernetes.io/ci",
        "k8s.io/x",
        "x.k8s.io/y",
        "node-restriction.kubernetes.io/x",
        "kubernetes.io/x",
      ].map((k) => `${k} ${kubeletMaySetLabel(k)}`),
    ).toMatchInlineSnapshot(`
      [
        "example.com/pool true",
        "node.kubernetes.io/ci true",
        "ci.node.kubernetes.io/x true",
        "kubelet.kubernetes.io/x true",
        "kubernetes.io/arch true",
        "topology.kubernetes.io/zone true",
        "pool true",
        "node-role.kubernetes.io/ci false",
        "k8s.io/x false",
        "x.k8s.io/y false",
        "node-restriction.kubernetes.io/x false",
        "kubernetes.io/x false",
      ]
    `);
  });

  it("rejects a label the kubelet may not set", () => {
    expect(errors(withPool((p) => ({ ...p, labels: { "node-role.kubernetes.io/ci": "" } })))).toMatchInlineSnapshot(`
      "✖ the kubelet may not set label node-role.kubernetes.io/ci on its own node (NodeRestriction); use a key outside kubernetes.io and k8s.io, or under node.kubernetes.io/
        → at cloud.pools[0].labels["node-role.kubernetes.io/ci"]"
    `);
  });
});

describe("provisioner URL", () => {
  it("is a base URL without query or fragment", () => {
    expect(
      errors(withPool((p) => p, { provisioner: { url: "https://prov.example.com/api?token=x" } })),
    ).toMatchInlineSnapshot(`
      "✖ provisioner URL https://prov.example.com/api?token=x has a query or fragment; give its base URL, paths such as /wireguard/config/<instance-id> are appended
        → at cloud.provisioner.url"
    `);
    expect(errors(withPool((p) => p, { provisioner: { url: "https://prov.example.com/api" } }))).toBe("");
  });
});

describe("AMI lookups (issue 29 item 8)", () => {
  const lookup = (name: string) => withPool((p) => ({ ...p, ami: { lookup: { owners: ["125523088429"], name } } }));

  it("refuses a Fedora release without versioned Kubernetes packages", () => {
    expect(errors(lookup("Fedora-Cloud-Base-40-*"))).toMatchInlineSnapshot(`
      "✖ pool ci-arm64 looks up Fedora 40, which has no versioned Kubernetes packages (kubernetesX.Y, cri-oX.Y: Fedora 41 and newer): name Fedora 41 or newer
        → at cloud.pools[0].ami.lookup.name"
    `);
    expect(errors(lookup("Fedora-Cloud-Base-AmazonEC2.aarch64-41-*"))).toBe("");
  });

  it("warns when the name matches every Fedora release, and not when it pins one or names no Fedora", () => {
    const r = validateSpec(lookup("Fedora-Cloud-Base-AmazonEC2.aarch64-*"));
    expect(r.ok).toBe(true);
    expect(formatIssues(r.warnings)).toMatchInlineSnapshot(`
      "⚠ pool ci-arm64 looks up Fedora-Cloud-Base-AmazonEC2.aarch64-*, which matches images of every Fedora release: with most_recent each terraform apply may move the pool to a new release (kernel, cri-o, package streams); pin the release in the name (e.g. Fedora-Cloud-Base-AmazonEC2.x86_64-43-*), or set ami.id for production
        → at cloud.pools[0].ami.lookup.name"
    `);
    for (const name of ["Fedora-Cloud-Base-AmazonEC2.aarch64-43-*", "my-golden-image-*"])
      expect(validateSpec(lookup(name)).warnings.filter((w) => w.path.includes("ami"))).toEqual([]);
  });
});

describe("tunnel overhead (issue 29 item 7)", () => {
  it("is 60 bytes only for an IPv4 literal endpoint, 80 for an IPv6 literal, a DNS name or none", () => {
    fc.assert(
      fc.property(fc.ipV4(), fc.ipV6(), fc.integer({ min: 1, max: 65535 }), (v4, v6, port) => {
        expect(tunnelOverheadOf(`${v4}:${port}`)).toBe(60);
        expect(tunnelOverheadOf(`[${v6}]:${port}`)).toBe(80);
      }),
    );
    expect(tunnelOverheadOf("vpn.example.com:51820")).toBe(80);
    expect(tunnelOverheadOf(undefined)).toBe(80);
  });
});
