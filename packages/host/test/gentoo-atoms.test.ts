// Every Gentoo atom PLAN.md names exists in ::gentoo (the record in data/gentoo-atoms.json, see data/PROVENANCE.md),
// and a stable-only system gets a package.accept_keywords entry for each ~arch-only package a node installs.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type ClusterPlan, GENTOO_ATOMS, summarizeCore } from "@clusterspec/core";
import { arbPlan, mustResolve } from "@clusterspec/core/testing";
import { exampleInput } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateHost } from "../src/generate.js";
import { hostModule } from "../src/module.js";

interface AtomRecord {
  readonly exists: boolean;
  readonly stableOnAmd64?: boolean | null;
}
const record: { atoms: Record<string, AtomRecord> } = JSON.parse(
  readFileSync(join(import.meta.dirname, "..", "data", "gentoo-atoms.json"), "utf8"),
);

/** `category/package` words, in the categories a Gentoo tree has. */
const ATOM = /\b(?:sys|net|app|dev|virtual|sec|www|media)-[a-z0-9]+\/[a-z][a-z0-9_+-]*[a-z0-9+]/g;
const atomsIn = (text: string): string[] => [...new Set(text.match(ATOM) ?? [])];

const planText = (plan: ClusterPlan): string =>
  `${summarizeCore(plan)}\n${hostModule.summarize?.(plan, hostModule.generate(plan)) ?? ""}`;

const examplesRoot = join(import.meta.dirname, "..", "..", "..", "examples");
const committedPlans = readdirSync(examplesRoot)
  .map((d) => join(examplesRoot, d, "generated", "PLAN.md"))
  .flatMap((p) => {
    try {
      return [[p, readFileSync(p, "utf8")] as const];
    } catch {
      return [];
    }
  });

describe("Gentoo package atoms", () => {
  it("the record checks every atom clusterspec names, and net-misc/keepalived is not one of them", () => {
    for (const atom of Object.values(GENTOO_ATOMS)) expect(record.atoms[atom]?.exists, atom).toBe(true);
    expect(record.atoms["net-misc/keepalived"]?.exists).toBe(false);
    expect(GENTOO_ATOMS.keepalived).toBe("sys-cluster/keepalived");
  });

  it("every atom the committed example PLAN.md files name exists in ::gentoo", () => {
    expect(committedPlans.length).toBeGreaterThan(0);
    for (const [path, text] of committedPlans)
      for (const atom of atomsIn(text)) expect(record.atoms[atom]?.exists, `${atom} in ${path}`).toBe(true);
  });

  it("every atom a generated PLAN.md names exists in ::gentoo (random specs)", () => {
    fc.assert(
      fc.property(arbPlan({ maxWorkers: 2, maxPool: 4 }), (plan) => {
        const atoms = atomsIn(planText(plan));
        if (plan.vips.length > 0) expect(atoms).toContain(GENTOO_ATOMS.keepalived);
        for (const atom of atoms) expect(record.atoms[atom]?.exists, atom).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it("accept_keywords has an entry for each ~arch-only package a node installs: kubeadm, kubelet, kubectl, and keepalived where it holds a VIP", () => {
    const testingOnly = Object.entries(record.atoms)
      .filter(([, r]) => r.stableOnAmd64 === false)
      .map(([a]) => a);
    expect(testingOnly.sort()).toEqual(
      [GENTOO_ATOMS.keepalived, GENTOO_ATOMS.kubeadm, GENTOO_ATOMS.kubectl, GENTOO_ATOMS.kubelet].sort(),
    );
    const check = (plan: ClusterPlan) => {
      for (const node of plan.nodes) {
        const file = generateHost(plan).find(
          (a) => a.path === `nodes/${node.name}/etc/portage/package.accept_keywords/kubernetes`,
        );
        const entries = (file?.content ?? "").split("\n").filter((l) => l && !l.startsWith("#"));
        const holdsVip = plan.vips.some((v) => v.order.includes(node.name));
        for (const atom of testingOnly) {
          const wanted = atom !== GENTOO_ATOMS.keepalived || holdsVip;
          expect(
            entries.some((e) => e.includes(`${atom}-`)),
            `${atom} on ${node.name}`,
          ).toBe(wanted);
        }
      }
    };
    check(mustResolve(exampleInput()));
    fc.assert(
      fc.property(arbPlan({ maxWorkers: 2, maxPool: 4 }), (plan) => {
        if (plan.host.gentooPackages) check(plan);
      }),
      { numRuns: 20 },
    );
  });
});
