import {
  clusterStorageIsolationOff,
  defaultMonitorGracePeriod,
  kubeadmApiVersionFor,
  storageIsolationOff,
} from "../facts/kubernetes.js";
import {
  defaultRouteInterface,
  firewallInterfaces,
  isControlPlane,
  isWorker,
  kubernetesSegment,
  rpFilterLooseInterfaces,
  segmentOfInterface,
} from "../facts/spec.js";
import {
  carriersPerExternalVip,
  defaultHealthCheckWeight,
  defaultReadinessCheckWeight,
  externalUplink,
  preemptDelayOf,
} from "../facts/vrrp.js";
import { canonicalIp, hostPart, ipEquals, ipFamily, isIp } from "../ip.js";
import { InternalError } from "../issues.js";
import { own } from "../own.js";
import { resolveSecrets, type SecretValues } from "../secrets.js";
import { type AnySpec, type CloudBurstSpec, type ClusterSpec, isCloudBurstSpec } from "../spec/schema.js";
import { durationSeconds, formatKubernetesVersion, parseKubernetesVersion, type Semver } from "../spec/version.js";
import { planCloud } from "./burst.js";
import type {
  AnyPlan,
  BurstKubernetes,
  CiliumPlan,
  CloudBurstPlan,
  CloudPlan,
  ClusterPlan,
  KubeadmKnobs,
  NodeHealthPlan,
  PlannedFirewall,
  PlannedNode,
  PolicyRoute,
  VrrpPlan,
} from "./types.js";
import { planVips } from "./vrrp.js";

export interface ResolveOptions {
  /** Spec file name for the generated-file header; default `cluster.yaml`. */
  readonly sourceName?: string;
  /** Resolved secret values; absent ones become placeholders. */
  readonly secrets?: SecretValues;
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
    .filter((i, n, all) => all.indexOf(i) === n && own(node.interfaces, i) !== undefined);
}

/** What each public interface of a node lets in: the VIPs that live there, and VRRP from the other nodes on it. */
function planFirewall(
  spec: ClusterSpec,
  node: ClusterSpec["nodes"][number],
  vipsByInterface: ReadonlyMap<string, readonly string[]>,
): PlannedFirewall {
  return {
    interfaces: firewallInterfaces(spec, node).map((name) => {
      const vips = vipsByInterface.get(name) ?? [];
      return {
        name,
        vips,
        vrrpPeers:
          vips.length === 0
            ? []
            : spec.nodes.flatMap((o) => {
                const a = own(o.interfaces, name)?.address;
                return o.name === node.name || a === undefined ? [] : [hostPart(a)];
              }),
      };
    }),
  };
}

