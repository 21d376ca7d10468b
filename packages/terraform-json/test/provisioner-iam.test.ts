// The provisioner's own AWS identity: a keyless IAM user allowed exactly the read-only calls the provisioner makes.
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";
import { PROVISIONER_ACTIONS } from "../src/provisioner-iam.js";

describe("provisioner IAM", () => {
  it("is a keyless user with read-only access to instances and groups, nothing else", () => {
    const plan = mustResolve(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: true }));
    const file = generateTerraform(plan).find((a) => a.path === "cloud/terraform/provisioner-iam.tf.json");
    const tf = JSON.parse(file?.content ?? "{}") as {
      resource: Record<string, Record<string, Record<string, string>>>;
    };
    expect(Object.keys(tf.resource).sort()).toEqual([
      "aws_iam_policy",
      "aws_iam_user",
      "aws_iam_user_policy_attachment",
    ]);
    const policy = JSON.parse(tf.resource.aws_iam_policy?.provisioner?.policy ?? "{}") as {
      Statement: { Effect: string; Action: string[]; Resource: string }[];
    };
    expect(policy.Statement).toEqual([
      {
        Sid: "ReadInstancesAndGroups",
        Effect: "Allow",
        Action: ["autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances"],
        Resource: "*",
      },
    ]);
    // read-only: every action is a Describe
    expect(PROVISIONER_ACTIONS.every((a) => /^[a-z0-9]+:Describe[A-Za-z]+$/.test(a))).toBe(true);
    expect(file?.content).not.toContain("aws_iam_access_key");
  });
});
