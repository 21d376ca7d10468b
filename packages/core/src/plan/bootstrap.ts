// The order a cluster is brought up in, per node, as data: PLAN.md renders it and a test checks the order for
// every spec. kubeadm's HA guide: with controlPlaneEndpoint on a VIP, the VIP must answer before `kubeadm init`,
// so keepalived runs on the first control-plane node first; every other node joins after `kubeadm init`.
import type { ClusterPlan, PlannedNode } from "./types.js";

export type BootstrapAction =
  | "install"
  | "copy-files"
  | "start-keepalived"
  | "verify-vip"
  | "kubeadm-init"
  | "install-cilium"
  | "kubeadm-join";

export interface BootstrapStep {
  readonly action: BootstrapAction;
  /** What to run or do, Markdown. */
  readonly text: string;
  /** A step of another node that must be done first. */
  readonly after?: { readonly node: string; readonly step: number };
}

export interface NodeBootstrap {
  readonly node: string;
  /** Steps in order; step n is `steps[n - 1]`. */
  readonly steps: readonly BootstrapStep[];
}

/** The init node first, then the other control-plane nodes, then the workers, each in spec order. */
export function bootstrapPlan(plan: ClusterPlan): NodeBootstrap[] {
  const init = plan.initNode;
  const holdsVip = new Set(plan.vips.flatMap((v) => v.order));
  const cp = plan.controlPlane;
  const vip = `${cp.vip.address}/${cp.vip.prefixLength}`;
  const packages = (n: PlannedNode): string => {
    const atoms = [
      ...(holdsVip.has(n.name) ? ["net-misc/keepalived"] : []),
      ...(n.controlPlane || (n.carriesExternalVips && plan.vrrp.readinessCheck) ? ["net-misc/curl"] : []),
    ];
    return atoms.length === 0
      ? "Install the Kubernetes packages (see Host files)."
      : `Install \`${atoms.join(" ")}\` (keepalived's checks call curl) and the Kubernetes packages (see Host files).`;
  };
  const common = (n: PlannedNode): BootstrapStep[] => [
    { action: "install", text: packages(n) },
    {
      action: "copy-files",
      text: `Copy \`nodes/${n.name}/\` onto the node and do the manual steps of Host files and Network interfaces.`,
    },
  ];
  const keepalived = (n: PlannedNode, why: string): BootstrapStep[] =>
    holdsVip.has(n.name)
      ? [
          {
            action: "start-keepalived",
            text: `\`rc-update add keepalived default && rc-service keepalived start\`: ${why}`,
          },
        ]
      : [];
  const initSteps: BootstrapStep[] = [
    ...common(init),
    ...keepalived(
      init,
      plan.vrrp.healthCheck.weight === 0
        ? "**with `vrrp.healthCheck.weight: 0` its instance stays in FAULT until an apiserver answers, so nothing holds the VIP for `kubeadm init`**: bring the cluster up with a negative weight (the default) and set 0 afterwards."
        : "alone, it takes the control-plane VIP although no apiserver answers yet (a negative check weight keeps it eligible).",
    ),
    {
      action: "verify-vip",
      text: `\`ip -o addr show dev ${cp.vip.interface} | grep -F ' ${vip} '\` shows the VIP on this node; else read \`/var/log/messages\` for keepalived.`,
    },
    { action: "kubeadm-init", text: "`kubeadm init --config kubeadm.yaml --upload-certs`" },
    { action: "install-cilium", text: "Install Cilium with the `helm install` line of the Cilium section." },
  ];
  const initStep = initSteps.findIndex((s) => s.action === "kubeadm-init") + 1;
  const join = (n: PlannedNode): NodeBootstrap => ({
    node: n.name,
    steps: [
      ...common(n),
      ...keepalived(
        n,
        n.controlPlane
          ? "its apiserver check fails until it has joined, so it takes the control-plane VIP from nobody."
          : "its readiness check fails until Cilium runs on it, so it takes no external VIP before then.",
      ),
      {
        action: "kubeadm-join",
        text: "`kubeadm join --config kubeadm.yaml`",
        after: { node: init.name, step: initStep },
      },
    ],
  });
  const others = plan.nodes.filter((n) => n.name !== init.name);
  return [
    { node: init.name, steps: initSteps },
    ...others.filter((n) => n.controlPlane).map(join),
    ...others.filter((n) => !n.controlPlane).map(join),
  ];
}

/** The `## Bootstrap` section of PLAN.md: numbered steps per node. */
export function summarizeBootstrap(plan: ClusterPlan): string {
  const lines = [
    "## Bootstrap",
    "",
    `Bring the cluster up in this order: the control-plane endpoint is the VIP, so keepalived must hold it on ${plan.initNode.name} before \`kubeadm init\` (kubeadm's high-availability guide), and every other node joins after that. Within a node, do the steps in their order.`,
  ];
  for (const b of bootstrapPlan(plan)) {
    lines.push("", `**${b.node}**`, "");
    b.steps.forEach((s, i) => {
      const after = s.after ? ` (after ${s.after.node} step ${s.after.step})` : "";
      lines.push(`${i + 1}. ${s.text}${after}`);
    });
  }
  return lines.join("\n");
}
