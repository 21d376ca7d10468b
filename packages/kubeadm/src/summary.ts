// The PLAN.md section: how each node runs kubeadm, and how fast a dead node is noticed.
import { type ClusterPlan, mdTable, type PlannedNode } from "@clusterspec/core";
import {
  CLUSTER_CONFIG_PATH,
  clusterWideStorageIsolationOff,
  KUBELET_PATCH_FILE,
  kubeletPatch,
  nodeKind,
  PATCHES_DIRECTORY,
} from "./documents.js";
import { apiServerArgs, controllerManagerArgs, LEASE_RENEW_SECONDS, nodeHealthTiming } from "./node-health.js";

const COMMAND = {
  init: "kubeadm init --config kubeadm.yaml --upload-certs",
  "join-control-plane": "kubeadm join --config kubeadm.yaml",
  "join-worker": "kubeadm join --config kubeadm.yaml",
} as const;

const ROLE = {
  init: "init",
  "join-control-plane": "join control plane",
  "join-worker": "join worker",
};

/** The kubeadm column: the init node says where it comes from (the default keeps the words PLAN.md always had). */
function role(plan: ClusterPlan, node: PlannedNode): string {
  const kind = nodeKind(node);
  if (kind !== "init") return ROLE[kind];
  return plan.bootstrap.initNodeDefaulted ? "init (first control plane)" : "init (controlPlane.initNode)";
}

/** How the join secrets are kept usable: before the first init, or for a cluster that runs already. */
function joinSecretsNote(plan: ClusterPlan): string {
  const renew =
    "The uploaded certificates expire 2 hours after they were uploaded and the bootstrap token 24 hours after it was created: before a control plane joins later, run `kubeadm init phase upload-certs --upload-certs --certificate-key <kubernetes.secrets.certificateKey>` on a running control plane, and before any node joins, `kubeadm token create <kubernetes.secrets.bootstrapToken>` there if `kubeadm token list` no longer shows it (the values the spec references, so the generated files stay right).";
  return plan.bootstrap.bootstrapped
    ? `- Join secrets come from \`kubernetes.secrets\`. The CA hash is that of the running cluster's \`/etc/kubernetes/pki/ca.crt\`. ${renew}`
    : `- Join secrets come from \`kubernetes.secrets\`. The CA hash must match \`/etc/kubernetes/pki/ca.crt\` of the init node: create the CA before \`kubeadm init\`, or fill the hash in after it and regenerate. The uploaded certificates expire 2 hours after \`--upload-certs\` and the bootstrap token after 24 hours (\`kubeadm init phase upload-certs --upload-certs\`, \`kubeadm token create\` renew them).`;
}

const seconds = (n: number): string => `${Number(n.toFixed(3))}s`;

