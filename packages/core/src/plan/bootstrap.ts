// The order a cluster is brought up in, per node, as data: PLAN.md renders it and a test checks the order for
// every spec. kubeadm's HA guide: with controlPlaneEndpoint on a VIP, the VIP must answer before `kubeadm init`,
// so keepalived runs on the init node first; every other node joins after `kubeadm init`. Once the spec says
// `controlPlane.bootstrapped`, no node inits: every node (re)joins the running cluster.
import { GENTOO_ATOMS } from "../facts/gentoo.js";
import type { ClusterPlan, PlannedNode } from "./types.js";
import { vipCarriers } from "./vrrp.js";

export type BootstrapAction =
  | "install"
  | "copy-files"
  | "start-keepalived"
  | "verify-vip"
  | "kubeadm-init"
  | "mark-bootstrapped"
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

/**
 * The init node first, then the other control-plane nodes, then the workers, each in spec order. Once bootstrapped,
 * the same order with no init: every node joins the running cluster, and no step waits for another node's.
 */
export function bootstrapPlan(plan: ClusterPlan): NodeBootstrap[] {
  const init = plan.initNode;
  const holdsVip = vipCarriers(plan.vips);
  const cp = plan.controlPlane;
  const vip = `${cp.vip.address}/${cp.vip.prefixLength}`;
  const packages = (n: PlannedNode): string => {
    const atoms = [
      ...(holdsVip.has(n.name) ? [GENTOO_ATOMS.keepalived] : []),
      ...(n.controlPlane || (n.carriesExternalVips && plan.vrrp.readinessCheck) ? [GENTOO_ATOMS.curl] : []),
    ];
    return atoms.length === 0
      ? "Install the Kubernetes packages (see Host files)."
      : `Install \`${atoms.join(" ")}\`${atoms.includes(GENTOO_ATOMS.curl) ? " (keepalived's checks call curl)" : ""} and the Kubernetes packages (see Host files${plan.host.gentooPackages ? "; copy its package.accept_keywords file first: a stable-only system needs it" : ""}).`;
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
  const initSteps = (node: PlannedNode): BootstrapStep[] => [
    ...common(node),
    ...keepalived(
      node,
      plan.vrrp.healthCheck.weight === 0
        ? "**with `vrrp.healthCheck.weight: 0` its instance stays in FAULT until an apiserver answers, so nothing holds the VIP for `kubeadm init`**: bring the cluster up with a negative weight (the default) and set 0 afterwards."
        : "alone, it takes the control-plane VIP although no apiserver answers yet (a negative check weight keeps it eligible).",
    ),
    {
      action: "verify-vip",
      text: `\`ip -o addr show dev ${cp.vip.interface} | grep -F ' ${vip} '\` shows the VIP on this node; else read \`/var/log/messages\` for keepalived.`,
    },
    { action: "kubeadm-init", text: "`kubeadm init --config kubeadm.yaml --upload-certs`" },
    {
      action: "mark-bootstrapped",
      text: `Set \`controlPlane.bootstrapped: true\` in the spec, regenerate and commit the tree: ${node.name}'s kubeadm.yaml becomes a JoinConfiguration (no other node's file changes), so \`kubeadm init\` never runs again, on this node or another.`,
    },
    { action: "install-cilium", text: "Install Cilium with the `helm install` line of the Cilium section." },
  ];
  const after =
    init === undefined
      ? undefined
      : { node: init.name, step: initSteps(init).findIndex((s) => s.action === "kubeadm-init") + 1 };
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
        ...(after === undefined ? {} : { after }),
      },
    ],
  });
  const others = plan.nodes.filter((n) => n.name !== init?.name);
  return [
    ...(init === undefined ? [] : [{ node: init.name, steps: initSteps(init) }]),
    ...others.filter((n) => n.controlPlane).map(join),
    ...others.filter((n) => !n.controlPlane).map(join),
  ];
}

/** Where the init node comes from, in words. */
function initNodeSource(plan: ClusterPlan): string {
  return plan.bootstrap.initNodeDefaulted
    ? "`controlPlane.initNode`, by default the first control-plane node in `nodes`"
    : "`controlPlane.initNode`";
}

/** The `## Bootstrap` section of PLAN.md: who inits and why, then numbered steps per node. */
export function summarizeBootstrap(plan: ClusterPlan): string {
  const init = plan.bootstrap.initNodeName;
  const boot = bootstrapPlan(plan);
  const markStep = (boot[0]?.steps.findIndex((s) => s.action === "mark-bootstrapped") ?? -1) + 1;
  const intro = plan.bootstrap.bootstrapped
    ? `The cluster is bootstrapped (\`controlPlane.bootstrapped: true\`): it was initialised once and runs, so no node initialises it again. Every node's kubeadm.yaml is a JoinConfiguration, ${init} (${initNodeSource(plan)}) included: a node that is added, rebuilt or re-added joins the running cluster with these steps (control planes first), and Removing a node and Replacing a node below say what comes before. Within a node, do the steps in their order.`
    : `${init} initialises the cluster (${initNodeSource(plan)}): \`kubeadm init\` creates the cluster's certificate authorities, its etcd and its first control plane, once, and every other node joins it. The control-plane endpoint is the VIP, so keepalived must hold it on ${init} before \`kubeadm init\` (kubeadm's high-availability guide). **As soon as \`kubeadm init\` has succeeded, set \`controlPlane.bootstrapped: true\`** (step ${markStep} on ${init}): until then the tree tells ${init} to initialise, so a rebuilt ${init}, or another node once ${init} leaves \`nodes\`, would start a second cluster. Within a node, do the steps in their order.`;
  const lines = ["## Bootstrap", "", intro];
  for (const b of boot) {
    lines.push("", `**${b.node}**`, "");
    b.steps.forEach((s, i) => {
      const after = s.after ? ` (after ${s.after.node} step ${s.after.step})` : "";
      lines.push(`${i + 1}. ${s.text}${after}`);
    });
  }
  return lines.join("\n");
}
