// kubeadm.yaml per node, built as plain objects in the order they ship. Every field exists in the chosen API version:
// the strict schemas in the tests reject anything else, as kubeadm's strict decoding does.
import {
  type ClusterPlan,
  formatExtraArgs,
  InternalError,
  type KubeadmApiVersion,
  kubernetesContract,
  mergePatch,
  type PlannedNode,
} from "@clusterspec/core";
import { apiServerArgs, controllerManagerArgs } from "./node-health.js";

export const KUBELET_API_VERSION = "kubelet.config.k8s.io/v1beta1";
/** Where the node's patches land (the node folder is a root-filesystem overlay). */
export const PATCHES_DIRECTORY = "/etc/kubernetes/patches";
export const KUBELET_PATCH_FILE = "kubeletconfiguration+strategic.yaml";
/** KubeletConfiguration.containerRuntimeEndpoint exists from 1.27 (the version contract in core decides). */
export { CONTAINER_RUNTIME_ENDPOINT_SINCE_MINOR } from "@clusterspec/core";

export type KubeadmDocument = Record<string, unknown>;

/**
 * A bootstrapped cluster's ClusterConfiguration and KubeletConfiguration. No node's kubeadm.yaml carries them once
 * every node joins (a join reads them from the cluster), so they ship here: still reviewed, schema-checked, and the
 * text the kubeadm-config and kubelet-config ConfigMaps must hold.
 */
export const CLUSTER_CONFIG_PATH = "cluster/kubeadm-config.yaml";

export type NodeKind = "init" | "join-control-plane" | "join-worker";

export function nodeKind(node: PlannedNode): NodeKind {
  if (node.init) return "init";
  return node.controlPlane ? "join-control-plane" : "join-worker";
}

/** The control-plane taints kubeadm applies by default: `master` up to 1.23, both in 1.24, `control-plane` from 1.25. */
export function controlPlaneTaints(minor: number): { key: string; effect: "NoSchedule" }[] {
  const contract = kubernetesContract(minor);
  const keys = [
    ...(contract.taintsControlPlaneAsMaster() ? ["node-role.kubernetes.io/master"] : []),
    ...(contract.taintsControlPlaneAsControlPlane() ? ["node-role.kubernetes.io/control-plane"] : []),
  ];
  return keys.map((key) => ({ key, effect: "NoSchedule" }));
}

/**
 * Real per-node KubeletConfiguration differences, applied by kubeadm as a patch on init and join: btrfs nodes in a
 * cluster where not every node is on btrfs. When every node is, the cluster-wide KubeletConfiguration carries the
 * field instead. Below 1.25 the plan switches local storage isolation off with the kubelet's feature-gate flag (host conf.d).
 */
export function kubeletPatch(_plan: ClusterPlan, node: PlannedNode): KubeadmDocument | undefined {
  return node.localStorageIsolationOff === "kubelet-config-patch"
    ? { localStorageCapacityIsolation: false }
    : undefined;
}

function secret(plan: ClusterPlan, id: "bootstrapToken" | "certificateKey" | "caCertHash"): string | undefined {
  return plan.secrets[id]?.value;
}

function mustSecret(plan: ClusterPlan, id: "bootstrapToken" | "certificateKey" | "caCertHash"): string {
  const value = secret(plan, id);
  if (value === undefined) throw new InternalError(`kubeadm join needs kubernetes.secrets.${id} (a rule requires it)`);
  return value;
}

/** The taints a node registers with: kubeadm's control-plane taint unless control planes run workloads, then the spec's. */
export function nodeTaints(plan: ClusterPlan, node: PlannedNode): { key: string; value?: string; effect: string }[] {
  const cp =
    node.controlPlane && !plan.kubernetes.schedulableControlPlanes
      ? controlPlaneTaints(plan.kubernetes.version.minor)
      : [];
  return [
    ...cp,
    ...node.taints.map((t) => ({ key: t.key, ...(t.value === "" ? {} : { value: t.value }), effect: t.effect })),
  ];
}

/** kubelet flags on registration: the node IP, and the node's labels (`--node-labels`, sorted). */
export function kubeletRegistrationArgs(node: PlannedNode): Record<string, string> {
  const labels = Object.keys(node.labels)
    .sort()
    .map((k) => `${k}=${node.labels[k] ?? ""}`);
  // node-ip is pinned so that a VIP the node holds can never become its InternalIP; a dual-stack node lists one
  // address per family, the primary first, or it registers one family only (kubernetes/kubernetes#100675).
  return {
    "node-ip": node.internalAddresses.join(","),
    ...(labels.length > 0 ? { "node-labels": labels.join(",") } : {}),
  };
}

