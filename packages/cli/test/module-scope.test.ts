// The optional scope of GeneratorModule.generate (core/module.ts): a module asked for one file may leave out the
// others, but that file must be exactly what the unscoped call writes. explain relies on it (each of its
// regenerations asks the module for the explained file alone), so it is checked here over random valid specs, for
// every module and every file it writes, whether or not the module uses the scope.

import { nodesInScope, scopeNode } from "@clusterspec/core";
import { arbPlan } from "@clusterspec/core/testing";
import type { Artifact, ClusterPlan } from "@clusterspec/core/types";
import { generatorModules } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Generate = (plan: ClusterPlan, scope?: { path: string }) => Artifact[];

describe("a module asked for one file (its scope)", () => {
  it("writes that file exactly as the unscoped call does", () => {
    fc.assert(
      fc.property(arbPlan({ maxWorkers: 3, maxPool: 6 }), (plan) => {
        for (const m of generatorModules) {
          const generate = m.generate as Generate;
          const all = generate(plan);
          for (const a of all) {
            const scoped = generate(plan, { path: a.path });
            expect(
              scoped.find((s) => s.path === a.path),
              `${m.name}: ${a.path}`,
            ).toEqual(a);
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it("keepalived and netifrc build only the scope's node", () => {
    fc.assert(
      fc.property(arbPlan({ maxWorkers: 3, maxPool: 6 }), (plan) => {
        const node = plan.nodes.at(-1)?.name ?? "";
        for (const name of ["keepalived", "netifrc"]) {
          const m = generatorModules.find((g) => g.name === name);
          if (m === undefined) throw new Error(`no ${name} module`);
          const scoped = (m.generate as Generate)(plan, { path: `nodes/${node}/etc/conf.d/net` });
          expect(scoped.every((a) => a.path.startsWith(`nodes/${node}/`))).toBe(true);
        }
      }),
      { numRuns: 25 },
    );
  });
});

describe("nodesInScope and scopeNode", () => {
  const nodes = [{ name: "k8s-1" }, { name: "k8s-2" }];
  it("keeps every node without a scope, the scope's node with one, none for a cluster-wide file", () => {
    expect(nodesInScope(nodes, undefined)).toEqual(nodes);
    expect(nodesInScope(nodes, { path: "nodes/k8s-2/etc/conf.d/net" })).toEqual([{ name: "k8s-2" }]);
    expect(nodesInScope(nodes, { path: "nodes/k8s-9/etc/conf.d/net" })).toEqual([]);
    expect(nodesInScope(nodes, { path: "identities.json" })).toEqual([]);
    expect(scopeNode({ path: "cluster/cilium-values.yaml" })).toBeUndefined();
    expect(scopeNode({ path: "nodes/k8s-1/kubeadm.yaml" })).toBe("k8s-1");
  });
});
