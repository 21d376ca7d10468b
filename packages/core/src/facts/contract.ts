// The version contract (Talos's VersionContract): every version-dependent behaviour is a named predicate here, the
// one file that compares versions (test/version-contract.test.ts scans for others). keepalived has none.
import { FEDORA_EOL, FEDORA_EOL_AS_OF, FEDORA_VERSIONED_KUBERNETES_SINCE, type FedoraEol } from "./fedora.js";

/** The oldest Kubernetes minor clusterspec generates for (1.22: kubeadm v1beta3's first release). */
export const MIN_KUBERNETES_MINOR = 22;
/** The oldest Cilium release clusterspec generates values for. */
export const MIN_CILIUM = { major: 1, minor: 14 } as const;
/** kubeadm applies kubeletconfiguration patches from 1.25 (kubernetes/kubernetes#110405). */
export const KUBELET_PATCHES_SINCE_MINOR = 25;
/** KubeletConfiguration.containerRuntimeEndpoint exists from 1.27. */
export const CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR = 27;
/** The first Cluster Autoscaler minor whose AWS provider scales from zero with extended resources from node-template tags. */
export const AUTOSCALER_SCALE_FROM_ZERO_MINOR = 26;

export type KubeadmApiVersion = "kubeadm.k8s.io/v1beta3" | "kubeadm.k8s.io/v1beta4";
export type AuthenticationConfigApiVersion = "apiserver.config.k8s.io/v1beta1" | "apiserver.config.k8s.io/v1";

/** What a Kubernetes minor (1.x; only Kubernetes 1 exists) does differently. */
export interface KubernetesContract {
  readonly minor: number;
  /** clusterspec generates for 1.22 and newer (MIN_KUBERNETES_MINOR). */
  isSupported(): boolean;
  /** kubeadm serves the v1beta4 config API from 1.31; v1beta3 is the newest before that. */
  usesKubeadmV1beta4(): boolean;
  /** The kubeadm config API version of this minor (v1beta4 from 1.31, else v1beta3). */
  kubeadmApiVersion(): KubeadmApiVersion;
  /** kube-controller-manager's default --node-monitor-grace-period went from 40s to 50s in 1.32. */
  hasLongerNodeMonitorGracePeriod(): boolean;
  /** The controller manager's default --node-monitor-grace-period: 40s, 50s from 1.32. */
  defaultNodeMonitorGracePeriod(): string;
  /**
   * kubeadm applies `kubeletconfiguration` patches from 1.25 (kubernetes/kubernetes#110405), the release in which
   * the LocalStorageCapacityIsolation feature gate was locked on (the KubeletConfiguration field switches it off).
   */
  supportsKubeletConfigPatches(): boolean;
  /** kubeadm taints control planes `node-role.kubernetes.io/master` up to 1.24 (the taint was dropped in 1.25). */
  taintsControlPlaneAsMaster(): boolean;
  /** kubeadm taints control planes `node-role.kubernetes.io/control-plane` from 1.24 (both taints in 1.24). */
  taintsControlPlaneAsControlPlane(): boolean;
  /** KubeletConfiguration.containerRuntimeEndpoint exists from 1.27 (the --container-runtime-endpoint flag before). */
  hasKubeletContainerRuntimeEndpoint(): boolean;
  /** kube-controller-manager accepts --pod-eviction-timeout before 1.27 (removed in 1.27, taint-based eviction only). */
  acceptsPodEvictionTimeoutFlag(): boolean;
  /** kubeadm preflight requires the conntrack binary before 1.32 (FileExisting-conntrack; kube-proxy stopped needing it). */
  kubeadmPreflightRequiresConntrack(): boolean;
  /**
   * kube-apiserver can allow anonymous requests to some paths only (an AuthenticationConfiguration's `anonymous`
   * section with `conditions`): feature gate AnonymousAuthConfigurableEndpoints, alpha in 1.31, beta and on by default
   * from 1.32, GA in 1.34 (k8s.io/apiserver/pkg/features/kube_features.go).
   */
  limitsAnonymousToHealthEndpoints(): boolean;
  /**
   * The apiVersion of kube-apiserver's AuthenticationConfiguration (`--authentication-config`) that carries the
   * `anonymous` section: apiserver.config.k8s.io/v1beta1 (served from 1.30, `anonymous` from 1.31) up to 1.33, v1 from
   * 1.34 (StructuredAuthenticationConfiguration GA); undefined below 1.32, where anonymous conditions are off by
   * default (k8s.io/apiserver/pkg/apis/apiserver/{v1beta1,v1}/types.go, AuthenticationConfiguration.Anonymous).
   */
  authenticationConfigApiVersion(): AuthenticationConfigApiVersion | undefined;
  /**
   * Cluster Autoscaler of this minor (it matches the Kubernetes minor) builds scale-from-zero template nodes with the
   * extended resources of `node-template/resources/*` tags from 1.26 (its AWS provider).
   */
  autoscalerScalesFromZeroWithExtendedResources(): boolean;
}

