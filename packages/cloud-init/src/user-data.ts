// cloud-config for a burst node pool, built as an object and serialised with toYaml.
import {
  BURST_ROOT_FILESYSTEM,
  type BurstPlan,
  type CloudPlan,
  DATA_VOLUME_LAYOUT,
  formatExtraArgs,
  generatedMarker,
  InternalError,
  ipFamily,
  kubernetesContract,
  type PlannedPool,
  shellQuote,
  storageIsolationOff,
  toYaml,
} from "@clusterspec/core";
import {
  DISCOVERY_KUBECONFIG_PATH,
  JOIN_ENV_KEYS,
  JOIN_ENV_PATH,
  JOIN_SCRIPT_PATH,
  JOIN_TEMPLATE_PATH,
  type JoinEnv,
  NODE_IP_PLACEHOLDER,
  NODE_NAME_PLACEHOLDER,
  PROVIDER_ID_PLACEHOLDER,
  shippedJoinScript,
  TEMPLATE_LABELS,
} from "./join-script.js";

export const CRIO_SOCKET = "unix:///var/run/crio/crio.sock";

/** Where the burst node's kubeadm patches live; kubeadm applies them on join. */
export const BURST_PATCHES_DIRECTORY = "/etc/clusterspec/kubeadm-patches";
export const BURST_KUBELET_PATCH_FILE = "kubeletconfiguration+strategic.yaml";

/** A burst node runs Fedora with systemd: the kubelet and cri-o use the systemd cgroup driver whatever the cluster's. */
export const BURST_CGROUP_DRIVER = "systemd";

/**
 * How a burst node's kubelet differs from the cluster's KubeletConfiguration, and how: a kubeadm patch from 1.25,
 * kubelet flags before (no kubeletconfiguration patches then). The systemd cgroup driver (Fedora, cri-o) and, on
 * Fedora Cloud's btrfs root, local storage isolation off, as on on-prem btrfs nodes.
 */
export function burstKubeletSettings(
  plan: BurstPlan,
  /** a pool with a data volume keeps isolation on: /var/lib/kubelet is on its xfs or ext4 partition */
  pool?: PlannedPool,
): {
  readonly patch: Record<string, unknown> | undefined;
  readonly flags: Record<string, string>;
} {
  const minor = plan.kubernetes.version.minor;
  const off = storageIsolationOff(pool?.dataVolume?.filesystem ?? BURST_ROOT_FILESYSTEM, minor);
  if (off === "kubelet-feature-gate")
    return {
      patch: undefined,
      flags: { "cgroup-driver": BURST_CGROUP_DRIVER, "feature-gates": "LocalStorageCapacityIsolation=false" },
    };
  if (off === undefined && !kubernetesContract(minor).supportsKubeletConfigPatches())
    return { patch: undefined, flags: { "cgroup-driver": BURST_CGROUP_DRIVER } };
  // strategic merge patch of the cluster's KubeletConfiguration, bare fields as on-prem nodes' patches
  return {
    patch: {
      cgroupDriver: BURST_CGROUP_DRIVER,
      ...(off === "kubelet-config-patch" ? { localStorageCapacityIsolation: false } : {}),
    },
    flags: {},
  };
}

/** A comment line for a generated file: never more than one line, whatever the source name holds. */
function comment(plan: BurstPlan): string {
  return `# ${generatedMarker(plan)}\n`;
}

/** Fedora's versioned packages (Fedora 41 and newer: kubernetesX.Y and cri-oX.Y share the Kubernetes minor) and what preflight checks. */
export function fedoraPackages(cloud: CloudPlan): string[] {
  return cloud.packages.map((p) => p.name);
}

/** join.env: one `KEY='value'` line each, shell-quoted, sourced by the join script. */
export function renderJoinEnv(plan: BurstPlan, env: JoinEnv): string {
  return comment(plan) + JOIN_ENV_KEYS.map((k) => `${k}=${shellQuote(env[k])}\n`).join("");
}

