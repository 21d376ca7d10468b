// The burst side of a plan, shared by a generated cluster with cloud pools and by the cloud burst of an
// existing cluster: pools with their IMDS hop limit and WireGuard slots, the hub, the resolvers a burst
// node keeps, and the layout of the provisioner's peer-config Secrets. Cloud generators read only this.
import { addressAt, cidrContains, hostPart, ipEquals, ipFamily, parseCidr } from "../ip.js";
import { peerKeyLines, type ResolvedSecret, type SecretId } from "../secrets.js";
import type { CloudSpec, PoolSpec } from "../spec/schema.js";
import type { Semver } from "../spec/version.js";
import type { KubeadmApiVersion } from "./types.js";

/** Bytes WireGuard adds over IPv4: outer IPv4 (20) + UDP (8) + WireGuard header and tag (32). */
export const WIREGUARD_OVERHEAD = 60;

/** MTU left inside the WireGuard tunnel. */
export const tunnelMtuOf = (underlayMtu: number): number => underlayMtu - WIREGUARD_OVERHEAD;

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

/** The provisioner's SNS endpoint path: Terraform subscribes it, the contract describes it. */
export const PROVISIONER_SNS_PATH = "/sns";

export const PEER_SECRET_TYPE = "clusterspec.dev/wireguard-peer";
export const PEER_SECRET_DATA_KEY = "wg-quick.conf";

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
  /** name of the Kubernetes Secret that holds the slot's client config */
  readonly secretName: string;
  /** static keys only: the private key (value or placeholder) and the public key the hub lists */
  readonly privateKey: string | undefined;
  readonly publicKey: string | undefined;
}

export interface PlannedPool extends PoolSpec {
  /** IMDSv2 response hop limit: 1 keeps pods (one more hop) away from instance credentials. */
  readonly imdsHopLimit: 1 | 2;
  readonly slots: readonly PlannedSlot[];
}

export interface PlannedHub {
  /** on-prem address of the hub */
  readonly address: string;
  /** the generated node that is the hub, if any */
  readonly node: string | undefined;
  /** `172.30.99.1` and `172.30.99.1/24` */
  readonly tunnelAddress: string;
  readonly tunnelCidr: string;
  readonly listenPort: number;
  readonly endpoint: string | undefined;
  readonly publicKey: string | undefined;
  /** value or placeholder; undefined when no key is referenced (then no hub config is written) */
  readonly privateKey: string | undefined;
  /** where the hub's wg-quick config is written */
  readonly configPath: string | undefined;
}

/** A package the burst node installs, and why (PLAN.md lists them). */
export interface PlannedPackage {
  readonly name: string;
  readonly reason: string;
}

