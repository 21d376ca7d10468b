// The Terraform JSON documents of the AWS side, built as plain objects: providers, the instance-state events, and one
// launch template and Auto Scaling Group per pool.
import {
  type BurstPlan,
  type CloudPlan,
  DATA_VOLUME_LAYOUT,
  type PlannedPool,
  PROVISIONER_EVENT_STATES,
  userDataPaths,
} from "@clusterspec/core";
import { TERRAFORM_DIR } from "./constants.js";
import { type Json, tfExpr, tfLiteral } from "./escape.js";
import { instanceProfileOf } from "./iam.js";

type Cloud = CloudPlan;

/** How long `terraform apply` waits for the provisioner to confirm the SNS subscription. */
export const SNS_CONFIRMATION_TIMEOUT_MINUTES = 5;

const EVENTS = "ec2_state_change";
const DLQ = "provisioner_dlq";

/** Auto Scaling processes suspended on a group with more than one subnet. */
export const SUSPENDED_PROCESSES = ["AZRebalance"] as const;

/** What carries the instances' state changes to the provisioner: every group depends on it, so destroy keeps it last. */
export const EVENT_CHAIN = [
  `aws_cloudwatch_event_rule.${EVENTS}`,
  `aws_cloudwatch_event_target.${EVENTS}`,
  `aws_sns_topic.${EVENTS}`,
  `aws_sns_topic_policy.${EVENTS}`,
  "aws_sns_topic_subscription.provisioner",
  `aws_sqs_queue.${DLQ}`,
  `aws_sqs_queue_policy.${DLQ}`,
] as const;

/**
 * The HTTPS subscription's retry schedule (SNS subscription DeliveryPolicy). SNS's default is 3 retries 20 s apart,
 * then the message is dropped: a provisioner down for a minute would lose a `running` (the node never joins) or a
 * `terminated` (a slot and a token leak). SNS caps an HTTP/S policy's total retry time at 3,600 s; this schedule's
 * upper bound (every backoff step at maxDelayTarget) stays within it, see snsRetryBoundSeconds.
 */
export const SNS_HEALTHY_RETRY_POLICY = {
  minDelayTarget: 20,
  maxDelayTarget: 300,
  numRetries: 14,
  numNoDelayRetries: 0,
  numMinDelayRetries: 3,
  numMaxDelayRetries: 3,
  backoffFunction: "exponential",
} as const;

/** SNS's hard limit on an HTTP/S delivery policy's total retry time. */
export const SNS_MAX_RETRY_SECONDS = 3600;

/** An upper bound of the policy's total retry time: the backoff phase counted at its maximum delay. */
export function snsRetryBoundSeconds(p: typeof SNS_HEALTHY_RETRY_POLICY = SNS_HEALTHY_RETRY_POLICY): number {
  const backoff = p.numRetries - p.numNoDelayRetries - p.numMinDelayRetries - p.numMaxDelayRetries;
  return p.numMinDelayRetries * p.minDelayTarget + (backoff + p.numMaxDelayRetries) * p.maxDelayTarget;
}

/** A lower bound: the backoff phase counted at its minimum delay. */
export function snsRetryFloorSeconds(p: typeof SNS_HEALTHY_RETRY_POLICY = SNS_HEALTHY_RETRY_POLICY): number {
  const backoff = p.numRetries - p.numNoDelayRetries - p.numMinDelayRetries - p.numMaxDelayRetries;
  return (p.numMinDelayRetries + backoff) * p.minDelayTarget + p.numMaxDelayRetries * p.maxDelayTarget;
}

/** How long the dead-letter queue keeps an undelivered notification: SQS's maximum, 14 days. */
export const DLQ_RETENTION_SECONDS = 1_209_600;

/** Terraform identifiers start with a letter or underscore; pool names may start with a digit. */
export function poolResourceName(pool: PlannedPool): string {
  return /^[a-z]/.test(pool.name) ? pool.name : `pool-${pool.name}`;
}

/** An AWS name with a fixed suffix, the prefix cut so the whole fits `max` characters. */
function awsName(prefix: string, suffix: string, max: number): string {
  return `${prefix.slice(0, max - suffix.length)}${suffix}`;
}

