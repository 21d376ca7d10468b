import { type Escape, lineTemplate } from "@clusterspec/core";
import { field, shellValue, udevValue } from "./escape.js";
import type { HostView } from "./view.js";

const compile = (source: string, escapeValue: Escape) => lineTemplate<HostView>(source, escapeValue);

// The header is a comment in every format; lineText only refuses line breaks.
// The marker and pre-checked values (sysctl values) are validated in the view and written raw.
const header = "# <%- v.marker %>\n";

const sysctl = compile(
  `${header}# Kubernetes needs forwarding; keepalived and services bind addresses the node does not hold yet;
# rp_filter: all 0 as Cilium sets it, 2 (loose) by default. Per-interface keys (rp_filter, accept_local) are not
# here: /etc/conf.d/net's postup() sets them when netifrc brings each interface up (a VLAN does not exist yet
# when this file is applied at boot).
# procps' sysctl --system applies
# /etc/sysctl.conf after every sysctl.d file: etc/sysctl.conf.clusterspec repeats these keys for its end.
# net.ipv4.ip_local_port_range stays at its default, below the NodePort range.
<% for (const s of v.sysctl) { -%>
<%= s.key %> = <%- s.value %>
<% } -%>
`,
  field,
);

const hosts = compile(
  `${header}<% for (const h of v.hosts) { -%>
<%= h.address %><% for (const n of h.names) { %>	<%= n %><% } %>
<% } -%>
`,
  field,
);

const modules = compile(
  `${header}# OpenRC /etc/conf.d/modules: loaded at boot by the modules service.
modules="<%= v.modules.join(" ") %>"
`,
  shellValue,
);

const kubelet = compile(
  `${header}# OpenRC settings for sys-cluster/kubelet's /etc/init.d/kubelet, arranged for kubeadm:
# kubeadm init/join writes /var/lib/kubelet/config.yaml and /var/lib/kubelet/kubeadm-flags.env.
if [ -e /var/lib/kubelet/kubeadm-flags.env ]; then
	. /var/lib/kubelet/kubeadm-flags.env
fi
# the kubelet cannot run before the container runtime's socket exists
rc_need="containerd"
command_args="<%= v.kubeletArgs.join(" ") %> \${KUBELET_KUBEADM_ARGS-}<% for (const a of v.kubeletExtraArgs) { %> <%= a %><% } %>"
`,
  shellValue,
);

const udev = compile(
  `${header}# Interfaces named by MAC. DRIVERS=="?*" leaves VLAN and bridge devices, which share the MAC, alone.
<% for (const u of v.udev) { -%>
SUBSYSTEM=="net", ACTION=="add", DRIVERS=="?*", ATTR{address}=="<%= u.mac %>", ATTR{type}=="1", NAME="<%= u.name %>"
<% } -%>
`,
  udevValue,
);

export const renderSysctl = (v: HostView): string => sysctl(v);
export const renderHosts = (v: HostView): string => hosts(v);
export const renderModules = (v: HostView): string => modules(v);
export const renderKubeletConfd = (v: HostView): string => kubelet(v);
export const renderUdevRules = (v: HostView): string => udev(v);
const fstab = compile(
  `${header}# Append to /etc/fstab: Cilium keeps its eBPF maps in /sys/fs/bpf across agent restarts. OpenRC's sysfs
# service mounts bpffs there first (source bpf): mount -a skips the first line then, and the second makes it shared
# (Cilium mounts it with Bidirectional propagation), without mounting a second bpffs on top.
<% for (const l of v.fstab) { -%>
<% l.forEach((f, i) => { %><%- i === 0 ? "" : "\t" %><%= f %><% }) %>
<% } -%>
`,
  field,
);

const acceptKeywords = compile(
  `${header}# kubeadm, kubelet and kubectl are keyworded ~arch in ::gentoo; pinned to the cluster's minor version.
# sys-cluster/keepalived (on the nodes that hold a VIP) is ~amd64 too, from the oldest version clusterspec checks.
<% for (const p of v.kubernetesPackages) { %><%= p %>
<% } %>`,
  field,
);

const rcConf = compile(
  `${header}# Append to /etc/rc.conf (OpenRC reads no drop-in directory): cgroup v1, where the kubelet expects hierarchical memory accounting.
<% for (const l of v.rcConf) { -%>
<%- l.name %>="<%= l.value %>"
<% } -%>
`,
  shellValue,
);

// procps' `sysctl --system` (OpenRC's sysctl service) applies /etc/sysctl.conf after every sysctl.d file, and the
// last assignment of a key wins: appended at its end, these lines win over whatever the file set earlier.
const sysctlConf = compile(
  `${header}# Append to the END of /etc/sysctl.conf: sysctl --system applies it after /etc/sysctl.d, so a key set
# there (Gentoo's stock file sets rp_filter = 1) would override the sysctl.d file; the last assignment wins.
<% for (const s of v.managedSysctl) { -%>
<%= s.key %> = <%- s.value %>
<% } -%>
`,
  field,
);

export const renderFstabLine = (v: HostView): string => fstab(v);
export const renderAcceptKeywords = (v: HostView): string => acceptKeywords(v);
export const renderRcConf = (v: HostView): string => rcConf(v);
export const renderSysctlConf = (v: HostView): string => sysctlConf(v);