export function summarizeKubeadm(plan: ClusterPlan): string {
  const k = plan.kubernetes;
  const api = k.kubeadmApiVersion;
  const nodes = mdTable(
    ["node", "kubeadm", "command", "kubelet patch"],
    plan.nodes.map((n) => {
      const patch = kubeletPatch(plan, n);
      return [
        n.name,
        role(plan, n),
        `\`${COMMAND[nodeKind(n)]}\``,
        patch ? `${PATCHES_DIRECTORY}/${KUBELET_PATCH_FILE}: ${JSON.stringify(patch)}` : "-",
      ];
    }),
  );
  const secrets = plan.secrets.bootstrapToken
    ? [joinSecretsNote(plan)]
    : ["- No join secrets: a single node, kubeadm generates its own bootstrap token."];
  const h = k.nodeHealth;
  const t = nodeHealthTiming(plan);
  const cm = controllerManagerArgs(plan);
  const as = apiServerArgs(plan);
  const timing = mdTable(
    ["tunable", "value", "where"],
    [
      [
        "status update / report frequency",
        h.statusUpdateFrequency,
        "KubeletConfiguration nodeStatusUpdateFrequency, nodeStatusReportFrequency",
      ],
      ["lease renewal", seconds(LEASE_RENEW_SECONDS), "kubelet default (nodeLeaseDurationSeconds 40 / 4)"],
      ["node monitor period", h.monitorPeriod, "kube-controller-manager --node-monitor-period"],
      ["node monitor grace period", h.monitorGracePeriod, "kube-controller-manager --node-monitor-grace-period"],
      [
        "eviction after",
        `${as["default-not-ready-toleration-seconds"]}s`,
        `kube-apiserver --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds${cm["pod-eviction-timeout"] ? "; kube-controller-manager --pod-eviction-timeout (below 1.27)" : ""}`,
      ],
    ],
  );
  return [
    "## kubeadm",
    "",
    `API \`${api}\` for Kubernetes ${k.versionText}. kube-proxy is not installed (${api === "kubeadm.k8s.io/v1beta4" ? "`proxy.disabled: true`" : "`skipPhases: [addon/kube-proxy]`"}): Cilium replaces it. Copy each node's folder onto the node (a root-filesystem overlay) and run, next to its \`kubeadm.yaml\`, in this order:`,
    "",
    nodes,
    "",
    ...secrets,
    ...(plan.bootstrap.bootstrapped
      ? [
          `- \`${CLUSTER_CONFIG_PATH}\` holds the cluster-wide ClusterConfiguration and KubeletConfiguration, which no node's kubeadm.yaml carries once every node joins: a join and \`kubeadm upgrade\` read them from the cluster (the \`kubeadm-config\` and \`kubelet-config\` ConfigMaps in kube-system), so a change to this file takes effect only once those ConfigMaps say the same (kubeadm's "Reconfiguring a kubeadm cluster").`,
        ]
      : []),
    ...(k.knobs.apiServerAuthentication === undefined
      ? []
      : [
          `- Anonymous requests reach kube-apiserver only at ${k.knobs.apiServerAuthentication.anonymousPaths.map((p) => `\`${p}\``).join(", ")} (\`kubernetes.apiServer.anonymousAuth: healthEndpoints\`): every control plane carries \`${k.knobs.apiServerAuthentication.path}\` (an \`${k.knobs.apiServerAuthentication.apiVersion}\` AuthenticationConfiguration), which the ClusterConfiguration mounts into the kube-apiserver pod and passes as \`--authentication-config\`. Any other anonymous request gets 401, while keepalived's anonymous \`/readyz\` check keeps working. Keep the file on every control plane: a control plane that joins later needs it before \`kubeadm join\`, or its kube-apiserver does not start.`,
        ]),
    ...(clusterWideStorageIsolationOff(plan)
      ? [
          "- Every node is on btrfs: `localStorageCapacityIsolation: false` is in the cluster-wide KubeletConfiguration (the `kubelet-config` ConfigMap), which `kubeadm upgrade apply` and `kubeadm upgrade node` write each kubelet's config from, so upgrades keep it with no extra flag; no node needs a patch.",
        ]
      : []),
    ...(plan.nodes.some((n) => kubeletPatch(plan, n))
      ? [
          `- The kubelet patches are per-node differences (btrfs nodes${plan.cloud ? ", while burst nodes share the cluster-wide KubeletConfiguration" : " among others that are not"}). Keep \`${PATCHES_DIRECTORY}\` on the nodes and pass \`--patches ${PATCHES_DIRECTORY}\` to every \`kubeadm upgrade apply\` and \`kubeadm upgrade node\` on a patched node (with kubeadm v1beta4, \`UpgradeConfiguration\` \`apply.patches.directory\` / \`node.patches.directory\` do the same): without it an upgrade rewrites \`/var/lib/kubelet/config.yaml\` from the ConfigMap and drops the patch.`,
        ]
      : []),
    ...(plan.nodes.some((n) => n.localStorageIsolationOff === "kubelet-feature-gate")
      ? [
          "- Kubernetes below 1.25 has no kubeletconfiguration patches: btrfs nodes get `--feature-gates=LocalStorageCapacityIsolation=false` in their `etc/conf.d/kubelet` instead.",
        ]
      : []),
    "",
    "### Node failure timing",
    "",
    timing,
    "",
    `- A healthy node shows a sign of life at least every ${seconds(t.heartbeatSeconds)}; the grace period lets it miss ${t.toleratedMisses} status updates in a row.`,
    `- A dead node is marked NotReady/Unknown at most **${seconds(t.noticeSeconds)}** after its last heartbeat (grace period + monitor period).`,
    `- Its pods are evicted at most **${seconds(t.evictSeconds)}** after it died (+ toleration seconds); pods with their own tolerations stay longer.`,
  ].join("\n");
}