export function providers(cloud: Cloud): Json {
  return {
    terraform: {
      required_providers: { aws: { source: "hashicorp/aws", version: tfLiteral(cloud.aws.providerVersion) } },
    },
    provider: { aws: { region: tfLiteral(cloud.aws.region) } },
  };
}

export function events(plan: BurstPlan, cloud: Cloud): Json {
  const topicArn = tfExpr(`aws_sns_topic.${EVENTS}.arn`);
  const ruleArn = tfExpr(`aws_cloudwatch_event_rule.${EVENTS}.arn`);
  const policy = {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "EventBridgePublishesInstanceStateChanges",
        Effect: "Allow",
        Principal: { Service: "events.amazonaws.com" },
        Action: "sns:Publish",
        Resource: topicArn,
        Condition: { ArnEquals: { "aws:SourceArn": ruleArn } },
      },
    ],
  };
  const dlqArn = tfExpr(`aws_sqs_queue.${DLQ}.arn`);
  // only this topic's subscription may move its undeliverable messages into the queue
  const dlqPolicy = {
    Version: "2012-10-17",
    Statement: [
      {
        Sid: "SnsDeadLettersOfTheProvisionerSubscription",
        Effect: "Allow",
        Principal: { Service: "sns.amazonaws.com" },
        Action: "sqs:SendMessage",
        Resource: dlqArn,
        Condition: { ArnEquals: { "aws:SourceArn": topicArn } },
      },
    ],
  };
  return {
    resource: {
      aws_cloudwatch_event_rule: {
        [EVENTS]: {
          name: tfLiteral(awsName(plan.name, "-ec2-state-change", 64)),
          description: tfLiteral(
            `EC2 instances entering running or terminated, for the provisioner of cluster ${plan.name}`,
          ),
          // Only the states the contract acts on. The event names no Auto Scaling Group (EventBridge cannot match
          // tags), so the provisioner checks the instance's group before it hands out anything (the contract).
          event_pattern: JSON.stringify({
            source: ["aws.ec2"],
            "detail-type": ["EC2 Instance State-change Notification"],
            detail: { state: [...PROVISIONER_EVENT_STATES] },
          }),
        },
      },
      aws_cloudwatch_event_target: {
        [EVENTS]: { rule: tfExpr(`aws_cloudwatch_event_rule.${EVENTS}.name`), target_id: "sns", arn: topicArn },
      },
      // SignatureVersion 2: SNS signs its messages with SHA256, which the provisioner verifies (SignatureVersion 1 is SHA1)
      aws_sns_topic: {
        [EVENTS]: { name: tfLiteral(awsName(plan.name, "-ec2-state-change", 256)), signature_version: 2 },
      },
      aws_sns_topic_policy: { [EVENTS]: { arn: topicArn, policy: JSON.stringify(policy) } },
      // The provisioner confirms the subscription itself (the contract): endpoint_auto_confirms makes apply wait
      // for that and fail after the timeout, so no unconfirmed subscription is ever taken for a working one.
      aws_sns_topic_subscription: {
        provisioner: {
          topic_arn: topicArn,
          protocol: "https",
          endpoint: tfLiteral(cloud.snsEndpoint),
          endpoint_auto_confirms: true,
          confirmation_timeout_in_minutes: SNS_CONFIRMATION_TIMEOUT_MINUTES,
          delivery_policy: JSON.stringify({ healthyRetryPolicy: SNS_HEALTHY_RETRY_POLICY }),
          // what SNS still cannot deliver after the retries lands here instead of being dropped
          redrive_policy: JSON.stringify({ deadLetterTargetArn: dlqArn }),
        },
      },
      aws_sqs_queue: {
        [DLQ]: {
          name: tfLiteral(awsName(plan.name, "-provisioner-dlq", 80)),
          message_retention_seconds: DLQ_RETENTION_SECONDS,
          sqs_managed_sse_enabled: true,
        },
      },
      aws_sqs_queue_policy: {
        [DLQ]: { queue_url: tfExpr(`aws_sqs_queue.${DLQ}.id`), policy: JSON.stringify(dlqPolicy) },
      },
    },
  };
}

