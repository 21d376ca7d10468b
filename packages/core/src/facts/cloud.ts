// Facts about cloud pools shared by spec rules and the Terraform generator: the Auto Scaling Group tags
// Cluster Autoscaler reads, and which node labels a kubelet may set on itself.
import type { IssuePath } from "../issues.js";
import type { PoolSpec } from "../spec/schema.js";

export interface AsgTag {
  readonly key: string;
  readonly value: string;
  /** Copied to the instances; Cluster Autoscaler reads the tags of the group itself. */
  readonly propagateAtLaunch: boolean;
  /** The spec field the tag comes from: the pool's name, or one of its labels, taints or resources. */
  readonly specPath: IssuePath;
}

/**
 * The EC2 instance families that run on Xen rather than the Nitro System (AWS EC2 User Guide, "Instances built on the
 * AWS Nitro System": every current family but these is Nitro). IMDS over IPv6 (metadata_options.http_protocol_ipv6,
 * the endpoint [fd00:ec2::254]) is served only to Nitro instances. m4.16xlarge, p3dn.24xlarge and i3.metal are
 * Nitro although their families are not.
 */
const XEN_FAMILIES = new Set([
  "c1",
  "c3",
  "c4",
  "cc2",
  "cr1",
  "d2",
  "f1",
  "g2",
  "g3",
  "g3s",
  "h1",
  "hi1",
  "hs1",
  "i2",
  "i3",
  "m1",
  "m2",
  "m3",
  "m4",
  "p2",
  "p3",
  "r3",
  "r4",
  "t1",
  "t2",
  "x1",
  "x1e",
]);
const NITRO_EXCEPTIONS = new Set(["m4.16xlarge", "p3dn.24xlarge", "i3.metal"]);

/** Whether an EC2 instance type runs on the Nitro System (and so may use IMDS over IPv6). */
export function isNitroInstanceType(instanceType: string): boolean {
  const family = instanceType.slice(0, instanceType.indexOf("."));
  return NITRO_EXCEPTIONS.has(instanceType) || !XEN_FAMILIES.has(family);
}

/** AWS limits on Auto Scaling Group tags. */
export const ASG_TAG_LIMITS = { count: 50, keyLength: 128, valueLength: 256 } as const;

/** The prefix of every Cluster Autoscaler tag; `<prefix>/<cluster> = owned` scopes its IAM policy. */
export const AUTOSCALER_TAG_PREFIX = "k8s.io/cluster-autoscaler";
const CA = AUTOSCALER_TAG_PREFIX;

/** Fedora Cloud's root filesystem: what burst nodes' kubelet and cri-o keep their data on. */
export const BURST_ROOT_FILESYSTEM: "btrfs" | "xfs" | "ext4" = "btrfs";

/**
 * Whether a burst node's kubelet reports ephemeral-storage capacity: only with local storage capacity isolation on.
 * cadvisor cannot find the device of a btrfs root (the kubelet stops with "failed to get rootfs info"), so isolation
 * is switched off there for every version (storageIsolationOff: feature gate or KubeletConfiguration field), as on
 * on-prem btrfs nodes; such a node offers no ephemeral-storage, and a pod that requests any never fits it.
 */
export const BURST_NODES_REPORT_EPHEMERAL_STORAGE = BURST_ROOT_FILESYSTEM !== "btrfs";

/** kubelet's default hard eviction threshold for the node filesystem (nodefs.available<10%). */
const NODEFS_EVICTION_PERCENT = 10;

/**
 * The ephemeral storage Cluster Autoscaler assumes a new node of the pool offers (its node-template tag): the root
 * volume (Fedora Cloud's btrfs root holds the kubelet's and cri-o's data) less the kubelet's default hard eviction
 * threshold, in Mi. Without the tag, a pool at zero looks like it offers none, and a pod that requests ephemeral
 * storage never triggers a scale-up.
 */
export function ephemeralStorageOf(rootVolumeGiB: number): string {
  return `${Math.floor((rootVolumeGiB * 1024 * (100 - NODEFS_EVICTION_PERCENT)) / 100)}Mi`;
}

/**
 * The ephemeral storage of a pool with a data volume (`dataVolume`): its first partition, half the volume, holds
 * /var/lib/kubelet (the kubelet's nodefs), less the hard eviction threshold, in Mi. The filesystem's own overhead
 * (about 1% for xfs, 2% for ext4) lies within the 10% the threshold leaves.
 */
export function dataVolumeEphemeralStorageOf(sizeGiB: number): string {
  return `${Math.floor((sizeGiB * 512 * (100 - NODEFS_EVICTION_PERCENT)) / 100)}Mi`;
}

