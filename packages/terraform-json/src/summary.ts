// The PLAN.md section: the AWS resources, each pool's Auto Scaling Group, and how the SNS subscription is confirmed.
import {
  ASG_TAG_LIMITS,
  AUTOSCALER_SCALE_FROM_ZERO_MINOR,
  AUTOSCALER_TIMINGS,
  BURST_NODES_REPORT_EPHEMERAL_STORAGE,
  BURST_ROOT_FILESYSTEM,
  type BurstPlan,
  type CloudPlan,
  DATA_VOLUME_LAYOUT,
  FEDORA_EOL_AS_OF,
  FEDORA_EOL_SOURCE,
  fedoraPastEol,
  fedoraReleaseOf,
  kubernetesContract,
  mdTable,
  PROVISIONER_EVENT_STATES,
} from "@clusterspec/core";
import {
  AUTOSCALER_CREDENTIALS_SECRET,
  AUTOSCALER_VALUES_PATH,
  autoscalerImageTag,
  failedScaleUpAttempts,
  MAX_NODE_PROVISION_TIME,
} from "./autoscaler.js";
import {
  AUTOSCALER_DESCRIBE_ACTIONS,
  AUTOSCALER_WRITE_ACTIONS,
  autoscalerName,
  generatedProfileName,
  poolsWithoutProfile,
} from "./iam.js";
import {
  DLQ_RETENTION_SECONDS,
  SNS_CONFIRMATION_TIMEOUT_MINUTES,
  SNS_HEALTHY_RETRY_POLICY,
  SUSPENDED_PROCESSES,
  snsRetryBoundSeconds,
  snsRetryFloorSeconds,
} from "./resources.js";

