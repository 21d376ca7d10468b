import { canonicalIp, hostPart, ipEquals, ipFamily, isIp } from "../ip.js";
import { InternalError } from "../issues.js";
import { resolveSecrets, type SecretValues } from "../secrets.js";
import {
  defaultRouteInterface,
  isControlPlane,
  isWorker,
  kubernetesSegment,
  segmentOfInterface,
} from "../spec/derive.js";
import type { ClusterSpec } from "../spec/schema.js";
import { durationSeconds, formatKubernetesVersion, parseKubernetesVersion } from "../spec/version.js";
import type {
  ClusterPlan,
  KubeadmApiVersion,
  KubeadmKnobs,
  NodeHealthPlan,
  PlannedNode,
  PolicyRoute,
} from "./types.js";
import { planVips } from "./vrrp.js";

/** Bytes WireGuard adds over IPv4: outer IPv4 (20) + UDP (8) + WireGuard header and tag (32). */
export const WIREGUARD_OVERHEAD = 60;

/** MTU left inside the WireGuard tunnel. */
export const tunnelMtuOf = (underlayMtu: number): number => underlayMtu - WIREGUARD_OVERHEAD;

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

function kubeadmKnobs(spec: ClusterSpec, cpAddresses: readonly string[]): KubeadmKnobs {
  const k = spec.kubernetes;
  return {
    certSANs: uniqueSans([
      hostPart(spec.controlPlane.vip),
      ...(spec.controlPlane.dnsName === undefined ? [] : [spec.controlPlane.dnsName]),
      ...cpAddresses,
      ...k.apiServer.certSANs,
    ]),
    apiServerArgs: k.apiServer.extraArgs,
    apiServerVolumes: k.apiServer.extraVolumes,
    controllerManagerArgs: k.controllerManager.extraArgs,
    schedulerArgs: k.scheduler.extraArgs,
    etcdArgs: k.etcd.extraArgs,
    kubelet: k.kubelet,
  };
}

/**
 * Interfaces of a node that need `accept_local=1`. With DSR (or hybrid) a backend receives the client's packet
 * unchanged; when the client is this node itself, or a VIP it holds, the source is a local address, and the
 * kernel's source validation (fib_validate_source, consulted through the policy-routing rules) drops it with
 * EINVAL unless the receiving interface accepts local sources (cilium/cilium#17747).
 */
function acceptLocalInterfaces(
  spec: ClusterSpec,
  policyRoutes: readonly PolicyRoute[],
  node: ClusterSpec["nodes"][number],
): string[] {
  if (spec.cilium.loadBalancerMode === "snat") return [];
  return policyRoutes
    .map((r) => r.interface)
    .filter((i, n, all) => all.indexOf(i) === n && node.interfaces[i] !== undefined);
}

/**
 * Everything derived from a validated spec, once. Generators read only this.
 * Throws InternalError on a spec that did not pass validateSpec.
 */
export function resolvePlan(spec: ClusterSpec, options: ResolveOptions = {}): ClusterPlan {
  const version = parseKubernetesVersion(spec.kubernetes.version);
  const segment = kubernetesSegment(spec);
  if (!version || !segment) throw new InternalError("resolvePlan needs a validated spec");

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
      labels: n.labels,
      taints: n.taints,
      acceptLocalInterfaces: acceptLocalInterfaces(spec, policyRoutes, n),
    };
  });
  const initNode = nodes.find((n) => n.init);
  if (!initNode) throw new InternalError("no control-plane node");

  const vips = planVips(spec);
  const cpVip = vips[0];
  if (!cpVip) throw new InternalError("no control-plane VIP");
  const host = hostPart(spec.controlPlane.vip);
  const port = spec.controlPlane.port;
  const dnsName = spec.controlPlane.dnsName;
  const endpointHost = dnsName ?? (ipFamily(host) === 6 ? `[${host}]` : host);

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
      knobs: kubeadmKnobs(
        spec,
        nodes.filter((n) => n.controlPlane).map((n) => n.internalAddress),
      ),
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
      endpoint: `${endpointHost}:${port}`,
      vip: cpVip,
      dnsName,
    },
    vips,
    vrrp: { ...spec.vrrp, healthCheckWeight: weight },
    nodes,
    initNode,
    cilium: { ...spec.cilium, devices: ciliumDevices(spec, segment.interface) },
    cloud: spec.cloud && { ...spec.cloud, tunnelMtu: tunnelMtuOf(spec.cloud.wireguard.underlayMtu) },
    secrets: resolveSecrets(spec, options.secrets ?? {}),
    overlays: spec.overlays,
  };
}
