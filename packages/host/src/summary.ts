// The PLAN.md section: which host files to copy or append, and the manual steps.
import { type ClusterPlan, KEEPALIVED_MIN_VERSION, mdTable } from "@clusterspec/core";
import { summarizeExposure } from "./exposure.js";
import { FIREWALL_RULES_FILE, FIREWALL_SERVICE_FILE, FIREWALL_TABLE } from "./firewall.js";
import {
  interfaceKey,
  managedSysctlOf,
  needsStorageIsolationGate,
  rcConfLines,
  SYSCTL_CONF_SNIPPET,
  SYSCTL_FILE,
} from "./view.js";

/** PLAN.md's post-reboot check: every key clusterspec sets on the nodes (a VLAN's in the slash form sysctl reads), its value and what sets it. */
function sysctlCheck(plan: ClusterPlan): string {
  const rows: [string, string, string][] = [
    ...managedSysctlOf(plan).map(([key, value]): [string, string, string] => [
      `\`${key}\``,
      value,
      `${SYSCTL_FILE} at boot (OpenRC's sysctl service), and ${SYSCTL_CONF_SNIPPET} at the end of /etc/sysctl.conf`,
    ]),
  ];
  const perInterface = new Map<string, { value: string; nodes: string[] }>();
  for (const n of plan.nodes)
    for (const s of n.interfaceSysctls) {
      const key = interfaceKey(s.interface, s.key);
      const seen = perInterface.get(key) ?? { value: s.value, nodes: [] };
      seen.nodes.push(n.name);
      perInterface.set(key, seen);
    }
  for (const [key, { value, nodes }] of perInterface) {
    const iface = plan.nodes.flatMap((n) => n.interfaceSysctls).find((s) => interfaceKey(s.interface, s.key) === key);
    rows.push([
      `\`${key}\``,
      value,
      `\`postup()\` in /etc/conf.d/net when net.${iface?.interface} comes up${nodes.length === plan.nodes.length ? "" : ` (${nodes.join(", ")})`}`,
    ]);
  }
  return [
    `**Check the kernel settings after a reboot** (and after \`rc-service sysctl restart\` or restarting a net.<interface> service): \`sysctl ${rows.map((r) => r[0].slice(1, -1)).join(" ")}\` must print these values, every key clusterspec sets (a per-interface key only on the nodes that have the interface):`,
    "",
    mdTable(["key", "value", "set by"], rows),
    "",
    "Per-interface keys are not in sysctl.d: OpenRC's sysctl service runs `sysctl --system` in the boot runlevel (before bootmisc), while a VLAN exists only once net.<parent> (default runlevel) creates it; `sysctl --system` then fails on its key and the value stays the kernel's. netifrc calls `postup()` for every interface it brings up, VLANs included, after `sysctl --system`, so the value is right as soon as the interface exists. Neither key can be set once on `all`: the kernel uses the larger of `all` and an interface's rp_filter, and accept_local on `all` would accept local sources on every interface, the public ones too.",
    "",
    `\`all\` rp_filter stays 0: the kernel applies the larger of \`all\` and an interface's value, Cilium's agent sets \`all\` to 0 when it starts and zeroes its own interfaces, and a higher \`all\` (re-applied by a later \`sysctl --system\`) makes every interface filter until the agent re-initialises. procps' \`sysctl --system\` (OpenRC's sysctl service) applies \`/etc/sysctl.d/*.conf\` by file name and then \`/etc/sysctl.conf\` last, so a key set there wins over ${SYSCTL_FILE} (Gentoo's stock /etc/sysctl.conf sets \`rp_filter = 1\` on default and all, hardened images also \`ip_forward = 0\`): \`grep -nE '^[^#]*(ip_forward|rp_filter|ip_nonlocal_bind|accept_local)' /etc/sysctl.conf\` must show ${SYSCTL_CONF_SNIPPET}'s lines last. Busybox sysctl applies /etc/sysctl.conf first and sysctl.d after it, where ${SYSCTL_FILE} already sets them.`,
  ].join("\n");
}

