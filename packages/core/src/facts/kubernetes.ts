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
 * feature gate up to 1.24, a kubeadm KubeletConfiguration patch from 1.25 (the gate is locked then).
 */
export type StorageIsolationOff = "kubelet-feature-gate" | "kubelet-config-patch";

export function storageIsolationOff(rootFilesystem: string, minor: number): StorageIsolationOff | undefined {
  if (rootFilesystem !== "btrfs") return undefined;
  return minor < KUBELET_PATCHES_SINCE_MINOR ? "kubelet-feature-gate" : "kubelet-config-patch";
}
