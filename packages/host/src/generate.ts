import { type Artifact, type BurstPlan, type ClusterPlan, toYaml } from "@clusterspec/core";
import {
  FIREWALL_RULES_FILE,
  FIREWALL_SERVICE_FILE,
  renderFirewallRules,
  renderFirewallService,
  toFirewallView,
} from "./firewall.js";
import { HUB_FIREWALL_FILE, HUB_SYSCTL_FILE, renderHubFirewall, renderHubSysctl, toHubView } from "./hub.js";
import {
  renderAcceptKeywords,
  renderFstabLine,
  renderHosts,
  renderKubeletConfd,
  renderModules,
  renderRcConf,
  renderSysctl,
  renderSysctlConf,
  renderUdevRules,
} from "./template.js";
import { type HostView, SYSCTL_CONF_SNIPPET, SYSCTL_FILE, toHostView } from "./view.js";

/** crictl's config (YAML): both endpoints on the CRI socket kubeadm uses. */
export function renderCrictlYaml(view: HostView, criSocket: string): string {
  return `# ${view.marker}\n${toYaml({ "runtime-endpoint": criSocket, "image-endpoint": criSocket, timeout: 10 })}`;
}

export function generateHost(plan: ClusterPlan): Artifact[] {
  // /etc/hosts is the same on every node (the plan's marker and its node list): rendered once, not once per node
  // (at 300 nodes that is 90,000 lines).
  let hosts: string | undefined;
  return plan.nodes.flatMap((node) => {
    const v = toHostView(plan, node);
    hosts ??= renderHosts(v);
    const at = (p: string, content: string): Artifact => ({ path: `nodes/${node.name}/${p}`, content });
    const firewall = toFirewallView(plan, node);
    // /etc/resolv.conf has one writer: netifrc's dns_servers_* on the Kubernetes interface (netifrc package).
    return [
      at(SYSCTL_FILE, renderSysctl(v)),
      at(SYSCTL_CONF_SNIPPET, renderSysctlConf(v)),
      at("etc/hosts", hosts),
      at("etc/conf.d/modules", renderModules(v)),
      at("etc/conf.d/kubelet", renderKubeletConfd(v)),
      at("etc/crictl.yaml", renderCrictlYaml(v, plan.kubernetes.criSocket)),
      at("etc/udev/rules.d/70-persistent-net.rules", renderUdevRules(v)),
      at("etc/fstab.clusterspec", renderFstabLine(v)),
      ...(v.rcConf.length > 0 ? [at("etc/rc.conf.clusterspec", renderRcConf(v))] : []),
      ...(firewall === undefined
        ? []
        : [
            at(FIREWALL_RULES_FILE, renderFirewallRules(firewall)),
            { ...at(FIREWALL_SERVICE_FILE, renderFirewallService(firewall)), mode: 0o755 },
          ]),
      ...(plan.host.gentooPackages
        ? [at("etc/portage/package.accept_keywords/kubernetes", renderAcceptKeywords(v))]
        : []),
    ];
  });
}

/** The WireGuard hub's forwarding sysctls and forward filter, beside its wg-quick config. */
export function generateHub(plan: BurstPlan): Artifact[] {
  const v = toHubView(plan);
  const dir = plan.cloud?.hub?.host.dir;
  if (v === undefined || dir === undefined) return [];
  return [
    { path: `${dir}/${HUB_SYSCTL_FILE}`, content: renderHubSysctl(v) },
    { path: `${dir}/${HUB_FIREWALL_FILE}`, content: renderHubFirewall(v) },
  ];
}