/** `asOf`: the date (YYYY-MM-DD) Fedora releases are checked against; by default the day the EOL table was compiled. */
export function summarizeTerraform(plan: BurstPlan, asOf: string = FEDORA_EOL_AS_OF): string | undefined {
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
  const rebalanced = cloud.pools.filter((p) => p.subnets.length > 1);
  const lookups = cloud.pools.filter((p) => "lookup" in p.ami);
  const pastEol = cloud.pools.flatMap((p) => {
    const release = "lookup" in p.ami ? fedoraReleaseOf(p.ami.lookup.name) : undefined;
    const row = release === undefined ? undefined : fedoraPastEol(release, asOf);
    return row === undefined ? [] : [{ pool: p, row }];
  });
  return [
    "## AWS (Terraform)",
    "",
    `Region ${cloud.aws.region}, provider hashicorp/aws ${cloud.aws.providerVersion}. EventBridge sends "EC2 Instance State-change Notification" events for the states ${PROVISIONER_EVENT_STATES.map((st) => `\`${st}\``).join(" and ")} only to an SNS topic with an HTTPS subscription to ${cloud.snsEndpoint}. Launch templates require IMDSv2; Cluster Autoscaler discovers the groups by their tags and owns their desired capacity. No state, backend or credential is generated.`,
    "",
    awsPrerequisites(cloud),
    "",
    `The provisioner confirms the SNS subscription itself (\`endpoint_auto_confirms = true\`): \`terraform apply\` waits up to ${SNS_CONFIRMATION_TIMEOUT_MINUTES} minutes for the confirmation and fails without it. Terraform cannot delete an unconfirmed subscription (it only drops it from state), but \`terraform destroy\` deletes the topic, and with it every subscription, confirmed or pending; AWS also expires pending ones after 3 days.`,
    "",
    `Delivery that loses nothing: SNS's default for HTTPS is 3 retries 20 s apart, then the message is dropped. The subscription's delivery policy retries ${SNS_HEALTHY_RETRY_POLICY.numRetries} times (${SNS_HEALTHY_RETRY_POLICY.numMinDelayRetries} × ${SNS_HEALTHY_RETRY_POLICY.minDelayTarget} s, then ${SNS_HEALTHY_RETRY_POLICY.backoffFunction} backoff up to ${SNS_HEALTHY_RETRY_POLICY.maxDelayTarget} s, the last ${SNS_HEALTHY_RETRY_POLICY.numMaxDelayRetries} at ${SNS_HEALTHY_RETRY_POLICY.maxDelayTarget} s), between ${Math.round(snsRetryFloorSeconds() / 60)} and ${Math.round(snsRetryBoundSeconds() / 60)} minutes in all (SNS allows at most 60), so a provisioner can be redeployed or restarted without losing an event. What still fails goes to the SQS dead-letter queue \`${plan.name}-provisioner-dlq\` (kept ${DLQ_RETENTION_SECONDS / 86400} days; its policy admits only this topic): replay each message to the provisioner (or act on it by hand) after an outage longer than that, or a \`running\` instance never joins and a \`terminated\` one keeps its slot, token and Node.`,
    "",
    `Scoping to the pools: an EC2 state-change event names no Auto Scaling Group and EventBridge cannot match on tags, so the rule still forwards these two states for every instance of the region. The contract (\`cloud/provisioner/openapi.yaml\`) makes the provisioner check, before it hands out a peer slot or a bootstrap token, that the instance's \`aws:autoscaling:groupName\` tag is one of ${cloud.pools.map((p) => `\`${p.groupName}\``).join(", ")}; other instances get nothing. This was chosen over Auto Scaling's own "EC2 Instance Launch/Terminate Successful" events (which carry \`AutoScalingGroupName\` and could be filtered at the source) because the EC2 states are what the lifecycle is defined on: \`terminated\` comes for every way an instance ends (also terminated by hand or detached first), and \`running\` is when it can first call the provisioner. The cost: the provisioner needs \`ec2:DescribeTags\` (or \`ec2:DescribeInstances\`) in ${cloud.aws.region}, and unrelated instances still cause a (dropped) notification.`,
    "",
    `**terraform destroy** deletes the Auto Scaling Groups first (they \`depends_on\` the event rule, its target, the SNS topic, its policy and subscription, and the dead-letter queue): Terraform sets each group to 0 and waits until its instances are gone, so their \`terminated\` events still reach the provisioner (which deletes the Nodes and frees the slots), and the queue outlives them with whatever SNS could not deliver. It terminates running burst nodes **without draining** them: first scale the pools down by draining the burst nodes (\`kubectl drain\`; Cluster Autoscaler then removes the empty nodes) or set \`maxSize\` to 0 and wait, then destroy. The IAM user \`${autoscalerName(plan)}\` has \`force_destroy\`, so the access key made by hand (Cluster Autoscaler section) is deleted with it rather than blocking the destroy; read the dead-letter queue before you destroy it.`,
    "",
    ...(rebalanced.length > 0
      ? [
          `AZ rebalancing: Auto Scaling's ${SUSPENDED_PROCESSES.join(", ")} process terminates instances to even out the zones, without draining them (Cluster Autoscaler's AWS README says to suspend it); it is suspended on the group${rebalanced.length > 1 ? "s" : ""} of ${rebalanced.map((p) => p.name).join(", ")}, which span${rebalanced.length > 1 ? "" : "s"} several subnets. Cluster Autoscaler balances similar groups itself (\`balance-similar-node-groups\`).`,
          "",
        ]
      : []),
    ...(lookups.length > 0
      ? [
          `AMIs: pool${lookups.length > 1 ? "s" : ""} ${lookups.map((p) => p.name).join(", ")} look${lookups.length > 1 ? "" : "s"} up the newest image matching a name (\`most_recent\`), so any \`terraform apply\` may move a pool to a newer image. For production set \`ami.id\` to a tested image and change it on purpose.`,
          "",
        ]
      : []),
    ...podAccess.map(
      (p) =>
        `> **Warning:** pool ${p.name} lets pods reach the instance metadata service (\`imds.podAccess: true\`, hop limit 2): any pod on its nodes can read the instance role's credentials.\n`,
    ),
    ...pastEol.map(
      ({ pool: p, row }) =>
        `> **Warning:** pool ${p.name} looks up Fedora ${row.release} (\`cloud.pools[${cloud.pools.indexOf(p)}].ami.lookup.name\`), which reached its end of life ${/^\d/.test(row.eol) ? `on ${row.eol}` : row.eol} (${FEDORA_EOL_SOURCE}, table of ${FEDORA_EOL_AS_OF}): its mirrors move to the archive, the package install fails and no node of the pool can join. Name a supported release.\n`,
    ),
    ...oneZone.map(
      (p) =>
        `> **Warning:** pool ${p.name} has a single subnet (${p.subnets[0]}), so a single availability zone: when that zone runs short of ${p.instanceType} capacity, every scale-up of the pool fails. List subnets of two or more zones in \`cloud.pools[${cloud.pools.indexOf(p)}].subnets\`.\n`,
    ),
    mdTable(["pool", "instance type", "AMI", "size", "IMDS hop limit", "taints", "ASG tags"], rows),
  ].join("\n");
}

