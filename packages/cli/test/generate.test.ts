// Whole-pipeline properties over every registered generator.
import { posix } from "node:path";
import {
  type AnySpec,
  OutputLimitError,
  parseYamlDocuments,
  peerKeyLines,
  resolvePlan,
  type SecretValues,
} from "@clusterspec/core";
import {
  arbCloudBurstSpec,
  arbClusterSpec,
  distinctSecretsFor,
  mustValidate,
  mustValidateAny,
  withWireguardHub,
} from "@clusterspec/core/testing";
import { exampleText } from "@clusterspec/testkit";
import { type GenerateResult, generate, generateFromPlan, generatorModules } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const secretValues = {
  vrrpPassword: "Zq9-xW2+",
  bootstrapToken: "q1w2e3.r4t5y6u7i8o9p0a1",
  certificateKey: "f0e1d2c3b4a5968778695a4b3c2d1e0ff0e1d2c3b4a5968778695a4b3c2d1e0f",
  caCertHash: "sha256:0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0",
};

function artifactsOf(r: GenerateResult) {
  if (!r.ok) throw new Error(r.errors.map((e) => e.message).join("\n"));
  return r.artifacts;
}

function sampleSpec(options: Parameters<typeof arbClusterSpec>[0]) {
  const [spec] = fc.sample(arbClusterSpec(options), 1);
  if (!spec) throw new Error("fast-check sampled nothing");
  return spec;
}

/**
 * The CA certificate hash is kubeadm's pin of the CA's public key: burst user data carries it (with --with-secrets)
 * so the join script can check the CA the provisioner serves. It grants nothing; every other secret stays out.
 */
const publicInUserData = (id: string, path: string) =>
  id === "caCertHash" && (path.endsWith("/user-data.yaml") || path.endsWith("/user-data.gz.b64"));