export function joinEnvFor(plan: BurstPlan, cloud: CloudPlan, pool: PlannedPool): JoinEnv {
  return {
    CLUSTER_NAME: plan.name,
    POOL_NAME: pool.name,
    PROVISIONER_URL: cloud.provisioner.url.replace(/\/+$/, ""),
    WG_INTERFACE: cloud.wireguard.interface,
    // the families of the node's tunnel addresses (node-ip), the cluster's primary first: "4", "6" or "4 6"
    TUNNEL_FAMILY:
      cloud.nodeIpFamilies.length > 0 ? cloud.nodeIpFamilies.join(" ") : String(ipFamily(cloud.wireguard.tunnelSubnet)),
    TUNNEL_MTU: String(cloud.tunnelMtu),
    NAMESERVERS: cloud.nameservers.join(" "),
    PACKAGES: fedoraPackages(cloud).join(" "),
    KUBERNETES_VERSION: plan.kubernetes.versionText,
    // the join script refuses anything but sha256:<64 hex> (a review tree's placeholder too)
    CA_CERT_HASH: cloud.caCertHash ?? "",
  };
}

/** The JoinConfiguration with placeholders the join script replaces at boot (node name = instance id, tunnel address, provider id). */
export function joinConfiguration(plan: BurstPlan, pool: PlannedPool): Record<string, unknown> {
  // the pool's labels and the zone, region and instance type (from IMDS at boot), as Cluster Autoscaler's template has them
  const all: Record<string, string> = { ...pool.labels, ...TEMPLATE_LABELS };
  const labels = Object.keys(all)
    .sort()
    .map((k) => `${k}=${all[k] ?? ""}`)
    .join(",");
  const kubelet = burstKubeletSettings(plan, pool);
  const kubeletArgs: Record<string, string> = {
    ...kubelet.flags,
    "node-ip": NODE_IP_PLACEHOLDER,
    "provider-id": PROVIDER_ID_PLACEHOLDER,
    ...(labels === "" ? {} : { "node-labels": labels }),
  };
  return {
    apiVersion: plan.kubernetes.kubeadmApiVersion,
    kind: "JoinConfiguration",
    discovery: { file: { kubeConfigPath: DISCOVERY_KUBECONFIG_PATH } },
    nodeRegistration: {
      name: NODE_NAME_PLACEHOLDER,
      criSocket: CRIO_SOCKET,
      kubeletExtraArgs: formatExtraArgs(plan.kubernetes.kubeadmApiVersion, kubeletArgs),
      taints: pool.taints.map((t) => ({ key: t.key, ...(t.value === "" ? {} : { value: t.value }), effect: t.effect })),
    },
    ...(kubelet.patch === undefined ? {} : { patches: { directory: BURST_PATCHES_DIRECTORY } }),
  };
}

function iniFile(plan: BurstPlan, lines: readonly string[]): string {
  return comment(plan) + lines.map((l) => `${l}\n`).join("");
}

