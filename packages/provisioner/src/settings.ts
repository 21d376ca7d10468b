// Everything the provisioner knows about the cluster comes from the spec's plan (@clusterspec/core): pools, groups,
// slots, the Secret layout, the hub, the paths. Only what a spec cannot know is given at start (the account and the
// topic ARN Terraform created, listen address, TLS files): see bin.ts.
import { bootstrapTokenTtlSeconds, IDENTITY_HEADERS, SNS_ANSWER_SECONDS } from "@clusterspec/cloud-init";
import type { BurstPlan, CloudPlan, PlannedSlot } from "@clusterspec/core";

/** The name Terraform gives the SNS topic (packages/terraform-json/src/resources.ts, `awsName`). */
export function topicName(plan: BurstPlan): string {
  const suffix = "-ec2-state-change";
  return `${plan.name.slice(0, 256 - suffix.length)}${suffix}`;
}

export interface Settings {
  readonly plan: BurstPlan;
  readonly cloud: CloudPlan;
  /** The AWS account the instances must belong to (the identity document's accountId). */
  readonly accountId: string;
  /** The SNS topic Terraform created: `arn:<partition>:sns:<region>:<account>:<cluster>-ec2-state-change`. */
  readonly topicArn: string;
  /** Auto Scaling group name → pool name. */
  readonly groups: ReadonlyMap<string, string>;
  readonly tokenTtlSeconds: number;
  readonly identityHeaders: typeof IDENTITY_HEADERS;
  /** How long a SNS delivery may take before it is answered 503: well within SNS's 15 s. */
  readonly snsAnswerWithinMs: number;
}

export class SettingsError extends Error {}

/** Settings from a plan with a cloud burst; throws SettingsError naming what is missing. */
export function settingsFrom(plan: BurstPlan, options: { accountId: string; topicArn: string }): Settings {
  const cloud = plan.cloud;
  if (!cloud) throw new SettingsError(`the spec of cluster ${plan.name} has no cloud burst (cloud:)`);
  if (!/^[0-9]{12}$/.test(options.accountId)) throw new SettingsError("the AWS account id must be 12 digits");
  const arn = /^arn:(aws|aws-cn|aws-us-gov):sns:([a-z0-9-]+):([0-9]{12}):(.+)$/.exec(options.topicArn);
  if (!arn) throw new SettingsError(`topic ARN ${JSON.stringify(options.topicArn)} is not an SNS topic ARN`);
  if (arn[2] !== cloud.aws.region)
    throw new SettingsError(`topic ARN region ${arn[2]} is not the spec's region ${cloud.aws.region}`);
  if (arn[3] !== options.accountId)
    throw new SettingsError(`topic ARN account ${arn[3]} is not the account ${options.accountId}`);
  if (arn[4] !== topicName(plan))
    throw new SettingsError(`topic ARN names topic ${arn[4]}; Terraform creates ${topicName(plan)}`);
  if (!cloud.hub?.publicKey || !cloud.hub.endpoint)
    throw new SettingsError(
      "cloud.wireguard.publicKey and cloud.wireguard.endpoint are needed to serve client configs",
    );
  return {
    plan,
    cloud,
    accountId: options.accountId,
    topicArn: options.topicArn,
    groups: new Map(cloud.pools.map((p) => [p.groupName, p.name])),
    tokenTtlSeconds: bootstrapTokenTtlSeconds(),
    identityHeaders: IDENTITY_HEADERS,
    snsAnswerWithinMs: (SNS_ANSWER_SECONDS - 5) * 1000,
  };
}

export function slotOf(settings: Settings, pool: string, index: number): PlannedSlot | undefined {
  return settings.cloud.slots.find((s) => s.pool === pool && s.index === index);
}
