// The provisioner's own AWS identity: an IAM user without keys (the provisioner runs on-prem, next to the WireGuard
// hub; the operator creates its access key, as for Cluster Autoscaler) whose policy allows only the read-only calls
// it makes: ec2:DescribeInstances (an instance's state, addresses and aws:autoscaling:groupName tag) and
// autoscaling:DescribeAutoScalingGroups (the pools' instances, when it reconciles). Neither call supports
// resource-level permissions (the Service Authorization Reference lists no resource type for them), so Resource "*".
import type { BurstPlan } from "@clusterspec/core";
import { type Json, tfExpr, tfLiteral } from "./escape.js";

export const PROVISIONER = "provisioner";

export const PROVISIONER_ACTIONS = ["autoscaling:DescribeAutoScalingGroups", "ec2:DescribeInstances"] as const;

export function provisionerIamName(plan: BurstPlan): string {
  return `${plan.name}-clusterspec-provisioner`.slice(0, 64);
}

export function provisionerPolicy(): Json {
  return {
    Version: "2012-10-17",
    Statement: [{ Sid: "ReadInstancesAndGroups", Effect: "Allow", Action: [...PROVISIONER_ACTIONS], Resource: "*" }],
  };
}

/** cloud/terraform/provisioner-iam.tf.json: the policy, the user and the attachment. */
export function provisionerIamResources(plan: BurstPlan): Json {
  const name = tfLiteral(provisionerIamName(plan));
  return {
    resource: {
      aws_iam_policy: {
        [PROVISIONER]: {
          name,
          description: tfLiteral(`clusterspec provisioner of cluster ${plan.name}: read instances and groups`),
          policy: tfLiteral(JSON.stringify(provisionerPolicy())),
        },
      },
      // No aws_iam_access_key: a key would land in the Terraform state (PLAN.md says how to make one).
      aws_iam_user: { [PROVISIONER]: { name, path: "/clusterspec/" } },
      aws_iam_user_policy_attachment: {
        [PROVISIONER]: {
          user: tfExpr(`aws_iam_user.${PROVISIONER}.name`),
          policy_arn: tfExpr(`aws_iam_policy.${PROVISIONER}.arn`),
        },
      },
    },
  };
}