export function summarizeHost(plan: ClusterPlan): string {
  const gate = plan.nodes.filter((n) => needsStorageIsolationGate(n)).map((n) => n.name);
  const btrfs = plan.nodes.filter((n) => n.rootFilesystem === "btrfs").map((n) => n.name);
  const files: [string, string][] = [
    [
      SYSCTL_FILE,
      "ip_forward, ip_nonlocal_bind (IPv4 and IPv6), rp_filter (all 0, as Cilium sets it; default 2, loose) and spec.host.sysctl; ip_local_port_range untouched. Per-interface keys are set by netifrc (below)",
    ],
    [
      SYSCTL_CONF_SNIPPET,
      "**append to the end of /etc/sysctl.conf**: the same keys clusterspec sets, because `sysctl --system` applies /etc/sysctl.conf after every sysctl.d file",
    ],
    [
      "etc/hosts",
      `localhost and every node's name → its internal address${plan.controlPlane.dnsName ? `; ${plan.controlPlane.dnsName} → the VIP ${plan.controlPlane.host}` : ""}`,
    ],
    ["etc/conf.d/modules", "overlay and br_netfilter loaded at boot"],
    [
      "etc/conf.d/kubelet",
      "kubelet flags for kubeadm (config.yaml, kubelet.conf, bootstrap-kubelet.conf, kubeadm-flags.env)",
    ],
    ["etc/crictl.yaml", `crictl pointed at ${plan.kubernetes.criSocket}`],
    ["etc/udev/rules.d/70-persistent-net.rules", "physical interfaces named by MAC (VLANs get no rule)"],
    [
      "etc/fstab.clusterspec",
      "**append to /etc/fstab**: /sys/fs/bpf shared, on the bpffs OpenRC's sysfs service mounts (once: `grep -c ' /sys/fs/bpf ' /proc/self/mountinfo` prints 1)",
    ],
  ];
  const rc = rcConfLines(plan.host.cgroupMode);
  if (rc.length > 0)
    files.push([
      "etc/rc.conf.clusterspec",
      `**append to /etc/rc.conf**: ${rc.map((l) => `\`${l.name}="${l.value}"\``).join(", ")} (cgroup v1)`,
    ]);
  if (plan.host.firewall)
    files.push(
      [FIREWALL_RULES_FILE, `nftables table \`inet ${FIREWALL_TABLE}\`: the host firewall on the public interfaces`],
      [FIREWALL_SERVICE_FILE, "OpenRC service (0755) that loads it before `net`"],
    );
  if (plan.host.gentooPackages)
    files.push([
      "etc/portage/package.accept_keywords/kubernetes",
      `keywords for sys-cluster/kubeadm, kubelet and kubectl ${plan.kubernetes.version.major}.${plan.kubernetes.version.minor}${plan.vips.length > 0 ? ` and, on the nodes that hold a VIP, sys-cluster/keepalived ${KEEPALIVED_MIN_VERSION} or later` : ""}, all ~arch only in ::gentoo (\`emerge sys-cluster/kubeadm sys-cluster/kubelet sys-cluster/kubectl\`)`,
    ]);
  const out = [
    "## Host files (Gentoo/OpenRC)",
    "",
    "Copy each `nodes/<node>/` folder onto its server. The `*.clusterspec` files are snippets to append, because Gentoo reads no drop-in for them (or, for sysctl.conf, reads it last):",
    "",
    mdTable(["file", "what"], files),
    "",
    `Manual steps: \`cat /etc/fstab.clusterspec >> /etc/fstab\`, \`cat /etc/sysctl.conf.clusterspec >> /etc/sysctl.conf\`${rc.length > 0 ? " and `cat /etc/rc.conf.clusterspec >> /etc/rc.conf`" : ""} once;`,
    `\`rc-update add modules boot\`, \`rc-update add sysctl boot\`${plan.host.firewall ? ", `rc-update add clusterspec-firewall boot` (needs `net-firewall/nftables`)" : ""}, \`rc-update add containerd default\`, \`rc-update add kubelet default\`;`,
    "`mkdir -p /var/log/kubelet` (the kubelet init script logs there).",
    "",
    "Gentoo's own `nftables` service (net-firewall/nftables) runs `nft flush ruleset` on start, reload and stop (its `files/libexec/nftables.sh clear`): it would wipe every table on the node, Cilium's and kube-proxy's included" +
      (plan.host.firewall ? ` and ${FIREWALL_TABLE}` : "") +
      ". **Do not enable it** (`rc-update del nftables` where an image enables it); " +
      (plan.host.firewall
        ? "the host firewall has its own service, which replaces only its own table."
        : "add rules of your own as a table loaded by a service of its own, as `host.firewall` does."),
    "",
    sysctlCheck(plan),
    "",
    plan.host.cgroupMode === "unified"
      ? 'cgroups: OpenRC\'s default `rc_cgroup_mode="unified"` (cgroup v2) is what the kubelet wants; nothing is written for it (`rc_cgroup_memory_use_hierarchy` only exists for cgroup v1). Check: `stat -fc %T /sys/fs/cgroup` prints `cgroup2fs`.'
      : `cgroups: \`rc_cgroup_mode="${plan.host.cgroupMode}"\` is cgroup v1 for the kubelet, with hierarchical memory accounting; cgroup v1 is in maintenance mode since Kubernetes 1.31, prefer \`unified\`.`,
    "",
    `/etc/resolv.conf has one writer: netifrc (\`dns_servers_${plan.network.kubernetesSegment.interface.replace(/[^A-Za-z0-9_]/g, "_")}\` in /etc/conf.d/net) writes it when net.${plan.network.kubernetesSegment.interface} starts (through resolvconf when installed); the node folders carry no resolv.conf.`,
  ];
  if (btrfs.length > 0)
    out.push(
      "",
      gate.length > 0
        ? `Local storage isolation is off on btrfs roots (${gate.join(", ")}) with the kubelet flag \`--feature-gates=LocalStorageCapacityIsolation=false\` (Kubernetes ${plan.kubernetes.versionText}).`
        : `btrfs roots (${btrfs.join(", ")}): from Kubernetes 1.25 local storage isolation is switched off by kubeadm (${plan.nodes.some((n) => n.localStorageIsolationOff === "kubelet-config") ? "in the cluster-wide KubeletConfiguration" : "the patch `etc/kubernetes/patches/kubeletconfiguration+strategic.yaml`"}; see the kubeadm section), not here.`,
    );
  const acceptLocal = plan.nodes.filter((n) => n.acceptLocalInterfaces.length > 0);
  if (acceptLocal.length > 0)
    out.push(
      "",
      `Cilium load balancing is \`${plan.cilium.loadBalancerMode}\` (direct server return) behind policy routing: ${acceptLocal.map((n) => `${n.name} (${n.acceptLocalInterfaces.join(", ")})`).join(", ")} get \`accept_local = 1\`, set by netifrc's \`postup()\` in /etc/conf.d/net when the interface comes up. With DSR a backend receives the client's packet unchanged; when that client is the node itself, or a VIP it holds, the source address is local and the kernel's source validation (done through the \`ip rule\` tables) drops it (EINVAL, cilium/cilium#17747) unless the interface accepts local sources.`,
    );
  out.push("", summarizeExposure(plan));
  if (plan.host.firewall)
    out.push(
      "",
      `The host firewall is nftables (table \`inet ${FIREWALL_TABLE}\`, input hook, only the public interfaces), not Cilium's host firewall: it is in place from boot before \`net\` starts, whether or not Cilium runs, and cannot lock the cluster's own traffic out, since the Kubernetes interface is never filtered. Cilium's eBPF load balancer handles Service traffic on its devices before netfilter, so the external VIPs' Services are answered as before; NodePorts stay off public addresses through nodePort.addresses. Lock-out check: keep a console open, \`rc-service clusterspec-firewall start\`, then SSH in again from a network in sshFrom.`,
    );
  return out.join("\n");
}