/**
 * What the AWS side must offer that the generated Terraform does not create (issue 29 item 13): the pools' security
 * groups and subnets are the user's, so their egress, public addressing and name resolution are listed here.
 */
function awsPrerequisites(cloud: CloudPlan): string {
  const hubPort = cloud.hub?.listenPort;
  const endpoint = cloud.hub?.endpoint;
  const host = new URL(cloud.provisioner.url).host;
  return [
    "**Prerequisites** (the pools' subnets and security groups are yours; Terraform does not create or change them):",
    "",
    `- security-group egress: TCP 443 to the provisioner ${host}; TCP 443 and 80 to the Fedora mirrors (\`mirrors.fedoraproject.org\` picks a mirror per request, so in practice 443/80 to any address, or an HTTP proxy); TCP 443 to the container registries the nodes pull from (registry.k8s.io, quay.io for Cilium, and those of your workloads); UDP ${hubPort ?? "<hub port>"} to the hub${endpoint === undefined ? "" : ` ${endpoint}`}; UDP and TCP 53 to every nameserver outside the tunnel (the VPC resolver, used at first boot until the tunnel is up, needs no rule); UDP 123 for NTP to chrony's pool (the Amazon Time Sync Service at 169.254.169.123 and IMDS at 169.254.169.254, like the VPC resolver, are not filtered by security groups);`,
    // IPv6-only pools have no IPv4 address to route: their line below says what they need
    ...(cloud.pools.every((p) => p.ipv6 === "only")
      ? []
      : [
          "- a route to the internet: a public IPv4 address on each instance (the subnet's auto-assign setting: the launch template does not set one) or a NAT gateway in the subnet's route table; the hub's UDP endpoint must be reachable from there;",
        ]),
    ...ipv6Prerequisites(cloud),
    `- a publicly trusted certificate on the provisioner (${cloud.provisioner.url}): the join script and SNS verify it against their system trust stores (no CA is pinned), so a private CA or an expired certificate stops every join (the instances then end in Cluster Autoscaler's back-off).`,
  ].join("\n");
}

/**
 * Pools with IPv6: what the VPC needs for their IPv6 addresses; the generated plan checks the subnets and the routes
 * of their route tables (ROUTE_CHECK says what it accepts and when it cannot look).
 */
