// Every decision about the host files lives here; the templates only loop.
import {
  type ClusterPlan,
  GENTOO_ATOMS,
  generatedMarker,
  KEEPALIVED_MIN_VERSION,
  type PlannedNode,
  vipCarriers,
} from "@clusterspec/core";
import { field, lineText, sysctlValue } from "./escape.js";

export const SYSCTL_FILE = "etc/sysctl.d/90-kubernetes.conf";
/** Appended to /etc/sysctl.conf, which procps applies after sysctl.d. */
export const SYSCTL_CONF_SNIPPET = "etc/sysctl.conf.clusterspec";

/** Set by clusterspec itself; spec.host.sysctl may add others (core's hostSysctlAllowed keeps these out of it). */
export const MANAGED_SYSCTL: readonly (readonly [string, string])[] = [
  ["net.ipv4.ip_forward", "1"],
  ["net.ipv4.ip_nonlocal_bind", "1"],
  ["net.ipv6.ip_nonlocal_bind", "1"],
  // Reverse-path filtering: the kernel uses the larger of `all` and the interface's value. Cilium sets `all` to 0 at
  // agent start (its loader requires it, and zeroes its own lxc/cilium_* interfaces): any higher `all` floors every
  // interface, Cilium's too, so a hardened image's `all = 1` (or Gentoo's stock sysctl.conf) is reset to 0 here.
  // Interfaces created later start loose (`default`), and those with VIPs or policy-routed replies are pinned loose
  // below: strict mode checks a source against the main table only and drops policy-routed and DSR replies.
  ["net.ipv4.conf.all.rp_filter", "0"],
  ["net.ipv4.conf.default.rp_filter", "2"],
];

/**
 * Added where the cluster runs IPv6: a node forwards IPv6 for its pods, and with forwarding on the kernel treats the
 * interface as a router. Addresses and gateways are static, so router advertisements are refused outright (a rogue RA
 * must not add a default route; ip-sysctl.rst, accept_ra). On `all` and `default`: interfaces made later (VLANs) too.
 */
export const MANAGED_SYSCTL_IPV6: readonly (readonly [string, string])[] = [
  ["net.ipv6.conf.all.forwarding", "1"],
  ["net.ipv6.conf.all.accept_ra", "0"],
  ["net.ipv6.conf.default.accept_ra", "0"],
];

/** The global keys clusterspec sets for a plan: the IPv6 ones only where a cluster family is IPv6. */
export function managedSysctlOf(plan: ClusterPlan): readonly (readonly [string, string])[] {
  return plan.kubernetes.families.includes(6) ? [...MANAGED_SYSCTL, ...MANAGED_SYSCTL_IPV6] : MANAGED_SYSCTL;
}

export const KERNEL_MODULES: readonly string[] = ["overlay", "br_netfilter"];

/**
 * Gentoo packages kubeadm nodes need. sys-cluster/kubernetes is gone from ::gentoo since 1.19; kubeadm,
 * kubelet and kubectl are packaged on their own and only in ~arch, so they are keyworded, pinned to the minor.
 */
export const KUBERNETES_PACKAGES: readonly string[] = [
  GENTOO_ATOMS.kubeadm,
  GENTOO_ATOMS.kubelet,
  GENTOO_ATOMS.kubectl,
];

/**
 * /etc/fstab lines for /sys/fs/bpf. OpenRC's sysfs service (sysinit) already mounts bpffs there, private, with source
 * `bpf` (init.d/sysfs.in, mount_misc, OpenRC 0.62 and later); a line with another source (`bpffs`) makes localmount's
 * `mount -a` stack a second bpffs over it. The first line has the same source, so `mount -a` finds it mounted and
 * skips it (and mounts it where sysfs did not); the second only turns the mount shared: Cilium's mount-bpf-fs init
 * container mounts /sys/fs/bpf with Bidirectional propagation, which containerd refuses on a private mount, and OpenRC,
 * unlike systemd, leaves mounts private. Tested with `mount -a` in a mount namespace (packages/host/test).
 */
export const BPF_FSTAB_LINES: readonly (readonly string[])[] = [
  ["bpf", "/sys/fs/bpf", "bpf", "rw,nosuid,nodev,noexec,relatime", "0", "0"],
  ["none", "/sys/fs/bpf", "none", "shared", "0", "0"],
];

export interface HostView {
  readonly marker: string;
  readonly node: string;
  readonly sysctl: readonly { readonly key: string; readonly value: string }[];
  /** The keys clusterspec sets (no spec.host.sysctl extras): repeated at the end of /etc/sysctl.conf. */
  readonly managedSysctl: readonly { readonly key: string; readonly value: string }[];
  readonly hosts: readonly { readonly address: string; readonly names: readonly string[] }[];
  readonly modules: readonly string[];
  /** kubelet flags before kubeadm's `${KUBELET_KUBEADM_ARGS}`, and after it. */
  readonly kubeletArgs: readonly string[];
  readonly kubeletExtraArgs: readonly string[];
  readonly udev: readonly { readonly mac: string; readonly name: string }[];
  /** /etc/fstab lines, each as its fields. */
  readonly fstab: readonly (readonly string[])[];
  /** package.accept_keywords atoms, e.g. `=sys-cluster/kubeadm-1.34*`, and keepalived where the node holds a VIP. */
  readonly kubernetesPackages: readonly string[];
  /** rc.conf lines for cgroup v1 (hybrid, legacy); empty with OpenRC's default unified mode. */
  readonly rcConf: readonly { readonly name: string; readonly value: string }[];
}

