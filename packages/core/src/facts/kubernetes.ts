// Version-dependent Kubernetes facts that both the rules and the plan need; which version does what is decided by
// the version contract (contract.ts).
import { KUBELET_PATCHES_SINCE_MINOR, type KubeadmApiVersion, kubernetesContract } from "./contract.js";

export { KUBELET_PATCHES_SINCE_MINOR, type KubeadmApiVersion };

/** kubeadm v1beta4 is served from 1.31; v1beta3 is the newest version before that. */
export function kubeadmApiVersionFor(minor: number): KubeadmApiVersion {
  return kubernetesContract(minor).kubeadmApiVersion();
}

/** The controller-manager default --node-monitor-grace-period: 40s, 50s from 1.32. */
export function defaultMonitorGracePeriod(minor: number): string {
  return kubernetesContract(minor).defaultNodeMonitorGracePeriod();
}

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
  return kubernetesContract(minor).supportsKubeletConfigPatches() ? "kubelet-config-patch" : "kubelet-feature-gate";
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

/** Where `kubernetes.apiServer.anonymousAuth: healthEndpoints` puts the AuthenticationConfiguration, on each control plane and in the kube-apiserver pod. */
export const AUTHENTICATION_CONFIG_PATH = "/etc/kubernetes/authentication-config.yaml";
/** The kubeadm extraVolume that mounts it. */
export const AUTHENTICATION_CONFIG_VOLUME = "authentication-config";
/** kube-apiserver's health endpoints: the only paths anonymous requests reach with `healthEndpoints` (exact matches). */
export const HEALTH_ENDPOINTS = ["/healthz", "/livez", "/readyz"] as const;
