// The AWS identities of the burst: Cluster Autoscaler's (a least-privilege policy on an IAM user without keys; the
// autoscaler runs on-prem, outside AWS) and, for pools that name no instance profile, a minimal one for the nodes.
import { AUTOSCALER_TAG_PREFIX, type BurstPlan, type CloudPlan, type PlannedPool } from "@clusterspec/core";
import { type Json, tfExpr, tfLiteral } from "./escape.js";

export const AUTOSCALER = "cluster_autoscaler";
export const NODE_PROFILE = "burst_nodes";

/**
 * What Cluster Autoscaler's AWS provider reads, per its README ("Full Cluster Autoscaler Features Policy"), without
 * eks:DescribeNodegroup (no EKS here): the groups, their instances, launch templates and scaling activities, and the
 * instance types and images a scale-from-zero template node is built from.
 */
export const AUTOSCALER_DESCRIBE_ACTIONS = [
  "autoscaling:DescribeAutoScalingGroups",
  "autoscaling:DescribeAutoScalingInstances",
  "autoscaling:DescribeLaunchConfigurations",
  "autoscaling:DescribeScalingActivities",
  "autoscaling:DescribeTags",
  "ec2:DescribeImages",
  "ec2:DescribeInstanceTypes",
  "ec2:DescribeLaunchTemplateVersions",
  "ec2:GetInstanceTypesFromInstanceRequirements",
] as const;

/** What changes a group: only on groups tagged `k8s.io/cluster-autoscaler/<cluster> = owned`, i.e. the pools. */
export const AUTOSCALER_WRITE_ACTIONS = [
  "autoscaling:SetDesiredCapacity",
  "autoscaling:TerminateInstanceInAutoScalingGroup",
] as const;

export function autoscalerName(plan: BurstPlan): string {
  return `${plan.name}-cluster-autoscaler`.slice(0, 64);
}

export function autoscalerPolicy(plan: BurstPlan): Json {
  return {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "DescribeGroupsAndTemplates",
        Effect: "Allow",
        Action: [...AUTOSCALER_DESCRIBE_ACTIONS],
        Resource: "*",
      },
      {
        Sid: "ScaleOnlyThePools",
        Effect: "Allow",
        Action: [...AUTOSCALER_WRITE_ACTIONS],
        Resource: "*",
        Condition: { StringEquals: { [`aws:ResourceTag/${AUTOSCALER_TAG_PREFIX}/${plan.name}`]: "owned" } },
      },
    ],
  };
}

/** The generated node role and instance profile, named apart from any profile a spec may name. */
export function generatedProfileName(plan: BurstPlan): string {
  return `${plan.name}-clusterspec-burst-node`.slice(0, 64);
}

/** Pools whose launch template gets the generated instance profile (they name none). */
export function poolsWithoutProfile(cloud: CloudPlan): PlannedPool[] {
  return cloud.pools.filter((p) => p.instanceProfile === undefined);
}

/** The `iam_instance_profile` name of a pool's launch template: the spec's, or the generated one. */
export function instanceProfileOf(pool: PlannedPool): string {
  return pool.instanceProfile === undefined
    ? tfExpr(`aws_iam_instance_profile.${NODE_PROFILE}.name`)
    : tfLiteral(pool.instanceProfile);
}

export function iamResources(plan: BurstPlan, cloud: CloudPlan): Json {
  const name = tfLiteral(autoscalerName(plan));
  const nodeRole = tfLiteral(generatedProfileName(plan));
  const generatedProfile = poolsWithoutProfile(cloud).length > 0;
  return {
    resource: {
      aws_iam_policy: {
        [AUTOSCALER]: {
          name,
          description: tfLiteral(`Cluster Autoscaler of cluster ${plan.name}: describe, and scale only its pools`),
          policy: tfLiteral(JSON.stringify(autoscalerPolicy(plan))),
        },
      },
      // No aws_iam_access_key: a key would land in the Terraform state. The operator creates one for this user and
      // puts it into the autoscaler's Secret (PLAN.md), or swaps the user for IAM Roles Anywhere.
      // force_destroy: destroy also deletes the access key the operator made by hand (PLAN.md), which would block it
      aws_iam_user: { [AUTOSCALER]: { name, path: "/clusterspec/", force_destroy: true } },
      aws_iam_user_policy_attachment: {
        [AUTOSCALER]: {
          user: tfExpr(`aws_iam_user.${AUTOSCALER}.name`),
          policy_arn: tfExpr(`aws_iam_policy.${AUTOSCALER}.arn`),
        },
      },
      // A burst node needs no AWS permission (it proves itself with the signed identity document): the generated
      // role has a trust policy and nothing else, so an operator can attach e.g. SSM without a new launch template.
      ...(generatedProfile
        ? {
            aws_iam_role: {
              [NODE_PROFILE]: {
                name: nodeRole,
                description: tfLiteral(`Burst nodes of cluster ${plan.name}: no permissions`),
                assume_role_policy: JSON.stringify({
                  Version: "2012-10-17",
                  Statement: [
                    {
                      Effect: "Allow",
                      Principal: { Service: "ec2.amazonaws.com" },
                      Action: "sts:AssumeRole",
                    },
                  ],
                }),
              },
            },
            aws_iam_instance_profile: {
              [NODE_PROFILE]: { name: nodeRole, role: tfExpr(`aws_iam_role.${NODE_PROFILE}.name`) },
            },
          }
        : {}),
    },
  };
}