/** `${path.module}` is the Terraform folder: the relative path from there to another generated file. */
function fromTerraform(artifactPath: string): string {
  const from = TERRAFORM_DIR.split("/");
  const to = artifactPath.split("/");
  let common = 0;
  while (common < from.length && from[common] === to[common]) common++;
  return `\${path.module}/${"../".repeat(from.length - common)}${to.slice(common).join("/")}`;
}

function userDataExpr(pool: PlannedPool): string {
  const paths = userDataPaths(pool.name);
  const gz = fromTerraform(paths.gzipBase64);
  // cloud-init writes user-data.gz.b64 only when the YAML is too large for EC2 to take plain; the review diff stays on the YAML
  return tfExpr(`fileexists("${gz}") ? trimspace(file("${gz}")) : filebase64("${fromTerraform(paths.yaml)}")`);
}

/**
 * A `data "aws_subnet"` per subnet of a pool with IPv6, whose postconditions fail the plan before any instance
 * launches: without an IPv6 CIDR (dual-stack); an IPv6-only pool's subnets must be IPv6-only (`ipv6_native`: AWS
 * gives its instances no IPv4 address, as the pool's launch template asks) and translate DNS for IPv4-only names
 * (`enable_dns64`: quay.io, where Cilium's images are, has no IPv6 address; DNS64 with a NAT64 route reaches it).
 */
function subnetChecks(pool: PlannedPool): Json {
  return Object.fromEntries(
    pool.subnets.map((id, i) => [
      `${poolResourceName(pool)}_${i}`,
      {
        id: tfLiteral(id),
        lifecycle: {
          postcondition:
            pool.ipv6 === "only"
              ? [
                  {
                    condition: tfExpr("self.ipv6_native"),
                    error_message: tfLiteral(
                      `Subnet ${id} of pool ${pool.name} (cloud.pools[].ipv6: only) is not IPv6-only: its instances launch without any IPv4 address, so give the pool IPv6-only subnets (ipv6_native, with an IPv6 CIDR block and an egress-only internet gateway with a ::/0 route), or set ipv6: dual-stack.`,
                    ),
                  },
                  {
                    condition: tfExpr("self.enable_dns64"),
                    error_message: tfLiteral(
                      `Subnet ${id} of pool ${pool.name} (cloud.pools[].ipv6: only) has DNS64 off: its instances, without IPv4, reach IPv4-only names (quay.io, which serves Cilium's images) only through DNS64 and a NAT gateway's NAT64 (a 64:ff9b::/96 route); turn on DNS64 on the subnet and add that route.`,
                    ),
                  },
                ]
              : [
                  {
                    condition: tfExpr(`self.ipv6_cidr_block != ""`),
                    error_message: tfLiteral(
                      `Subnet ${id} of pool ${pool.name} (cloud.pools[].ipv6: dual-stack) has no IPv6 CIDR block: associate one with the VPC and the subnet (and give the VPC an egress-only internet gateway with a ::/0 route), or set ipv6: off.`,
                    ),
                  },
                ],
        },
      },
    ]),
  );
}

/**
 * A route's target of one kind, by its ID's prefix (`igw-`: `gateway_id` also holds virtual private gateways). `can`
 * makes a target the route lacks false whether the provider leaves it "" (SDKv2 does) or null.
 */
const target = (attribute: string, prefix: string): string => `can(regex("^${prefix}-", r.${attribute}))`;

/**
 * The route table of each subnet of a pool with IPv6, and postconditions on its routes: `::/0` out of the VPC (an
 * egress-only internet gateway, an internet gateway, or a transit gateway for central egress) and, on an IPv6-only
 * pool, `64:ff9b::/96` to a NAT gateway (NAT64, or a transit gateway to a central one). `data "aws_route_table"`
 * by `subnet_id` fails the plan ("query returned no results") for a subnet without an explicit association, which
 * uses its VPC's main route table: EC2 lists only explicit associations under `association.subnet-id`. So two
 * `data "aws_route_tables"` (which return an empty `ids` and no error) find the subnet's table and the VPC's main
 * one (`association.main`), the first of them is read, and none when neither is visible to Terraform's credentials
 * (a shared VPC's participant may not see the owner's route tables): the check is then skipped, not failed. The
 * data source leaves out routes propagated from a virtual private gateway (so such a route does not count).
 */
