// The PLAN.md section: the AWS resources and each pool's Auto Scaling Group.
import { ASG_TAG_LIMITS, type ClusterPlan, mdTable } from "@clusterspec/core";

export function summarizeTerraform(plan: ClusterPlan): string | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const rows = cloud.pools.map((p) => [
    p.name,
    `${p.instanceType} (${p.architecture})`,
    "id" in p.ami ? p.ami.id : `${p.ami.lookup.name} from ${p.ami.lookup.owners.join(", ")}`,
    `${p.minSize}..${p.maxSize}`,
    p.taints.map((t) => `${t.key}=${t.value}:${t.effect}`).join(", ") || "none",
    `${p.asgTags.length} of ${ASG_TAG_LIMITS.count}`,
  ]);
  return [
    "## AWS (Terraform)",
    "",
    `Region ${cloud.aws.region}, provider hashicorp/aws ${cloud.aws.providerVersion}. EventBridge sends "EC2 Instance State-change Notification" events to an SNS topic with an HTTPS subscription to ${cloud.provisioner.url} (the provisioner confirms it). Launch templates require IMDSv2 (hop limit 2); Cluster Autoscaler discovers the groups by their tags and owns their desired capacity. No state, backend or credential is generated.`,
    "",
    mdTable(["pool", "instance type", "AMI", "size", "taints", "ASG tags"], rows),
  ].join("\n");
}
