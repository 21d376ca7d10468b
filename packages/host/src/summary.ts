// The PLAN.md section: which host files to copy or append, and the manual steps.
import { type ClusterPlan, mdTable } from "@clusterspec/core";
import { SYSCTL_FILE } from "./generate.js";
import { needsStorageIsolationGate } from "./view.js";

export function summarizeHost(plan: ClusterPlan): string {
  const gate = plan.nodes.filter((n) => needsStorageIsolationGate(n)).map((n) => n.name);
  const btrfs = plan.nodes.filter((n) => n.rootFilesystem === "btrfs").map((n) => n.name);
  const files: [string, string][] = [
    [SYSCTL_FILE, "ip_forward, ip_nonlocal_bind (IPv4 and IPv6) and spec.host.sysctl; ip_local_port_range untouched"],
    [
      "etc/hosts",
      `localhost and every node's name → its internal address${plan.controlPlane.dnsName ? `; ${plan.controlPlane.dnsName} → the VIP ${plan.controlPlane.host}` : ""}`,
    ],
    ["etc/resolv.conf", `nameservers ${plan.network.nameservers.slice(0, 2).join(", ")} (at most 2)`],
    ["etc/conf.d/modules", "overlay and br_netfilter loaded at boot"],
    [
      "etc/conf.d/kubelet",
      "kubelet flags for kubeadm (config.yaml, kubelet.conf, bootstrap-kubelet.conf, kubeadm-flags.env)",
    ],
    ["etc/crictl.yaml", `crictl pointed at ${plan.kubernetes.criSocket}`],
    ["etc/udev/rules.d/70-persistent-net.rules", "physical interfaces named by MAC (VLANs get no rule)"],
    ["etc/fstab.clusterspec", "**append to /etc/fstab**: mounts /sys/fs/bpf"],
    ["etc/rc.conf.clusterspec", '**append to /etc/rc.conf**: `rc_cgroup_memory_use_hierarchy="yes"`'],
  ];
  if (plan.host.gentooPackages)
    files.push([
      "etc/portage/package.accept_keywords/kubernetes",
      `keywords for sys-cluster/kubeadm, kubelet and kubectl ${plan.kubernetes.version.major}.${plan.kubernetes.version.minor} (\`emerge sys-cluster/kubeadm sys-cluster/kubelet sys-cluster/kubectl\`)`,
    ]);
  const out = [
    "## Host files (Gentoo/OpenRC)",
    "",
    "Copy each `nodes/<node>/` folder onto its server. Two files are snippets to append, because Gentoo reads no drop-in for them:",
    "",
    mdTable(["file", "what"], files),
    "",
    "Manual steps: `cat /etc/fstab.clusterspec >> /etc/fstab` and `cat /etc/rc.conf.clusterspec >> /etc/rc.conf` once;",
    "`rc-update add modules boot`, `rc-update add sysctl boot`, `rc-update add containerd default`, `rc-update add kubelet default`;",
    "`mkdir -p /var/log/kubelet` (the kubelet init script logs there).",
  ];
  if (btrfs.length > 0)
    out.push(
      "",
      gate.length > 0
        ? `Local storage isolation is off on btrfs roots (${gate.join(", ")}) with the kubelet flag \`--feature-gates=LocalStorageCapacityIsolation=false\` (Kubernetes ${plan.kubernetes.versionText}).`
        : `btrfs roots (${btrfs.join(", ")}): from Kubernetes 1.25 local storage isolation is switched off by the kubeadm patch \`etc/kubernetes/patches/kubeletconfiguration+strategic.yaml\`, not here.`,
    );
  const acceptLocal = plan.nodes.filter((n) => n.acceptLocalInterfaces.length > 0);
  if (acceptLocal.length > 0)
    out.push(
      "",
      `Cilium load balancing is \`${plan.cilium.loadBalancerMode}\` (direct server return) behind policy routing: ${acceptLocal.map((n) => `${n.name} (${n.acceptLocalInterfaces.join(", ")})`).join(", ")} get \`accept_local = 1\` in ${SYSCTL_FILE}. With DSR a backend receives the client's packet unchanged; when that client is the node itself, or a VIP it holds, the source address is local and the kernel's source validation (done through the \`ip rule\` tables) drops it (EINVAL, cilium/cilium#17747) unless the interface accepts local sources.`,
    );
  return out.join("\n");
}
