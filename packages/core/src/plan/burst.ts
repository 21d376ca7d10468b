// The burst side of a plan, shared by a generated cluster with cloud pools and by the cloud burst of an
// existing cluster: pools with their IMDS hop limit and WireGuard slots, the hub, the resolvers a burst
// node keeps, and the layout of the provisioner's peer-config Secrets. Cloud generators read only this.
import { autoscalerTags, isNitroInstanceType } from "../facts/cloud.js";
import { kubernetesContract } from "../facts/contract.js";
import { asList, clusterFamilies } from "../facts/families.js";
import { tunnelMtuOf, tunnelOverheadOf } from "../facts/wireguard.js";
import { addressAt, cidrContains, hostPart, type IpFamily, ipFamily, isIp, parseCidr } from "../ip.js";
import { peerKeyLines, type ResolvedSecret, type SecretId } from "../secrets.js";
import type { CloudBurstSpec, CloudSpec, ClusterSpec } from "../spec/schema.js";
import { planVersion } from "./kubeadm.js";
import type {
  BurstKubernetes,
  CloudPlan,
  ControlPlanePlan,
  HubFirewallAllow,
  NetworkPlan,
  PlannedHub,
  PlannedHubHost,
  PlannedPackage,
  PlannedPool,
  PlannedSlot,
} from "./types.js";

/**
 * The EC2 states the provisioner acts on: the EventBridge rule forwards only these, the contract describes them.
 * EC2 state-change events carry no Auto Scaling Group, so the provisioner checks membership itself (the contract).
 */
export const PROVISIONER_EVENT_STATES = ["running", "terminated"] as const;

export const PEER_SECRET_TYPE = "clusterspec.dev/wireguard-peer";
export const PEER_SECRET_DATA_KEY = "wg-quick.conf";

export interface BurstContext {
  readonly clusterName: string;
  readonly kubernetes: BurstKubernetes;
  readonly apiServerEndpoint: string;
  /** `controlPlane.dnsName` and the VIP it names: burst nodes map it in /etc/hosts as on-prem nodes do. */
  readonly apiHostAlias?: { readonly address: string; readonly name: string } | undefined;
  readonly nameservers: readonly string[];
  readonly searchDomains: readonly string[];
  readonly onPremNetworks: readonly string[];
  /** The cluster's families, primary first (its pod networks'): a burst node's kubelet registers one address of each. */
  readonly families: readonly IpFamily[];
  /** The hub's IPv6 address on the on-prem side (a generated hub node's `address6`), the IPv6 return routes' next hop. */
  readonly hub6?: string | undefined;
  /** the generated node that is the hub (`cloud.wireguard.hub` is its internal address), if any */
  readonly hubNode: string | undefined;
  /**
   * The on-prem nodes' addresses the burst nodes talk to (kubelet, Cilium): a generated cluster's internal addresses;
   * for an existing cluster, unknown (its on-prem networks stand for them).
   */
  readonly onPremNodes?: readonly string[];
  /** Cilium's routing of a generated cluster; unknown for an existing cluster (VXLAN, Cilium's default, assumed). */
  readonly cilium?: { readonly routingMode: "native" | "tunnel"; readonly tunnelProtocol: "vxlan" | "geneve" };
  readonly secrets: Partial<Record<SecretId, ResolvedSecret>>;
}

/**
 * What `kubeadm join` and the join script need on Fedora Cloud beyond the Kubernetes packages. kubeadm's
 * preflight (addExecChecks) requires ip, iptables, mount and nsenter on the PATH for every version, and
 * conntrack before 1.32 (kube-proxy stopped needing it then); ebtables, ethtool, socat, tc and touch only
 * warn. Fedora Cloud ships ip (iproute), mount and nsenter (util-linux-core) and touch (coreutils).
 */
export function burstPackages(kubernetes: BurstKubernetes): PlannedPackage[] {
  const v = `${kubernetes.version.major}.${kubernetes.version.minor}`;
  return [
    { name: `kubernetes${v}`, reason: "kubelet and kubectl of the cluster's minor version" },
    { name: `kubernetes${v}-kubeadm`, reason: "kubeadm join" },
    { name: `cri-o${v}`, reason: "container runtime of the same minor" },
    { name: `cri-tools${v}`, reason: "crictl, which kubeadm looks for to talk to the runtime" },
    { name: "iptables-nft", reason: "iptables, required by kubeadm preflight (FileExisting-iptables)" },
    ...(kubernetesContract(kubernetes.version).kubeadmPreflightRequiresConntrack()
      ? [
          {
            name: "conntrack-tools",
            reason: "conntrack, required by kubeadm preflight before 1.32 (FileExisting-conntrack)",
          },
        ]
      : []),
    { name: "wireguard-tools", reason: "wg-quick brings up the tunnel from the provisioner's config" },
    {
      name: "openssl",
      reason: "checks the served kubeconfig's CA against the cluster's caCertHash before kubeadm join",
    },
  ];
}