/** The cloud-config object of one pool, in the order it ships. */
export function userDataObject(plan: BurstPlan, pool: PlannedPool): Record<string, unknown> {
  const cloud = plan.cloud;
  if (!cloud) throw new InternalError("user data needs plan.cloud");
  for (const ns of cloud.nameservers)
    if (!/^[0-9A-Fa-f.:]+$/.test(ns)) throw new InternalError(`nameserver ${ns} is not an IP address`);
  const cgroup = BURST_CGROUP_DRIVER;
  const kubeletPatch = burstKubeletSettings(plan, pool).patch;
  const file = (path: string, content: string, permissions = "0644") => ({ path, content, permissions });
  return {
    ...dataVolumeConfig(pool),
    packages: fedoraPackages(cloud),
    write_files: [
      file("/etc/modules-load.d/clusterspec.conf", iniFile(plan, ["overlay", "br_netfilter", "wireguard"])),
      file(
        "/etc/sysctl.d/90-clusterspec.conf",
        iniFile(plan, [
          "net.ipv4.ip_forward = 1",
          "net.bridge.bridge-nf-call-iptables = 1",
          "net.bridge.bridge-nf-call-ip6tables = 1",
          // a node with IPv6 pods forwards IPv6, and kubeadm's join preflight refuses an IPv6 API endpoint unless
          // /proc/sys/net/ipv6/conf/default/forwarding is 1 (Cilium sets `all` only once its agent runs, after the join)
          ...(cloud.nodeIpFamilies.includes(6)
            ? ["net.ipv6.conf.all.forwarding = 1", "net.ipv6.conf.default.forwarding = 1"]
            : []),
        ]),
      ),
      // an empty zram-generator config turns Fedora's zram swap off; the kubelet refuses swap by default
      file("/etc/systemd/zram-generator.conf", comment(plan)),
      // Fedora runs systemd: cri-o and the kubelet (patched above the cluster's configuration) use its cgroup driver
      file(
        "/etc/crio/crio.conf.d/90-clusterspec.conf",
        iniFile(plan, [
          "[crio.runtime]",
          `cgroup_manager = "${cgroup}"`,
          `conmon_cgroup = "${cgroup === "systemd" ? "system.slice" : "pod"}"`,
        ]),
      ),
      // NetworkManager stops handing the DHCP (AWS) DNS server to systemd-resolved; resolved uses the on-prem ones
      file("/etc/NetworkManager/conf.d/90-clusterspec-dns.conf", iniFile(plan, ["[main]", "dns=none"])),
      file(
        "/etc/systemd/resolved.conf.d/90-clusterspec-dns.conf",
        iniFile(plan, [
          "[Resolve]",
          `DNS=${cloud.nameservers.join(" ")}`,
          `Domains=${["~.", ...cloud.searchDomains].join(" ")}`,
        ]),
      ),
      // controlPlane.dnsName is the endpoint every kubeconfig names: burst nodes resolve it to the VIP like on-prem ones
      ...(cloud.apiHostAlias === undefined
        ? []
        : [
            { path: "/etc/hosts", content: `${cloud.apiHostAlias.address} ${cloud.apiHostAlias.name}\n`, append: true },
          ]),
      file(JOIN_ENV_PATH, renderJoinEnv(plan, joinEnvFor(plan, cloud, pool))),
      file(JOIN_TEMPLATE_PATH, comment(plan) + toYaml(joinConfiguration(plan, pool))),
      ...(kubeletPatch === undefined
        ? []
        : [file(`${BURST_PATCHES_DIRECTORY}/${BURST_KUBELET_PATCH_FILE}`, comment(plan) + toYaml(kubeletPatch))]),
      file(
        JOIN_SCRIPT_PATH,
        shippedJoinScript(generatedMarker(plan), cloud.nodeIpFamilies, pool.ipv6 === "only" ? "ipv6" : "ipv4"),
        "0755",
      ),
    ],
    runcmd: [[JOIN_SCRIPT_PATH]],
  };
}

/**
 * A pool's data volume (`dataVolume`): cloud-init partitions it (GPT, never over an existing table), makes a
 * labelled filesystem on each partition (never over an existing one) and mounts them by label on /var/lib/kubelet
 * and /var/lib/containers before the join script runs (cc_disk_setup and cc_mounts run in cloud-init's init stage,
 * runcmd in its final stage).
 */
export function dataVolumeConfig(pool: PlannedPool): Record<string, unknown> {
  const v = pool.dataVolume;
  if (v === undefined) return {};
  const d = DATA_VOLUME_LAYOUT;
  return {
    disk_setup: { [d.device]: { table_type: "gpt", layout: d.partitions.map((p) => p.percent), overwrite: false } },
    fs_setup: d.partitions.map((p, i) => ({
      label: p.label,
      filesystem: v.filesystem,
      // cloud-init's dotted form <device>.<partition number> (the schema takes only auto, any or none as partition)
      device: `${d.device}.${i + 1}`,
      overwrite: false,
    })),
    mounts: d.partitions.map((p) => [`LABEL=${p.label}`, p.mountPoint, v.filesystem, "defaults,nofail", "0", "2"]),
  };
}

export function renderUserData(plan: BurstPlan, pool: PlannedPool): string {
  return `#cloud-config\n${comment(plan)}${toYaml(userDataObject(plan, pool))}`;
}
