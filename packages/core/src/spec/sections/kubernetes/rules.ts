// Rules about Kubernetes itself: service and pod subnets, kubeadm join secrets, node-health timing, and free-form
// knobs (extraArgs, KubeletConfiguration fields) that never set what clusterspec derives.
import { kubernetesContract, MIN_KUBERNETES_MINOR } from "../../../facts/contract.js";
import { defaultMonitorGracePeriod } from "../../../facts/kubernetes.js";
import { type ControlPlaneComponent, OWNED_FLAGS, OWNED_KUBELET_FIELDS } from "../../../facts/owned.js";
import { addressCount, parseCidr } from "../../../ip.js";
import { own } from "../../../own.js";
import type { Rule } from "../../rule.js";
import type { ClusterSpec } from "../../schema.js";
import { durationSeconds, parseKubernetesVersion } from "../../version.js";

/** kubeadm rejects service subnets larger than /12 (IPv4) or /108 (IPv6); fewer than 10 addresses cannot hold the cluster's own services. */
/** The message for a service subnet larger than kubeadm accepts, or undefined; an existing cluster's too. */
export function serviceSubnetTooLarge(subnet: string): string | undefined {
  const c = parseCidr(subnet);
  const min = c.family === 4 ? 12 : 108;
  return c.prefixLength < min
    ? `service subnet ${subnet} is larger than kubeadm allows (/${min} or smaller for IPv${c.family})`
    : undefined;
}

export const serviceSubnetSized: Rule = (spec, report) => {
  const tooLarge = serviceSubnetTooLarge(spec.kubernetes.serviceSubnet);
  if (tooLarge) report.error(["kubernetes", "serviceSubnet"], tooLarge);
  else if (addressCount(spec.kubernetes.serviceSubnet) < 10n)
    report.error(
      ["kubernetes", "serviceSubnet"],
      `service subnet ${spec.kubernetes.serviceSubnet} has fewer than 10 addresses`,
    );
};

function nodeCount(spec: ClusterSpec): number {
  return spec.nodes.length + (spec.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0);
}

export const podSubnetFitsNodes: Rule = (spec, report) => {
  const pod = parseCidr(spec.kubernetes.podSubnet);
  const mask = spec.kubernetes.nodeCidrMaskSize;
  if (pod.family === 4 && mask > 32) return;
  if (pod.prefixLength > mask) {
    report.error(
      ["kubernetes", "nodeCidrMaskSize"],
      `node CIDR /${mask} is larger than the pod subnet ${spec.kubernetes.podSubnet}`,
    );
    return;
  }
  const capacity = 2 ** Math.min(mask - pod.prefixLength, 30);
  const needed = nodeCount(spec);
  if (capacity < needed)
    report.error(
      ["kubernetes", "podSubnet"],
      `pod subnet ${spec.kubernetes.podSubnet} holds ${capacity} node CIDRs of /${mask}, but the cluster can have ${needed} nodes`,
    );
};

/**
 * Joining nodes need the bootstrap token, certificate key and CA hash; only a lone node that runs `kubeadm init` can
 * do without them (once the cluster is bootstrapped, every node joins).
 */
export const kubeadmSecretsForJoins: Rule = (spec, report) => {
  if (spec.kubernetes.secrets) return;
  if (spec.nodes.length > 1)
    report.error(
      ["kubernetes", "secrets"],
      `${spec.nodes.length} nodes join the cluster with kubeadm: reference bootstrapToken, certificateKey and caCertHash in kubernetes.secrets`,
    );
  else if (spec.controlPlane.bootstrapped)
    report.error(
      ["kubernetes", "secrets"],
      "controlPlane.bootstrapped is true, so every node joins the cluster with kubeadm: reference bootstrapToken, certificateKey and caCertHash in kubernetes.secrets",
    );
};

/** kubeadm rejects a pod subnet more than 16 bits larger than the node CIDRs (PodSubnetNodeMaskMaxDiff). */
export const podSubnetNodeMaskDiff: Rule = (spec, report) => {
  const pod = parseCidr(spec.kubernetes.podSubnet);
  const diff = spec.kubernetes.nodeCidrMaskSize - pod.prefixLength;
  if (diff > 16)
    report.error(
      ["kubernetes", "nodeCidrMaskSize"],
      `node CIDR /${spec.kubernetes.nodeCidrMaskSize} is ${diff} bits smaller than the pod subnet ${spec.kubernetes.podSubnet}; kubeadm allows at most 16`,
    );
};

/**
 * kube-controller-manager help: the grace period "must be N times more than kubelet's nodeStatusUpdateFrequency,
 * where N means number of retries allowed for kubelet to post node status".
 */