export interface PlannedCloud extends Omit<CloudSpec, "pools"> {
  readonly pools: readonly PlannedPool[];
  /** MTU inside the WireGuard tunnel: underlay minus 60 bytes (IPv4 + UDP + WireGuard). */
  readonly tunnelMtu: number;
  /** the SNS subscription's endpoint: the provisioner URL + /sns */
  readonly snsEndpoint: string;
  /** host:port the burst nodes join */
  readonly apiServerEndpoint: string;
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

/** Facts about the cluster the burst nodes join, from kubernetes: or existingCluster:. */
export interface BurstKubernetes {
  readonly version: Semver;
  /** `v1.34.2` */
  readonly versionText: string;
  readonly kubeadmApiVersion: KubeadmApiVersion;
  readonly podSubnet: string;
  readonly serviceSubnet: string;
  readonly dnsDomain: string;
  readonly cgroupDriver: "cgroupfs" | "systemd";
}

/** What the cloud generators read: present in every plan, full or cloud burst only. */
export interface BurstPlan {
  readonly sourceName: string;
  readonly name: string;
  readonly kubernetes: BurstKubernetes;
  readonly cloud: PlannedCloud | undefined;
  readonly secrets: Partial<Record<SecretId, ResolvedSecret>>;
}

export interface BurstContext {
  readonly clusterName: string;
  readonly kubernetes: BurstKubernetes;
  readonly apiServerEndpoint: string;
  readonly nameservers: readonly string[];
  readonly searchDomains: readonly string[];
  readonly onPremNetworks: readonly string[];
  /** generated nodes by internal address, to find the hub among them */
  readonly nodes: readonly { readonly name: string; readonly address: string }[];
  readonly secrets: Partial<Record<SecretId, ResolvedSecret>>;
}

/**
 * What `kubeadm join` and the join script need on Fedora Cloud beyond the Kubernetes packages. kubeadm's
 * preflight checks for crictl (CRI), conntrack and, up to 1.31, ip, iptables, mount, nsenter, ebtables,
 * ethtool, socat, tc, touch on the PATH (FileExisting/InPathCheck); from 1.32 only crictl, conntrack
 * (kube-proxy) and the rest as warnings. Fedora Cloud ships iproute, util-linux and coreutils.
 */
export function burstPackages(kubernetes: BurstKubernetes): PlannedPackage[] {
  const v = `${kubernetes.version.major}.${kubernetes.version.minor}`;
  const legacy = kubernetes.version.minor < 32;
  return [
    { name: `kubernetes${v}`, reason: "kubelet and kubectl of the cluster's minor version" },
    { name: `kubernetes${v}-kubeadm`, reason: "kubeadm join" },
    { name: `cri-o${v}`, reason: "container runtime of the same minor" },
    { name: `cri-tools${v}`, reason: "crictl, which kubeadm preflight requires (FileExisting-crictl)" },
    { name: "conntrack-tools", reason: "conntrack, checked by kubeadm preflight (FileExisting-conntrack)" },
    {
      name: "iptables-nft",
      reason: legacy
        ? "iptables, checked by kubeadm preflight up to 1.31 (FileExisting-iptables); the kubelet's canary chains use it"
        : "iptables for the kubelet's canary chains (kubeadm 1.32+ no longer requires it in preflight)",
    },
    ...(legacy
      ? [
          { name: "ebtables-legacy", reason: "ebtables, checked by kubeadm preflight up to 1.31 (a warning only)" },
          { name: "ethtool", reason: "ethtool, checked by kubeadm preflight up to 1.31 (a warning only)" },
          { name: "socat", reason: "socat, checked by kubeadm preflight up to 1.31 (port forwarding)" },
        ]
      : []),
    { name: "wireguard-tools", reason: "wg-quick brings up the tunnel from the provisioner's config" },
  ];
}

function slotsOf(cloud: CloudSpec, clusterName: string, secrets: BurstContext["secrets"]): PlannedSlot[][] {
  const privateKeys = secretLines(secrets.wireguardPeerPrivateKeys);
  const publicKeys = secretLines(secrets.wireguardPeerPublicKeys);
  const subnet = cloud.wireguard.tunnelSubnet;
  const prefix = ipFamily(subnet) === 4 ? 32 : 128;
  let next = 0;
  return cloud.pools.map((pool) =>
    Array.from({ length: pool.maxSize }, (_, index) => {
      const n = next++;
      const address = addressAt(subnet, 2 + n);
      return {
        pool: pool.name,
        index,
        id: `${pool.name}-${index}`,
        address,
        cidr: `${address}/${prefix}`,
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

export function planCloud(cloud: CloudSpec, ctx: BurstContext): PlannedCloud {
  const slotsByPool = slotsOf(cloud, ctx.clusterName, ctx.secrets);
  const pools: PlannedPool[] = cloud.pools.map((pool, i) => ({
    ...pool,
    imdsHopLimit: pool.imds.podAccess ? 2 : 1,
    slots: slotsByPool[i] ?? [],
  }));
  const wg = cloud.wireguard;
  const subnet = wg.tunnelSubnet;
  let hub: PlannedHub | undefined;
  if (wg.hub !== undefined) {
    const node = ctx.nodes.find((n) => ipEquals(n.address, wg.hub ?? ""))?.name;
    const tunnelAddress = addressAt(subnet, 1);
    const hasKey = wg.privateKey !== undefined;
    hub = {
      address: wg.hub,
      node,
      tunnelAddress,
      tunnelCidr: `${tunnelAddress}/${parseCidr(subnet).prefixLength}`,
      listenPort: wg.listenPort,
      endpoint: wg.endpoint,
      publicKey: wg.publicKey,
      privateKey: hasKey ? ctx.secrets.wireguardHubPrivateKey?.value : undefined,
      configPath: hasKey
        ? node === undefined
          ? `cloud/hub/etc/wireguard/${wg.interface}.conf`
          : `nodes/${node}/etc/wireguard/${wg.interface}.conf`
        : undefined,
    };
  }
  const routed = [subnet, ...ctx.onPremNetworks.filter((n) => !cidrContains(subnet, hostPart(n)))];
  return {
    ...cloud,
    pools,
    tunnelMtu: tunnelMtuOf(wg.underlayMtu),
    snsEndpoint: `${cloud.provisioner.url.replace(/\/+$/, "")}${PROVISIONER_SNS_PATH}`,
    apiServerEndpoint: ctx.apiServerEndpoint,
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