function ipv6Prerequisites(cloud: CloudPlan): string[] {
  const dual = cloud.pools.filter((p) => p.ipv6 === "dual-stack");
  const only = cloud.pools.filter((p) => p.ipv6 === "only");
  const noImds6 = dual.filter((p) => !p.imdsIpv6);
  const s = only.length > 1 ? "s" : "";
  return [
    ...(dual.length === 0 ? [] : dualStackPrerequisites(cloud, dual, noImds6)),
    ...(only.length === 0
      ? []
      : [
          `- IPv6-only subnets for the pool${s} ${only.map((p) => p.name).join(", ")} (\`ipv6: only\`; Nitro instance types, one IPv6 address and no IPv4 address at all, resource-name hostnames): \`terraform plan\` fails on a \`data "aws_subnet"\` postcondition unless each subnet is IPv6-only (\`ipv6_native\`) with DNS64 on; give the subnets' route tables a \`::/0\` route to an egress-only internet gateway (or an internet gateway) and a \`64:ff9b::/96\` route to a NAT gateway (NAT64: IPv4-only hosts such as quay.io, which serves Cilium's images, and any Fedora mirror without IPv6 are reached through it), which \`terraform plan\` checks too (a \`data "aws_route_table"\` postcondition each; ${ROUTE_CHECK}), and the egress rules above for \`::/0\` (\`ipv6_cidr_blocks\`), including UDP ${cloud.hub?.listenPort ?? "<hub port>"} to the hub, which these instances reach over IPv6 only (the tunnel leaves ${cloud.tunnelOverhead} bytes for the outer IPv6 headers: MTU ${cloud.tunnelMtu}). IMDS (\`[fd00:ec2::254]\`, \`http_protocol_ipv6\`), the VPC resolver (\`fd00:ec2::253\`) and the Amazon Time Sync Service (\`fd00:ec2::123\`) answer on IPv6 there and are not filtered by security groups;`,
        ]),
  ];
}

/** What the route checks accept, and when they cannot look (PLAN.md, both kinds of IPv6 pool). */
const ROUTE_CHECK =
  "Terraform's credentials need `ec2:DescribeRouteTables` for it; a transit gateway is accepted as the target too, for central egress or NAT64; the table checked is the subnet's explicitly associated one, else the VPC's main one; a route propagated from a virtual private gateway is not listed by the data source and fails the check, so add the route statically; when neither table is visible to Terraform's credentials (a shared VPC's participant may not see the owner's route tables) the check is skipped, not failed";

function dualStackPrerequisites(
  cloud: CloudPlan,
  dual: readonly CloudPlan["pools"][number][],
  noImds6: readonly CloudPlan["pools"][number][],
): string[] {
  return [
    `- IPv6 for the dual-stack pool${dual.length > 1 ? "s" : ""} ${dual.map((p) => p.name).join(", ")} (\`ipv6: dual-stack\`; each instance gets one IPv6 address, \`ipv6_address_count = 1\`): an IPv6 CIDR block on the VPC and on each of their subnets (\`terraform plan\` fails on a \`data "aws_subnet"\` postcondition without one), an egress-only internet gateway (or an internet gateway) with a \`::/0\` route in the subnets' route tables (\`terraform plan\` fails on a \`data "aws_route_table"\` postcondition without one; ${ROUTE_CHECK}), and the egress rules above for \`::/0\` too (\`ipv6_cidr_blocks\`) wherever they allow \`0.0.0.0/0\`, including UDP ${cloud.hub?.listenPort ?? "<hub port>"} to the hub when its endpoint resolves to an IPv6 address (the tunnel then leaves ${cloud.tunnelOverhead} bytes for the outer headers). IMDS answers on IPv6 (\`http_protocol_ipv6\`) only on Nitro instance types${noImds6.length > 0 ? `; not on ${noImds6.map((p) => `${p.name} (${p.instanceType})`).join(", ")}, which keep IPv4 IMDS` : ""};`,
  ];
}

