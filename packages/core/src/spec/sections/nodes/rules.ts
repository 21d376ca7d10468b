// Rules about the nodes themselves: names, addresses, MACs, interface names, VLANs, quorum, labels and taints.
import { kubeletMaySetLabel } from "../../../facts/cloud.js";
import { isControlPlane, nodeInterfaces, shellVar } from "../../../facts/spec.js";
import { hostPart } from "../../../ip.js";
import { type Reporter, toDotPath } from "../../../issues.js";
import { own } from "../../../own.js";
import { firstSeen, type Rule } from "../../rule.js";
import type { ClusterSpec, InterfaceSpec } from "../../schema.js";

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
  field: "address" | "address6" | "mac",
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

export const uniqueNodeAddresses: Rule = (spec, report) => {
  reportDuplicateInterfaceValues(spec, report, "address", "address", (f) =>
    f.address ? hostPart(f.address) : undefined,
  );
  reportDuplicateInterfaceValues(spec, report, "address6", "address", (f) =>
    f.address6 ? hostPart(f.address6) : undefined,
  );
};

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

/** NodeRestriction: a kubelet may only label its own Node with keys outside kubernetes.io/k8s.io, or the allowed ones. */
export const nodeLabelsSelfSettable: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const key of Object.keys(node.labels))
      if (!kubeletMaySetLabel(key))
        report.error(
          ["nodes", i, "labels", key],
          `the kubelet may not set label ${key} on its own node (the NodeRestriction admission plugin forbids node-role.kubernetes.io/* and other kubernetes.io/k8s.io keys outside its allowed list): apply it after the node joined with \`kubectl label node ${node.name} ${key}=${node.labels[key] ?? ""}\`, or use a key of your own (example.com/role) or under node.kubernetes.io/`,
        );
  });
};

/** The API server refuses two taints with the same key and effect. */
export const nodeTaintsDistinct: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    const seen = new Set<string>();
    node.taints.forEach((t, j) => {
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id))
        report.error(
          ["nodes", i, "taints", j],
          `taint ${t.key} with effect ${t.effect} is listed twice on ${node.name}`,
        );
      seen.add(id);
    });
  });
};
