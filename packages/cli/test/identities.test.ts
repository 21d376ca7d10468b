// identities.json: the VIP priority orders a tree carries to the next run. Through the library, a node whose
// keepalived instances did not change keeps its keepalived.conf byte for byte when another carrier is added or
// removed; through the CLI, generate and generate --check read the folder's file, and a malformed one (or a link
// there) is an exit-2 error naming the file and the field, with nothing written.
import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildSpec } from "@clusterspec/core/testing";
import { type ClusterPlan, type GenerateResult, generate, type Identities, parseIdentities } from "clusterspec";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const bare = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");

const ok = (r: GenerateResult) => {
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r;
};
const file = (r: GenerateResult, path: string): string | undefined =>
  ok(r).artifacts.find((a) => a.path === path)?.content;
const identitiesIn = (r: GenerateResult): Identities => {
  const parsed = parseIdentities(JSON.parse(file(r, "identities.json") ?? "null"));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.value;
};

/** What a node's keepalived instances are made of: each VIP it is in, with its VRID, order and priorities. */
function instancesOf(plan: ClusterPlan, node: string): string {
  return JSON.stringify(
    plan.vips.filter((v) => v.order.includes(node)).map((v) => [v.address, v.vrid, v.order, v.priorities]),
  );
}

describe("identities.json through the library", () => {
  it("is written at the top of the tree, and carrying it forward changes nothing", () => {
    const first = ok(generate(bare));
    expect(file(first, "identities.json")).toMatchInlineSnapshot(`
      "{
        "schemaVersion": 1,
        "vips": {
          "10.118.11.20": [
            "k8s-1",
            "k8s-3",
            "k8s-2"
          ],
          "10.118.11.21": [
            "k8s-2",
            "k8s-1",
            "k8s-3"
          ],
          "10.118.11.22": [
            "k8s-3",
            "k8s-2",
            "k8s-1"
          ],
          "10.118.12.100": [
            "k8s-1",
            "k8s-3",
            "k8s-2"
          ]
        }
      }
      "
    `);
    const again = ok(generate(bare, { identities: identitiesIn(first) }));
    expect(again.artifacts).toEqual(first.artifacts);
  });

  it("makes the order of nodes in the spec irrelevant once the orders exist", () => {
    const first = ok(generate(bare));
    const spec = parse(bare);
    spec.nodes.reverse();
    const reordered = ok(generate(spec, { identities: identitiesIn(first) }));
    for (const node of ["k8s-1", "k8s-2", "k8s-3"]) {
      const conf = `nodes/${node}/etc/keepalived/keepalived.conf`;
      expect(file(reordered, conf), conf).toBe(file(first, conf));
    }
  });

  it("refuses an identities value that is not an identities.json, naming the field", () => {
    expect(() => generate(bare, { identities: { schemaVersion: 1, vips: { "10.118.11.20": [] } } })).toThrow(
      'identities is not a valid identities.json: vips["10.118.11.20"]: expected a non-empty list of node names, found an empty list',
    );
  });

  it("rewrites no keepalived.conf of a node whose instances did not change when a carrier is added or removed", () => {
    let changed = 0;
    let kept = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 2, max: 9 }),
        fc.nat(),
        (workers, poolSize, replicas, pick) => {
          const full: any = buildSpec({ controlPlanes: 3, workers, poolSize, cloud: false });
          full.externalVips.replicas = Math.min(replicas, 3 + workers);
          const one = 3 + (pick % workers); // a worker that carries external VIPs only
          const without: any = structuredClone(full);
          without.nodes.splice(one, 1);
          without.externalVips.replicas = Math.min(full.externalVips.replicas, 2 + workers);
          for (const [from, to] of [
            [without, full],
            [full, without],
          ]) {
            const before = ok(generate(from, { identities: identitiesIn(ok(generate(from))) }));
            const after = ok(generate(to, { identities: identitiesIn(before) }));
            for (const node of to.nodes.map((n: { name: string }) => n.name)) {
              if (!from.nodes.some((n: { name: string }) => n.name === node)) continue;
              const conf = `nodes/${node}/etc/keepalived/keepalived.conf`;
              if (instancesOf(before.plan as ClusterPlan, node) !== instancesOf(after.plan as ClusterPlan, node)) {
                changed++;
                continue;
              }
              kept++;
              expect(file(after, conf), conf).toBe(file(before, conf));
            }
          }
        },
      ),
      { numRuns: 25 },
    );
    // Some nodes keep their instances (replicas below the carriers), or the property would say nothing.
    expect(kept).toBeGreaterThan(0);
    expect(changed).toBeGreaterThan(0);
  });
});