/** Why scale-from-zero promises no ephemeral storage on btrfs burst nodes, or how much it promises. */
function ephemeralStorageNotes(cloud: CloudPlan): string[] {
  if (BURST_NODES_REPORT_EPHEMERAL_STORAGE)
    return [
      mdTable(
        ["pool", "ephemeral storage (scale from zero)"],
        cloud.pools.map((p) => [
          p.name,
          p.asgTags.find((t) => t.key.endsWith("/node-template/resources/ephemeral-storage"))?.value ?? "none",
        ]),
      ),
    ];
  const explicit = cloud.pools.filter((p) => "ephemeral-storage" in p.resources && p.dataVolume === undefined);
  const withVolume = cloud.pools.filter((p) => p.dataVolume !== undefined);
  const d = DATA_VOLUME_LAYOUT;
  return [
    `Ephemeral storage: burst nodes boot Fedora Cloud, whose root is ${BURST_ROOT_FILESYSTEM}; the kubelet cannot measure it there, so its local storage capacity isolation is off (as on on-prem btrfs nodes) and a burst node reports no \`ephemeral-storage\`. No \`node-template/resources/ephemeral-storage\` tag is derived from the root volume, since it would promise Cluster Autoscaler storage the new node never offers: a pod that requests ephemeral storage fits no burst node and does not trigger a scale-up${withVolume.length > 0 ? "" : ". Give a pool a `dataVolume` to change that"}.`,
    "",
    ...(withVolume.length > 0
      ? [
          `Data volumes: pool${withVolume.length > 1 ? "s" : ""} ${withVolume.map((p) => p.name).join(", ")} get${withVolume.length > 1 ? "" : "s"} a second gp3 volume (\`${d.awsDeviceName}\`, encrypted, deleted with the instance) that cloud-init partitions (GPT, ${d.partitions.map((p) => `${p.percent}%`).join(" + ")}) and mounts by label: ${d.partitions.map((p) => `\`${p.label}\` on ${p.mountPoint}`).join(", ")}. The kubelet measures it, so local storage capacity isolation stays on there and the pool's \`node-template/resources/ephemeral-storage\` tag is the kubelet's partition less the 10% hard eviction threshold. cloud-init finds the volume as \`${d.device}\`, the second NVMe device of a Nitro instance: do not use it with instance types that have instance-store NVMe volumes (the \`d\` types such as c6id), which may be numbered first; partitions and filesystems are never made over existing ones.`,
          "",
          mdTable(
            ["pool", "data volume", "ephemeral storage (scale from zero)"],
            withVolume.map((p) => [
              p.name,
              `${p.dataVolume?.sizeGiB} GiB ${p.dataVolume?.filesystem}`,
              p.asgTags.find((t) => t.key.endsWith("/node-template/resources/ephemeral-storage"))?.value ?? "none",
            ]),
          ),
          "",
        ]
      : []),
    ...explicit.map(
      (p) =>
        `> **Warning:** pool ${p.name} sets \`resources.ephemeral-storage\` (\`cloud.pools[${cloud.pools.indexOf(p)}].resources\`): Cluster Autoscaler will scale up for pods that request ephemeral storage, but the new node reports none (${BURST_ROOT_FILESYSTEM} root), so they stay pending while it keeps scaling. Remove it.\n`,
    ),
  ];
}

