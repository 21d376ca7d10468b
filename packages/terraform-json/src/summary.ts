// The PLAN.md section: the AWS resources, each pool's Auto Scaling Group, and how the SNS subscription is confirmed.
import { ASG_TAG_LIMITS, type BurstPlan, mdTable, PROVISIONER_EVENT_STATES } from "@clusterspec/core";
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
  const oneZone = cloud.pools.filter((p) => p.subnets.length === 1);
  return [
    "## AWS (Terraform)",
    "",
    `Region ${cloud.aws.region}, provider hashicorp/aws ${cloud.aws.providerVersion}. EventBridge sends "EC2 Instance State-change Notification" events for the states ${PROVISIONER_EVENT_STATES.map((st) => `\`${st}\``).join(" and ")} only to an SNS topic with an HTTPS subscription to ${cloud.snsEndpoint}. Launch templates require IMDSv2; Cluster Autoscaler discovers the groups by their tags and owns their desired capacity. No state, backend or credential is generated.`,
    "",
    `The provisioner confirms the SNS subscription itself (\`endpoint_auto_confirms = true\`): \`terraform apply\` waits up to ${SNS_CONFIRMATION_TIMEOUT_MINUTES} minutes for the confirmation and fails without it. Terraform cannot delete an unconfirmed subscription (it only drops it from state), but \`terraform destroy\` deletes the topic, and with it every subscription, confirmed or pending; AWS also expires pending ones after 3 days.`,
    "",
    `Scoping to the pools: an EC2 state-change event names no Auto Scaling Group and EventBridge cannot match on tags, so the rule still forwards these two states for every instance of the region. The contract (\`cloud/provisioner/openapi.yaml\`) makes the provisioner check, before it hands out a peer slot or a bootstrap token, that the instance's \`aws:autoscaling:groupName\` tag is one of ${cloud.pools.map((p) => `\`${p.groupName}\``).join(", ")}; other instances get nothing. This was chosen over Auto Scaling's own "EC2 Instance Launch/Terminate Successful" events (which carry \`AutoScalingGroupName\` and could be filtered at the source) because the EC2 states are what the lifecycle is defined on: \`terminated\` comes for every way an instance ends (also terminated by hand or detached first), and \`running\` is when it can first call the provisioner. The cost: the provisioner needs \`ec2:DescribeTags\` (or \`ec2:DescribeInstances\`) in ${cloud.aws.region}, and unrelated instances still cause a (dropped) notification.`,
    "",
    ...podAccess.map(
      (p) =>
        `> **Warning:** pool ${p.name} lets pods reach the instance metadata service (\`imds.podAccess: true\`, hop limit 2): any pod on its nodes can read the instance role's credentials.\n`,
    ),
    ...oneZone.map(
      (p) =>
        `> **Warning:** pool ${p.name} has a single subnet (${p.subnets[0]}), so a single availability zone: when that zone runs short of ${p.instanceType} capacity, every scale-up of the pool fails. List subnets of two or more zones in \`cloud.pools[${cloud.pools.indexOf(p)}].subnets\`.\n`,
    ),
    mdTable(["pool", "instance type", "AMI", "size", "IMDS hop limit", "taints", "ASG tags"], rows),
  ].join("\n");
}