describe("identities.json through the CLI", () => {
  const roots: string[] = [];
  afterAll(() => {
    for (const r of roots) rmSync(r, { recursive: true, force: true });
  });
  const folder = () => {
    const root = mkdtempSync(join(tmpdir(), "clusterspec-identities-"));
    roots.push(root);
    writeFileSync(join(root, "cluster.yaml"), bare);
    return root;
  };
  const tree = (root: string) => readFileSync(join(root, "generated", "PLAN.md"), "utf8");

  it("reads the folder's file: reordering nodes then changes no keepalived.conf, and --check agrees", async () => {
    const root = folder();
    expect((await runCaptured(["generate", "cluster.yaml"], root)).code).toBe(0);
    const conf = join(root, "generated", "nodes", "k8s-2", "etc", "keepalived", "keepalived.conf");
    const before = readFileSync(conf, "utf8");
    const spec = parse(bare);
    spec.nodes.reverse();
    const { stringify } = await import("yaml");
    writeFileSync(join(root, "cluster.yaml"), stringify(spec));
    expect((await runCaptured(["generate", "cluster.yaml"], root)).code).toBe(0);
    expect(readFileSync(conf, "utf8")).toBe(before);
    const check = await runCaptured(["generate", "cluster.yaml", "--check"], root);
    expect([check.code, check.stderr]).toEqual([0, ""]);
  });

  it.each([
    ["not JSON", "{ nope", "is not JSON"],
    [
      "a list where the order goes",
      '{"schemaVersion":1,"vips":{"10.118.11.20":"k8s-1"}}',
      'vips["10.118.11.20"]: expected a non-empty list of node names, found a string',
    ],
    ["a newer version", '{"schemaVersion":2,"vips":{}}', "schemaVersion: 2 is not a version this clusterspec reads"],
    [
      "a node twice",
      '{"schemaVersion":1,"vips":{"10.118.11.20":["k8s-1","k8s-1"]}}',
      'vips["10.118.11.20"][1]: node k8s-1 is listed twice',
    ],
  ])("refuses %s: exit 2 naming the file and field, nothing written", async (_what, content, says) => {
    const root = folder();
    expect((await runCaptured(["generate", "cluster.yaml"], root)).code).toBe(0);
    const path = join(root, "generated", "identities.json");
    writeFileSync(path, content);
    const planBefore = tree(root);
    writeFileSync(join(root, "cluster.yaml"), bare.replace(/^name: .*$/m, "name: renamed"));
    for (const argv of [
      ["generate", "cluster.yaml"],
      ["generate", "cluster.yaml", "--check"],
    ]) {
      const r = await runCaptured(argv, root);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain(path);
      expect(r.stderr).toContain(says);
    }
    expect(tree(root)).toBe(planBefore);
    expect(readFileSync(path, "utf8")).toBe(content);
  });

  it("never follows a symbolic link at identities.json", async () => {
    const root = folder();
    expect((await runCaptured(["generate", "cluster.yaml"], root)).code).toBe(0);
    const path = join(root, "generated", "identities.json");
    const elsewhere = join(root, "elsewhere.json");
    writeFileSync(elsewhere, readFileSync(path, "utf8"));
    rmSync(path);
    symlinkSync(elsewhere, path);
    const r = await runCaptured(["generate", "cluster.yaml"], root);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path} is a symbolic link, which is not followed`);
    expect(lstatSync(path).isSymbolicLink()).toBe(true);
  });
});
