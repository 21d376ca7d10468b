import { hostPart, ipEquals, ipFamily } from "../ip.js";
import { InternalError } from "../issues.js";
import { resolveSecrets, type SecretValues } from "../secrets.js";
import {
  defaultRouteInterface,
  isControlPlane,
  isWorker,
  kubernetesSegment,
  segmentOfInterface,
} from "../spec/derive.js";
import { type AnySpec, type CloudBurstSpec, type ClusterSpec, isCloudBurstSpec } from "../spec/schema.js";
import { durationSeconds, formatKubernetesVersion, parseKubernetesVersion, type Semver } from "../spec/version.js";
import { type BurstKubernetes, planCloud } from "./burst.js";
import type {
  AnyPlan,
  CloudBurstPlan,
  ClusterPlan,
  KubeadmApiVersion,
  NodeHealthPlan,
  PlannedNode,
  PolicyRoute,
} from "./types.js";
import { planVips } from "./vrrp.js";

export { tunnelMtuOf, WIREGUARD_OVERHEAD } from "./burst.js";

export interface ResolveOptions {
  /** Spec file name for the generated-file header; default `cluster.yaml`. */
  readonly sourceName?: string;
  /** Resolved secret values; absent ones become placeholders. */
  readonly secrets?: SecretValues;
}

/** kubeadm v1beta4 is served from 1.31; v1beta3 is the newest version before that. */
export function kubeadmApiVersionFor(minor: number): KubeadmApiVersion {
  return minor >= 31 ? "kubeadm.k8s.io/v1beta4" : "kubeadm.k8s.io/v1beta3";
}

/** The controller-manager default --node-monitor-grace-period: 40s, 50s from 1.32. */
export function defaultMonitorGracePeriod(minor: number): string {
  return minor >= 32 ? "50s" : "40s";
}

/** The network interface of an EC2 instance on Fedora: ens5 on Nitro instances, eth0 on older ones. */
export const CLOUD_NODE_DEVICES: readonly string[] = ["ens+", "eth+"];

/**
 * Devices Cilium attaches to. eBPF masquerading only happens on these, so by default they are the
 * Kubernetes interface plus every interface a default route leaves through. Burst nodes have neither:
 * their node IP is on the WireGuard tunnel and their egress is the EC2 interface, so with cloud pools
 * both are listed too (a name that matches nothing on a node is ignored; cilium-agent only refuses to
 * start when nothing matches at all).
 */
function ciliumDevices(spec: ClusterSpec, kubernetesInterface: string): string[] {
  const devices = [
    ...(spec.cilium.devices ?? [
      kubernetesInterface,
      ...spec.nodes.map(defaultRouteInterface).filter((d): d is string => d !== undefined),
    ]),
  ];
  if (spec.cloud) devices.push(spec.cloud.wireguard.interface, ...CLOUD_NODE_DEVICES);
  return [...new Set(devices)];
}

/**
 * Everything derived from a validated spec, once. Generators read only this.
 * Throws InternalError on a spec that did not pass validateSpec.
 */
export function resolvePlan(spec: ClusterSpec, options?: ResolveOptions): ClusterPlan;
export function resolvePlan(spec: CloudBurstSpec, options?: ResolveOptions): CloudBurstPlan;
export function resolvePlan(spec: AnySpec, options?: ResolveOptions): AnyPlan;
export function resolvePlan(spec: AnySpec, options: ResolveOptions = {}): AnyPlan {
  return isCloudBurstSpec(spec) ? resolveCloudBurstPlan(spec, options) : resolveClusterPlan(spec, options);
}

function burstKubernetes(
  version: Semver,
  k: { podSubnet: string; serviceSubnet: string; dnsDomain: string; cgroupDriver: "cgroupfs" | "systemd" },
): BurstKubernetes {
  return {
    version,
    versionText: formatKubernetesVersion(version),
    kubeadmApiVersion: kubeadmApiVersionFor(version.minor),
    podSubnet: k.podSubnet,
    serviceSubnet: k.serviceSubnet,
    dnsDomain: k.dnsDomain,
    cgroupDriver: k.cgroupDriver,
  };
}

/** The plan of a cloud-burst-only spec: the existing cluster's facts and the burst side. */
function resolveCloudBurstPlan(spec: CloudBurstSpec, options: ResolveOptions): CloudBurstPlan {
  const e = spec.existingCluster;
  const version = parseKubernetesVersion(e.kubernetesVersion);
  if (!version) throw new InternalError("resolvePlan needs a validated spec");
  const kubernetes = burstKubernetes(version, e);
  const secrets = resolveSecrets(spec, options.secrets ?? {});
  return {
    sourceName: options.sourceName ?? "cluster.yaml",
    name: spec.name,
    existingCluster: { endpoint: e.endpoint, onPremNetworks: e.onPremNetworks },
    kubernetes,
    cloud: planCloud(spec.cloud, {
      clusterName: spec.name,
      kubernetes,
      apiServerEndpoint: e.endpoint,
      nameservers: e.nameservers,
      searchDomains: e.searchDomains,
      onPremNetworks: e.onPremNetworks,
      nodes: [],
      secrets,
    }),
    secrets,
  };
}