function nodeRegistration(plan: ClusterPlan, node: PlannedNode, api: KubeadmApiVersion): KubeadmDocument {
  const taints = nodeTaints(plan, node);
  // kubeadm taints control planes when `taints` is absent: write it for them always, for workers when there are some.
  return {
    name: node.name,
    criSocket: plan.kubernetes.criSocket,
    kubeletExtraArgs: formatExtraArgs(api, kubeletRegistrationArgs(node)),
    ...(node.controlPlane || taints.length > 0 ? { taints } : {}),
  };
}

function localApiEndpoint(plan: ClusterPlan, node: PlannedNode): KubeadmDocument {
  return { advertiseAddress: node.internalAddress, bindPort: plan.controlPlane.port };
}

function patches(plan: ClusterPlan, node: PlannedNode): KubeadmDocument {
  return kubeletPatch(plan, node) ? { patches: { directory: PATCHES_DIRECTORY } } : {};
}

export function initConfiguration(plan: ClusterPlan, node: PlannedNode): KubeadmDocument {
  const api = plan.kubernetes.kubeadmApiVersion;
  const token = secret(plan, "bootstrapToken");
  const certificateKey = secret(plan, "certificateKey");
  return {
    apiVersion: api,
    kind: "InitConfiguration",
    ...(token === undefined ? {} : { bootstrapTokens: [{ token }] }),
    ...(certificateKey === undefined ? {} : { certificateKey }),
    nodeRegistration: nodeRegistration(plan, node, api),
    localAPIEndpoint: localApiEndpoint(plan, node),
    // v1beta4 says it in ClusterConfiguration.proxy, which upgrades also respect.
    ...(api === "kubeadm.k8s.io/v1beta3" ? { skipPhases: ["addon/kube-proxy"] } : {}),
    ...patches(plan, node),
  };
}

/** A component's flags: the derived ones, then the spec's extraArgs (rules refuse any that overlap). */
const withArgs = (api: KubeadmApiVersion, derived: Record<string, string>, extra: Readonly<Record<string, string>>) =>
  Object.keys(derived).length + Object.keys(extra).length === 0
    ? {}
    : { extraArgs: formatExtraArgs(api, { ...extra, ...derived }) };

/** The spec's kube-apiserver volumes, then the AuthenticationConfiguration's (`anonymousAuth: healthEndpoints`). */
function apiServerVolumes(plan: ClusterPlan): KubeadmDocument[] {
  const knobs = plan.kubernetes.knobs;
  const auth = knobs.apiServerAuthentication;
  return [
    ...knobs.apiServerVolumes.map((v) => ({
      name: v.name,
      hostPath: v.hostPath,
      mountPath: v.mountPath,
      readOnly: v.readOnly,
      ...(v.pathType === undefined ? {} : { pathType: v.pathType }),
    })),
    ...(auth === undefined
      ? []
      : [{ name: auth.volume, hostPath: auth.path, mountPath: auth.path, readOnly: true, pathType: "File" }]),
  ];
}

/**
 * `anonymousAuth: healthEndpoints`: kube-apiserver's AuthenticationConfiguration, anonymous requests allowed for the
 * health endpoints only (exact paths; every other anonymous request gets 401). Shape and rules from
 * k8s.io/apiserver/pkg/apis/apiserver/{v1beta1,v1}/types.go and validation.go (conditions need enabled: true).
 */
export function authenticationConfiguration(plan: ClusterPlan): KubeadmDocument | undefined {
  const auth = plan.kubernetes.knobs.apiServerAuthentication;
  if (auth === undefined) return undefined;
  return {
    apiVersion: auth.apiVersion,
    kind: "AuthenticationConfiguration",
    anonymous: { enabled: true, conditions: auth.anonymousPaths.map((path) => ({ path })) },
  };
}

