// The host planner: sysctl, packages, cgroup mode and the firewall's cluster-wide settings.
import type { ClusterSpec } from "../spec/schema.js";
import type { HostPlan } from "./types.js";

export function planHost(spec: ClusterSpec): HostPlan {
  const h = spec.host;
  return {
    sysctl: Object.entries(h.sysctl)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([key, value]) => ({ key, value: String(value) })),
    gentooPackages: h.gentooPackages,
    cgroupMode: h.cgroupMode,
    firewall: h.firewall && {
      sshFrom: h.firewall.sshFrom,
      explicitInterfaces: h.firewall.publicInterfaces !== undefined,
    },
  };
}
