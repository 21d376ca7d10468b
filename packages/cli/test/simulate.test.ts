// `clusterspec simulate`: the failure state from the flags, and what the plan says happens in it.

import { join } from "node:path";
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { exampleInput, examplesDir } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { CliError } from "../src/errors.js";
import { runCli } from "../src/run.js";
import { failureStateOf, renderSimulation, simulationJson } from "../src/simulate.js";

const plan = () => mustResolve(exampleInput());
const messageOf = (fn: () => unknown): string => {
  try {
    fn();
  } catch (e) {
    if (e instanceof CliError) return `${e.code}: ${e.message}`;
    throw e;
  }
  return "(no error)";
};

describe("simulate", () => {
  it("reads --down and --unhealthy as comma-separated node names", () => {
    expect(failureStateOf(plan(), { down: "k8s-1,k8s-3", unhealthy: "k8s-2" })).toEqual({
      down: ["k8s-1", "k8s-3"],
      unhealthy: ["k8s-2"],
    });
    expect(failureStateOf(plan(), {})).toEqual({ down: [], unhealthy: [] });
  });

  it("rejects unknown nodes, empty names and workers in --unhealthy with exit 2, naming them", () => {
    expect(messageOf(() => failureStateOf(plan(), { down: "k8s-1,k8s-9" }))).toMatchInlineSnapshot(
      `"2: --down names an unknown node: k8s-9 (nodes: k8s-1, k8s-2, k8s-3)"`,
    );
    expect(messageOf(() => failureStateOf(plan(), { unhealthy: "x,y" }))).toMatchInlineSnapshot(
      `"2: --unhealthy names unknown nodes: x, y (nodes: k8s-1, k8s-2, k8s-3)"`,
    );
    expect(messageOf(() => failureStateOf(plan(), { down: "k8s-1,,k8s-2" }))).toMatchInlineSnapshot(
      `"2: --down takes node names separated by commas"`,
    );
    const withWorker = mustResolve(buildSpec({ controlPlanes: 3, workers: 1, poolSize: 2, cloud: false }));
    expect(messageOf(() => failureStateOf(withWorker, { unhealthy: "node-4" }))).toMatchInlineSnapshot(
      `"2: --unhealthy node-4: only control-plane nodes run the apiserver check"`,
    );
  });

  it("prints who holds each VIP and each node's load", () => {
    const p = plan();
    expect(renderSimulation(p, failureStateOf(p, { down: "k8s-1,k8s-3", unhealthy: "k8s-2" }))).toMatchInlineSnapshot(`
      "Cluster k8s-test, from rest with down: k8s-1, k8s-3; apiserver check failing: k8s-2:

      | VIP | kind | holder (priority) | at rest |
      | --- | --- | --- | --- |
      | 10.118.12.100/24 | control-plane | k8s-2 (1) | moved from k8s-1 |
      | 10.118.11.20/32 | external | k8s-2 (98) | moved from k8s-1 |
      | 10.118.11.21/32 | external | k8s-2 (100) | same |
      | 10.118.11.22/32 | external | k8s-2 (99) | moved from k8s-3 |

      | node | state | control-plane VIP | external VIPs |
      | --- | --- | --- | --- |
      | k8s-1 | down | - | - |
      | k8s-2 | up, apiserver check failing | yes | 3 |
      | k8s-3 | down | - | - |
      "
    `);
  });

  it("gives the same as JSON", () => {
    const p = plan();
    const json = simulationJson(p, { down: ["k8s-1"], unhealthy: [] }) as {
      vips: { address: string; holder: string | null; atRest: string | null }[];
      nodes: { name: string; externalVips: number; controlPlaneVip: boolean }[];
    };
    expect(json.vips.map((v) => [v.address, v.atRest, v.holder])).toEqual([
      ["10.118.12.100/24", "k8s-1", "k8s-3"],
      ["10.118.11.20/32", "k8s-1", "k8s-3"],
      ["10.118.11.21/32", "k8s-2", "k8s-2"],
      ["10.118.11.22/32", "k8s-3", "k8s-3"],
    ]);
    expect(json.nodes).toEqual([
      { name: "k8s-1", up: false, healthy: true, controlPlaneVip: false, externalVips: 0 },
      { name: "k8s-2", up: true, healthy: true, controlPlaneVip: false, externalVips: 1 },
      { name: "k8s-3", up: true, healthy: true, controlPlaneVip: true, externalVips: 2 },
    ]);
  });
});

