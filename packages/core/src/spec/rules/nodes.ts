// Rules about the nodes themselves: names, addresses, MACs, interface names, VLANs, quorum and host sysctls.
import { isControlPlane, nodeInterfaces, shellVar } from "../../facts/spec.js";
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
  for (const key of Object.keys(spec.host.sysctl)) {
    if (key === "net.ipv4.ip_local_port_range")
      report.error(
        ["host", "sysctl", key],
        "net.ipv4.ip_local_port_range stays at its default: NodePorts (30000-32767) must stay outside the ephemeral port range",
      );
    else if (managed.has(key))
      report.error(["host", "sysctl", key], `${key} is set by clusterspec itself (Kubernetes needs it on)`);
  }
};