/** How a pool's data volume is laid out: the device EC2 attaches it as, the partitions and their labels. */
export const DATA_VOLUME_LAYOUT = {
  /** the launch template's device name; on Nitro instances the second NVMe device */
  awsDeviceName: "/dev/sdb",
  device: "/dev/nvme1n1",
  partitions: [
    { label: "cs-kubelet", mountPoint: "/var/lib/kubelet", percent: 50 },
    { label: "cs-containers", mountPoint: "/var/lib/containers", percent: 50 },
  ],
} as const;

/**
 * The tags of a pool's Auto Scaling Group: a Name, Cluster Autoscaler auto-discovery, and the
 * node-template tags that let it scale from zero (labels, taints as `<value>:<Effect>`, the ephemeral storage derived
 * from the root volume when the node reports it and `resources` does not name it, resources).
 */
export function autoscalerTags(
  clusterName: string,
  pool: PoolSpec,
  poolPath: IssuePath,
  /** whether the node's kubelet reports ephemeral-storage: only then is it derived (on btrfs, only with a data volume) */
  reportsEphemeralStorage: boolean = BURST_NODES_REPORT_EPHEMERAL_STORAGE || pool.dataVolume !== undefined,
): AsgTag[] {
  const name = [...poolPath, "name"];
  const ca = (key: string, value: string, specPath: IssuePath): AsgTag => ({
    key: `${CA}/${key}`,
    value,
    propagateAtLaunch: false,
    specPath,
  });
  return [
    { key: "Name", value: `${clusterName}-${pool.name}`, propagateAtLaunch: true, specPath: name },
    ca("enabled", "true", name),
    ca(clusterName, "owned", name),
    ...Object.keys(pool.labels)
      .sort()
      .map((k) => ca(`node-template/label/${k}`, pool.labels[k] ?? "", [...poolPath, "labels", k])),
    ...pool.taints.map((t, j) =>
      ca(`node-template/taint/${t.key}`, `${t.value}:${t.effect}`, [...poolPath, "taints", j]),
    ),
    ...("ephemeral-storage" in pool.resources || !reportsEphemeralStorage
      ? []
      : [
          pool.dataVolume === undefined
            ? ca("node-template/resources/ephemeral-storage", ephemeralStorageOf(pool.rootVolumeGiB), [
                ...poolPath,
                "rootVolumeGiB",
              ])
            : ca("node-template/resources/ephemeral-storage", dataVolumeEphemeralStorageOf(pool.dataVolume.sizeGiB), [
                ...poolPath,
                "dataVolume",
                "sizeGiB",
              ]),
        ]),
    ...Object.keys(pool.resources)
      .sort()
      .map((k) => ca(`node-template/resources/${k}`, pool.resources[k] ?? "", [...poolPath, "resources", k])),
  ];
}

const KUBELET_LABELS = new Set([
  "kubernetes.io/hostname",
  "kubernetes.io/arch",
  "kubernetes.io/os",
  "beta.kubernetes.io/arch",
  "beta.kubernetes.io/os",
  "beta.kubernetes.io/instance-type",
  "node.kubernetes.io/instance-type",
  "failure-domain.beta.kubernetes.io/zone",
  "failure-domain.beta.kubernetes.io/region",
  "topology.kubernetes.io/zone",
  "topology.kubernetes.io/region",
  "node.kubernetes.io/windows-build",
]);

/** Whether a kubelet may set this label on its own Node (`--node-labels`; kubelet's IsKubeletLabel and NodeRestriction). */
export function kubeletMaySetLabel(key: string): boolean {
  const slash = key.indexOf("/");
  const ns = slash < 0 ? "" : key.slice(0, slash);
  const under = (domain: string) => ns === domain || ns.endsWith(`.${domain}`);
  if (!under("kubernetes.io") && !under("k8s.io")) return true;
  if (KUBELET_LABELS.has(key)) return true;
  return under("kubelet.kubernetes.io") || under("node.kubernetes.io");
}

/**
 * Cluster Autoscaler's timings the burst relies on, written explicitly into its values so they never drift with its
 * defaults (the same values as its defaults, cluster-autoscaler/FAQ.md "What are the parameters to CA?"):
 * an instance that has not registered a Node after maxNodeProvision is deleted with the group's desired capacity
 * decremented, and the scale-up counts as failed, which backs the group off for initialBackoff, doubling up to
 * maxBackoff. The join script gives up before maxNodeProvision (its deadline) and then leaves the instance running,
 * unjoined, so that this deletion, not a replacement by the Auto Scaling Group, ends it.
 */
export const AUTOSCALER_TIMINGS = {
  maxNodeProvisionSeconds: 900,
  initialBackoffSeconds: 300,
  maxBackoffSeconds: 1800,
  scanIntervalSeconds: 10,
} as const;
