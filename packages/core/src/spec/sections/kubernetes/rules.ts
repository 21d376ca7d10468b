// Rules about Kubernetes itself: service and pod subnets, kubeadm join secrets, node-health timing, and free-form
// knobs (extraArgs, KubeletConfiguration fields) that never set what clusterspec derives.
import { kubernetesContract, MIN_KUBERNETES_MINOR } from "../../../facts/contract.js";
import { clusterFamilies, nodeMaskFor } from "../../../facts/families.js";
import {
  AUTHENTICATION_CONFIG_PATH,
  AUTHENTICATION_CONFIG_VOLUME,
  defaultMonitorGracePeriod,
} from "../../../facts/kubernetes.js";
import { type ControlPlaneComponent, OWNED_FLAGS, OWNED_KUBELET_FIELDS } from "../../../facts/owned.js";
import { addressCount, parseCidr } from "../../../ip.js";
import type { IssuePath } from "../../../issues.js";
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

/** Each network of a one-or-per-family field with its path: `kubernetes.podSubnet` or `kubernetes.podSubnet[i]`. */
function subnetsWithPaths(spec: ClusterSpec, field: "podSubnet" | "serviceSubnet"): { net: string; path: IssuePath }[] {
  const v = spec.kubernetes[field];
  return typeof v === "string"
    ? [{ net: v, path: ["kubernetes", field] }]
    : v.map((net, i) => ({ net, path: ["kubernetes", field, i] }));
}

export const serviceSubnetSized: Rule = (spec, report) => {
  for (const { net, path } of subnetsWithPaths(spec, "serviceSubnet")) {
    const tooLarge = serviceSubnetTooLarge(net);
    if (tooLarge) report.error(path, tooLarge);
    else if (addressCount(net) < 10n) report.error(path, `service subnet ${net} has fewer than 10 addresses`);
  }
};

/**
 * A dual-stack cluster has one network of each family, the primary first, and the service network follows the pod
 * network's order (kubeadm validation.go ValidateIPNetFromString: "expected one (IPv4 or IPv6) CIDR or two CIDRs from
 * each family for dual-stack networking"; the apiserver's first service range decides a Service's primary family).
 */
export const subnetFamiliesConsistent: Rule = (spec, report) => {
  const families = (field: "podSubnet" | "serviceSubnet") =>
    subnetsWithPaths(spec, field).map((s) => ({ ...s, family: parseCidr(s.net).family }));
  const pods = families("podSubnet");
  const services = families("serviceSubnet");
  for (const [list, what] of [
    [pods, "pod"],
    [services, "service"],
  ] as const) {
    const second = list[1];
    if (second && list[0]?.family === second.family)
      report.error(
        second.path,
        `${what} subnets ${list.map((s) => s.net).join(" and ")} are both IPv${second.family}: a dual-stack cluster has one ${what} network per family (IPv4 and IPv6), the primary family first`,
      );
  }
  const podOrder = pods.map((s) => `IPv${s.family}`).join(", ");
  const serviceOrder = services.map((s) => `IPv${s.family}`).join(", ");
  if (podOrder !== serviceOrder && new Set(pods.map((s) => s.family)).size === pods.length)
    report.error(
      ["kubernetes", "serviceSubnet"],
      `the service network's families (${serviceOrder}) differ from the pod network's (${podOrder}): give one service network per pod network family, in the same order (the first is the cluster's primary family)`,
    );
  if (spec.kubernetes.nodeCidrMaskSize6 !== undefined && !clusterFamilies(spec).includes(6))
    report.error(
      ["kubernetes", "nodeCidrMaskSize6"],
      "nodeCidrMaskSize6 is the node mask of the IPv6 pod network, and kubernetes.podSubnet has none; the IPv4 node mask is nodeCidrMaskSize",
    );
};

function nodeCount(spec: ClusterSpec): number {
  return spec.nodes.length + (spec.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0);
}

/** The spec field that holds a family's node mask. */
const maskField = (_spec: ClusterSpec, family: 4 | 6): "nodeCidrMaskSize" | "nodeCidrMaskSize6" =>
  family === 6 ? "nodeCidrMaskSize6" : "nodeCidrMaskSize";