function slotsOf(cloud: CloudSpec, clusterName: string, secrets: BurstContext["secrets"]): PlannedSlot[][] {
  const privateKeys = secretLines(secrets.wireguardPeerPrivateKeys);
  const publicKeys = secretLines(secrets.wireguardPeerPublicKeys);
  const subnet = cloud.wireguard.tunnelSubnet;
  const subnet6 = cloud.wireguard.tunnelSubnet6;
  const prefix = ipFamily(subnet) === 4 ? 32 : 128;
  let next = 0;
  return cloud.pools.map((pool) =>
    Array.from({ length: pool.maxSize }, (_, index) => {
      const n = next++;
      const address = addressAt(subnet, 2 + n);
      // the IPv6 address at the same offset: slot n is ::<n + 2> in tunnelSubnet6 as in tunnelSubnet
      const address6 = subnet6 === undefined ? undefined : addressAt(subnet6, 2 + n);
      return {
        pool: pool.name,
        index,
        id: `${pool.name}-${index}`,
        address,
        cidr: `${address}/${prefix}`,
        ...(address6 === undefined ? {} : { address6, cidr6: `${address6}/128` }),
        secretName: `${clusterName}-wg-${pool.name}-${index}`.slice(0, 253),
        privateKey: cloud.wireguard.peerKeys ? keyAt(privateKeys, n) : undefined,
        publicKey: cloud.wireguard.peerKeys ? keyAt(publicKeys, n) : undefined,
      };
    }),
  );
}

/** One key per slot: a placeholder secret stands for every slot's key. */
function secretLines(secret: ResolvedSecret | undefined): { lines: string[]; placeholder: string } | undefined {
  if (!secret) return undefined;
  return secret.isPlaceholder
    ? { lines: [], placeholder: secret.value }
    : { lines: peerKeyLines(secret.value), placeholder: secret.value };
}

function keyAt(keys: { lines: string[]; placeholder: string } | undefined, n: number): string | undefined {
  if (!keys) return undefined;
  return keys.lines.length === 0 ? keys.placeholder : keys.lines[n];
}