function routeChecks(pool: PlannedPool): { tables: Json; table: Json } {
  const r = poolResourceName(pool);
  const kind = `cloud.pools[].ipv6: ${pool.ipv6}`;
  const tables: Record<string, Json> = {};
  const table: Record<string, Json> = {};
  pool.subnets.forEach((id, i) => {
    const n = `${r}_${i}`;
    tables[`${n}_subnet`] = { filter: [{ name: "association.subnet-id", values: [tfLiteral(id)] }] };
    tables[`${n}_main`] = {
      vpc_id: tfExpr(`data.aws_subnet.${n}.vpc_id`),
      filter: [{ name: "association.main", values: ["true"] }],
    };
    const ids = `concat(data.aws_route_tables.${n}_subnet.ids, data.aws_route_tables.${n}_main.ids)`;
    table[n] = {
      count: tfExpr(`length(${ids}) > 0 ? 1 : 0`),
      route_table_id: tfExpr(`${ids}[0]`),
      lifecycle: {
        postcondition: [
          {
            condition: tfExpr(
              `anytrue([for r in self.routes : r.ipv6_cidr_block == "::/0" && (${target("egress_only_gateway_id", "eigw")} || ${target("gateway_id", "igw")} || ${target("transit_gateway_id", "tgw")})])`,
            ),
            error_message: tfLiteral(
              `The route table of subnet ${id} of pool ${pool.name} (${kind}) has no ::/0 route to an egress-only internet gateway, an internet gateway or a transit gateway: its instances' IPv6 traffic cannot leave the VPC; add the route.`,
            ),
          },
          ...(pool.ipv6 === "only"
            ? [
                {
                  condition: tfExpr(
                    `anytrue([for r in self.routes : r.ipv6_cidr_block == "64:ff9b::/96" && (${target("nat_gateway_id", "nat")} || ${target("transit_gateway_id", "tgw")})])`,
                  ),
                  error_message: tfLiteral(
                    `The route table of subnet ${id} of pool ${pool.name} (${kind}) has no 64:ff9b::/96 route to a NAT gateway (or a transit gateway to one): without NAT64 its instances reach no IPv4-only host (quay.io, which serves Cilium's images); add the route.`,
                  ),
                },
              ]
            : []),
        ],
      },
    };
  });
  return { tables, table };
}

