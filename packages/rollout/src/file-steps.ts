// Steps decided by which files changed: each node's host files (Gentoo/OpenRC) and the cluster-wide files (Cilium's
// values, Terraform, cloud-init user data, the WireGuard hub, the provisioner's objects). Keepalived and netifrc
// files are left to their planners (node-steps.ts); kubeadm.yaml to kubeadm-steps.ts.
import { shellQuote } from "@clusterspec/core";
import type { Step } from "./kubeadm-steps.js";
import type { TreeSide } from "./node-steps.js";

/** A node file and what makes it live; `undefined` commands: left to another planner. */
interface FileRule {
  readonly match: (rest: string) => boolean;
  readonly kind: Step["kind"];
  readonly commands: readonly string[];
  readonly warning?: string;
  /** Restarts the kubelet: the node is out of service while it runs. */
  readonly down?: boolean;
}

/** In the order a node's steps run: files that need nothing first, the kubelet restart last. */
const NODE_FILES: readonly FileRule[] = [
  { match: (p) => p === "etc/hosts", kind: "host", commands: [] },
  { match: (p) => p === "etc/crictl.yaml", kind: "host", commands: [] },
  { match: (p) => p === "etc/conf.d/modules", kind: "host", commands: ["rc-service modules restart"] },
  {
    match: (p) => p.startsWith("etc/udev/rules.d/"),
    kind: "host",
    commands: ["udevadm control --reload"],
    warning: "interface names from udev rules apply when the interface appears: at the next boot",
  },
  {
    match: (p) =>
      p === "etc/fstab.clusterspec" || p === "etc/sysctl.conf.clusterspec" || p === "etc/rc.conf.clusterspec",
    kind: "host",
    commands: [],
    warning: "a snippet: merge it into the file it names by hand, as PLAN.md's Host files says",
  },
  {
    match: (p) => p.startsWith("etc/portage/"),
    kind: "host",
    commands: [],
    warning: "package keywords: the Kubernetes packages are upgraded by the upgrade procedure, not by this plan",
  },
  {
    match: (p) => p.startsWith("etc/nftables/") || p === "etc/init.d/clusterspec-firewall",
    kind: "host",
    commands: ["rc-service clusterspec-firewall restart"],
    warning: "the host firewall is reloaded: check that SSH from the admin host still works before the next step",
  },
  { match: (p) => p.startsWith("etc/sysctl.d/"), kind: "sysctl", commands: ["sysctl --system"] },
  {
    match: (p) => p.startsWith("etc/kubernetes/patches/"),
    kind: "kubelet",
    commands: [
      "kubeadm upgrade node phase kubelet-config --patches /etc/kubernetes/patches",
      "rc-service kubelet restart",
    ],
    down: true,
  },
  { match: (p) => p === "etc/conf.d/kubelet", kind: "kubelet", commands: ["rc-service kubelet restart"], down: true },
];

/** Node files another planner installs (keepalived, netifrc) or kubeadm-steps.ts handles. */
export const planned = (rest: string): "keepalived" | "netifrc" | "kubeadm" | undefined => {
  if (rest === "etc/conf.d/keepalived" || rest.startsWith("etc/keepalived/")) return "keepalived";
  if (rest === "etc/conf.d/net" || rest.startsWith("etc/iproute2/")) return "netifrc";
  if (rest === "kubeadm.yaml") return "kubeadm";
  return undefined;
};

/** One step per node and kind, for the node files that changed (nodes that stay). */
export function hostSteps(node: string, changed: readonly string[]): Step[] {
  const steps: Step[] = [];
  const prefix = `nodes/${node}/`;
  const mine = changed.filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
  const byKind = new Map<Step["kind"], { files: string[]; commands: string[]; warnings: string[]; down: boolean }>();
  for (const rule of NODE_FILES) {
    const files = mine.filter(rule.match);
    if (files.length === 0) continue;
    const entry = byKind.get(rule.kind) ?? { files: [], commands: [], warnings: [], down: false };
    entry.files.push(...files.map((f) => prefix + f));
    for (const c of rule.commands) if (!entry.commands.includes(c)) entry.commands.push(c);
    if (rule.warning) entry.warnings.push(rule.warning);
    entry.down ||= rule.down === true;
    byKind.set(rule.kind, entry);
  }
  const titles: Partial<Record<Step["kind"], string>> = {
    host: "host files",
    sysctl: "kernel parameters (sysctl.d)",
    kubelet: "kubelet flags or patch, kubelet restart",
  };
  for (const [kind, e] of byKind)
    steps.push({
      node,
      kind,
      title: `${node}: ${titles[kind] ?? kind}${e.commands.length === 0 ? " (install only: nothing to restart)" : ""}`,
      files: e.files,
      commands: e.commands,
      vipMoves: [],
      warnings: e.warnings,
      ...(e.down ? { down: [node] } : {}),
    });
  return steps;
}