export function clusterConfiguration(plan: ClusterPlan): KubeadmDocument {
  const api = plan.kubernetes.kubeadmApiVersion;
  const k = plan.kubernetes;
  const knobs = k.knobs;
  return {
    apiVersion: api,
    kind: "ClusterConfiguration",
    clusterName: plan.name,
    kubernetesVersion: k.versionText,
    controlPlaneEndpoint: plan.controlPlane.endpoint,
    // Dual stack: one comma-separated string, the primary family first (kubeadm validation.go ValidateIPNetFromString).
    networking: {
      podSubnet: k.podSubnets.join(","),
      serviceSubnet: k.serviceSubnets.join(","),
      dnsDomain: k.dnsDomain,
    },
    apiServer: {
      certSANs: [...knobs.certSANs],
      ...withArgs(api, apiServerArgs(plan), knobs.apiServerArgs),
      ...(apiServerVolumes(plan).length > 0 ? { extraVolumes: apiServerVolumes(plan) } : {}),
    },
    controllerManager: withArgs(api, controllerManagerArgs(plan), knobs.controllerManagerArgs),
    ...(Object.keys(knobs.schedulerArgs).length > 0 ? { scheduler: withArgs(api, {}, knobs.schedulerArgs) } : {}),
    etcd: { local: { dataDir: "/var/lib/etcd", ...withArgs(api, {}, knobs.etcdArgs) } },
    ...(api === "kubeadm.k8s.io/v1beta4" ? { proxy: { disabled: true } } : {}),
  };
}

/** Cluster-wide: kubeadm init uploads it to the kubelet-config ConfigMap, which every join downloads. */
export function kubeletConfiguration(plan: ClusterPlan): KubeadmDocument {
  const k = plan.kubernetes;
  // kubernetes.kubelet merges over what clusterspec sets; the rules refuse the fields it owns.
  return mergePatch(generatedKubeletConfiguration(plan), k.knobs.kubelet) as KubeadmDocument;
}

/** Every node switches local storage isolation off: the cluster-wide KubeletConfiguration says it, no patch. */
export function clusterWideStorageIsolationOff(plan: ClusterPlan): boolean {
  return plan.nodes.some((n) => n.localStorageIsolationOff === "kubelet-config");
}

function generatedKubeletConfiguration(plan: ClusterPlan): KubeadmDocument {
  const k = plan.kubernetes;
  return {
    apiVersion: KUBELET_API_VERSION,
    kind: "KubeletConfiguration",
    cgroupDriver: k.cgroupDriver,
    ...(kubernetesContract(k.version).hasKubeletContainerRuntimeEndpoint()
      ? { containerRuntimeEndpoint: k.criSocket }
      : {}),
    nodeStatusUpdateFrequency: k.nodeHealth.statusUpdateFrequency,
    // Set explicitly: the full status is what keeps a node Ready within the grace period, not only the 10s lease.
    nodeStatusReportFrequency: k.nodeHealth.statusUpdateFrequency,
    // btrfs on every node: in the ConfigMap every join and every `kubeadm upgrade node` reads, so no upgrade drops it.
    ...(clusterWideStorageIsolationOff(plan) ? { localStorageCapacityIsolation: false } : {}),
  };
}

export function joinConfiguration(plan: ClusterPlan, node: PlannedNode): KubeadmDocument {
  const api = plan.kubernetes.kubeadmApiVersion;
  return {
    apiVersion: api,
    kind: "JoinConfiguration",
    nodeRegistration: nodeRegistration(plan, node, api),
    discovery: {
      bootstrapToken: {
        apiServerEndpoint: plan.controlPlane.endpoint,
        token: mustSecret(plan, "bootstrapToken"),
        caCertHashes: [mustSecret(plan, "caCertHash")],
      },
    },
    ...(node.controlPlane
      ? {
          controlPlane: {
            localAPIEndpoint: localApiEndpoint(plan, node),
            certificateKey: mustSecret(plan, "certificateKey"),
          },
        }
      : {}),
    ...patches(plan, node),
  };
}

/** The cluster-wide documents of cluster/kubeadm-config.yaml: only a bootstrapped cluster ships that file. */
export function clusterConfigDocuments(plan: ClusterPlan): KubeadmDocument[] | undefined {
  return plan.bootstrap.bootstrapped ? [clusterConfiguration(plan), kubeletConfiguration(plan)] : undefined;
}

/** The documents of one node's kubeadm.yaml, in file order. */
export function kubeadmDocuments(plan: ClusterPlan, node: PlannedNode): KubeadmDocument[] {
  if (node.init) return [initConfiguration(plan, node), clusterConfiguration(plan), kubeletConfiguration(plan)];
  return [joinConfiguration(plan, node)];
}

/** Whether a node's kubeadm.yaml carries a secret (or its placeholder). */
export function carriesSecret(plan: ClusterPlan, node: PlannedNode): boolean {
  return !node.init || secret(plan, "bootstrapToken") !== undefined || secret(plan, "certificateKey") !== undefined;
}
