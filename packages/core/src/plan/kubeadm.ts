// The Kubernetes planner: the version and what it decides, node health timing, and the kubeadm knobs.

import { kubernetesContract } from "../facts/contract.js";
import { clusterFamilies, nodeMaskFor, podSubnets, serviceSubnets } from "../facts/families.js";
import {
  AUTHENTICATION_CONFIG_PATH,
  AUTHENTICATION_CONFIG_VOLUME,
  defaultMonitorGracePeriod,
  HEALTH_ENDPOINTS,
  kubeadmApiVersionFor,
} from "../facts/kubernetes.js";
import { canonicalIp, isIp } from "../ip.js";
import { InternalError } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import { durationSeconds, formatKubernetesVersion, parseKubernetesVersion } from "../spec/version.js";
import type {
  ApiServerAuthenticationPlan,
  ClusterPlan,
  ControlPlanePlan,
  KubeadmKnobs,
  KubernetesVersionPlan,
  NodeHealthPlan,
  PlannedNode,
} from "./types.js";

/** The Kubernetes version of a validated spec (`kubernetes.version` or `existingCluster.kubernetesVersion`). */
export function planVersion(text: string): KubernetesVersionPlan {
  const version = parseKubernetesVersion(text);
  if (!version) throw new InternalError("resolvePlan needs a validated spec");
  return {
    version,
    versionText: formatKubernetesVersion(version),
    kubeadmApiVersion: kubeadmApiVersionFor(version.minor),
  };
}

/** Each SAN once (IPs compared canonically, names case-insensitively), in the order given. */
function uniqueSans(sans: readonly string[]): string[] {
  const seen = new Set<string>();
  return sans.filter((s) => {
    const key = isIp(s) ? canonicalIp(s) : s.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function apiServerAuthentication(k: ClusterSpec["kubernetes"]): ApiServerAuthenticationPlan | undefined {
  if (k.apiServer.anonymousAuth !== "healthEndpoints") return undefined;
  const minor = parseKubernetesVersion(k.version)?.minor;
  const apiVersion = minor === undefined ? undefined : kubernetesContract(minor).authenticationConfigApiVersion();
  // the rules refuse healthEndpoints below 1.32
  if (apiVersion === undefined) throw new InternalError("anonymousAuth healthEndpoints needs Kubernetes 1.32 or newer");
  return {
    apiVersion,
    path: AUTHENTICATION_CONFIG_PATH,
    volume: AUTHENTICATION_CONFIG_VOLUME,
    anonymousPaths: HEALTH_ENDPOINTS,
  };
}

function kubeadmKnobs(
  k: ClusterSpec["kubernetes"],
  controlPlane: ControlPlanePlan,
  cpAddresses: readonly string[],
): KubeadmKnobs {
  return {
    certSANs: uniqueSans([
      // Every control-plane VIP of both families (a dual-stack pair's two halves), the endpoint's family first.
      controlPlane.host,
      controlPlane.vip.address,
      ...(controlPlane.vip.pair6 ? [controlPlane.vip.pair6.address] : []),
      ...(controlPlane.dnsName === undefined ? [] : [controlPlane.dnsName]),
      ...cpAddresses,
      ...k.apiServer.certSANs,
    ]),
    apiServerArgs: k.apiServer.extraArgs,
    apiServerVolumes: k.apiServer.extraVolumes,
    apiServerAuthentication: apiServerAuthentication(k),
    controllerManagerArgs: k.controllerManager.extraArgs,
    schedulerArgs: k.scheduler.extraArgs,
    etcdArgs: k.etcd.extraArgs,
    kubelet: k.kubelet,
  };
}

function planNodeHealth(h: ClusterSpec["kubernetes"]["nodeHealth"], minor: number): NodeHealthPlan {
  const grace = h.monitorGracePeriod ?? defaultMonitorGracePeriod(minor);
  return {
    statusUpdateFrequency: h.statusUpdateFrequency,
    monitorPeriod: h.monitorPeriod,
    monitorGracePeriod: grace,
    evictionAfter: h.evictionAfter,
    seconds: {
      statusUpdateFrequency: durationSeconds(h.statusUpdateFrequency),
      monitorPeriod: durationSeconds(h.monitorPeriod),
      monitorGracePeriod: durationSeconds(grace),
      evictionAfter: durationSeconds(h.evictionAfter),
    },
  };
}

export function planKubernetes(
  spec: ClusterSpec,
  parts: {
    readonly version: KubernetesVersionPlan;
    readonly controlPlane: ControlPlanePlan;
    readonly nodes: readonly PlannedNode[];
  },
): ClusterPlan["kubernetes"] {
  const k = spec.kubernetes;
  return {
    ...parts.version,
    podSubnet: podSubnets(spec)[0] ?? "",
    serviceSubnet: serviceSubnets(spec)[0] ?? "",
    podSubnets: podSubnets(spec),
    serviceSubnets: serviceSubnets(spec),
    families: clusterFamilies(spec),
    nodeCidrMaskSize: k.nodeCidrMaskSize,
    nodeCidrMaskSize6: clusterFamilies(spec).includes(6) ? nodeMaskFor(spec, 6) : undefined,
    dnsDomain: k.dnsDomain,
    schedulableControlPlanes: k.schedulableControlPlanes,
    criSocket: k.criSocket,
    cgroupDriver: k.cgroupDriver,
    nodeHealth: planNodeHealth(k.nodeHealth, parts.version.version.minor),
    knobs: kubeadmKnobs(
      k,
      parts.controlPlane,
      parts.nodes.filter((n) => n.controlPlane).flatMap((n) => n.internalAddresses),
    ),
  };
}
