export { field, lineText, shellValue, sysctlValue, udevValue } from "./escape.js";
export { generateHost, hostModule, renderCrictlYaml, SYSCTL_FILE, summarizeHost } from "./generate.js";
export {
  renderAcceptKeywords,
  renderFstabLine,
  renderHosts,
  renderKubeletConfd,
  renderModules,
  renderRcConf,
  renderResolvConf,
  renderSysctl,
  renderUdevRules,
} from "./templates.js";
export {
  BPF_FSTAB_LINE,
  type HostView,
  KERNEL_MODULES,
  KUBERNETES_PACKAGES,
  MANAGED_SYSCTL,
  needsStorageIsolationGate,
  toHostView,
} from "./view.js";
