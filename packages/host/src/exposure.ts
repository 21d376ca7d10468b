// PLAN.md's "what each interface exposes": derived from the plan (segments, VIPs, NodePort addresses, firewall).
import { type ClusterPlan, cidrContains, ipFamily, mdTable, vipLabel } from "@clusterspec/core";
import { AH_PROTOCOL, FIREWALL_TABLE, VRRP_PROTOCOL } from "./firewall.js";

/** The listeners kubeadm leaves on every address (0.0.0.0 / ::) of a node. */
const ALL_ADDRESS_LISTENERS =
  "kube-apiserver :6443 (control planes), kubelet :10250, sshd :22 and anything else bound to all addresses";

export interface InterfaceExposure {
  readonly name: string;
  readonly network: string;
  readonly exposes: string;
}

export function interfaceExposure(plan: ClusterPlan): InterfaceExposure[] {
  const names = [...new Set(plan.nodes.flatMap((n) => n.interfaces.map((f) => f.name)))];
  const k8s = plan.network.kubernetesSegment.interface;
  const c = plan.cilium;
  const fw = plan.host.firewall;
  const vrrp = `VRRP (IP protocol ${VRRP_PROTOCOL}${plan.vrrp.auth?.type === "AH" ? ` inside AH, protocol ${AH_PROTOCOL}` : ""}) between the nodes`;
  return names.map((name) => {
    const nodes = plan.nodes.filter((n) => n.interfaces.some((f) => f.name === name));
    const segment = nodes.flatMap((n) => n.interfaces.filter((f) => f.name === name)).find((f) => f.segment)?.segment;
    const vips = plan.vips.filter((v) => v.interface === name);
    const external = vips.filter((v) => v.kind !== "control-plane").map((v) => vipLabel(v));
    const addresses = nodes.flatMap((n) =>
      n.interfaces.filter((f) => f.name === name && f.address).map((f) => f.address ?? ""),
    );
    const nodePorts =
      c.nodePortAddresses.length === 0
        ? addresses.length > 0
        : addresses.some((a) =>
            c.nodePortAddresses.some((net) => ipFamily(net) === ipFamily(a) && cidrContains(net, a)),
          );
    const filtered = nodes.filter((n) => n.firewall?.interfaces.some((f) => f.name === name)).map((n) => n.name);
    const parts: string[] = [];
    if (name === k8s)
      parts.push(
        `the cluster's own traffic: kube-apiserver :${plan.controlPlane.port} (control planes, and the VIP ${vipLabel(plan.controlPlane.vip)}), etcd :2379-2380 (control planes), kubelet :10250, Cilium health :4240${c.routingMode === "tunnel" ? (c.tunnelProtocol === "vxlan" ? ", VXLAN :8472/udp" : ", Geneve :6081/udp") : ""}${c.encryption === "wireguard" ? ", Cilium WireGuard :51871/udp" : ""}`,
      );
    if (vips.length > 0) parts.push(vrrp);
    if (external.length > 0)
      parts.push(
        `the external VIPs ${external.join(", ")}: their Services (Cilium's eBPF load balancer, before netfilter)`,
      );
    parts.push(
      nodePorts
        ? `NodePorts 30000-32767 on the node address${c.nodePortAddresses.length > 0 ? ` (in nodePort.addresses ${c.nodePortAddresses.join(", ")})` : " (Cilium's default: every device's primary address)"}`
        : "no NodePorts (its addresses are outside nodePort.addresses)",
    );
    if (name !== k8s) {
      const hub = plan.cloud?.hub;
      const hubHere = hub?.node !== undefined && nodes.some((n) => n.name === hub.node);
      if (filtered.length === nodes.length && fw)
        parts.push(
          `host firewall (nftables \`inet ${FIREWALL_TABLE}\`): nothing else but replies, ICMP${fw.sshFrom.length > 0 ? `, SSH from ${fw.sshFrom.join(", ")}` : " (SSH closed)"}${hubHere ? ` and WireGuard :${hub?.listenPort}/udp on the hub ${hub?.node}` : ""}`,
        );
      else
        parts.push(
          `**not filtered${
            filtered.length > 0
              ? ` on ${nodes
                  .filter((n) => !filtered.includes(n.name))
                  .map((n) => n.name)
                  .join(", ")}`
              : ""
          }**: ${ALL_ADDRESS_LISTENERS}${segment ? "" : " (set host.firewall)"}`,
        );
    }
    return {
      name,
      network:
        name === k8s
          ? `segment ${segment?.name ?? name} (Kubernetes, internal)`
          : segment
            ? `segment ${segment.name}${filtered.length > 0 ? " (public: host.firewall.publicInterfaces)" : ""}`
            : "public (no segment)",
      exposes: parts.join("; "),
    };
  });
}

export function summarizeExposure(plan: ClusterPlan): string {
  return [
    "### What each interface exposes",
    "",
    mdTable(
      ["interface", "network", "reachable there"],
      interfaceExposure(plan).map((e) => [e.name, e.network, e.exposes]),
    ),
  ].join("\n");
}
