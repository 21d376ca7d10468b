// Version-dependent Kubernetes facts that both the rules and the plan need.

export type KubeadmApiVersion = "kubeadm.k8s.io/v1beta3" | "kubeadm.k8s.io/v1beta4";

/** kubeadm v1beta4 is served from 1.31; v1beta3 is the newest version before that. */
export function kubeadmApiVersionFor(minor: number): KubeadmApiVersion {
  return minor >= 31 ? "kubeadm.k8s.io/v1beta4" : "kubeadm.k8s.io/v1beta3";
}

/** The controller-manager default --node-monitor-grace-period: 40s, 50s from 1.32. */
export function defaultMonitorGracePeriod(minor: number): string {
  return minor >= 32 ? "50s" : "40s";
}

/** kubeadm applies kubeletconfiguration patches from 1.25 (kubernetes/kubernetes#110405). */
export const KUBELET_PATCHES_SINCE_MINOR = 25;

/**
 * How the kubelet's local storage capacity isolation is switched off on btrfs (it cannot measure it): the
 * feature gate up to 1.24; from 1.25 (the gate is locked then) the KubeletConfiguration field, in the
 * cluster-wide KubeletConfiguration when every node that joins needs it (`kubelet-config`: it lives in the
 * kubelet-config ConfigMap, which `kubeadm upgrade node` rewrites the kubelet's config from), else in a
 * per-node kubeadm patch (`kubelet-config-patch`: kept across upgrades only with `--patches`).
 */
export type StorageIsolationOff = "kubelet-feature-gate" | "kubelet-config" | "kubelet-config-patch";

export function storageIsolationOff(rootFilesystem: string, minor: number): StorageIsolationOff | undefined {
  if (rootFilesystem !== "btrfs") return undefined;
  return minor < KUBELET_PATCHES_SINCE_MINOR ? "kubelet-feature-gate" : "kubelet-config-patch";
}

/**
 * The setting of every node once the whole cluster is known: when every node that joins (on-prem, and no burst
 * node: those download the same kubelet-config ConfigMap) needs the field, it moves into the cluster-wide
 * KubeletConfiguration and no node keeps a patch for it.
 */
export function clusterStorageIsolationOff(
  perNode: readonly (StorageIsolationOff | undefined)[],
  burstNodes: boolean,
): (StorageIsolationOff | undefined)[] {
  const everyNode = !burstNodes && perNode.length > 0 && perNode.every((p) => p === "kubelet-config-patch");
  return everyNode ? perNode.map(() => "kubelet-config") : [...perNode];
}
