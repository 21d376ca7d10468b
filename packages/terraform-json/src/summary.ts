// The PLAN.md section: the AWS resources, each pool's Auto Scaling Group, and how the SNS subscription is confirmed.
import { ASG_TAG_LIMITS, type BurstPlan, mdTable } from "@clusterspec/core";
import { SNS_CONFIRMATION_TIMEOUT_MINUTES } from "./resources.js";

export function summarizeTerraform(plan: BurstPlan): string | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const rows = cloud.pools.map((p) => [
    p.name,
    `${p.instanceType} (${p.architecture})`,
    "id" in p.ami ? p.ami.id : `${p.ami.lookup.name} from ${p.ami.lookup.owners.join(", ")}`,
    `${p.minSize}..${p.maxSize}`,
    p.imdsHopLimit === 1 ? "1 (pods cannot reach IMDS)" : "2 (pods can reach IMDS)",
    p.taints.map((t) => `${t.key}=${t.value}:${t.effect}`).join(", ") || "none",
    `${p.asgTags.length} of ${ASG_TAG_LIMITS.count}`,
  ]);
  const podAccess = cloud.pools.filter((p) => p.imdsHopLimit > 1);
  return [
    "## AWS (Terraform)",
    "",
    `Region ${cloud.aws.region}, provider hashicorp/aws ${cloud.aws.providerVersion}. EventBridge sends "EC2 Instance State-change Notification" events to an SNS topic with an HTTPS subscription to ${cloud.snsEndpoint}. Launch templates require IMDSv2; Cluster Autoscaler discovers the groups by their tags and owns their desired capacity. No state, backend or credential is generated.`,
    "",
    `The provisioner confirms the SNS subscription itself (\`endpoint_auto_confirms = true\`): \`terraform apply\` waits up to ${SNS_CONFIRMATION_TIMEOUT_MINUTES} minutes for the confirmation and fails without it. Terraform cannot delete an unconfirmed subscription (it only drops it from state), but \`terraform destroy\` deletes the topic, and with it every subscription, confirmed or pending; AWS also expires pending ones after 3 days.`,
    "",
    ...podAccess.map(
      (p) =>
        `> **Warning:** pool ${p.name} lets pods reach the instance metadata service (\`imds.podAccess: true\`, hop limit 2): any pod on its nodes can read the instance role's credentials.\n`,
    ),
    mdTable(["pool", "instance type", "AMI", "size", "IMDS hop limit", "taints", "ASG tags"], rows),
  ].join("\n");
}