describe("clusterspec simulate (the command)", () => {
  const spec = join(examplesDir, "bare-metal-ha", "cluster.yaml");
  async function cli(args: string[]) {
    let stdout = "";
    let stderr = "";
    const code = await runCli(args, {
      cwd: examplesDir,
      env: {},
      stdout: (t) => (stdout += t),
      stderr: (t) => (stderr += t),
      version: "0.0.0",
    });
    return { code, stdout, stderr };
  }

  it("prints the tables, or JSON with --json, and exits 0", async () => {
    const text = await cli(["simulate", spec, "--down", "k8s-1,k8s-3", "--unhealthy", "k8s-2"]);
    expect(text).toMatchObject({ code: 0, stderr: "" });
    expect(text.stdout).toBe(renderSimulation(plan(), { down: ["k8s-1", "k8s-3"], unhealthy: ["k8s-2"] }));
    const json = await cli(["simulate", spec, "--down", "k8s-2", "--json"]);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual(simulationJson(plan(), { down: ["k8s-2"], unhealthy: [] }));
    const rest = await cli(["simulate", spec]);
    expect(rest.stdout).toContain("from rest with every node up and healthy");
  });

  it("exits 2 naming a node that is not in the spec", async () => {
    const r = await cli(["simulate", spec, "--down", "k8s-1,k8s-7"]);
    expect(r).toEqual({
      code: 2,
      stdout: "",
      stderr: "✖ --down names an unknown node: k8s-7 (nodes: k8s-1, k8s-2, k8s-3)\n",
    });
  });

  it("exits 2 with the usage for options that belong to another command", async () => {
    const a = await cli(["simulate", spec, "--check"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("simulate does not take --check");
    const b = await cli(["plan", spec, "--down", "k8s-1"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("plan does not take --down");
    const c = await cli(["simulate"]);
    expect(c.code).toBe(2);
    expect(c.stderr).toContain("expected exactly one spec file");
  });

  it("reports both instances of a dual-stack pair, on one holder, and exits 2 at the line of a bad pair", async () => {
    const dual = join(examplesDir, "dual-stack", "cluster.yaml");
    const dualPlan = mustResolve(exampleInput("dual-stack"));
    const text = await cli(["simulate", dual, "--down", "k8s-1"]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      "| 10.118.12.100/24 + fd00:118:12::100/64 | control-plane | k8s-3 (99) | moved from k8s-1 |",
    );
    expect(text.stdout).toContain(
      "| 10.118.11.20/32 + fd00:118:11::20/128 | external | k8s-3 (99) | moved from k8s-1 |",
    );
    const json = await cli(["simulate", dual, "--down", "k8s-1", "--json"]);
    const vips = JSON.parse(json.stdout).vips as { address: string; address6?: string; holder: string }[];
    expect(vips.map((v) => [v.address, v.address6, v.holder])).toEqual([
      ["10.118.12.100/24", "fd00:118:12::100/64", "k8s-3"],
      ["10.118.11.20/32", "fd00:118:11::20/128", "k8s-3"],
      ["fd00:118:11::21/128", undefined, "k8s-2"],
    ]);
    expect(JSON.parse(json.stdout)).toEqual(simulationJson(dualPlan, { down: ["k8s-1"], unhealthy: [] }));
    const { mkdtempSync, readFileSync, writeFileSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const bad = join(mkdtempSync(join(tmpdir(), "cs-dual-")), "cluster.yaml");
    const yaml = readFileSync(dual, "utf8").replace('address6: "fd00:118:11::20"', 'address6: "10.118.11.30"');
    writeFileSync(bad, yaml);
    const r = await cli(["simulate", bad]);
    const line = yaml.split("\n").findIndex((l) => l.includes("10.118.11.30")) + 1;
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("address6 10.118.11.30 is not an IPv6 address");
    expect(r.stderr).toContain(`cluster.yaml:${line}`);
  });

  it("exits 2 with the spec's own errors when the spec is invalid", async () => {
    const r = await cli(["simulate", join(examplesDir, "..", "package.json")]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toBe("");
  });
});