export function planCloud(cloud: CloudSpec, ctx: BurstContext): CloudPlan {
  const slotsByPool = slotsOf(cloud, ctx.clusterName, ctx.secrets);
  const pools = cloud.pools.map((pool, i): PlannedPool => {
    const specPath = ["cloud", "pools", i];
    return {
      name: pool.name,
      specPath,
      groupName: `${ctx.clusterName}-${pool.name}`,
      instanceType: pool.instanceType,
      architecture: pool.architecture,
      ami: pool.ami,
      minSize: pool.minSize,
      maxSize: pool.maxSize,
      subnets: pool.subnets,
      securityGroups: pool.securityGroups,
      instanceProfile: pool.instanceProfile,
      rootVolumeGiB: pool.rootVolumeGiB,
      ...(pool.dataVolume === undefined ? {} : { dataVolume: pool.dataVolume }),
      taints: pool.taints,
      labels: pool.labels,
      resources: pool.resources,
      asgTags: autoscalerTags(ctx.clusterName, pool, specPath),
      imdsHopLimit: pool.imds.podAccess ? 2 : 1,
      ipv6: pool.ipv6,
      imdsIpv6: pool.ipv6 !== "off" && isNitroInstanceType(pool.instanceType),
      slots: slotsByPool[i] ?? [],
    };
  });
  const wg = cloud.wireguard;
  const subnet = wg.tunnelSubnet;
  const subnet6 = wg.tunnelSubnet6;
  const tunnelSubnets = subnet6 === undefined ? [subnet] : [subnet, subnet6];
  let hub: PlannedHub | undefined;
  if (wg.hub !== undefined) {
    const node = ctx.hubNode;
    const tunnelAddress = addressAt(subnet, 1);
    const tunnelAddress6 = subnet6 === undefined ? undefined : addressAt(subnet6, 1);
    const hasKey = wg.privateKey !== undefined;
    hub = {
      address: wg.hub,
      node,
      tunnelAddress,
      tunnelCidr: `${tunnelAddress}/${parseCidr(subnet).prefixLength}`,
      ...(subnet6 === undefined || tunnelAddress6 === undefined
        ? {}
        : { tunnelAddress6, tunnelCidr6: `${tunnelAddress6}/${parseCidr(subnet6).prefixLength}` }),
      listenPort: wg.listenPort,
      endpoint: wg.endpoint,
      publicKey: wg.publicKey,
      privateKey: hasKey ? ctx.secrets.wireguardHubPrivateKey?.value : undefined,
      configPath: hasKey
        ? node === undefined
          ? `cloud/hub/etc/wireguard/${wg.interface}.conf`
          : `nodes/${node}/etc/wireguard/${wg.interface}.conf`
        : undefined,
      host: planHubHost(cloud, ctx, wg.hub, node),
    };
  }
  const routed = [
    ...tunnelSubnets,
    ...ctx.onPremNetworks.filter((n) => !tunnelSubnets.some((t) => cidrContains(t, hostPart(n)))),
  ];
  const url = cloud.provisioner.url;
  return {
    aws: { region: cloud.aws.region, vpcCidr: cloud.aws.vpcCidr, providerVersion: cloud.aws.providerVersion },
    provisioner: { url, namespace: cloud.provisioner.namespace, notifyPath: cloud.provisioner.notifyPath },
    wireguard: {
      tunnelSubnet: subnet,
      ...(subnet6 === undefined ? {} : { tunnelSubnet6: subnet6 }),
      interface: wg.interface,
      hub: wg.hub,
      underlayMtu: wg.underlayMtu,
    },
    // the cluster's families the tunnel carries (the rules require every one of them)
    nodeIpFamilies: ctx.families.filter((f) => tunnelSubnets.some((t) => ipFamily(t) === f)),
    tunnelMtu: tunnelMtuOf(wg.underlayMtu, wg.endpoint),
    tunnelOverhead: tunnelOverheadOf(wg.endpoint),
    caCertHash: ctx.secrets.caCertHash?.value,
    pools,
    snsEndpoint: `${url.replace(/\/+$/, "")}${cloud.provisioner.notifyPath}`,
    apiServerEndpoint: ctx.apiServerEndpoint,
    apiHostAlias: ctx.apiHostAlias,
    nameservers: ctx.nameservers,
    searchDomains: ctx.searchDomains,
    routedNetworks: [...new Set(routed)],
    hub,
    slots: pools.flatMap((p) => p.slots),
    peerKeys: wg.peerKeys ? "static" : "provisioner",
    peerSecret: {
      namespace: cloud.provisioner.namespace,
      type: PEER_SECRET_TYPE,
      dataKey: PEER_SECRET_DATA_KEY,
      labels: {
        cluster: "clusterspec.dev/cluster",
        pool: "clusterspec.dev/pool",
        slot: "clusterspec.dev/slot",
        instanceId: "clusterspec.dev/instance-id",
      },
    },
    packages: burstPackages(ctx.kubernetes),
  };
}

/** The hub's forward filter and forwarding sysctls, under its folder (written by host, loaded by the wg-quick PreUp). */
export const HUB_FIREWALL_FILE = "etc/nftables/clusterspec-hub.nft";
export const HUB_SYSCTL_FILE = "etc/sysctl.d/90-clusterspec-hub.conf";

/** Cilium's ports between nodes (its defaults): the VXLAN and Geneve tunnel ports and the health check. */
export const CILIUM_PORTS = { vxlan: 8472, geneve: 6081, health: 4240 } as const;
/** The kubelet's API, which the burst nodes' metrics and log readers may reach on the on-prem nodes. */
export const KUBELET_PORT = 10250;

/**
 * The hub host (issue 29 items 4 and 12): it forwards between the tunnel and on-prem in both layouts, every on-prem
 * host needs a route to the tunnel subnet through it, and its forward filter lets the burst nodes open only what
 * they need: the API endpoint, the nodes' kubelet and Cilium ports (the tunnel subnet's too: burst nodes reach each
 * other through the hub), the on-prem nameservers. Where the nodes are unknown (an existing cluster), the on-prem
 * networks stand for them (also for an API endpoint by name).
 */
