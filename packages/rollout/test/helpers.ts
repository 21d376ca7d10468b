// Both trees of a change from spec texts, through the real pipeline (the `clusterspec` library), and the change plan
// between them as the CLI computes it (the same line lookup and regenerate callback).
import { isCloudBurstPlan, resolvePlan, specLineLocator } from "@clusterspec/core";
import type { ClusterPlan, ClusterSpec } from "@clusterspec/core/types";
import { exampleText } from "@clusterspec/testkit";
import { loadSpec, renderArtifacts, validateSpec } from "clusterspec";
import { expect } from "vitest";
import { type ChangePlan, type NodeStepPlanner, planChanges, type TreeSide } from "../src/index.js";

export const bare = exampleText("bare-metal-ha");
export const hybrid = exampleText("hybrid-cloud-burst");

/** The tree of a spec as the CLI's regenerate callback renders it (the upstream schema checks aside). */
function render(spec: unknown): TreeSide | undefined {
  const validated = typeof spec === "string" ? loadSpec(spec) : validateSpec(spec);
  if (!validated.ok) return undefined;
  const plan = resolvePlan(validated.value, { sourceName: "cluster.yaml" });
  if (isCloudBurstPlan(plan)) throw new Error("a cloud burst spec");
  const rendered = renderArtifacts(plan);
  if (rendered.errors.length > 0) return undefined;
  return { spec: validated.value as ClusterSpec, plan: plan as ClusterPlan, artifacts: rendered.artifacts };
}

export function side(spec: string): TreeSide {
  const tree = render(spec);
  if (!tree) {
    const v = loadSpec(spec);
    throw new Error(v.ok ? "does not render" : v.errors.map((e) => `${e.path.join(".")}: ${e.message}`).join("\n"));
  }
  return tree;
}

export function changes(oldText: string, newText: string, planners: readonly NodeStepPlanner[] = []): ChangePlan {
  const lines = { old: specLineLocator(oldText), new: specLineLocator(newText) };
  return planChanges(side(oldText), side(newText), planners, {
    lineOf: (path, s) => lines[s](path),
    regenerate: (spec) => render(spec)?.artifacts,
  });
}

/** Replaces the first match of `from`, which must exist. */
export function edit(text: string, from: string | RegExp, to: string): string {
  const changed = text.replace(from, to);
  expect(changed, `${from} not found`).not.toBe(text);
  return changed;
}

/** The 1-based line of the first line of `text` that contains `needle`. */
export function lineOf(text: string, needle: string): number {
  const i = text.split("\n").findIndex((l) => l.includes(needle));
  expect(i, `${needle} not found`).toBeGreaterThanOrEqual(0);
  return i + 1;
}

export const WORKER_K8S_4 = `  - name: k8s-4
    roles: [worker]
    rootFilesystem: btrfs
    interfaces:
      wan0: { mac: "52:54:00:12:34:59", address: 10.118.10.23/24, gateway: 10.118.10.1 }
      wan1: { mac: "52:54:00:12:35:59", address: 10.118.12.23/24 }
host:`;