function resolveClusterPlan(spec: ClusterSpec, options: ResolveOptions): ClusterPlan {
  const version = parseKubernetesVersion(spec.kubernetes.version);
  const segment = kubernetesSegment(spec);
  if (!version || !segment) throw new InternalError("resolvePlan needs a validated spec");

  const cpNames = spec.nodes.filter(isControlPlane).map((n) => n.name);
  const hub = spec.cloud?.wireguard.hub;
  const nodes: PlannedNode[] = spec.nodes.map((n) => {
    const internal = n.interfaces[segment.interface]?.address;
    if (!internal) throw new InternalError(`node ${n.name} has no address on ${segment.interface}`);
    return {
      name: n.name,
      controlPlane: isControlPlane(n),
      worker: isWorker(n),
      init: n.name === cpNames[0],
      carriesExternalVips: n.carriesExternalVips,
      rootFilesystem: n.rootFilesystem,
      localStorageIsolationOff:
        n.rootFilesystem !== "btrfs"
          ? undefined
          : version.minor <= 24
            ? "kubelet-feature-gate"
            : "kubelet-config-patch",
      disk: n.disk,
      internalInterface: segment.interface,
      internalAddress: hostPart(internal),
      tunnelRoute:
        hub === undefined || spec.cloud === undefined || ipEquals(hub, hostPart(internal))
          ? undefined
          : { subnet: spec.cloud.wireguard.tunnelSubnet, via: hub, interface: segment.interface },
      interfaces: Object.entries(n.interfaces).map(([name, f]) => ({
        name,
        mac: f.mac?.toLowerCase(),
        vlan: f.vlan,
        cidr: f.address,
        address: f.address === undefined ? undefined : hostPart(f.address),
        gateway: f.gateway,
        segment: segmentOfInterface(spec, name),
      })),
    };
  });
  const initNode = nodes.find((n) => n.init);
  if (!initNode) throw new InternalError("no control-plane node");

  const vips = planVips(spec);
  const cpVip = vips[0];
  if (!cpVip) throw new InternalError("no control-plane VIP");
  const host = hostPart(spec.controlPlane.vip);
  const port = spec.controlPlane.port;

  const policyRoutes: PolicyRoute[] = spec.network.segments.flatMap((seg) =>
    seg.uplink
      ? [
          {
            segment: seg,
            interface: seg.interface,
            table: seg.uplink.routingTable,
            gateway: seg.uplink.gateway,
            sources: seg.uplink.sources ?? seg.onLink,
          },
        ]
      : [],
  );

  const h = spec.kubernetes.nodeHealth;
  const grace = h.monitorGracePeriod ?? defaultMonitorGracePeriod(version.minor);
  const nodeHealth: NodeHealthPlan = {
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

  const weight = spec.vrrp.healthCheck.weight ?? -cpNames.length;
  const secrets = resolveSecrets(spec, options.secrets ?? {});

  return {
    sourceName: options.sourceName ?? "cluster.yaml",
    spec,
    name: spec.name,
    kubernetes: {
      version,
      versionText: formatKubernetesVersion(version),
      kubeadmApiVersion: kubeadmApiVersionFor(version.minor),
      podSubnet: spec.kubernetes.podSubnet,
      serviceSubnet: spec.kubernetes.serviceSubnet,
      nodeCidrMaskSize: spec.kubernetes.nodeCidrMaskSize,
      dnsDomain: spec.kubernetes.dnsDomain,
      schedulableControlPlanes: spec.kubernetes.schedulableControlPlanes,
      criSocket: spec.kubernetes.criSocket,
      cgroupDriver: spec.kubernetes.cgroupDriver,
      nodeHealth,
    },
    network: {
      kubernetesSegment: segment,
      segments: spec.network.segments,
      nameservers: spec.network.nameservers,
      searchDomains: spec.network.searchDomains,
      policyRoutes,
    },
    controlPlane: {
      host,
      port,
      endpoint: ipFamily(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`,
      vip: cpVip,
    },
    vips,
    vrrp: { ...spec.vrrp, healthCheckWeight: weight },
    nodes,
    initNode,
    cilium: { ...spec.cilium, devices: ciliumDevices(spec, segment.interface) },
    cloud:
      spec.cloud &&
      planCloud(spec.cloud, {
        clusterName: spec.name,
        kubernetes: burstKubernetes(version, spec.kubernetes),
        apiServerEndpoint: ipFamily(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`,
        nameservers: spec.network.nameservers,
        searchDomains: spec.network.searchDomains,
        onPremNetworks: [segment.subnet],
        nodes: nodes.map((n) => ({ name: n.name, address: n.internalAddress })),
        secrets,
      }),
    secrets,
  };
}