export const podSubnetFitsNodes: Rule = (spec, report) => {
  for (const { net, path } of subnetsWithPaths(spec, "podSubnet")) {
    const pod = parseCidr(net);
    const mask = nodeMaskFor(spec, pod.family);
    if (pod.family === 4 && mask > 32) continue;
    if (pod.prefixLength > mask) {
      report.error(
        ["kubernetes", maskField(spec, pod.family)],
        `node CIDR /${mask} is larger than the pod subnet ${net}`,
      );
      continue;
    }
    const capacity = 2 ** Math.min(mask - pod.prefixLength, 30);
    const needed = nodeCount(spec);
    if (capacity < needed)
      report.error(
        path,
        `pod subnet ${net} holds ${capacity} node CIDRs of /${mask}, but the cluster can have ${needed} nodes`,
      );
  }
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

/** kubeadm rejects a pod subnet more than 16 bits larger than the node CIDRs (PodSubnetNodeMaskMaxDiff), per family. */
export const podSubnetNodeMaskDiff: Rule = (spec, report) => {
  for (const { net } of subnetsWithPaths(spec, "podSubnet")) {
    const pod = parseCidr(net);
    const mask = nodeMaskFor(spec, pod.family);
    const diff = mask - pod.prefixLength;
    if (diff > 16)
      report.error(
        ["kubernetes", maskField(spec, pod.family)],
        `node CIDR /${mask} is ${diff} bits smaller than the pod subnet ${net}; kubeadm allows at most 16`,
      );
  }
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
 * follows apiserver health. Refused, with the way that keeps the check working where the version has one
 * (`kubernetes.apiServer.anonymousAuth: healthEndpoints`, 1.32 and newer).
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
      ? `${why}. Kubernetes 1.${minor} can allow anonymous requests to the health endpoints only: drop anonymous-auth and set kubernetes.apiServer.anonymousAuth: healthEndpoints (clusterspec then writes an AuthenticationConfiguration that allows anonymous requests to /healthz, /livez and /readyz only)`
      : `${why}. ${noHealthOnlyAnonymous(minor)}`,
  );
};

const noHealthOnlyAnonymous = (minor: number) =>
  `Kubernetes 1.${minor} cannot allow anonymous requests to the health endpoints only (that needs 1.32), so keep anonymous-auth on: RBAC's system:public-info-viewer lets anonymous users read only /healthz, /livez, /readyz and /version`;

/**
 * `anonymousAuth: healthEndpoints` writes an AuthenticationConfiguration with an `anonymous` section: that needs
 * Kubernetes 1.32 (AnonymousAuthConfigurableEndpoints on by default), and kube-apiserver refuses to start when
 * `--anonymous-auth` or an `--oidc-*` flag is also set (each mutually exclusive with it, k8s.io/kubernetes
 * pkg/kubeapiserver/options/authentication.go).
 */
export const anonymousHealthEndpointsOnly: Rule = (spec, report) => {
  const api = spec.kubernetes.apiServer;
  if (api.anonymousAuth !== "healthEndpoints") return;
  const minor = parseKubernetesVersion(spec.kubernetes.version)?.minor ?? MIN_KUBERNETES_MINOR;
  if (!kubernetesContract(minor).limitsAnonymousToHealthEndpoints())
    report.error(
      ["kubernetes", "apiServer", "anonymousAuth"],
      `anonymousAuth healthEndpoints needs an AuthenticationConfiguration anonymous section (Kubernetes 1.32 and newer; alpha and off in 1.31). ${noHealthOnlyAnonymous(minor)}, and leave anonymousAuth unset`,
    );
  if (api.extraArgs["anonymous-auth"] !== undefined)
    report.error(
      ["kubernetes", "apiServer", "extraArgs", "anonymous-auth"],
      "kube-apiserver refuses --anonymous-auth together with an AuthenticationConfiguration anonymous section, which anonymousAuth healthEndpoints writes: drop anonymous-auth from kubernetes.apiServer.extraArgs",
    );
  for (const flag of Object.keys(api.extraArgs).filter((f) => f.startsWith("oidc-")))
    report.error(
      ["kubernetes", "apiServer", "extraArgs", flag],
      `kube-apiserver refuses --${flag} together with --authentication-config, which anonymousAuth healthEndpoints sets (the --oidc-* flags and an AuthenticationConfiguration are mutually exclusive; clusterspec writes no jwt authenticators): use one of the two`,
    );
  for (const [i, v] of api.extraVolumes.entries())
    if (v.name === AUTHENTICATION_CONFIG_VOLUME || v.mountPath === AUTHENTICATION_CONFIG_PATH)
      report.error(
        ["kubernetes", "apiServer", "extraVolumes", i],
        `anonymousAuth healthEndpoints mounts its AuthenticationConfiguration as volume ${AUTHENTICATION_CONFIG_VOLUME} at ${AUTHENTICATION_CONFIG_PATH}: give this volume another name and mount path`,
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