export const nodeHealthConsistent: Rule = (spec, report) => {
  const h = spec.kubernetes.nodeHealth;
  const base = ["kubernetes", "nodeHealth"];
  const update = durationSeconds(h.statusUpdateFrequency);
  const period = durationSeconds(h.monitorPeriod);
  const minor = parseKubernetesVersion(spec.kubernetes.version)?.minor ?? MIN_KUBERNETES_MINOR;
  const graceText = h.monitorGracePeriod ?? defaultMonitorGracePeriod(minor);
  const grace = durationSeconds(graceText);
  const eviction = durationSeconds(h.evictionAfter);
  if (update <= 0) report.error([...base, "statusUpdateFrequency"], "statusUpdateFrequency must be positive");
  if (period <= 0) report.error([...base, "monitorPeriod"], "monitorPeriod must be positive");
  if (update > 0 && grace < 2 * update)
    report.error(
      [...base, "monitorGracePeriod"],
      `monitorGracePeriod ${graceText} is less than 2 x statusUpdateFrequency ${h.statusUpdateFrequency}: one late status update would mark a healthy node NotReady`,
    );
  else if (update > 0 && grace < 4 * update)
    report.warning(
      [...base, "monitorGracePeriod"],
      `monitorGracePeriod ${graceText} allows fewer than 4 status updates of ${h.statusUpdateFrequency} (the upstream defaults allow 4-5)`,
    );
  if (period > 0 && period >= grace)
    report.error(
      [...base, "monitorPeriod"],
      `monitorPeriod ${h.monitorPeriod} must be shorter than monitorGracePeriod ${graceText}`,
    );
  if (!Number.isInteger(eviction))
    report.error(
      [...base, "evictionAfter"],
      `evictionAfter ${h.evictionAfter} must be whole seconds (kube-apiserver --default-not-ready-toleration-seconds takes an integer)`,
    );
};

export const COMPONENTS: readonly ControlPlaneComponent[] = ["apiServer", "controllerManager", "scheduler", "etcd"];

/** A flag clusterspec derives (or kubeadm derives from a typed field) cannot be overridden through extraArgs. */
export const extraArgsNotOwned: Rule = (spec, report) => {
  for (const component of COMPONENTS)
    for (const flag of Object.keys(spec.kubernetes[component].extraArgs)) {
      const owner = own(OWNED_FLAGS[component], flag);
      if (owner !== undefined)
        report.error(
          ["kubernetes", component, "extraArgs", flag],
          `--${flag} is derived by clusterspec from ${owner}: set that field instead of kubernetes.${component}.extraArgs`,
        );
    }
};

/** Go's strconv.ParseBool false spellings, which kube-apiserver's boolean flags accept. */
const GO_FALSE = new Set(["0", "f", "F", "false", "FALSE", "False"]);

/**
 * keepalived's apiserver check asks /readyz without credentials (system:public-info-viewer lets anonymous users read
 * it), so `--anonymous-auth=false` makes it fail on every control plane with 401: the control-plane VIP no longer
 * follows apiserver health. Refused, with the way that keeps the check working where the version has one.
 */
export const apiserverHealthStaysAnonymous: Rule = (spec, report) => {
  const value = spec.kubernetes.apiServer.extraArgs["anonymous-auth"];
  if (value === undefined || !GO_FALSE.has(value)) return;
  const minor = parseKubernetesVersion(spec.kubernetes.version)?.minor ?? MIN_KUBERNETES_MINOR;
  const why =
    "--anonymous-auth=false stops the control-plane VIP from following the apiserver: keepalived's check asks /readyz without credentials and would get 401 on every control plane";
  report.error(
    ["kubernetes", "apiServer", "extraArgs", "anonymous-auth"],
    kubernetesContract(minor).limitsAnonymousToHealthEndpoints()
      ? `${why}. Kubernetes 1.${minor} can allow anonymous requests to the health endpoints only: drop anonymous-auth and pass an AuthenticationConfiguration (--authentication-config) whose anonymous section is enabled with the conditions /readyz, /livez and /healthz`
      : `${why}. Kubernetes 1.${minor} cannot allow anonymous requests to the health endpoints only (that needs 1.32), so keep anonymous-auth on: RBAC's system:public-info-viewer lets anonymous users read only /healthz, /livez, /readyz and /version`,
  );
};

export const kubeletFieldsNotOwned: Rule = (spec, report) => {
  for (const field of Object.keys(spec.kubernetes.kubelet)) {
    const owner = own(OWNED_KUBELET_FIELDS, field);
    if (owner !== undefined)
      report.error(
        ["kubernetes", "kubelet", field],
        `KubeletConfiguration ${field} is set by clusterspec from ${owner}: set that field instead`,
      );
  }
};