/** `net.ipv4.conf.<if>.<leaf>`, in the slash form for a name with dots (a VLAN such as wan0.4000), where the
 * dots are part of the name: how procps' sysctl reads it. */
export function interfaceKey(iface: string, leaf: string): string {
  return iface.includes(".") ? `net/ipv4/conf/${iface}/${leaf}` : `net.ipv4.conf.${iface}.${leaf}`;
}

/**
 * The sysctl lines clusterspec owns on a node, in file order: global keys only. Per-interface keys
 * (`node.interfaceSysctls`) are set by netifrc's postup() when each interface comes up: OpenRC's sysctl service
 * runs in the boot runlevel, before net.<parent> creates a VLAN, and `sysctl --system` fails on a key whose
 * interface does not exist yet (the value would stay at the kernel's).
 */
export function managedSysctl(plan: ClusterPlan, _node: PlannedNode): { key: string; value: string }[] {
  return managedSysctlOf(plan).map(([key, value]) => ({ key, value }));
}

/** OpenRC's rc.conf for the cgroup mode: nothing for unified (its default); cgroup v1 also needs hierarchical memory accounting. */
export function rcConfLines(mode: ClusterPlan["host"]["cgroupMode"]): { name: string; value: string }[] {
  return mode === "unified"
    ? []
    : [
        { name: "rc_cgroup_mode", value: mode },
        { name: "rc_cgroup_memory_use_hierarchy", value: "yes" },
      ];
}

/** The plan decides: the feature gate up to 1.24; from 1.25 it is locked and a kubeadm patch sets the field. */
export function needsStorageIsolationGate(node: PlannedNode): boolean {
  return node.localStorageIsolationOff === "kubelet-feature-gate";
}

const hostsByPlan = new WeakMap<ClusterPlan, HostView["hosts"]>();

/** /etc/hosts' entries: the same for every node of a plan, so built once per plan. */
function hostsOf(plan: ClusterPlan): HostView["hosts"] {
  let hosts = hostsByPlan.get(plan);
  if (hosts === undefined) {
    hosts = [
      { address: "127.0.0.1", names: ["localhost"] },
      { address: "::1", names: ["localhost"] },
      // Every family's address: a dual-stack node resolves by either (primary first, as the kubelet's node-ip).
      ...plan.nodes.flatMap((n) => n.internalAddresses.map((address) => ({ address, names: [n.name] }))),
      // Nodes reach their own API server without external DNS.
      ...(plan.controlPlane.dnsName === undefined
        ? []
        : [{ address: plan.controlPlane.host, names: [plan.controlPlane.dnsName] }]),
    ];
    hostsByPlan.set(plan, hosts);
  }
  return hosts;
}

/**
 * The atoms a stable-only system must accept from ~arch (packages/host/data/gentoo-atoms.json: KEYWORDS of every
 * version checked): kubeadm, kubelet and kubectl of the cluster's minor; keepalived, from the oldest version the
 * configuration is checked with, on the nodes that hold a VIP.
 */
export function acceptKeywords(plan: ClusterPlan, node: PlannedNode): string[] {
  const minor = `${plan.kubernetes.version.major}.${plan.kubernetes.version.minor}`;
  // the carriers' set, built once per plan: 300 nodes each searching 254 orders of 254 names was 12 ms a tree
  const holdsVip = vipCarriers(plan.vips).has(node.name);
  return [
    ...KUBERNETES_PACKAGES.map((p) => `=${p}-${minor}*`),
    ...(holdsVip ? [`>=${GENTOO_ATOMS.keepalived}-${KEEPALIVED_MIN_VERSION}`] : []),
  ];
}

export function toHostView(plan: ClusterPlan, node: PlannedNode): HostView {
  // sysctl strips blanks around a value itself, so trimming changes nothing it would apply.
  const extras = plan.host.sysctl.map(({ key, value }) => ({ key: field(key), value: sysctlValue(value.trim()) }));
  const managed = managedSysctl(plan, node).map(({ key, value }) => ({ key: field(key), value: sysctlValue(value) }));
  return {
    marker: lineText(generatedMarker(plan)),
    node: node.name,
    sysctl: [...managed, ...extras],
    managedSysctl: managed,
    hosts: hostsOf(plan),
    modules: KERNEL_MODULES,
    kubeletArgs: [
      "--config=/var/lib/kubelet/config.yaml",
      "--kubeconfig=/etc/kubernetes/kubelet.conf",
      "--bootstrap-kubeconfig=/etc/kubernetes/bootstrap-kubelet.conf",
    ],
    kubeletExtraArgs: needsStorageIsolationGate(node) ? ["--feature-gates=LocalStorageCapacityIsolation=false"] : [],
    udev: node.interfaces.flatMap((f) => (f.vlan || f.mac === undefined ? [] : [{ mac: f.mac, name: f.name }])),
    fstab: BPF_FSTAB_LINES,
    kubernetesPackages: acceptKeywords(plan, node),
    rcConf: rcConfLines(plan.host.cgroupMode),
  };
}
