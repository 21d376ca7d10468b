// PLAN.md's runbooks for the life of a node after bootstrap: removing one and replacing one (its etcd member
// included). They sit beside ## Bootstrap because they are its other half: the join a replaced node does is the
// bootstrap's join, and it is a join only because the cluster is marked bootstrapped.
import type { ClusterPlan } from "./types.js";

/** The client certificate kubeadm writes for etcd checks on every control plane (`etcd/healthcheck-client`). */
const ETCD_PKI = "/etc/kubernetes/pki/etcd";

/**
 * etcdctl as kubeadm's etcd static pod runs it: the image ships etcdctl and mounts the node's etcd certificates at
 * the same path, so nothing needs installing. `<other>` is a control plane that stays.
 */
export const ETCDCTL = `kubectl -n kube-system exec etcd-<other> -- etcdctl --endpoints=https://127.0.0.1:2379 --cacert=${ETCD_PKI}/ca.crt --cert=${ETCD_PKI}/healthcheck-client.crt --key=${ETCD_PKI}/healthcheck-client.key`;

/** `## Removing a node` and `## Replacing a node`. */
export function summarizeNodeRunbooks(plan: ClusterPlan): string {
  const controlPlanes = plan.nodes.filter((n) => n.controlPlane).map((n) => n.name);
  const holdsVip = plan.vips.some((v) => v.order.length > 0);
  const init = plan.bootstrap.initNodeName;
  const notBootstrapped = plan.bootstrap.bootstrapped
    ? []
    : [
        `**The spec does not say \`controlPlane.bootstrapped: true\` yet.** If \`kubeadm init\` has run, set it first, regenerate and commit, before anything below: until then ${init}'s kubeadm.yaml is an InitConfiguration, so a rebuilt ${init} would start a second cluster, and removing or renaming ${init} would make the next control plane's kubeadm.yaml one.`,
        "",
      ];
  const lone =
    controlPlanes.length === 1
      ? [
          `With one control plane (${controlPlanes[0]}) etcd has one member: removing or rebuilding that node loses the cluster's state. Take an etcd snapshot first, and bring the cluster back from it (\`etcdutl snapshot restore\`) rather than joining.`,
          "",
        ]
      : [];
  // The etcd pod to run etcdctl in must be on a control plane that stays.
  const stays =
    controlPlanes.length > 1 ? `: ${controlPlanes[0]}, or ${controlPlanes[1]} when removing ${controlPlanes[0]}` : "";
  const removing = [
    "## Removing a node",
    "",
    ...notBootstrapped,
    ...lone,
    "Run `kubectl` and `etcdctl` from a host with the cluster's admin kubeconfig (`/etc/kubernetes/admin.conf` of a control plane), and the steps marked *on the node* on the node itself. `<node>` is its name. This is kubeadm's own order (drain, reset, delete), with the etcd member checked afterwards because `kubeadm reset` removes it only when it can still reach etcd.",
    "",
    "1. `kubectl drain <node> --ignore-daemonsets --delete-emptydir-data`: its pods move to other nodes (a PodDisruptionBudget may hold it until they can).",
    ...(holdsVip
      ? [
          "2. *On the node*, if it runs keepalived (a control plane or a VIP carrier): `rc-service keepalived stop`. It gives its VIPs up at once (priority 0), rather than after its checks fail.",
        ]
      : ["2. (No node runs keepalived in this cluster: nothing to stop.)"]),
    "3. *On the node*: `kubeadm reset -f` stops the kubelet (`rc-service kubelet stop`), removes its containers and what kubeadm wrote (`/etc/kubernetes`, `/var/lib/kubelet`; on a control plane also `/var/lib/etcd` and its etcd member, while etcd answers). Then `rm -rf /etc/cni/net.d` (kubeadm reset leaves the CNI configuration), `rc-update del kubelet default`" +
      (holdsVip ? ", `rc-update del keepalived default`" : "") +
      ", and reboot (Cilium's interfaces and BPF programs go with it).",
    "4. `kubectl delete node <node>`.",
    `5. A control plane: its etcd member must be gone, or etcd keeps counting a member that never answers toward its quorum. Run etcdctl in the etcd pod of a control plane that stays (\`<other>\`${stays}); a member's name is its node's name, and \`member remove\` takes its ID:`,
    "",
    "   ```sh",
    `   ETCDCTL="${ETCDCTL}"`,
    "   $ETCDCTL member list -w table",
    `   ID=$($ETCDCTL member list | awk -F', ' '$3 == "<node>" { print $1 }')`,
    '   [ -z "$ID" ] || $ETCDCTL member remove "$ID"',
    "   ```",
    "",
    "6. Remove the node from `nodes` in the spec, regenerate, and install the other nodes' changed files in the order `clusterspec changes <old spec> <new spec>` gives (`/etc/hosts` on every node, keepalived.conf where the VIPs' orders change).",
    "",
    `- A node that is dead: drain with \`--timeout 5m\` and go on, skip steps 2-3, and wipe the disk (or \`kubeadm reset -f\` it off the network) before it ever boots into the cluster's network again: its kubelet and etcd would come back with the old identity.`,
    `- Control planes stay 1, 3 or 5 (etcd's majority; the spec refuses 2 and 4): removing one for good means adding another in the same change, else replace it (below). If \`controlPlane.initNode\` names the node, name a control plane that stays.`,
  ];
  const replacing = [
    "## Replacing a node",
    "",
    ...(plan.bootstrap.bootstrapped
      ? []
      : [
          `**Mark the cluster bootstrapped first** (see Removing a node): a rebuilt ${init} must join, and only \`controlPlane.bootstrapped: true\` makes its kubeadm.yaml a JoinConfiguration.`,
          "",
        ]),
    "The same name on a rebuilt machine (a new disk, or new hardware):",
    "",
    "1. Remove it as above, steps 1-5, and keep it in the spec. If the new machine has other MAC addresses, change `nodes[].interfaces.<name>.mac` and regenerate.",
    "2. A control plane needs the control-plane certificates uploaded within the last 2 hours: on a running control plane, `kubeadm init phase upload-certs --upload-certs --certificate-key <kubernetes.secrets.certificateKey>`. Any node needs the bootstrap token: if `kubeadm token list` there no longer shows it, `kubeadm token create <kubernetes.secrets.bootstrapToken>`. Both are the values the spec references, the ones in the node's kubeadm.yaml.",
    `3. On the new machine, the node's steps in Bootstrap, ending with \`kubeadm join --config kubeadm.yaml\`. It joins, ${init} included: the cluster is marked bootstrapped, so every node's kubeadm.yaml is a JoinConfiguration (a control plane's with its \`controlPlane:\` section and the certificate key).`,
    "4. A control plane: the member list (step 5 above) shows `<node>` started, and `kubectl get node <node>` shows it Ready once Cilium runs on it.",
    "",
    "Under a new name: in one change replace the node's entry in `nodes` by the new one (name, MAC and addresses), regenerate, remove the old node (steps 1-5 above), then do steps 2-3 for the new one and install the other nodes' changed files. Removing before joining keeps etcd at its size or below; while a control plane is missing, every other one must stay up until the new one has joined.",
  ];
  return [...removing, "", ...replacing].join("\n");
}