export function summarizeAutoscaler(plan: BurstPlan): string | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const user = autoscalerName(plan);
  const generated = poolsWithoutProfile(cloud);
  const named = cloud.pools.filter((p) => p.instanceProfile !== undefined);
  const minor = plan.kubernetes.version.minor;
  const hour = failedScaleUpAttempts(3600).length;
  const attempts = failedScaleUpAttempts(4 * 3600)
    .slice(0, 6)
    .map((s) => String(s / 60));
  return [
    "## Cluster Autoscaler",
    "",
    `\`${AUTOSCALER_VALUES_PATH}\` is for the official chart (\`helm install cluster-autoscaler autoscaler/cluster-autoscaler -n kube-system -f ...\`): auto-discovery of the groups tagged \`k8s.io/cluster-autoscaler/enabled\` and \`k8s.io/cluster-autoscaler/${plan.name}\`, region ${cloud.aws.region}, image tag ${autoscalerImageTag(plan)} (Cluster Autoscaler follows the Kubernetes minor; a newer patch of 1.${minor} is fine), on the control-plane nodes.`,
    "",
    `Its AWS identity is the IAM user \`${user}\` (\`cloud/terraform/iam.tf.json\`) with one policy: ${AUTOSCALER_DESCRIBE_ACTIONS.map((a) => `\`${a}\``).join(", ")} on any resource, and ${AUTOSCALER_WRITE_ACTIONS.map((a) => `\`${a}\``).join(" and ")} only on groups tagged \`k8s.io/cluster-autoscaler/${plan.name} = owned\` (the pools). The autoscaler runs on-prem, where no instance role or IRSA exists; an IAM user was chosen over IAM Roles Anywhere because Roles Anywhere needs a certificate authority as trust anchor and a credential helper beside the autoscaler, which this cluster does not have. **No access key is generated** (it would sit in the Terraform state): create one for \`${user}\` and store it as Secret \`kube-system/${AUTOSCALER_CREDENTIALS_SECRET}\` with keys \`AWS_ACCESS_KEY_ID\` and \`AWS_SECRET_ACCESS_KEY\` (the values' \`envFromSecret\`); rotate it like any key.`,
    "",
    ...(generated.length > 0
      ? [
          `Instance profile: pool${generated.length > 1 ? "s" : ""} ${generated.map((p) => p.name).join(", ")} name${generated.length > 1 ? "" : "s"} none, so the launch template gets the generated \`${generatedProfileName(plan)}\` (a role with only its EC2 trust policy: a burst node needs no AWS permission, it proves itself with its signed identity document).`,
          "",
        ]
      : []),
    ...named.map(
      (p) =>
        `> **Note:** pool ${p.name} names the instance profile \`${p.instanceProfile}\` (\`cloud.pools[${cloud.pools.indexOf(p)}].instanceProfile\`): it must exist before \`terraform apply\`, which does not create it, and whoever applies needs \`iam:PassRole\` on its role.\n`,
    ),
    ...(!kubernetesContract(minor).autoscalerScalesFromZeroWithExtendedResources()
      ? [
          `> **Warning:** Kubernetes 1.${minor} pairs with Cluster Autoscaler ${autoscalerImageTag(plan)}, older than 1.${AUTOSCALER_SCALE_FROM_ZERO_MINOR}: its AWS provider does not build scale-from-zero template nodes with the extended resources of the \`node-template/resources/*\` tags, so a pool at zero never scales up for pods that request them. Upgrade the cluster to 1.${AUTOSCALER_SCALE_FROM_ZERO_MINOR} or newer, or keep \`minSize\` at 1 or more.\n`,
        ]
      : []),
    `Scale from zero: Cluster Autoscaler's AWS provider builds a pool's template node from the instance type and the group's tags, with **allocatable equal to capacity** (no system-reserved, kube-reserved or eviction threshold subtracted): a pod sized near a whole ${cloud.pools[0]?.instanceType ?? "instance"} fits the template, triggers a scale-up, and then fits no real node, which reports less allocatable. Size burst pods with headroom (a few hundred MiB and some CPU below the instance).`,
    "",
    `On-prem Nodes carry no AWS provider ID: Cluster Autoscaler's AWS provider logs that each of them "has no providerId" (or is not in any node group) on every loop (every ${AUTOSCALER_TIMINGS.scanIntervalSeconds} s). It is noise: they belong to no group, are never scaled, and no label or annotation silences it.`,
    "",
    `Launch loops: a failure that repeats on every instance (a refused identity, another Kubernetes minor, archived mirrors, an expired provisioner certificate) ends. The join script never powers a failed instance off (the group would replace it at once, and Cluster Autoscaler, which times each instance, would never see one fail); the instance stays up, unjoined, until Cluster Autoscaler deletes it at \`max-node-provision-time\` ${MAX_NODE_PROVISION_TIME}, decrementing the group, and backs the group off ${AUTOSCALER_TIMINGS.initialBackoffSeconds / 60} minutes, doubling up to ${AUTOSCALER_TIMINGS.maxBackoffSeconds / 60} (all three set in the values). A scale-up of n nodes so launches n instances per attempt, attempts at minutes ${attempts.join(", ")}, … (${hour} in the first hour, then one every ${(AUTOSCALER_TIMINGS.maxNodeProvisionSeconds + AUTOSCALER_TIMINGS.maxBackoffSeconds) / 60} minutes) while pods stay pending, and none once they are gone: the group is back at its minSize at most ${MAX_NODE_PROVISION_TIME} after the last attempt. Cluster Autoscaler does not delete unregistered instances below a group's minSize: a pool with minSize above 0 keeps that many failed instances running (look for instances without a Node).`,
    "",
    ...ephemeralStorageNotes(cloud),
  ].join("\n");
}
