// Everything the provisioner knows about the cluster comes from the spec's plan (@clusterspec/core): pools, groups,
// slots, the Secret layout, the hub, the paths. Only what a spec cannot know is given at start (the account and the
// topic ARN Terraform created, listen address, TLS files): see bin.ts.
import { IDENTITY_HEADERS, PROVISIONER_RETRY } from "@clusterspec/cloud-init";
import type { BurstPlan, CloudPlan, PlannedSlot } from "@clusterspec/core";

/**
 * kubeadm's default time limits for the two steps of `kubeadm join` that use the bootstrap token, in seconds: discovery
 * (`timeouts.discovery`, 5m) and the kubelet's TLS bootstrap (`timeouts.tlsBootstrap`, 5m), kubeadm API v1beta4
 * defaults (cmd/kubeadm/app/apis/kubeadm/v1beta4/defaults.go: DefaultDiscoveryTimeout, TLSBootstrapTimeout). The
 * generated JoinConfiguration sets neither.
 */
export const KUBEADM_TOKEN_USE_SECONDS = 5 * 60 + 5 * 60;
/** How often, and how far apart, the join script runs `kubeadm join` (its `retry 3 30 join_once`). */
export const JOIN_ATTEMPTS = { attempts: 3, delaySeconds: 30 } as const;
/** Steps between the kubeconfig fetch and `kubeadm join`: tunnel address (10 × 3 s), resolver, cri-o start. */
export const BETWEEN_FETCH_AND_JOIN_SECONDS = 10 * 3 + 5 * 60;

/**
 * The bootstrap token's TTL. It is minted when the kubeconfig that carries it is served (the instance's only fetch of
 * it), so it must cover the longest the join script may still use it after that answer: the answer's own transfer
 * (one request timeout), the steps up to `kubeadm join`, then every join attempt using the token for kubeadm's full
 * discovery and TLS-bootstrap limits, with the delays between attempts.
 */
export function bootstrapTokenTtlSeconds(): number {
  const fetch = PROVISIONER_RETRY.timeoutSeconds;
  const join =
    JOIN_ATTEMPTS.attempts * KUBEADM_TOKEN_USE_SECONDS + (JOIN_ATTEMPTS.attempts - 1) * JOIN_ATTEMPTS.delaySeconds;
  return fetch + BETWEEN_FETCH_AND_JOIN_SECONDS + join;
}

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
  /** Longest time a SNS delivery waits for its answer before answering 503 (SNS waits 15 s). */
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
    snsAnswerWithinMs: 10_000,
  };
}

export function slotOf(settings: Settings, pool: string, index: number): PlannedSlot | undefined {
  return settings.cloud.slots.find((s) => s.pool === pool && s.index === index);
}
