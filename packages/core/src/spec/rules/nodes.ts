// Rules about the nodes themselves: names, addresses, MACs, interface names, VLANs, quorum and host sysctls.
import {
  firewallInterfaces,
  isControlPlane,
  kubernetesSegment,
  nodeInterfaces,
  rpFilterLooseInterfaces,
  shellVar,
} from "../../facts/spec.js";
import { hostPart } from "../../ip.js";
import { type Reporter, toDotPath } from "../../issues.js";
import { own } from "../../own.js";
import type { ClusterSpec, InterfaceSpec } from "../schema.js";
import { firstSeen, type Rule } from "./rule.js";

export const uniqueNodeNames: Rule = (spec, report) => {
  const seen = firstSeen<string>();
  spec.nodes.forEach((node, i) => {
    const prior = seen(node.name, ["nodes", i, "name"]);
    if (prior)
      report.error(["nodes", i, "name"], `duplicate node name ${node.name} (also used by ${toDotPath(prior)})`);
  });
};

/** Reports a value that must be unique over every interface of every node at its field, naming the first user. */
function reportDuplicateInterfaceValues(
  spec: ClusterSpec,
  report: Reporter,
  field: "address" | "mac",
  what: string,
  value: (iface: InterfaceSpec) => string | undefined,
): void {
  const seen = firstSeen<string>();
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      const v = value(iface);
      if (v === undefined) continue;
      const path = ["nodes", i, "interfaces", name, field];
      const prior = seen(v, path);
      if (prior) report.error(path, `duplicate ${what} ${v} (also used by ${toDotPath(prior)})`);
    }
  });
}

export const uniqueNodeAddresses: Rule = (spec, report) =>
  reportDuplicateInterfaceValues(spec, report, "address", "address", (f) =>
    f.address ? hostPart(f.address) : undefined,
  );

export const uniqueMacs: Rule = (spec, report) =>
  reportDuplicateInterfaceValues(spec, report, "mac", "MAC", (f) => f.mac?.toLowerCase());

/** netifrc maps interface names to shell variables; two names that map to one variable overwrite each other. */
export const netifrcVariableNamesDistinct: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    const seen = new Map<string, string>();
    for (const [name] of nodeInterfaces(node)) {
      const v = shellVar(name);
      const prior = seen.get(v);
      if (prior !== undefined)
        report.error(
          ["nodes", i, "interfaces", name],
          `interface ${name} and ${prior} both become config_${v} in /etc/conf.d/net; rename one`,
        );
      else seen.set(v, name);
    }
  });
};

export const vlanParentsExist: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.vlan) continue;
      const parent = own(node.interfaces, iface.vlan.parent);
      const path = ["nodes", i, "interfaces", name, "vlan", "parent"];
      if (!parent) report.error(path, `VLAN parent ${iface.vlan.parent} is not an interface of node ${node.name}`);
      else if (parent.vlan)
        report.error(path, `VLAN parent ${iface.vlan.parent} is itself a VLAN; nest VLANs on a physical interface`);
    }
  });
};

export const controlPlaneQuorum: Rule = (spec, report) => {
  const count = spec.nodes.filter(isControlPlane).length;
  const path = ["nodes"];
  if (count === 0) report.error(path, "no node has the control-plane role");
  else if (count === 1) report.warning(path, "a single control-plane node has no failover: use it for tests only");
  else if (count === 2 || count === 4)
    report.error(
      path,
      `${count} control-plane nodes survive no more failures than ${count - 1}: etcd needs a majority (${Math.floor(count / 2) + 1} of ${count}), so use 3 or 5`,
    );
  else if (count > 5) report.error(path, `${count} control-plane nodes slow etcd down for no gain: use 3 or 5`);
};

export const hostSysctlAllowed: Rule = (spec, report) => {
  const managed = new Set(["net.ipv4.ip_forward", "net.ipv4.ip_nonlocal_bind", "net.ipv6.ip_nonlocal_bind"]);
  const pinnedRpFilter = new Set(
    ["all", "default", ...spec.nodes.flatMap((n) => rpFilterLooseInterfaces(spec, n))].map(
      (i) => `net.ipv4.conf.${i}.rp_filter`,
    ),
  );
  for (const key of Object.keys(spec.host.sysctl)) {
    if (key === "net.ipv4.ip_local_port_range")
      report.error(
        ["host", "sysctl", key],
        "net.ipv4.ip_local_port_range stays at its default: NodePorts (30000-32767) must stay outside the ephemeral port range",
      );
    else if (managed.has(key))
      report.error(["host", "sysctl", key], `${key} is set by clusterspec itself (Kubernetes needs it on)`);
    else if (pinnedRpFilter.has(key))
      report.error(
        ["host", "sysctl", key],
        `${key} is set by clusterspec (all: 0, as Cilium requires; default and the VIP and policy-routed interfaces: 2, loose): strict reverse-path filtering drops policy-routed and DSR replies`,
      );
  }
};

/** Linux's MTU of an Ethernet interface nobody set one on. */
export const DEFAULT_ETHERNET_MTU = 1500;

/** A VLAN's frames travel inside its parent's: its MTU cannot exceed the parent's (the kernel refuses it). */
export const vlanMtuWithinParent: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const [name, iface] of nodeInterfaces(node)) {
      if (!iface.vlan || iface.mtu === undefined) continue;
      const parent = own(node.interfaces, iface.vlan.parent);
      if (!parent) continue; // vlanParentsExist reports it
      const parentMtu = parent.mtu ?? DEFAULT_ETHERNET_MTU;
      if (iface.mtu > parentMtu)
        report.error(
          ["nodes", i, "interfaces", name, "mtu"],
          `VLAN ${name} has MTU ${iface.mtu}, above its parent ${iface.vlan.parent}'s ${parentMtu}${parent.mtu === undefined ? ` (the default: set nodes[${i}].interfaces.${iface.vlan.parent}.mtu)` : ""}; a VLAN's MTU is at most its parent's`,
        );
    }
  });
};

/**
 * host: cgroup v1 works but is in maintenance mode; host.firewall's listed interfaces exist, and never the Kubernetes
 * interface (the cluster's own traffic).
 */
export const hostSettingsFit: Rule = (spec, report) => {
  if (spec.host.cgroupMode !== "unified")
    report.warning(
      ["host", "cgroupMode"],
      `cgroupMode ${spec.host.cgroupMode} runs the kubelet on cgroup v1, in maintenance mode since Kubernetes 1.31; OpenRC's default unified (cgroup v2) needs nothing written`,
    );
  const fw = spec.host.firewall;
  if (!fw) return;
  const k8s = kubernetesSegment(spec)?.interface;
  (fw.publicInterfaces ?? []).forEach((name, j) => {
    const path = ["host", "firewall", "publicInterfaces", j];
    if (!spec.nodes.some((n) => own(n.interfaces, name) !== undefined))
      report.error(path, `public interface ${name} is not an interface of any node`);
    else if (name === k8s)
      report.error(
        path,
        `${name} carries the Kubernetes segment (API server, kubelet, etcd, Cilium between the nodes): it cannot be a public interface`,
      );
  });
  const unfiltered = spec.nodes.filter((n) => firewallInterfaces(spec, n).length === 0).map((n) => n.name);
  if (unfiltered.length > 0)
    report.warning(
      ["host", "firewall"],
      `the host firewall filters nothing on ${unfiltered.join(", ")}: ${fw.publicInterfaces ? "none of host.firewall.publicInterfaces is" : "every interface attaches a network segment, so none is"} an interface there; list the public ones in host.firewall.publicInterfaces`,
    );
};
