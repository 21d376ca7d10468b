import { summarizeBootstrap } from "./bootstrap.js";
import { summarizeNodeRunbooks } from "./runbooks.js";
import type { CloudBurstPlan, ClusterPlan } from "./types.js";
import { vipLabel } from "./vrrp.js";

/** Escapes a value for a Markdown table cell. */
export function mdCell(value: string | number): string {
  return String(value).replace(/\\/g, "\\\\").replace(/\|/g, "\\|").replace(/\n/g, " ");
}

export function mdTable(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const line = (cells: readonly (string | number)[]) => `| ${cells.map(mdCell).join(" | ")} |`;
  return [line(header), line(header.map(() => "---")), ...rows.map(line)].join("\n");
}

/** The core part of PLAN.md: what every reviewer needs first. Generator modules append their sections. */
export function summarizeCore(plan: ClusterPlan): string {
  const k = plan.kubernetes;
  const nodes = mdTable(
    ["node", "roles", "internal address", "interfaces", "root fs"],
    plan.nodes.map((n) => [
      n.name + (n.init ? " (init)" : ""),
      [n.controlPlane ? "control-plane" : "", n.worker ? "worker" : "", n.carriesExternalVips ? "external VIPs" : ""]
        .filter(Boolean)
        .join(", "),
      `${n.internalAddress} on ${n.internalInterface}`,
      n.interfaces.map((f) => `${f.name}${f.cidr ? ` ${f.cidr}` : ""}`).join(", "),
      n.rootFilesystem,
    ]),
  );
  const warning = placeholderWarning(plan);
  return [
    `# Cluster ${plan.name}`,
    "",
    ...warning,
    `- Kubernetes ${k.versionText}, kubeadm API \`${k.kubeadmApiVersion}\``,
    `- Control-plane endpoint \`${plan.controlPlane.endpoint}\` (VIP ${vipLabel(plan.controlPlane.vip, true)} on ${plan.controlPlane.vip.interface})`,
    `- Pod subnet ${k.podSubnet} (/${k.nodeCidrMaskSize} per node), service subnet ${k.serviceSubnet}, DNS domain ${k.dnsDomain}`,
    `- Nameservers ${plan.network.nameservers.join(", ")}`,
    "",
    "## Nodes",
    "",
    nodes,
    "",
    summarizeBootstrap(plan),
    "",
    summarizeNodeRunbooks(plan),
  ].join("\n");
}

function placeholderWarning(plan: Pick<ClusterPlan, "secrets">): string[] {
  const placeholders = Object.values(plan.secrets).filter((s) => s?.isPlaceholder);
  return placeholders.length === 0
    ? []
    : [
        `> **Review tree, not for deployment:** ${placeholders.length} secret(s) are placeholders (${placeholders.map((s) => s?.id).join(", ")}); kubeadm refuses its placeholders. Deploy a tree written with \`clusterspec generate --with-secrets -o <dir>\`.`,
        "",
      ];
}

/** The core part of PLAN.md for the cloud burst of an existing cluster: only cloud/** is generated. */
export function summarizeCloudBurstCore(plan: CloudBurstPlan): string {
  const k = plan.kubernetes;
  return [
    `# Cloud burst of cluster ${plan.name}`,
    "",
    ...placeholderWarning(plan),
    "The cluster exists and is managed by other means; clusterspec generates only its cloud burst (`cloud/**`).",
    "",
    `- Kubernetes ${k.versionText}, kubeadm API \`${k.kubeadmApiVersion}\`, kubelet cgroup driver ${k.cgroupDriver}`,
    `- API endpoint \`${plan.existingCluster.endpoint}\``,
    `- Pod subnet ${k.podSubnet}, service subnet ${k.serviceSubnet}, DNS domain ${k.dnsDomain}`,
    `- On-prem networks through the tunnel: ${plan.existingCluster.onPremNetworks.join(", ")}`,
    `- Burst node nameservers ${plan.cloud.nameservers.join(", ")}`,
  ].join("\n");
}