/** The contract of a Kubernetes version (a parsed version or its minor). */
export function kubernetesContract(version: number | { readonly minor: number }): KubernetesContract {
  const minor = typeof version === "number" ? version : version.minor;
  const since = (m: number) => minor >= m;
  return {
    minor,
    isSupported: () => since(MIN_KUBERNETES_MINOR),
    usesKubeadmV1beta4: () => since(31),
    kubeadmApiVersion: () => (since(31) ? "kubeadm.k8s.io/v1beta4" : "kubeadm.k8s.io/v1beta3"),
    hasLongerNodeMonitorGracePeriod: () => since(32),
    defaultNodeMonitorGracePeriod: () => (since(32) ? "50s" : "40s"),
    supportsKubeletConfigPatches: () => since(KUBELET_PATCHES_SINCE_MINOR),
    taintsControlPlaneAsMaster: () => !since(25),
    taintsControlPlaneAsControlPlane: () => since(24),
    hasKubeletContainerRuntimeEndpoint: () => since(CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR),
    acceptsPodEvictionTimeoutFlag: () => !since(27),
    kubeadmPreflightRequiresConntrack: () => !since(32),
    limitsAnonymousToHealthEndpoints: () => since(32),
    authenticationConfigApiVersion: () =>
      since(34) ? "apiserver.config.k8s.io/v1" : since(32) ? "apiserver.config.k8s.io/v1beta1" : undefined,
    autoscalerScalesFromZeroWithExtendedResources: () => since(AUTOSCALER_SCALE_FROM_ZERO_MINOR),
  };
}

/** What a Cilium release does differently. */
export interface CiliumContract {
  /** clusterspec generates values for Cilium 1.14 and newer (MIN_CILIUM). */
  isSupported(): boolean;
}

export function ciliumContract(version: { readonly major: number; readonly minor: number }): CiliumContract {
  return {
    isSupported: () =>
      version.major > MIN_CILIUM.major || (version.major === MIN_CILIUM.major && version.minor >= MIN_CILIUM.minor),
  };
}

/** What a Fedora release (a burst node's image) implies. */
export interface FedoraContract {
  readonly release: number;
  /**
   * The FEDORA_EOL row when the release reached its end of life on or before `asOf` (YYYY-MM-DD): its mirrors are
   * archived, so a node booting it cannot install packages. Releases older than the table's first row ended earlier.
   */
  pastEndOfLife(asOf?: string): FedoraEol | undefined;
  /** Whether it ships the versioned Kubernetes packages (kubernetesX.Y, cri-oX.Y) the burst nodes install. */
  readonly hasVersionedKubernetes: boolean;
}

export function fedoraContract(release: number): FedoraContract {
  return {
    release,
    hasVersionedKubernetes: release >= FEDORA_VERSIONED_KUBERNETES_SINCE,
    pastEndOfLife(asOf = FEDORA_EOL_AS_OF) {
      const first = FEDORA_EOL[0];
      // anything older than the table's first row ended even earlier
      if (first && release < first.release) return { release, eol: `before ${first.eol}` };
      const row = FEDORA_EOL.find((r) => r.release === release);
      return row !== undefined && row.eol <= asOf ? row : undefined;
    },
  };
}

/** The table's row when `release` reached its end of life on or before `asOf` (YYYY-MM-DD). */
export function fedoraPastEol(release: number, asOf: string = FEDORA_EOL_AS_OF): FedoraEol | undefined {
  return fedoraContract(release).pastEndOfLife(asOf);
}

/**
 * How kubeadm takes a running cluster from one Kubernetes version to another: `kubeadm upgrade` moves one minor at a
 * time (or a patch within one) and never downgrades; another major has no upgrade path either.
 */
export type KubeadmUpgradePath = "same" | "upgrade" | "downgrade" | "skips-minor" | "other-major";

export function kubeadmUpgradePath(
  from: { readonly major: number; readonly minor: number; readonly patch: number },
  to: { readonly major: number; readonly minor: number; readonly patch: number },
): KubeadmUpgradePath {
  if (from.major !== to.major) return "other-major";
  if (from.minor === to.minor && from.patch === to.patch) return "same";
  if (to.minor < from.minor || (to.minor === from.minor && to.patch < from.patch)) return "downgrade";
  return to.minor > from.minor + 1 ? "skips-minor" : "upgrade";
}