function planCilium(
  spec: ClusterSpec,
  kubernetesSegment: { interface: string; subnet: string },
  cloud: CloudPlan | undefined,
): CiliumPlan {
  const kubernetesInterface = kubernetesSegment.interface;
  const c = spec.cilium;
  const mtu = c.mtu ?? cloud?.tunnelMtu;
  return {
    version: c.version,
    routingMode: c.routingMode,
    tunnelProtocol: c.tunnelProtocol,
    autoDirectNodeRoutes: c.autoDirectNodeRoutes,
    ipamMode: c.ipamMode,
    devices: ciliumDevices(spec, kubernetesInterface),
    bpfMasquerade: c.bpfMasquerade,
    loadBalancerMode: c.loadBalancerMode,
    encryption: c.encryption,
    mtu,
    mtuSource: c.mtu !== undefined ? "spec" : mtu !== undefined ? "wireguard-tunnel" : "auto",
    // The internal networks: the node InternalIPs, and the burst nodes' tunnel addresses (their node IPs).
    nodePortAddresses: c.nodePortAddresses ?? [
      kubernetesSegment.subnet,
      ...(cloud ? [cloud.wireguard.tunnelSubnet] : []),
    ],
    values: c.values,
  };
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
  const vips = planVips(spec);
  const vipsByInterface = new Map<string, string[]>();
  for (const v of vips) vipsByInterface.set(v.interface, [...(vipsByInterface.get(v.interface) ?? []), v.address]);
  const isolationOff = clusterStorageIsolationOff(
    spec.nodes.map((n) => storageIsolationOff(n.rootFilesystem, version.minor)),
    spec.cloud !== undefined,
  );
  const nodes: PlannedNode[] = spec.nodes.map((n, index) => {
    const internal = own(n.interfaces, segment.interface)?.address;
    if (!internal) throw new InternalError(`node ${n.name} has no address on ${segment.interface}`);
    return {
      name: n.name,
      controlPlane: isControlPlane(n),
      worker: isWorker(n),
      init: n.name === cpNames[0],
      carriesExternalVips: n.carriesExternalVips,
      rootFilesystem: n.rootFilesystem,
      localStorageIsolationOff: isolationOff[index],
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
        mtu: f.mtu,
      })),
      labels: n.labels,
      taints: n.taints,
      acceptLocalInterfaces: acceptLocalInterfaces(spec, policyRoutes, n),
      rpFilterLooseInterfaces: rpFilterLooseInterfaces(spec, n),
      firewall: spec.host.firewall === undefined ? undefined : planFirewall(spec, n, vipsByInterface),
    };
  });
  const initNode = nodes.find((n) => n.init);
  if (!initNode) throw new InternalError("no control-plane node");

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

  const secrets = resolveSecrets(spec, options.secrets ?? {});
  const cloud: CloudPlan | undefined =
    spec.cloud &&
    planCloud(spec.cloud, {
      clusterName: spec.name,
      kubernetes: burstKubernetes(version, spec.kubernetes),
      apiServerEndpoint: ipFamily(host) === 6 ? `[${host}]:${port}` : `${host}:${port}`,
      apiHostAlias:
        spec.controlPlane.dnsName === undefined ? undefined : { address: host, name: spec.controlPlane.dnsName },
      nameservers: spec.network.nameservers,
      searchDomains: spec.network.searchDomains,
      onPremNetworks: [segment.subnet],
      nodes: nodes.map((n) => ({ name: n.name, address: n.internalAddress })),
      secrets,
    });
  const v = spec.vrrp;
  const hc = v.healthCheck;
  const rc = v.readinessCheck;
  const readiness = {
    interval: rc.interval,
    timeout: rc.timeout,
    fall: rc.fall,
    rise: rc.rise,
    weight: rc.weight ?? defaultReadinessCheckWeight(carriersPerExternalVip(spec)),
  };
  const uplink = spec.externalVips && v.uplinkCheck ? externalUplink(spec) : undefined;
  const vrrp: VrrpPlan = {
    auth: v.auth && { type: v.auth.type },
    advertInterval: v.advertInterval,
    initialState: v.initialState,
    nopreempt: v.nopreempt,
    preemptDelay: preemptDelayOf(spec),
    garpRefresh: v.garpRefresh,
    unicast: v.unicast,
    scriptUser: v.scriptUser,
    healthCheck: {
      interval: hc.interval,
      timeout: hc.timeout,
      fall: hc.fall,
      rise: hc.rise,
      weight: hc.weight ?? defaultHealthCheckWeight(cpNames.length),
    },
    readinessCheck: spec.externalVips && rc.enabled ? readiness : undefined,
    uplinkCheck: uplink && { ...readiness, ...uplink },
    notify: (["master", "backup", "fault"] as const).flatMap((on) => {
      const script = v.notify?.[on];
      return script === undefined ? [] : [{ on, script }];
    }),
  };

  return {
    sourceName: options.sourceName ?? "cluster.yaml",
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
    vrrp,
    nodes,
    initNode,
    host: {
      sysctl: Object.entries(spec.host.sysctl)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, value]) => ({ key, value: String(value) })),
      gentooPackages: spec.host.gentooPackages,
      cgroupMode: spec.host.cgroupMode,
      firewall: spec.host.firewall && {
        sshFrom: spec.host.firewall.sshFrom,
        explicitInterfaces: spec.host.firewall.publicInterfaces !== undefined,
      },
    },
    cilium: planCilium(spec, segment, cloud),
    cloud,
    secrets,
    overlays: spec.overlays,
  };
}
