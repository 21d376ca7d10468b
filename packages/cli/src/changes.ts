// The change plan between two spec texts (`clusterspec changes`, `generate --check --base`): both generated with
// the same name in their headers, then @clusterspec/rollout's planChanges with a regenerate callback (the pipeline
// without the upstream schema checks: only lines are compared) and each spec's line lookup.
import { isCloudBurstPlan, loadSpecWithLines, ModuleOutputs, resolvePlan, validateSpec } from "@clusterspec/core";
import type { ClusterSpec, Identities, SpecIssue } from "@clusterspec/core/types";
import {
  type ChangePlan,
  planChanges,
  planKeepalivedSteps,
  planNetifrcSteps,
  type TreeSide,
} from "@clusterspec/rollout";
import { generateChecked, renderArtifacts } from "./generate.js";

export type ChangesOutcome =
  | {
      readonly ok: false;
      /** Which spec the errors are about. */
      readonly side: "old" | "new";
      readonly errors: readonly SpecIssue[];
      readonly warnings: readonly SpecIssue[];
      /** A valid spec that has no change plan: the cloud burst of an existing cluster. */
      readonly unsupported?: true;
    }
  | { readonly ok: true; readonly plan: ChangePlan; readonly warnings: readonly SpecIssue[] };

const notOnPrem = (side: "old" | "new", line: number | undefined): ChangesOutcome => ({
  ok: false,
  side,
  unsupported: true,
  errors: [
    {
      path: ["existingCluster"],
      severity: "error",
      code: "invalid_value",
      message:
        "a change plan needs a cluster spec (nodes, control plane): the cloud burst of an existing cluster has none; review its cloud/ diff with generate --check",
      ...(line === undefined ? {} : { line, column: 1 }),
    },
  ],
  warnings: [],
});

/**
 * The change plan from `oldText` to `newText`. `sourceName` is the name both trees' headers carry: the new spec's,
 * so that a base spec saved under another name does not change every file. `identities` are the VIP priority
 * orders of the deployed (old) tree: both trees are generated from them, so the new one carries them forward
 * exactly as `generate` will (DESIGN: identities.json).
 */
export async function computeChanges(
  oldText: string,
  newText: string,
  sourceName: string,
  identities?: Identities,
): Promise<ChangesOutcome> {
  const options = identities === undefined ? { sourceName } : { sourceName, identities };
  // One parse of each text: the validated spec, its lines and the tree all come from it. The new tree keeps the old
  // one's files of every module whose inputs the change leaves alone (a worker appended: keepalived's).
  const outputs = new ModuleOutputs();
  const oldLoaded = loadSpecWithLines(oldText);
  const oldResult = await generateChecked(oldText, options, oldLoaded.validated, outputs);
  if (!oldResult.ok) return { ok: false, side: "old", errors: oldResult.errors, warnings: oldResult.warnings };
  const newLoaded = loadSpecWithLines(newText);
  const newResult = await generateChecked(newText, options, newLoaded.validated, outputs);
  if (!newResult.ok) return { ok: false, side: "new", errors: newResult.errors, warnings: newResult.warnings };
  if (isCloudBurstPlan(oldResult.plan)) return notOnPrem("old", oldLoaded.lineOf(["existingCluster"]));
  if (isCloudBurstPlan(newResult.plan)) return notOnPrem("new", newLoaded.lineOf(["existingCluster"]));
  if (!oldLoaded.validated.ok || !newLoaded.validated.ok) throw new Error("a spec that generated does not validate");
  const old: TreeSide = {
    spec: oldLoaded.validated.value as ClusterSpec,
    plan: oldResult.plan,
    artifacts: oldResult.artifacts,
  };
  const next: TreeSide = {
    spec: newLoaded.validated.value as ClusterSpec,
    plan: newResult.plan,
    artifacts: newResult.artifacts,
  };
  const lines = { old: oldLoaded.lineOf, new: newLoaded.lineOf };
  const plan = planChanges(
    old,
    next,
    // The per-node planners: keepalived first (its steps move VIPs), then netifrc.
    [planKeepalivedSteps, planNetifrcSteps],
    {
      lineOf: (path, side) => lines[side](path),
      regenerate: (spec) => {
        const validated = validateSpec(spec);
        if (!validated.ok) return undefined;
        const plan = resolvePlan(validated.value, options);
        if (isCloudBurstPlan(plan)) return undefined;
        const rendered = renderArtifacts(plan, undefined, outputs);
        return rendered.errors.length > 0 ? undefined : rendered.artifacts;
      },
    },
  );
  return { ok: true, plan, warnings: newResult.warnings };
}
