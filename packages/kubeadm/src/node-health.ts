// Node failure detection and eviction: which flag carries which tunable in which version, and the timing that results.
import { apiserverShutdownDelay, type ClusterPlan, kubernetesContract } from "@clusterspec/core";

/** The kubelet renews its node Lease every quarter of nodeLeaseDurationSeconds (default 40s). */
export const LEASE_RENEW_SECONDS = 10;

/** kube-controller-manager flags for the node-health tunables; `--pod-eviction-timeout` stops the controller manager from 1.27. */
export function controllerManagerArgs(plan: ClusterPlan): Record<string, string> {
  const k = plan.kubernetes;
  const h = k.nodeHealth;
  // A dual-stack controller manager takes one mask per family; kubeadm checks the pod networks against these two
  // flags (kubeadm validation.go getClusterNodeMask: node-cidr-mask-size-ipv4/-ipv6, defaults 24 and 64).
  const v6 = k.nodeCidrMaskSize6;
  const masks: Record<string, string> =
    v6 === undefined
      ? { "node-cidr-mask-size": String(k.nodeCidrMaskSize) }
      : k.families.length === 2
        ? { "node-cidr-mask-size-ipv4": String(k.nodeCidrMaskSize), "node-cidr-mask-size-ipv6": String(v6) }
        : { "node-cidr-mask-size": String(v6) };
  return {
    ...masks,
    "node-monitor-grace-period": h.monitorGracePeriod,
    "node-monitor-period": h.monitorPeriod,
    ...(kubernetesContract(k.version).acceptsPodEvictionTimeoutFlag()
      ? { "pod-eviction-timeout": h.evictionAfter }
      : {}),
  };
}

/**
 * kube-apiserver flags: taint-based eviction (the default since 1.18, the only mode from 1.27) evicts pods when their
 * default not-ready/unreachable tolerations run out, so these carry evictionAfter in every supported version. And
 * `shutdown-delay-duration` (kubeadm leaves it at 0) whenever the control-plane VIP can move on a failing /readyz:
 * a stopping apiserver fails /readyz at once and keeps serving that long, until the VIP has left it
 * (core's apiserverShutdownDelay has the arithmetic, PLAN.md's timing table shows it).
 */
export function apiServerArgs(plan: ClusterPlan): Record<string, string> {
  const seconds = String(Math.ceil(plan.kubernetes.nodeHealth.seconds.evictionAfter));
  const delay = apiserverShutdownDelay(plan);
  const auth = plan.kubernetes.knobs.apiServerAuthentication;
  return {
    "default-not-ready-toleration-seconds": seconds,
    "default-unreachable-toleration-seconds": seconds,
    ...(delay === undefined ? {} : { "shutdown-delay-duration": `${delay}s` }),
    ...(auth === undefined ? {} : { "authentication-config": auth.path }),
  };
}

export interface NodeHealthTiming {
  /** Longest gap between two signs of life from a healthy node (status report or lease renewal). */
  readonly heartbeatSeconds: number;
  /** Status updates that may be missed before the node turns NotReady. */
  readonly toleratedMisses: number;
  /** Worst case from a node's death to NotReady/Unknown: grace period plus one monitor period. */
  readonly noticeSeconds: number;
  /** Worst case from a node's death to the eviction of its pods. */
  readonly evictSeconds: number;
}

export function nodeHealthTiming(plan: ClusterPlan): NodeHealthTiming {
  const s = plan.kubernetes.nodeHealth.seconds;
  const heartbeat = Math.min(s.statusUpdateFrequency, LEASE_RENEW_SECONDS);
  const notice = s.monitorGracePeriod + s.monitorPeriod;
  return {
    heartbeatSeconds: heartbeat,
    toleratedMisses: Math.floor(s.monitorGracePeriod / s.statusUpdateFrequency) - 1,
    noticeSeconds: notice,
    evictSeconds: notice + Math.ceil(s.evictionAfter),
  };
}