/** The node files no rule here or planner knows. */
export const unknownNodeFile = (rest: string): boolean =>
  planned(rest) === undefined && !NODE_FILES.some((r) => r.match(rest));

/** Cluster-wide steps, run from an admin host (or the hub), for the cluster and cloud files that changed. */
export function clusterSteps(old: TreeSide, next: TreeSide, changed: readonly string[]): Step[] {
  const steps: Step[] = [];
  const has = (p: string) => changed.includes(p);
  if (has("cluster/cilium-values.yaml"))
    steps.push({
      node: null,
      kind: "helm",
      title: `Cilium ${next.plan.cilium.version}: upgrade with the new values`,
      files: ["cluster/cilium-values.yaml"],
      commands: [
        `helm upgrade cilium cilium/cilium --version ${next.plan.cilium.version} -n kube-system -f cluster/cilium-values.yaml`,
        "kubectl -n kube-system rollout status daemonset/cilium --timeout=10m",
      ],
      vipMoves: [],
      warnings: [
        "the Cilium agents restart one node at a time (the DaemonSet's rolling update)",
        ...(old.plan.cilium.version === next.plan.cilium.version
          ? []
          : [
              `the chart version changes (${old.plan.cilium.version} → ${next.plan.cilium.version}): read Cilium's upgrade notes and run its pre-flight check first`,
            ]),
      ],
    });
  const terraform = changed.filter((p) => p.startsWith("cloud/terraform/"));
  if (terraform.length > 0)
    steps.push({
      node: null,
      kind: "terraform",
      title: "AWS: apply the Terraform change (review the plan first)",
      files: terraform,
      commands: [
        "cd cloud/terraform",
        "terraform init",
        "terraform plan -out=clusterspec.tfplan",
        "terraform apply clusterspec.tfplan",
      ],
      vipMoves: [],
      warnings: ["read `terraform plan`: a replaced launch template or group is expected, a destroyed one is not"],
    });
  if (has("cloud/cluster-autoscaler-values.yaml"))
    steps.push({
      node: null,
      kind: "helm",
      title: "Cluster Autoscaler: upgrade with the new values",
      files: ["cloud/cluster-autoscaler-values.yaml"],
      commands: [
        "helm upgrade cluster-autoscaler autoscaler/cluster-autoscaler -n kube-system -f cloud/cluster-autoscaler-values.yaml",
      ],
      vipMoves: [],
      warnings: [],
    });
  const provisioner = changed.filter(
    (p) => p === "cloud/provisioner/rbac.yaml" || p === "cloud/provisioner/peer-secrets.yaml",
  );
  if (provisioner.length > 0)
    steps.push({
      node: null,
      kind: "kubectl",
      title: "provisioner: apply its Kubernetes objects",
      files: provisioner,
      commands: provisioner.map((p) => `kubectl apply -f ${p}`),
      vipMoves: [],
      warnings: [],
    });
  if (has("cloud/provisioner/openapi.yaml"))
    steps.push({
      node: null,
      kind: "host",
      title: "provisioner: its contract changed (cloud/provisioner/openapi.yaml)",
      files: ["cloud/provisioner/openapi.yaml"],
      commands: [],
      vipMoves: [],
      warnings: ["deploy a provisioner that implements the new contract before new instances boot"],
    });
  const hub = next.plan.cloud?.hub;
  const hubFiles = changed.filter((p) => p.startsWith("cloud/hub/"));
  if (hubFiles.length > 0 && hub?.configPath) {
    const iface = /([^/]+)\.conf$/.exec(hub.configPath)?.[1] ?? "wg0";
    steps.push({
      node: hub.node ?? null,
      kind: "wireguard",
      title: `${hub.node ?? `hub ${hub.address}`}: WireGuard ${iface}, peers synced without dropping the tunnel`,
      files: hubFiles,
      commands: [`wg syncconf ${iface} <(wg-quick strip ${iface})`],
      vipMoves: [],
      warnings: [
        `run on the hub (${hub.address}) in bash (process substitution); an address or port change needs \`wg-quick down ${iface} && wg-quick up ${iface}\` instead`,
      ],
    });
  }
  for (const pool of next.plan.cloud?.pools ?? []) {
    const files = changed.filter((p) => p.startsWith(`cloud/${pool.name}/`));
    if (files.length === 0) continue;
    steps.push({
      node: null,
      kind: "cloud-init",
      title: `pool ${pool.name}: new user data, for new instances only`,
      files,
      commands: [],
      vipMoves: [],
      warnings: [
        `cloud-init runs at first boot: running instances keep their configuration. To replace them: aws autoscaling start-instance-refresh --auto-scaling-group-name ${shellQuote(pool.groupName)}`,
      ],
    });
  }
  return steps;
}
