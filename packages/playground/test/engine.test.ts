import { AT_REST, holderMap, isCloudBurstPlan, simulateFailover } from "@clusterspec/core";
import { exampleText } from "@clusterspec/testkit";
import { unzipSync } from "fflate";
import { describe, expect, it } from "vitest";
import {
  checkNodes,
  fileTree,
  lineIssues,
  mermaidBlocks,
  runSpec,
  vipHolders,
  vipNodes,
  zipTree,
} from "../src/engine.js";

const result = await runSpec(exampleText("bare-metal-ha"));
if (!result.ok) throw new Error("bare-metal-ha is invalid");

describe("lineIssues", () => {
  it("places each issue at its line with the CLI's text", async () => {
    const broken = exampleText("bare-metal-ha").replace("  port: 6443", "  port: 70000\n  colour: blue");
    expect(lineIssues(await runSpec(broken), broken)).toMatchInlineSnapshot(`
      [
        {
          "column": 3,
          "line": 33,
          "severity": "error",
          "text": "✖ 70000 is out of range: expected a number in 1..65535
        → at controlPlane.port (cluster.yaml:33:3)
        33 |   port: 70000
           |   ^^^^",
        },
        {
          "column": 3,
          "line": 34,
          "severity": "error",
          "text": "✖ unknown key "colour"
        → at controlPlane.colour (cluster.yaml:34:3)
        34 |   colour: blue
           |   ^^^^^^",
        },
      ]
    `);
  });
  it("puts a YAML syntax error at what to fix, in the CLI's words", async () => {
    const [issue] = lineIssues(await runSpec("apiVersion: [\n"), "apiVersion: [\n");
    expect(issue?.line).toBe(1);
    expect(issue?.text).toMatch(/^✖ this list opened with \[ is never closed: end it with \]/);
  });
});

describe("fileTree", () => {
  it("nests the artifact paths, folders first, every file once", () => {
    const tree = fileTree(result.artifacts);
    expect(tree.folders.map((f) => f.name)).toEqual(["cluster", "nodes"]);
    expect(tree.files.map((f) => f.path)).toEqual(["PLAN.md", "identities.json"]);
    const count = (f: typeof tree): number => f.files.length + f.folders.reduce((n, s) => n + count(s), 0);
    expect(count(tree)).toBe(result.artifacts.length);
  });
});

describe("zipTree", () => {
  it("holds every artifact with its content, and the same bytes each time", () => {
    const zip = zipTree(result.artifacts);
    const files = unzipSync(zip);
    expect(Object.keys(files).sort()).toEqual(result.artifacts.map((a) => a.path).sort());
    for (const a of result.artifacts) expect(new TextDecoder().decode(files[a.path])).toBe(a.content);
    expect(zipTree(result.artifacts)).toEqual(zip);
  });
});

describe("vipHolders", () => {
  it("moves a failed node's VIPs to the next priority and leaves the others", () => {
    expect(vipNodes(result.plan)).toEqual(["k8s-1", "k8s-2", "k8s-3"]);
    const holders = vipHolders(result.plan, new Set(["k8s-1"]));
    expect(holders.map((h) => [h.vip, h.normally, h.now])).toEqual([
      ["10.118.12.100/24", "k8s-1", "k8s-3"],
      ["10.118.11.20/32", "k8s-1", "k8s-3"],
      ["10.118.11.21/32", "k8s-2", "k8s-2"],
      ["10.118.11.22/32", "k8s-3", "k8s-3"],
    ]);
    const all = vipHolders(result.plan, new Set(["k8s-1", "k8s-2", "k8s-3"]));
    expect(all.every((h) => h.now === undefined)).toBe(true);
  });

  it("follows core's failover model, failing an apiserver check too", () => {
    const plan = result.plan;
    if (isCloudBurstPlan(plan)) throw new Error("bare-metal-ha has VIPs");
    const atRest = holderMap(simulateFailover(plan, AT_REST));
    const model = (down: string[], unhealthy: string[]) =>
      plan.vips.map((v) => holderMap(simulateFailover(plan, { down, unhealthy }, atRest)).get(v.key));
    expect(checkNodes(plan)).toEqual(["k8s-1", "k8s-2", "k8s-3"]);
    for (const [down, unhealthy] of [
      [[], []],
      [["k8s-1"], []],
      [["k8s-2"], ["k8s-1"]],
      [[], ["k8s-1"]],
    ] as const) {
      const holders = vipHolders(plan, new Set(down), new Set(unhealthy));
      expect(holders.map((h) => h.normally)).toEqual(plan.vips.map((v) => atRest.get(v.key)));
      expect(holders.map((h) => h.now)).toEqual(model([...down], [...unhealthy]));
    }
    // k8s-1 holds the control-plane VIP at rest; failing its apiserver check moves that VIP, not the external ones.
    const sick = vipHolders(plan, new Set(), new Set(["k8s-1"]));
    const cp = sick.find((h) => h.kind === "control-plane");
    expect(cp?.normally).toBe("k8s-1");
    expect(cp?.now).not.toBe("k8s-1");
    expect(sick.filter((h) => h.kind !== "control-plane").every((h) => h.now === h.normally)).toBe(true);
  });
});

describe("mermaidBlocks", () => {
  it("finds each fenced mermaid block", () => {
    expect(
      mermaidBlocks("# t\n```mermaid\nflowchart LR\n  a --> b\n```\n\n```sh\nls\n```\n```mermaid\npie\n```\n"),
    ).toEqual(["flowchart LR\n  a --> b\n", "pie\n"]);
  });
});