function planHubHost(cloud: CloudSpec, ctx: BurstContext, hub: string, node: string | undefined): PlannedHubHost {
  const subnet = cloud.wireguard.tunnelSubnet;
  const subnet6 = cloud.wireguard.tunnelSubnet6;
  const tunnelSubnets = subnet6 === undefined ? [subnet] : [subnet, subnet6];
  const families = [...new Set([...tunnelSubnets, ...ctx.onPremNetworks].map((n) => ipFamily(hostPart(n))))].sort();
  const nodes = [...(ctx.onPremNodes ?? ctx.onPremNetworks), ...tunnelSubnets];
  const endpoint = ctx.apiServerEndpoint;
  const apiHost = endpoint.startsWith("[")
    ? endpoint.slice(1, endpoint.lastIndexOf("]"))
    : endpoint.slice(0, endpoint.lastIndexOf(":"));
  const apiPort = Number(endpoint.slice(endpoint.lastIndexOf(":") + 1));
  const routed = [...tunnelSubnets, ...ctx.onPremNetworks];
  const onPremNameservers = ctx.nameservers.filter((ns) => routed.some((n) => cidrContains(n, ns)));
  const cilium = ctx.cilium ?? { routingMode: "tunnel", tunnelProtocol: "vxlan" };
  const allow: HubFirewallAllow[] = [
    {
      what: "Kubernetes API",
      // the endpoint, and the control planes behind it: Cilium on a burst node sends the kubernetes Service's
      // traffic (and any Service's with host-network backends) straight to the backend node's address
      daddr: [...(isIp(apiHost) ? [apiHost] : []), ...(ctx.onPremNodes ?? ctx.onPremNetworks)],
      protocol: "tcp",
      ports: [apiPort],
    },
    { what: "kubelet", daddr: nodes, protocol: "tcp", ports: [KUBELET_PORT] },
    { what: "Cilium health", daddr: nodes, protocol: "tcp", ports: [CILIUM_PORTS.health] },
    ...(cilium.routingMode === "tunnel"
      ? [
          {
            what: `Cilium ${cilium.tunnelProtocol === "vxlan" ? "VXLAN" : "Geneve"}`,
            daddr: nodes,
            protocol: "udp" as const,
            ports: [CILIUM_PORTS[cilium.tunnelProtocol]],
          },
        ]
      : []),
    ...(onPremNameservers.length > 0
      ? (["udp", "tcp"] as const).map((protocol) => ({
          what: "DNS",
          daddr: onPremNameservers,
          protocol,
          ports: [53],
        }))
      : []),
  ];
  return {
    dir: node === undefined ? "cloud/hub" : `nodes/${node}`,
    forwarding: families.map((f) => (f === 4 ? "net.ipv4.ip_forward" : "net.ipv6.conf.all.forwarding")),
    // each on-prem network routes the tunnel subnet of its own family (an IPv6 network the IPv6 tunnel subnet)
    returnRoutes: ctx.onPremNetworks.flatMap((network) => {
      const family = ipFamily(hostPart(network));
      const tunnel = tunnelSubnets.find((t) => ipFamily(t) === family);
      if (tunnel === undefined) return [];
      const via = [hub, ctx.hub6].find((h) => h !== undefined && ipFamily(h) === family && cidrContains(network, h));
      return [via === undefined ? { network, tunnelSubnet: tunnel } : { network, tunnelSubnet: tunnel, via }];
    }),
    firewall: { interface: cloud.wireguard.interface, allow },
  };
}

/** The Kubernetes facts of the existing cluster a cloud-burst-only spec joins. */
export function planExistingKubernetes(e: CloudBurstSpec["existingCluster"]): BurstKubernetes {
  return {
    ...planVersion(e.kubernetesVersion),
    podSubnet: asList(e.podSubnet)[0] ?? "",
    serviceSubnet: asList(e.serviceSubnet)[0] ?? "",
    dnsDomain: e.dnsDomain,
    cgroupDriver: e.cgroupDriver,
  };
}

/** The cloud planner of a generated cluster: its burst nodes join through the control-plane VIP. */
export function planClusterCloud(
  spec: ClusterSpec,
  parts: {
    readonly kubernetes: BurstKubernetes;
    readonly controlPlane: ControlPlanePlan;
    readonly network: NetworkPlan;
    readonly hubNode: string | undefined;
    readonly secrets: BurstContext["secrets"];
    /** the nodes' internal addresses (every family) */
    readonly onPremNodes?: readonly string[];
    /** the hub node's IPv6 address on the Kubernetes segment, if it has one */
    readonly hub6?: string | undefined;
  },
): CloudPlan | undefined {
  const { controlPlane, network } = parts;
  const k8s = network.kubernetesSegment;
  return (
    spec.cloud &&
    planCloud(spec.cloud, {
      clusterName: spec.name,
      kubernetes: parts.kubernetes,
      apiServerEndpoint: controlPlane.vipEndpoint,
      apiHostAlias:
        controlPlane.dnsName === undefined ? undefined : { address: controlPlane.host, name: controlPlane.dnsName },
      nameservers: network.nameservers,
      searchDomains: network.searchDomains,
      onPremNetworks: k8s.subnet6 === undefined ? [k8s.subnet] : [k8s.subnet, k8s.subnet6],
      families: clusterFamilies(spec),
      hub6: parts.hub6,
      hubNode: parts.hubNode,
      ...(parts.onPremNodes === undefined ? {} : { onPremNodes: parts.onPremNodes }),
      cilium: { routingMode: spec.cilium.routingMode, tunnelProtocol: spec.cilium.tunnelProtocol },
      secrets: parts.secrets,
    })
  );
}
