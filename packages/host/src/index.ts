export { field, lineText, nftToken, shellValue, sysctlValue, udevValue } from "./escape.js";
export {
  FIREWALL_RULES_FILE,
  FIREWALL_SERVICE_FILE,
  FIREWALL_TABLE,
  type FirewallView,
  renderFirewallRules,
  renderFirewallService,
  toFirewallView,
} from "./firewall.js";
export { generateHost, hostModule, renderCrictlYaml, SYSCTL_CONF_SNIPPET, SYSCTL_FILE } from "./generate.js";
export { summarizeHost } from "./summary.js";
export {
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
export {
  BPF_FSTAB_LINE,
  type HostView,
  interfaceKey,
  KERNEL_MODULES,
  KUBERNETES_PACKAGES,
  MANAGED_SYSCTL,
  managedSysctl,
  needsStorageIsolationGate,
  RP_FILTER_LOOSE,
  rcConfLines,
  toHostView,
} from "./view.js";
