export { field, lineText, shellValue, sysctlValue, udevValue } from "./escape.js";
export { generateHost, hostModule, renderCrictlYaml, SYSCTL_FILE } from "./generate.js";
export { summarizeHost } from "./summary.js";
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
} from "./template.js";
export {
  BPF_FSTAB_LINE,
  type HostView,
  KERNEL_MODULES,
  KUBERNETES_PACKAGES,
  MANAGED_SYSCTL,
  needsStorageIsolationGate,
  toHostView,
} from "./view.js";