describe("generate", () => {
  it("registers every output format once", () => {
    const names = generatorModules.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it("is deterministic, LF-only, parses back, and gives each artifact its own path", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 4, maxPool: 12 }), (spec) => {
        const a = generate(spec);
        const b = generate(structuredClone(spec));
        expect(a.ok && b.ok).toBe(true);
        if (!a.ok || !b.ok) return;
        expect(b.artifacts).toEqual(a.artifacts);
        expect(new Set(a.artifacts.map((x) => x.path)).size).toBe(a.artifacts.length);
        for (const art of a.artifacts) {
          expect(art.content.endsWith("\n") && !art.content.endsWith("\n\n"), art.path).toBe(true);
          expect(art.content.includes("\r"), art.path).toBe(false);
          if (/\.ya?ml$/.test(art.path)) expect(() => parseYamlDocuments(art.content), art.path).not.toThrow();
          if (art.path.endsWith(".json")) expect(() => JSON.parse(art.content), art.path).not.toThrow();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("puts a resolved secret only into secret artifacts (written 0600), and never into the placeholder tree", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2, maxPool: 4 }), (spec) => {
        const s = mustValidate(spec);
        const real = artifactsOf(generateFromPlan(resolvePlan(s, { secrets: secretValues })));
        const placeholder = artifactsOf(generateFromPlan(resolvePlan(s)));
        const used = Object.entries(secretValues).filter(
          ([id]) => id in resolvePlan(s, { secrets: secretValues }).secrets,
        );
        for (const art of real) {
          const leaks = used.filter(([id, v]) => art.content.includes(v) && !publicInUserData(id, art.path));
          if (leaks.length > 0) {
            expect(art.secret, `${art.path} holds ${leaks.map(([id]) => id).join(", ")}`).toBe(true);
            expect(art.mode ?? 0o600, art.path).toBe(0o600);
          }
        }
        for (const art of placeholder) for (const [, v] of used) expect(art.content.includes(v), art.path).toBe(false);
      }),
      { numRuns: 30 },
    );
  });

  it("never puts a secret into user data or a review tree, for any spec (cloud burst, hub keys, static peer keys)", () => {
    const arbSpec = fc.oneof(
      arbCloudBurstSpec().map(mustValidateAny),
      fc
        .tuple(arbClusterSpec({ cloud: true, maxWorkers: 2, maxPool: 2 }), fc.boolean())
        .map(([spec, staticKeys]) => mustValidateAny(withWireguardHub(spec, staticKeys))),
    );
    fc.assert(
      fc.property(arbSpec, fc.integer({ min: 1, max: 100000 }), (spec: AnySpec, seed) => {
        const secrets: SecretValues = distinctSecretsFor(spec, seed);
        const real = generate(spec, { secrets });
        const review = generate(spec);
        expect(real.ok && review.ok).toBe(true);
        if (!real.ok || !review.ok) return;
        // every referenced secret, each key of a list on its own
        const secretsOf = Object.values(real.plan.secrets).flatMap((s) =>
          s === undefined
            ? []
            : (s.id.startsWith("wireguardPeer") ? peerKeyLines(s.value) : [s.value]).map((v) => [s.id, v] as const),
        );
        const values = secretsOf.map(([, v]) => v);
        expect(values.length).toBeGreaterThan(0);
        for (const art of real.artifacts) {
          const leaks = secretsOf
            .filter(([id, v]) => art.content.includes(v) && !publicInUserData(id, art.path))
            .map(([, v]) => v);
          if (art.path.endsWith("/user-data.yaml") || art.path.endsWith("/user-data.gz.b64"))
            expect(leaks, art.path).toEqual([]);
          if (leaks.length > 0) expect(art.secret, `${art.path} holds a secret`).toBe(true);
        }
        for (const art of review.artifacts)
          for (const v of values) expect(art.content.includes(v), art.path).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it("returns errors, not exceptions, for secret values of the wrong shape", () => {
    const r = generate(structuredClone(sampleSpec({ maxWorkers: 1, maxPool: 1 })), {
      secrets: { bootstrapToken: "not-a-token\nkind: Evil" },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toEqual(["kubernetes.secrets.bootstrapToken"]);
  });

  it("asks a secret resolver only for the references of a valid spec, and places its errors on the spec text", () => {
    const text = exampleText("bare-metal-ha");
    const asked: string[] = [];
    const r = generate(text, {
      secrets: (refs) => {
        asked.push(...refs.map((x) => x.id));
        return { values: {}, errors: [{ path: ["vrrp", "auth", "password"], message: "VRRP_AUTH_PASS is not set" }] };
      },
    });
    expect(asked).toEqual(["vrrpPassword", "bootstrapToken", "certificateKey", "caCertHash"]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const line = text.split("\n").findIndex((l) => l.includes("password: { env: VRRP_AUTH_PASS }")) + 1;
    expect(r.errors).toEqual([
      expect.objectContaining({ path: ["vrrp", "auth", "password"], message: "VRRP_AUTH_PASS is not set", line }),
    ]);
    const resolved = generate(text, { secrets: () => ({ values: { vrrpPassword: "Zq9-xW2+" }, errors: [] }) });
    expect(resolved.ok && resolved.artifacts.some((a) => a.content.includes("Zq9-xW2+") && a.secret)).toBe(true);
    expect(generate("name: [", { secrets: () => expect.unreachable() }).ok).toBe(false);
  });

  it("gives Terraform a user-data file that cloud-init actually generates, for every pool", () => {
    fc.assert(
      fc.property(arbClusterSpec({ cloud: true, maxWorkers: 1, maxPool: 2 }), (spec) => {
        const r = generate(spec);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        const paths = new Set(r.artifacts.map((a) => a.path));
        // `${path.module}`: the folder the .tf.json files are in
        const reads = r.artifacts
          .filter((a) => a.path.endsWith(".tf.json"))
          .flatMap((a) =>
            [...a.content.matchAll(/filebase64\(\\"\$\{path\.module\}\/([^"\\]+)\\"\)/g)].map((m) =>
              posix.join(posix.dirname(a.path), m[1] ?? ""),
            ),
          );
        expect(reads.length).toBe(r.plan.cloud?.pools.length);
        for (const read of reads) expect(paths).toContain(read);
      }),
      { numRuns: 10 },
    );
  });

  it("reports a target's limit met while generating as an error at its path, not a crash", () => {
    const tooBig = {
      name: "too-big",
      generate: () => {
        throw new OutputLimitError(["cloud", "pools", 0], "user data of pool ci is 20000 bytes; EC2 accepts 16384");
      },
    };
    const r = generate(sampleSpec({ maxWorkers: 0, maxPool: 0 }), { modules: [tooBig] });
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors).toEqual([
        {
          path: ["cloud", "pools", 0],
          message: expect.stringContaining("EC2 accepts"),
          severity: "error",
          code: "output_limit",
        },
      ]);
  });

  it("gives generateFromPlan's result the shape and content of generate's, errors included", () => {
    const spec = sampleSpec({ maxWorkers: 1, maxPool: 2 });
    const r = generate(spec);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    // generate's warnings also hold the validation's, which a plan is past
    const fromPlan = generateFromPlan(r.plan);
    expect(fromPlan).toEqual({ ok: true, plan: r.plan, artifacts: r.artifacts, warnings: fromPlan.warnings });
    expect(r.warnings).toEqual(expect.arrayContaining([...fromPlan.warnings]));
    const tooBig = {
      name: "too-big",
      generate: () => {
        throw new OutputLimitError(["cloud", "pools", 0], "user data of pool ci is 20000 bytes; EC2 accepts 16384");
      },
    };
    const a = generateFromPlan(r.plan, { modules: [tooBig] });
    const b = generate(spec, { modules: [tooBig] });
    expect(a.ok || b.ok).toBe(false);
    if (!a.ok && !b.ok) expect(a.errors).toEqual(b.errors);
  });

  it("takes spec text or a spec object and nothing else (checked by tsc), and never throws on a wrong value", () => {
    // @ts-expect-error a number is neither spec text nor a spec
    const r = generate(42);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors[0]?.code).toBe("invalid_type");
  });

  it("returns errors, not exceptions, for invalid input", () => {
    const r = generate("apiVersion: clusterspec/v1alpha1\nkind: Cluster\n");
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain("name");
  });
});
