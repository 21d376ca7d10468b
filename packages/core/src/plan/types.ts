// The plan's types: the resolved facts generators read. None comes from spec/ (plan-types-no-spec.test.ts):
// a generator never sees the spec's shapes, only what the planners resolved from them.
import type { AsgTag } from "../facts/cloud.js";
import type { KubeadmApiVersion, StorageIsolationOff } from "../facts/kubernetes.js";
import type { VipId, VipKey } from "../facts/vrrp.js";
import type { IssuePath } from "../issues.js";
import type { ResolvedSecret, SecretId } from "../secrets.js";

export type { KubeadmApiVersion } from "../facts/kubernetes.js";

/** `major.minor.patch`, parsed. */
export interface PlannedVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

export interface PlannedTaint {
  readonly key: string;
  readonly value: string;
  readonly effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

/** A host path the API server mounts (`kubernetes.apiServer.extraVolumes`). */
export interface PlannedVolume {
  readonly name: string;
  readonly hostPath: string;
  readonly mountPath: string;
  readonly readOnly: boolean;
  readonly pathType?:
    | "DirectoryOrCreate"
    | "Directory"
    | "FileOrCreate"
    | "File"
    | "Socket"
    | "CharDevice"
    | "BlockDevice"
    | undefined;
}

/** A merge patch over generated files (`overlays[i]`). */
export interface PlannedOverlay {
  readonly target: string;
  readonly document?: string | undefined;
  readonly patch: Record<string, unknown>;
}

/** The interfaces that carry VIPs, derived once: the control plane's, and the external pool's (with `externalVips`). */
export interface VipInterfaces {
  readonly controlPlane: string | undefined;
  readonly external: string | undefined;
}

/** An L2 segment as the generators need it (reserved VRIDs are the allocator's business, not theirs). */
export interface PlannedSegment {
  readonly name: string;
  readonly interface: string;
  /** The segment's subnet: every node has an address in it. */
  readonly subnet: string;
  /** A dual-stack segment's IPv6 subnet (`subnet6`): the nodes' `address6` lie in it. */
  readonly subnet6: string | undefined;
  /** Further networks reachable on-link, without a node address in them. */
  readonly onLink: readonly string[];
  /** The uplink, whose replies take their own routing table; `sources` resolved (facts/uplink.ts: `onLink`, else the external VIPs in the subnet). */
  readonly uplink:
    | {
        readonly gateway: string;
        /** A dual-stack uplink's IPv6 gateway: IPv6 sources take the same table through it. */
        readonly gateway6: string | undefined;
        readonly table: { readonly id: number; readonly name: string };
        readonly sources: readonly string[];
      }
    | undefined;
}

export type VipKind = "control-plane" | "external";

export interface PlannedVip {
  readonly id: VipId;
  /** `vipKey(id)`: `control-plane`, `external-10-118-11-20`, …: named by the address, never by a list position. */
  readonly key: VipKey;
  readonly kind: VipKind;
  /** Address without prefix. */
  readonly address: string;
  readonly prefixLength: number;
  /**
   * The IPv6 half of a dual-stack pair (`controlPlane.vip6`, an external entry's `address6`), when `address` is its
   * IPv4 half: one more vrrp_instance with the same interface, VRID and order, kept with the first by a sync group.
   */
  readonly pair6?: { readonly address: string; readonly prefixLength: number; readonly specPath: IssuePath };
  readonly interface: string;
  readonly vrid: number;
  /** Node names, best first; priorities[i] belongs to order[i]. */
  readonly order: readonly string[];
  readonly priorities: readonly number[];
  readonly specPath: IssuePath;
}

export interface PlannedInterface {
  readonly name: string;
  /** lowercase */
  readonly mac: string | undefined;
  readonly vlan: { readonly parent: string; readonly id: number } | undefined;
  /** `10.118.12.20/24` */
  readonly cidr: string | undefined;
  /** `10.118.12.20` */
  readonly address: string | undefined;
  readonly gateway: string | undefined;
  /** Dual stack: the IPv6 address beside the IPv4 one, with prefix (`fd00::20/64`) and without, and its gateway. */
  readonly cidr6: string | undefined;
  readonly address6: string | undefined;
  readonly gateway6: string | undefined;
  /** The segment this interface attaches, if any. */
  readonly segment: PlannedSegment | undefined;
  /** `nodes[].interfaces.<name>.mtu`; undefined: the kernel's default (1500 on Ethernet). */
  readonly mtu: number | undefined;
}

/** The host firewall of one node: what each filtered (public) interface lets in besides SSH and replies. */
export interface PlannedFirewall {
  readonly interfaces: readonly {
    readonly name: string;
    /** VIPs that live on this interface: their traffic is let in. */
    readonly vips: readonly string[];
    /** The other nodes' addresses on this interface: VRRP (and AH) from them is let in when a VIP lives here. */
    readonly vrrpPeers: readonly string[];
  }[];
}

export interface PlannedNode {
  readonly name: string;
  readonly controlPlane: boolean;
  readonly worker: boolean;
  /**
   * Runs `kubeadm init`: the init node (`controlPlane.initNode`, default the first control plane) of a cluster not yet
   * marked `controlPlane.bootstrapped`. Every other node, and every node of a bootstrapped cluster, joins.
   */
  readonly init: boolean;
  readonly carriesExternalVips: boolean;
  readonly rootFilesystem: "ext4" | "xfs" | "btrfs" | "zfs";
  /**
   * How the kubelet's local storage capacity isolation is switched off (it cannot measure btrfs):
   * the `LocalStorageCapacityIsolation=false` kubelet flag up to 1.24 (host conf.d); from 1.25 (the gate is locked
   * then) the KubeletConfiguration field, cluster-wide when every node needs it (`kubelet-config`), else through
   * a kubeadm patch on the nodes that do (`kubelet-config-patch`); undefined: left on.
   */
  readonly localStorageIsolationOff: StorageIsolationOff | undefined;
  readonly disk: string | undefined;
  /** Interface and address on the Kubernetes segment: the node's InternalIP. */
  readonly internalInterface: string;
  readonly internalAddress: string;
  /** The node's address of each cluster family on the Kubernetes segment, primary first (the kubelet's node-ip). */
  readonly internalAddresses: readonly string[];
  readonly interfaces: readonly PlannedInterface[];
  /** Route to the burst nodes' tunnel addresses through the on-prem WireGuard hub (absent on the hub itself). */
  readonly tunnelRoute: { readonly subnet: string; readonly via: string; readonly interface: string } | undefined;
  /** The same for `cloud.wireguard.tunnelSubnet6`, through the hub node's IPv6 address on the Kubernetes segment. */
  readonly tunnelRoute6?: { readonly subnet: string; readonly via: string; readonly interface: string } | undefined;
  /** Labels the kubelet sets when it registers (all self-settable under NodeRestriction). */
  readonly labels: Readonly<Record<string, string>>;
  readonly taints: readonly PlannedTaint[];
  /**
   * Interfaces that need `accept_local=1`: Cilium DSR delivers packets whose source is one of this node's own
   * addresses (a VIP it holds) on an interface whose replies take a policy-routing table. Empty otherwise.
   */
  readonly acceptLocalInterfaces: readonly string[];
  /** Interfaces that carry a VIP or policy-routed replies: `rp_filter` is pinned to 2 (loose) on them. */
  readonly rpFilterLooseInterfaces: readonly string[];
  /**
   * Every per-interface kernel setting (`net.ipv4.conf.<interface>.<key>`) of this node, in interface order: applied
   * by netifrc's `postup()` when the interface comes up, not by the boot-time sysctl service, which runs before
   * net.* creates a VLAN (see docs/bare-metal-host.md).
   */
  readonly interfaceSysctls: readonly InterfaceSysctl[];
  /** `host.firewall` on this node; undefined: no firewall. */
  readonly firewall: PlannedFirewall | undefined;
}

/** One `net.ipv4.conf.<interface>.<key> = <value>` setting. */
export interface InterfaceSysctl {
  readonly interface: string;
  readonly key: "rp_filter" | "accept_local";
  readonly value: string;
}

/** Free-form settings of the control-plane components, merged into what clusterspec derives (never over it). */
export interface ApiServerAuthenticationPlan {
  /** apiserver.config.k8s.io/v1beta1 up to 1.33, v1 from 1.34 (the version contract). */
  readonly apiVersion: string;
  /** The file on each control plane, mounted at the same path into the kube-apiserver pod. */
  readonly path: string;
  /** The kubeadm extraVolume's name. */
  readonly volume: string;
  /** The only paths anonymous requests may reach (keepalived's check asks /readyz). */
  readonly anonymousPaths: readonly string[];
}

export interface KubeadmKnobs {
  /** Every SAN once: the VIP, controlPlane.dnsName, each control plane's internal address, then the spec's. */
  readonly certSANs: readonly string[];
  readonly apiServerArgs: Readonly<Record<string, string>>;
  readonly apiServerVolumes: readonly PlannedVolume[];
  /**
   * `kubernetes.apiServer.anonymousAuth: healthEndpoints`: the AuthenticationConfiguration every control plane's
   * kube-apiserver reads (`--authentication-config`), allowing anonymous requests to `anonymousPaths` only.
   */
  readonly apiServerAuthentication: ApiServerAuthenticationPlan | undefined;
  readonly controllerManagerArgs: Readonly<Record<string, string>>;
  readonly schedulerArgs: Readonly<Record<string, string>>;
  readonly etcdArgs: Readonly<Record<string, string>>;
  /** KubeletConfiguration fields from `kubernetes.kubelet` (owned ones refused by the rules). */
  readonly kubelet: Readonly<Record<string, unknown>>;
}

/** A policy routing table: replies from `sources` leave through `gateway` on `interface`. */
export interface PolicyRoute {
  readonly segment: PlannedSegment;
  readonly interface: string;
  readonly table: { readonly id: number; readonly name: string };
  readonly gateway: string;
  readonly gateway6: string | undefined;
  readonly sources: readonly string[];
}

export interface NetworkPlan {
  readonly kubernetesSegment: PlannedSegment;
  readonly segments: readonly PlannedSegment[];
  readonly nameservers: readonly string[];
  readonly searchDomains: readonly string[];
  readonly policyRoutes: readonly PolicyRoute[];
}

export interface ControlPlanePlan {
  /** The VIP without prefix: the API server host everyone uses. */
  readonly host: string;
  readonly port: number;
  /** `10.118.12.100:6443` (IPv6 in brackets), or `controlPlane.dnsName` and the port */
  readonly endpoint: string;
  /** `10.118.12.100:6443` (IPv6 in brackets) even with a DNS name: what burst nodes join */
  readonly vipEndpoint: string;
  readonly vip: PlannedVip;
  /** `controlPlane.dnsName`: the endpoint's host when set, mapped to the VIP in every node's /etc/hosts. */
  readonly dnsName: string | undefined;
}

export interface NodeHealthPlan {
  readonly statusUpdateFrequency: string;
  readonly monitorPeriod: string;
  readonly monitorGracePeriod: string;
  readonly evictionAfter: string;
  /** Seconds, for comparisons and PLAN.md. */
  readonly seconds: {
    readonly statusUpdateFrequency: number;
    readonly monitorPeriod: number;
    readonly monitorGracePeriod: number;
    readonly evictionAfter: number;
  };
}

/**
 * One vrrp_script's timing and weight. keepalived 2.2.7 ignores init_fail for a tracked script: a check starts
 * counted as passing, runs at once, and its first result decides.
 */
export interface VrrpCheckPlan {
  readonly interval: number;
  readonly timeout: number;
  readonly fall: number;
  readonly rise: number;
  /** vrrp_script weight, resolved; 0 means FAULT on failure. */
  readonly weight: number;
}

/** keepalived settings common to every VRRP instance (priorities and VRIDs are per VIP, in `vips`). */
export interface VrrpPlan {
  /** The password itself is `secrets.vrrpPassword`. */
  readonly auth: { readonly type: "AH" | "PASS" } | undefined;
  readonly advertInterval: number;
  readonly initialState: "BACKUP" | "MASTER";
  readonly nopreempt: boolean;
  /** preempt_delay in seconds, resolved (0: none; always 0 with nopreempt or initial state MASTER). */
  readonly preemptDelay: number;
  /** vrrp_garp_master_refresh in seconds (0: off). */
  readonly garpRefresh: number;
  readonly unicast: boolean;
  readonly scriptUser: string;
  readonly healthCheck: VrrpCheckPlan;
  /** The Cilium readiness check on external VIP instances; undefined when switched off. */
  readonly readinessCheck: VrrpCheckPlan | undefined;
  /** The uplink gateway check on external VIP instances (ping), when `vrrp.uplinkCheck`; shares the readiness timing. */
  readonly uplinkCheck: (VrrpCheckPlan & { readonly gateway: string; readonly interface: string }) | undefined;
  /** Scripts keepalived runs on state changes, in master, backup, fault order. */
  readonly notify: readonly { readonly on: "master" | "backup" | "fault"; readonly script: string }[];
}

export interface HostPlan {
  /** `spec.host.sysctl`, sorted by key, values as text. */
  readonly sysctl: readonly { readonly key: string; readonly value: string }[];
  readonly gentooPackages: boolean;
  /** OpenRC rc_cgroup_mode; only hybrid and legacy (cgroup v1) need anything in rc.conf. */
  readonly cgroupMode: "unified" | "hybrid" | "legacy";
  /** `host.firewall`: networks allowed to SSH on the public interfaces; undefined: no firewall. */
  readonly firewall: { readonly sshFrom: readonly string[]; readonly explicitInterfaces: boolean } | undefined;
}

export interface CiliumPlan {
  readonly version: string;
  readonly routingMode: "native" | "tunnel";
  readonly tunnelProtocol: "vxlan" | "geneve";
  readonly autoDirectNodeRoutes: boolean;
  readonly ipamMode: "kubernetes" | "cluster-pool";
  /** Resolved: the spec's list, else the Kubernetes and default-route interfaces, plus the cloud devices. */
  readonly devices: readonly string[];
  readonly bpfMasquerade: boolean;
  readonly loadBalancerMode: "snat" | "dsr" | "hybrid";
  readonly encryption: "none" | "wireguard";
  /** The device MTU Cilium assumes: the spec's, else inside the WireGuard tunnel with cloud pools; undefined: auto. */
  readonly mtu: number | undefined;
  readonly mtuSource: "spec" | "wireguard-tunnel" | "auto";
  /** Networks whose node addresses serve NodePorts: the spec's, else the Kubernetes segment's subnet (and the burst tunnel's); empty: Cilium's default. */
  readonly nodePortAddresses: readonly string[];
  /** `cilium.values`: Helm values merged over the generated ones (owned keys refused by the rules). */
  readonly values: Readonly<Record<string, unknown>>;
}

export interface PlannedPool {
  readonly name: string;
  /** The Auto Scaling Group's name (`<cluster>-<pool>`): Terraform names it, the provisioner checks membership by it. */
  readonly groupName: string;
  /** `cloud.pools[i]` */
  readonly specPath: IssuePath;
  readonly instanceType: string;
  readonly architecture: "x86_64" | "arm64";
  /** A fixed AMI id, or the newest AMI matching a name filter (Terraform looks it up). */
  readonly ami:
    | { readonly id: string }
    | { readonly lookup: { readonly owners: readonly string[]; readonly name: string } };
  readonly minSize: number;
  readonly maxSize: number;
  readonly subnets: readonly string[];
  readonly securityGroups: readonly string[];
  readonly instanceProfile: string | undefined;
  readonly rootVolumeGiB: number;
  /** the second EBS volume for /var/lib/kubelet and /var/lib/containers (`dataVolume`), if any */
  readonly dataVolume?: { readonly sizeGiB: number; readonly filesystem: "xfs" | "ext4" };
  readonly taints: readonly PlannedTaint[];
  readonly labels: Readonly<Record<string, string>>;
  readonly resources: Readonly<Record<string, string>>;
  /** The Auto Scaling Group's tags, computed once: Terraform writes them, PLAN.md counts them, a rule checks their limits. */
  readonly asgTags: readonly AsgTag[];
  /** IMDSv2 response hop limit: 1 keeps pods (one hop further) away from the instance's credentials. */
  readonly imdsHopLimit: 1 | 2;
  /**
   * `dual-stack`: each instance gets an IPv6 address from its subnet beside the IPv4 one (`cloud.pools[].ipv6`), and
   * IMDS answers on IPv6 too where the instance type is Nitro (`imdsIpv6`). `only`: IPv6-only subnets, no IPv4 address
   * at all (Nitro types only, IMDS at [fd00:ec2::254]).
   */
  readonly ipv6: "off" | "dual-stack" | "only";
  readonly imdsIpv6: boolean;
  /** The pool's WireGuard peer slots, one per instance it may run (maxSize). */
  readonly slots: readonly PlannedSlot[];
}

// ---- cloud burst: slots, hub, provisioner contract ----

export interface PlannedSlot {
  readonly pool: string;
  /** 0-based within the pool */
  readonly index: number;
  /** `ci-arm64-0` */
  readonly id: string;
  /** the slot's tunnel address, `172.30.99.2` */
  readonly address: string;
  /** exactly the slot: `172.30.99.2/32` */
  readonly cidr: string;
  /** with `cloud.wireguard.tunnelSubnet6`: the slot's IPv6 tunnel address and its /128 */
  readonly address6?: string;
  readonly cidr6?: string;
  /** name of the Kubernetes Secret that holds the slot's client config */
  readonly secretName: string;
  /** static keys only: the private key (value or placeholder) and the public key the hub lists */
  readonly privateKey: string | undefined;
  readonly publicKey: string | undefined;
}

export interface PlannedHub {
  /** on-prem address of the hub */
  readonly address: string;
  /** the generated node that is the hub, if any */
  readonly node: string | undefined;
  /** `172.30.99.1` and `172.30.99.1/24` */
  readonly tunnelAddress: string;
  readonly tunnelCidr: string;
  /** with `cloud.wireguard.tunnelSubnet6`: `fd00:30:99::1` and `fd00:30:99::1/64` */
  readonly tunnelAddress6?: string;
  readonly tunnelCidr6?: string;
  readonly listenPort: number;
  readonly endpoint: string | undefined;
  readonly publicKey: string | undefined;
  /** value or placeholder; undefined when no key is referenced (then no hub config is written) */
  readonly privateKey: string | undefined;
  /** where the hub's wg-quick config is written */
  readonly configPath: string | undefined;
  /** the hub's own host settings: forwarding, the on-prem return routes, the forward filter (issue 29 items 4, 12) */
  readonly host: PlannedHubHost;
}

/** What the hub host needs beside its wg-quick config, and what the other on-prem hosts need to reach the tunnel. */
export interface PlannedHubHost {
  /** folder of the hub's files: `nodes/<node>` for a generated node, else `cloud/hub` */
  readonly dir: string;
  /** sysctl keys the hub sets to 1 so that it forwards between the tunnel and on-prem (one per family in use) */
  readonly forwarding: readonly string[];
  /**
   * The route each on-prem network's hosts need to the tunnel subnet: `via` the hub where the network holds it,
   * else undefined (through that network's router, which routes the tunnel subnet to the hub).
   */
  readonly returnRoutes: readonly { readonly network: string; readonly tunnelSubnet: string; readonly via?: string }[];
  /** The forward filter: what the burst nodes may open through the hub, new connections in from the tunnel. */
  readonly firewall: {
    readonly interface: string;
    readonly allow: readonly HubFirewallAllow[];
  };
}

export interface HubFirewallAllow {
  /** what the burst nodes use it for (a comment in the rules and a PLAN.md row) */
  readonly what: string;
  /** destination addresses or networks */
  readonly daddr: readonly string[];
  readonly protocol: "tcp" | "udp";
  readonly ports: readonly number[];
}

/** Where the provisioner keeps one burst slot's client config (the contract names this layout). */
export interface PeerSecretLayout {
  readonly namespace: string;
  readonly type: string;
  /** data key of the wg-quick config */
  readonly dataKey: string;
  readonly labels: {
    readonly cluster: string;
    readonly pool: string;
    readonly slot: string;
    /** set while an instance holds the slot, removed on `terminated` */
    readonly instanceId: string;
  };
}

/** A package the burst nodes install, and why (PLAN.md lists them). */
export interface PlannedPackage {
  readonly name: string;
  readonly reason: string;
}

export interface CloudPlan {
  readonly aws: { readonly region: string; readonly vpcCidr: string; readonly providerVersion: string };
  /** notifyPath: where SNS posts, under url (`cloud.provisioner.notifyPath`) */
  readonly provisioner: { readonly url: string; readonly namespace: string; readonly notifyPath: string };
  readonly wireguard: {
    readonly tunnelSubnet: string;
    /** the IPv6 tunnel network beside an IPv4 tunnelSubnet (`cloud.wireguard.tunnelSubnet6`) */
    readonly tunnelSubnet6?: string;
    readonly interface: string;
    readonly hub: string | undefined;
    readonly underlayMtu: number;
  };
  /** The families of a burst node's kubelet `node-ip` (its tunnel addresses), the cluster's primary family first. */
  readonly nodeIpFamilies: readonly (4 | 6)[];
  /** MTU inside the WireGuard tunnel: underlay minus tunnelOverhead. */
  readonly tunnelMtu: number;
  /** The outer headers: 60 bytes (IPv4 + UDP + WireGuard) when the hub's endpoint is an IPv4 literal, else 80 (IPv6). */
  readonly tunnelOverhead: number;
  /** The cluster CA's hash (sha256:<hex> of its public key), against which a burst node checks the served kubeconfig. */
  readonly caCertHash: string | undefined;
  readonly pools: readonly PlannedPool[];
  /** the SNS subscription's endpoint: the provisioner URL + notifyPath */
  readonly snsEndpoint: string;
  /** host:port the burst nodes join */
  readonly apiServerEndpoint: string;
  /** `controlPlane.dnsName` and the VIP: every kubeconfig names the endpoint by it, so burst nodes map it too. */
  readonly apiHostAlias: { readonly address: string; readonly name: string } | undefined;
  /** the only resolvers a burst node keeps after tunnel-up (at most 2) */
  readonly nameservers: readonly string[];
  readonly searchDomains: readonly string[];
  /** networks a burst node routes through the tunnel (its client config's AllowedIPs) */
  readonly routedNetworks: readonly string[];
  readonly hub: PlannedHub | undefined;
  /** every pool's slots, in pool order */
  readonly slots: readonly PlannedSlot[];
  /** static: keys from the spec's references; provisioner: minted per instance and added with `wg set` */
  readonly peerKeys: "static" | "provisioner";
  readonly peerSecret: PeerSecretLayout;
  /** Fedora packages of the burst nodes */
  readonly packages: readonly PlannedPackage[];
}

/** The Kubernetes version and what it decides directly. */
export interface KubernetesVersionPlan {
  readonly version: PlannedVersion;
  /** `v1.34.2` */
  readonly versionText: string;
  readonly kubeadmApiVersion: KubeadmApiVersion;
}

/** Facts about the cluster the burst nodes join, from kubernetes: or existingCluster:. */
export interface BurstKubernetes extends KubernetesVersionPlan {
  readonly podSubnet: string;
  readonly serviceSubnet: string;
  readonly dnsDomain: string;
  readonly cgroupDriver: "cgroupfs" | "systemd";
}

/** What the cloud generators read: every plan is one, a generated cluster's or a cloud burst's only. */
export interface BurstPlan {
  readonly sourceName: string;
  readonly name: string;
  readonly kubernetes: BurstKubernetes;
  readonly cloud: CloudPlan | undefined;
  readonly secrets: Partial<Record<SecretId, ResolvedSecret>>;
}

/** The plan of a spec with `existingCluster:`: only the burst side is generated. */
export interface CloudBurstPlan extends BurstPlan {
  readonly existingCluster: { readonly endpoint: string; readonly onPremNetworks: readonly string[] };
  readonly cloud: CloudPlan;
}

/** Who brings the cluster up, and whether that has happened (`controlPlane.initNode`, `controlPlane.bootstrapped`). */
export interface BootstrapPlan {
  /** The control-plane node named to run `kubeadm init`: `controlPlane.initNode`, default the first control plane. */
  readonly initNodeName: string;
  /** Whether `initNodeName` came from the default (the first control-plane node in `nodes`). */
  readonly initNodeDefaulted: boolean;
  /** `kubeadm init` ran once (`controlPlane.bootstrapped`): no node inits any more, every node joins. */
  readonly bootstrapped: boolean;
}

export interface ClusterPlan {
  /** The spec file name used in generated headers (no directories, so goldens do not depend on the checkout). */
  readonly sourceName: string;
  readonly name: string;
  readonly kubernetes: {
    readonly version: PlannedVersion;
    /** `v1.34.2` */
    readonly versionText: string;
    readonly kubeadmApiVersion: KubeadmApiVersion;
    /** The primary family's pod and service networks. */
    readonly podSubnet: string;
    readonly serviceSubnet: string;
    /** Every family's pod and service networks, primary first (one entry unless dual stack). */
    readonly podSubnets: readonly string[];
    readonly serviceSubnets: readonly string[];
    /** The cluster's families, primary first. */
    readonly families: readonly (4 | 6)[];
    /** The IPv4 node mask (`kubernetes.nodeCidrMaskSize`). */
    readonly nodeCidrMaskSize: number;
    /** The IPv6 node mask where the cluster runs IPv6 (`kubernetes.nodeCidrMaskSize6`, default 64). */
    readonly nodeCidrMaskSize6: number | undefined;
    readonly dnsDomain: string;
    readonly schedulableControlPlanes: boolean;
    readonly criSocket: string;
    readonly cgroupDriver: "cgroupfs" | "systemd";
    readonly nodeHealth: NodeHealthPlan;
    readonly knobs: KubeadmKnobs;
  };
  readonly network: NetworkPlan;
  readonly controlPlane: ControlPlanePlan;
  /** Every VRRP instance: the control-plane VIP first, then the external pool in spec order. */
  readonly vips: readonly PlannedVip[];
  readonly vrrp: VrrpPlan;
  readonly nodes: readonly PlannedNode[];
  /** The node that runs `kubeadm init` (its kubeadm.yaml is an InitConfiguration); undefined once bootstrapped. */
  readonly initNode: PlannedNode | undefined;
  readonly bootstrap: BootstrapPlan;
  readonly host: HostPlan;
  readonly cilium: CiliumPlan;
  readonly cloud: CloudPlan | undefined;
  readonly secrets: Partial<Record<SecretId, ResolvedSecret>>;
  /** Merge patches over generated files, applied after every generator ran (spec order). */
  readonly overlays: readonly PlannedOverlay[];
}

export type AnyPlan = ClusterPlan | CloudBurstPlan;
export const isCloudBurstPlan = (plan: AnyPlan): plan is CloudBurstPlan => "existingCluster" in plan;
