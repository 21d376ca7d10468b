// Cluster Autoscaler's Helm values (the official chart, kubernetes/autoscaler charts/cluster-autoscaler): auto-discovery
// of the pools by their tags, the region, an image of the cluster's minor, and the credentials of the IAM user that
// iam.tf.json creates, read from a Secret the operator makes. Under cloud/, as the autoscaler exists for the burst.
import { AUTOSCALER_TIMINGS, type BurstPlan, type CloudPlan, generatedMarker, toYaml } from "@clusterspec/core";
import { autoscalerName } from "./iam.js";

export const AUTOSCALER_VALUES_PATH = "cloud/cluster-autoscaler-values.yaml";

/** The Secret (in the autoscaler's namespace) holding AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY of the IAM user. */
export const AUTOSCALER_CREDENTIALS_SECRET = "cluster-autoscaler-aws";

/** Cluster Autoscaler matches the Kubernetes minor it runs against (its README); v1.<minor>.0 exists for every minor. */
export function autoscalerImageTag(plan: BurstPlan): string {
  return `v1.${plan.kubernetes.version.minor}.0`;
}

const minutes = (seconds: number): string => `${seconds / 60}m`;

/** How long Cluster Autoscaler waits for a new instance to register before it deletes it and backs the group off. */
export const MAX_NODE_PROVISION_TIME = minutes(AUTOSCALER_TIMINGS.maxNodeProvisionSeconds);

/**
 * When Cluster Autoscaler tries a pool again whose every instance fails to join, in seconds from the first scale-up,
 * up to `withinSeconds`: each attempt's instances are deleted at max-node-provision-time, then the group is backed off
 * (initial back-off, doubling up to the maximum). One launch per requested node per attempt; none after the pending
 * pods are gone. Scan-interval delays make each real attempt a little later, never earlier.
 */
export function failedScaleUpAttempts(withinSeconds: number, t = AUTOSCALER_TIMINGS): number[] {
  const out: number[] = [];
  let backoff: number = t.initialBackoffSeconds;
  for (let at = 0; at <= withinSeconds; at += t.maxNodeProvisionSeconds + backoff) {
    if (at > 0) backoff = Math.min(backoff * 2, t.maxBackoffSeconds);
    out.push(at);
  }
  return out;
}

export function autoscalerValues(plan: BurstPlan, cloud: CloudPlan): Record<string, unknown> {
  return {
    cloudProvider: "aws",
    awsRegion: cloud.aws.region,
    autoDiscovery: {
      clusterName: plan.name,
      tags: ["k8s.io/cluster-autoscaler/enabled", `k8s.io/cluster-autoscaler/${plan.name}`],
    },
    image: { tag: autoscalerImageTag(plan) },
    // credentials of the IAM user `<cluster>-cluster-autoscaler` (iam.tf.json), from a Secret the operator creates
    envFromSecret: AUTOSCALER_CREDENTIALS_SECRET,
    extraArgs: {
      // the pools of one instance type in several zones count as one for balancing
      "balance-similar-node-groups": true,
      expander: "least-waste",
      // burst nodes hold emptyDir data only; it must not keep a node from scaling down
      "skip-nodes-with-local-storage": false,
      // A failed join leaves its instance running, unjoined: at this age Cluster Autoscaler deletes it (decrementing the
      // group) and backs the group off, so a failure that repeats on every instance ends (PLAN.md: launch loops).
      "max-node-provision-time": MAX_NODE_PROVISION_TIME,
      "initial-node-group-backoff-duration": minutes(AUTOSCALER_TIMINGS.initialBackoffSeconds),
      "max-node-group-backoff-duration": minutes(AUTOSCALER_TIMINGS.maxBackoffSeconds),
    },
    // run on-prem, on the control plane: never on a burst node it may remove
    nodeSelector: { "node-role.kubernetes.io/control-plane": "" },
    tolerations: [{ key: "node-role.kubernetes.io/control-plane", operator: "Exists", effect: "NoSchedule" }],
  };
}

export function renderAutoscalerValues(plan: BurstPlan, cloud: CloudPlan): string {
  return `# ${generatedMarker(plan)}\n# helm install cluster-autoscaler autoscaler/cluster-autoscaler -n kube-system -f cluster-autoscaler-values.yaml\n# IAM user: ${autoscalerName(plan)} (cloud/terraform/iam.tf.json); its access key goes into Secret ${AUTOSCALER_CREDENTIALS_SECRET}\n${toYaml(autoscalerValues(plan, cloud))}`;
}
