// A pool's data volume (issue 29 item 14) on the AWS side: a second block device in the launch template, valid
// against the AWS provider schema subset, and the ephemeral-storage tag Cluster Autoscaler's template reads.
import type { ClusterPlan } from "@clusterspec/core";
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { checkTerraformJson, type ProviderSchemaFile } from "@clusterspec/schemas/terraform";
import { readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";
import { summarizeAutoscaler } from "../src/summary.js";

function planWith(dataVolume: Record<string, unknown> | undefined): ClusterPlan {
  const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true }) as any;
  if (dataVolume !== undefined) spec.cloud.pools[0].dataVolume = dataVolume;
  return mustResolve(spec);
}

const launchTemplate = (plan: ClusterPlan) => {
  const docs = generateTerraform(plan).map((a) => JSON.parse(a.content));
  const lt = docs.find((d) => d.resource?.aws_launch_template)?.resource.aws_launch_template as any;
  return Object.values(lt)[0] as { block_device_mappings: { device_name: string; ebs: object[] }[] };
};

describe("a pool's data volume on the AWS side", () => {
  const plan = planWith({ sizeGiB: 100 });

  it("is a second encrypted gp3 block device, valid against the provider schema subset", () => {
    const mappings = launchTemplate(plan).block_device_mappings;
    expect(mappings.map((m) => m.device_name)).toEqual([expect.stringMatching(/root_device_name/), "/dev/sdb"]);
    expect(mappings[1]?.ebs).toEqual([
      { volume_size: 100, volume_type: "gp3", encrypted: "true", delete_on_termination: "true" },
    ]);
    expect(launchTemplate(planWith(undefined)).block_device_mappings).toHaveLength(1);
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      for (const a of generateTerraform(plan)) expect(checkTerraformJson(JSON.parse(a.content), schema)).toEqual([]);
    }
  });

  it("derives the ephemeral-storage tag from the kubelet's half, less the eviction threshold, and says so in PLAN.md", () => {
    const tag = plan.cloud?.pools[0]?.asgTags.find((t) => t.key.endsWith("/resources/ephemeral-storage"));
    expect(tag).toEqual({
      key: "k8s.io/cluster-autoscaler/node-template/resources/ephemeral-storage",
      value: "46080Mi", // 100 GiB / 2 × 90 %
      propagateAtLaunch: false,
      specPath: ["cloud", "pools", 0, "dataVolume", "sizeGiB"],
    });
    // without a data volume the btrfs root reports none: no tag
    expect(planWith(undefined).cloud?.pools[0]?.asgTags.some((t) => t.key.endsWith("ephemeral-storage"))).toBe(false);
    const summary = summarizeAutoscaler(plan) ?? "";
    expect(summary).toContain("| ci-arm64 | 100 GiB xfs | 46080Mi |");
    expect(summary).toContain("**allocatable equal to capacity**");
  });
});