export function poolResources(plan: BurstPlan, pool: PlannedPool): Json {
  const r = poolResourceName(pool);
  const name = tfLiteral(pool.groupName);
  const ami = pool.ami;
  const filters =
    "id" in ami
      ? [{ name: "image-id", values: [tfLiteral(ami.id)] }]
      : [{ name: "name", values: [tfLiteral(ami.lookup.name)] }];
  const dual = pool.ipv6 !== "off";
  const only = pool.ipv6 === "only";
  const routes = routeChecks(pool);
  return {
    data: {
      aws_ami: {
        [r]: {
          ...("id" in ami ? {} : { most_recent: true, owners: ami.lookup.owners.map(tfLiteral) }),
          filter: [...filters, { name: "architecture", values: [pool.architecture] }],
        },
      },
      // clusterspec does not own the VPC: a dual-stack pool's subnets must have an IPv6 CIDR already, an IPv6-only
      // pool's must be IPv6-only with DNS64, which terraform plan checks here before any instance launches
      ...(dual ? { aws_subnet: subnetChecks(pool) } : {}),
      // and routes out of the VPC for IPv6 (and NAT64 for an IPv6-only pool) in each subnet's route table
      ...(dual ? { aws_route_tables: routes.tables, aws_route_table: routes.table } : {}),
    },
    resource: {
      aws_launch_template: {
        [r]: {
          name,
          description: tfLiteral(`Burst workers of pool ${pool.name} in cluster ${plan.name}`),
          image_id: tfExpr(`data.aws_ami.${r}.id`),
          instance_type: tfLiteral(pool.instanceType),
          // IPv6: one address from the subnet on the primary interface; the security groups then go on the interface
          // (EC2 refuses instance-level groups beside network interfaces)
          ...(dual
            ? {
                network_interfaces: [
                  {
                    device_index: 0,
                    ipv6_address_count: 1,
                    security_groups: pool.securityGroups.map(tfLiteral),
                    delete_on_termination: "true",
                    // IPv6 only: no public IPv4 address (an IPv6-only subnet has no IPv4 to give)
                    ...(only ? { associate_public_ip_address: "false" } : {}),
                  },
                ],
                // AWS names an instance in an IPv6-only subnet by its resource name (i-….region.compute.internal):
                // IP-based names need an IPv4 address; its DNS name then resolves to its IPv6 address (AAAA)
                ...(only
                  ? {
                      private_dns_name_options: [
                        {
                          hostname_type: "resource-name",
                          enable_resource_name_dns_a_record: false,
                          enable_resource_name_dns_aaaa_record: true,
                        },
                      ],
                    }
                  : {}),
              }
            : { vpc_security_group_ids: pool.securityGroups.map(tfLiteral) }),
          iam_instance_profile: [{ name: instanceProfileOf(pool) }],
          // IMDSv2 only; hop limit 1 keeps pods (one hop further) away from the instance's credentials
          metadata_options: [
            {
              http_endpoint: "enabled",
              http_tokens: "required",
              http_put_response_hop_limit: pool.imdsHopLimit,
              // IMDS at [fd00:ec2::254] too: Nitro instances only
              ...(pool.imdsIpv6 ? { http_protocol_ipv6: "enabled" } : {}),
            },
          ],
          block_device_mappings: [
            {
              device_name: tfExpr(`data.aws_ami.${r}.root_device_name`),
              ebs: [
                {
                  volume_size: pool.rootVolumeGiB,
                  volume_type: "gp3",
                  encrypted: "true",
                  delete_on_termination: "true",
                },
              ],
            },
            // the data volume for /var/lib/kubelet and /var/lib/containers (cloud-init partitions and mounts it)
            ...(pool.dataVolume === undefined
              ? []
              : [
                  {
                    device_name: DATA_VOLUME_LAYOUT.awsDeviceName,
                    ebs: [
                      {
                        volume_size: pool.dataVolume.sizeGiB,
                        volume_type: "gp3",
                        encrypted: "true",
                        delete_on_termination: "true",
                      },
                    ],
                  },
                ]),
          ],
          user_data: userDataExpr(pool),
          // An instance shut down from inside (by hand) ends, and the group replaces it. The join script never does
          // this on a failed join: the instance stays up until Cluster Autoscaler deletes it (PLAN.md: launch loops).
          instance_initiated_shutdown_behavior: "terminate",
          update_default_version: true,
        },
      },
      aws_autoscaling_group: {
        [r]: {
          name,
          min_size: pool.minSize,
          max_size: pool.maxSize,
          vpc_zone_identifier: pool.subnets.map(tfLiteral),
          launch_template: [
            { id: tfExpr(`aws_launch_template.${r}.id`), version: tfExpr(`aws_launch_template.${r}.latest_version`) },
          ],
          tag: pool.asgTags.map((t) => ({
            key: tfLiteral(t.key),
            value: tfLiteral(t.value),
            propagate_at_launch: t.propagateAtLaunch,
          })),
          // AZRebalance terminates instances to even out the zones, without draining them (Cluster Autoscaler's AWS
          // README: suspend it); it only acts with subnets in more than one zone
          ...(pool.subnets.length > 1 ? { suspended_processes: [...SUSPENDED_PROCESSES] } : {}),
          // Cluster Autoscaler owns the desired capacity
          lifecycle: { ignore_changes: ["desired_capacity"] },
          // Destroyed before the event chain: the last instances' terminated events still reach the provisioner
          // (and the dead-letter queue keeps what it cannot take) while Terraform waits for the group to empty.
          depends_on: [...EVENT_CHAIN],
        },
      },
    },
  };
}
