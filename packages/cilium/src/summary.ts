// The PLAN.md section: how to install Cilium and what it is set to.
import type { ClusterPlan } from "@clusterspec/core";
import { mdTable } from "@clusterspec/core";
import { ciliumMtu, mtuBudget, podMtu, VALUES_PATH } from "./values.js";

/** The helm command lines, run from the generated folder. Every value is schema-checked (semver, fixed path). */
export function helmCommands(plan: ClusterPlan): string[] {
  const args = `cilium cilium/cilium --version ${plan.cilium.version} --namespace kube-system --values ${VALUES_PATH}`;
  return [
    "helm repo add cilium https://helm.cilium.io/",
    `helm template ${args} > cilium.yaml   # review`,
    // A bootstrapped cluster runs Cilium already: its values change with an upgrade, never a second install.
    plan.bootstrap.bootstrapped ? `helm upgrade ${args}` : `helm install ${args}`,
  ];
}

export function summarizeCilium(plan: ClusterPlan): string {
  const c = plan.cilium;
  const mtu = ciliumMtu(plan);
  const pod = podMtu(plan);
  const budget = mtuBudget(plan);
  const rows: [string, string][] = [
    [
      "kube-proxy replacement",
      // The values' k8sServiceHost/k8sServicePort: the VIP itself, even with controlPlane.dnsName (the agent must not
      // depend on DNS, which runs on the cluster it connects).
      `true; API server ${plan.controlPlane.host.includes(":") ? `[${plan.controlPlane.host}]` : plan.controlPlane.host}:${plan.controlPlane.port} (k8sServiceHost: the control-plane VIP${plan.controlPlane.dnsName ? `, not ${plan.controlPlane.dnsName}` : ""})`,
    ],
    [
      "routing",
      c.routingMode === "native"
        ? `native, native routing CIDR ${plan.kubernetes.podSubnet}, autoDirectNodeRoutes ${c.autoDirectNodeRoutes}`
        : `tunnel (${c.tunnelProtocol})`,
    ],
    ["IPAM", c.ipamMode],
    ["devices", c.devices.join(", ")],
    [
      "NodePorts served on",
      c.nodePortAddresses.length > 0
        ? `node addresses in ${c.nodePortAddresses.join(", ")} only (nodePort.addresses)`
        : "every device's primary address (Cilium's default: public devices serve NodePorts too)",
    ],
    [
      "host routing",
      plan.network.policyRoutes.length > 0
        ? "legacy (bpf.hostLegacyRouting: true): policy routing tables must see pod traffic"
        : "chart default",
    ],
    ["masquerading", c.bpfMasquerade ? "eBPF" : "iptables"],
    ["load balancer", c.loadBalancerMode],
    ["encryption", c.encryption],
    ...(Object.keys(c.values).length > 0
      ? ([["extra values (cilium.values)", Object.keys(c.values).sort().join(", ")]] as [string, string][])
      : []),
    [
      "MTU budget",
      `link ${budget.link}, the smallest of ${budget.interfaces.join(", ")} over the nodes (${budget.linkFromSpec ? "nodes[].interfaces.<name>.mtu, else 1500" : "kernel default: no nodes[].interfaces.<name>.mtu"}) → Cilium device MTU ${
        mtu === undefined
          ? `auto-detected from the links (${budget.device})`
          : `${mtu}${c.mtuSource === "wireguard-tunnel" ? " (inside WireGuard: underlay - 60)" : ""}`
      } → pods ${pod ?? budget.pod}${c.routingMode === "tunnel" ? " (overlay -50)" : ""}${c.encryption === "wireguard" ? " (WireGuard -60)" : ""}`,
    ],
  ];
  return [
    "## Cilium",
    "",
    plan.bootstrap.bootstrapped
      ? `Cilium ${c.version}, values in \`${VALUES_PATH}\`. The cluster is bootstrapped, so Cilium runs already (installed right after the cluster was initialised; nodes stay NotReady until it runs): apply changed values with \`helm upgrade\`:`
      : `Cilium ${c.version}, values in \`${VALUES_PATH}\`. Install right after \`kubeadm init\` (nodes stay NotReady until Cilium runs):`,
    "",
    "```sh",
    ...helmCommands(plan),
    "```",
    "",
    mdTable(["setting", "value"], rows),
  ].join("\n");
}
