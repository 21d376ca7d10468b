// kubeadm reads kubeadm.yaml only at init and join: a change to the cluster's running configuration needs the
// procedure of kubeadm's "Reconfiguring a kubeadm cluster" (kubernetes/website, content/en/docs/tasks/
// administer-cluster/kubeadm/kubeadm-reconfigure.md): edit the kubeadm-config or kubelet-config ConfigMap, then on
// each node write the new certificates (`kubeadm init phase certs`), static Pod manifests (`kubeadm init phase
// control-plane`) or kubelet config (`kubeadm upgrade node phase kubelet-config`) and restart what reads them, one
// node at a time. The documents compared are the ones that ship (overlays included), read from the tree.
import { holdingOf, parseYamlDocuments, shellQuote, takeoverBounds, toYaml } from "@clusterspec/core";
import type { PlannedNode } from "@clusterspec/core/types";
import type { TreeSide } from "./node-steps.js";
import { deepEqual } from "./spec-diff.js";
import type { RolloutStep, VipMove } from "./types.js";

export type Step = Omit<RolloutStep, "index">;

type Doc = Record<string, unknown>;
const isMap = (v: unknown): v is Doc => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * A kubeadm.yaml's documents, the last two texts' kept: a plan reads the ClusterConfiguration and the
 * KubeletConfiguration of both trees from their init node's file, which a change most often leaves as it was (then
 * one parse instead of four). Read only: the steps copy what they change.
 */
const parsedDocuments = new Map<string, readonly unknown[]>();
function documentsOf(text: string): readonly unknown[] {
  let docs = parsedDocuments.get(text);
  if (docs === undefined) {
    if (parsedDocuments.size >= 2) parsedDocuments.clear();
    docs = parseYamlDocuments(text);
    parsedDocuments.set(text, docs);
  }
  return docs;
}

/** The first document of `kind` in any node's kubeadm.yaml (the init node's carries the cluster-wide ones). */
export function kubeadmDocument(side: TreeSide, kind: string): Doc | undefined {
  for (const node of side.plan.nodes) {
    const a = side.artifacts.find((x) => x.path === `nodes/${node.name}/kubeadm.yaml`);
    if (!a?.content.includes(`kind: ${kind}`)) continue;
    const doc = documentsOf(a.content).find((d) => isMap(d) && d.kind === kind);
    if (isMap(doc)) return doc;
  }
  return undefined;
}

/** The ClusterConfiguration: from the tree, or (every node joins once the cluster is bootstrapped) from the plan. */
function clusterConfiguration(side: TreeSide): Doc {
  const doc = kubeadmDocument(side, "ClusterConfiguration");
  if (doc) return doc;
  const k = side.plan.kubernetes.knobs;
  const args = (r: Readonly<Record<string, string>>) => Object.entries(r).map(([name, value]) => ({ name, value }));
  return {
    apiServer: { certSANs: [...k.certSANs], extraArgs: args(k.apiServerArgs), extraVolumes: k.apiServerVolumes },
    controllerManager: { extraArgs: args(k.controllerManagerArgs) },
    scheduler: { extraArgs: args(k.schedulerArgs) },
    etcd: { local: { extraArgs: args(k.etcdArgs) } },
  };
}

function kubeletConfiguration(side: TreeSide): Doc {
  return kubeadmDocument(side, "KubeletConfiguration") ?? { ...side.plan.kubernetes.knobs.kubelet };
}

/** YAML of the keys of `next` that differ from `old` (null for a key that is gone): the exact edit of a ConfigMap. */
function patchOf(old: Doc, next: Doc, keys: readonly string[]): string {
  const patch: Doc = {};
  for (const k of keys) if (!deepEqual(old[k], next[k])) patch[k] = next[k] ?? null;
  return toYaml(patch);
}

const without = (d: unknown, key: string): Doc => {
  if (!isMap(d)) return {};
  const { [key]: _, ...rest } = d;
  return rest;
};

/** The control-plane components whose configuration changed, and whether the apiserver needs a new certificate. */
export interface ControlPlaneChange {
  readonly certSANs: boolean;
  readonly components: readonly ("apiserver" | "controller-manager" | "scheduler" | "etcd")[];
  readonly patch: string | undefined;
  /** Other ClusterConfiguration keys that changed (networking, clusterName, …): not-in-place, see not-in-place.ts. */
  readonly other: readonly string[];
}

export function controlPlaneChange(old: TreeSide, next: TreeSide): ControlPlaneChange {
  const a = clusterConfiguration(old);
  const b = clusterConfiguration(next);
  const apiA = isMap(a.apiServer) ? a.apiServer : {};
  const apiB = isMap(b.apiServer) ? b.apiServer : {};
  const components: ControlPlaneChange["components"][number][] = [];
  if (!deepEqual(without(apiA, "certSANs"), without(apiB, "certSANs"))) components.push("apiserver");
  if (!deepEqual(a.controllerManager, b.controllerManager)) components.push("controller-manager");
  if (!deepEqual(a.scheduler, b.scheduler)) components.push("scheduler");
  if (!deepEqual(a.etcd, b.etcd)) components.push("etcd");
  const certSANs = !deepEqual(apiA.certSANs, apiB.certSANs);
  const owned = new Set(["apiServer", "controllerManager", "scheduler", "etcd"]);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  const other = keys.filter((k) => !owned.has(k) && !deepEqual(a[k], b[k]));
  const changedOwned = keys.filter((k) => owned.has(k) && !deepEqual(a[k], b[k]));
  return { certSANs, components, patch: changedOwned.length > 0 ? patchOf(a, b, changedOwned) : undefined, other };
}

const KUBECONFIG = "/etc/kubernetes/admin.conf";
const RECONFIGURE = "/etc/kubernetes/clusterspec-reconfigure.yaml";
const FROM_CONFIGMAP = "/etc/kubernetes/clusterspec-cluster.yaml";

export const readyzOf = (plan: TreeSide["plan"], node: PlannedNode): string =>
  `curl -ksf https://${node.internalAddress.includes(":") ? `[${node.internalAddress}]` : node.internalAddress}:${plan.controlPlane.port}/readyz`;

/** The VIP moves while `node`'s apiserver is down: the control-plane VIP leaves its master for the next one, and returns. */
export function apiserverDownMoves(plan: TreeSide["plan"], node: string): VipMove[] {
  const vip = plan.controlPlane.vip;
  const before = holdingOf(plan, vip, { down: [], unhealthy: [] });
  if (before.holder !== node) return [];
  const during = holdingOf(plan, vip, { down: [], unhealthy: [node] }, node);
  if (during.holder === node) return [];
  const bounds = takeoverBounds(plan, during.priority ?? 1, "control-plane");
  const back = takeoverBounds(plan, before.priority ?? 1, "control-plane");
  return [
    { vip: vip.address, from: node, to: during.holder ?? null, unavailableSeconds: bounds.checkFailure.max },
    { vip: vip.address, from: during.holder ?? null, to: node, unavailableSeconds: back.checkRecovery.max },
  ];
}

/** Control planes in a safe order: the control-plane VIP's master last, so the VIP moves at most once there and back. */
export function controlPlanesInOrder(plan: TreeSide["plan"], among: ReadonlySet<string>): PlannedNode[] {
  const holder = holdingOf(plan, plan.controlPlane.vip, { down: [], unhealthy: [] }).holder;
  const cps = plan.nodes.filter((n) => n.controlPlane && among.has(n.name));
  return [...cps.filter((n) => n.name !== holder), ...cps.filter((n) => n.name === holder)];
}

/** kubeadm-config edit, then on each existing control plane the certificates and manifests, one at a time. */
export function controlPlaneSteps(old: TreeSide, next: TreeSide, existing: ReadonlySet<string>): Step[] {
  const change = controlPlaneChange(old, next);
  if (!change.certSANs && change.components.length === 0) return [];
  const steps: Step[] = [
    {
      node: null,
      kind: "kubectl",
      title: "kubeadm-config: the new ClusterConfiguration (read by later joins and upgrades)",
      files: [],
      commands: ["kubectl edit cm -n kube-system kubeadm-config"],
      vipMoves: [],
      warnings: ["in data.ClusterConfiguration, set the keys of `patch` to the values shown (the whole key)"],
      ...(change.patch === undefined ? {} : { patch: change.patch }),
    },
  ];
  const { plan } = next;
  const apiVersion = plan.kubernetes.kubeadmApiVersion;
  for (const node of controlPlanesInOrder(plan, existing)) {
    const header = `apiVersion: ${apiVersion}\\nkind: InitConfiguration\\nlocalAPIEndpoint:\\n  advertiseAddress: ${node.internalAddress}\\n  bindPort: ${plan.controlPlane.port}\\nnodeRegistration:\\n  name: ${node.name}\\n  criSocket: ${plan.kubernetes.criSocket}\\n---\\n`;
    const commands = [
      `cp -a /etc/kubernetes /root/etc-kubernetes.before-clusterspec-change`,
      `kubectl --kubeconfig ${KUBECONFIG} get cm -n kube-system kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' > ${FROM_CONFIGMAP}`,
      `printf '${header}' | cat - ${FROM_CONFIGMAP} > ${RECONFIGURE}`,
    ];
    const apiserverManifest = change.components.includes("apiserver");
    if (change.certSANs)
      commands.push(
        "mv /etc/kubernetes/pki/apiserver.crt /etc/kubernetes/pki/apiserver.crt.old",
        "mv /etc/kubernetes/pki/apiserver.key /etc/kubernetes/pki/apiserver.key.old",
        `kubeadm init phase certs apiserver --config ${RECONFIGURE}`,
      );
    for (const c of change.components)
      commands.push(
        c === "etcd"
          ? `kubeadm init phase etcd local --config ${RECONFIGURE}`
          : `kubeadm init phase control-plane ${c} --config ${RECONFIGURE}`,
      );
    // The kubelet rereads /etc/kubernetes/manifests every 20 s (fileCheckFrequency): a new certificate alone does
    // not change the manifest, so the apiserver's is taken away for one period and put back.
    if (change.certSANs && !apiserverManifest)
      commands.push(
        "mv /etc/kubernetes/manifests/kube-apiserver.yaml /etc/kubernetes/kube-apiserver.yaml",
        "sleep 25",
        "mv /etc/kubernetes/kube-apiserver.yaml /etc/kubernetes/manifests/kube-apiserver.yaml",
      );
    commands.push("sleep 25");
    const what = [
      ...(change.certSANs ? ["new apiserver certificate"] : []),
      ...(change.components.length > 0 ? [`new ${change.components.join(", ")} manifest(s)`] : []),
    ];
    const restartsApiserver = change.certSANs || apiserverManifest || change.components.includes("etcd");
    steps.push({
      node: node.name,
      kind: "kubeadm",
      title: `${node.name}: ${what.join(" and ")} (control plane, one at a time)`,
      files: [],
      commands,
      vipMoves: restartsApiserver ? apiserverDownMoves(plan, node.name) : [],
      waitFor: readyzOf(plan, node),
      warnings: [
        "the old configuration stays in /root/etc-kubernetes.before-clusterspec-change until the cluster is healthy",
      ],
      down: [node.name],
    });
  }
  return steps;
}

/** kubelet-config edit, then on each existing node `kubeadm upgrade node phase kubelet-config` and a kubelet restart. */
export function kubeletConfigSteps(old: TreeSide, next: TreeSide, existing: ReadonlySet<string>): Step[] {
  const a = kubeletConfiguration(old);
  const b = kubeletConfiguration(next);
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => k !== "apiVersion" && k !== "kind");
  if (keys.every((k) => deepEqual(a[k], b[k]))) return [];
  const steps: Step[] = [
    {
      node: null,
      kind: "kubectl",
      title: "kubelet-config: the new KubeletConfiguration",
      files: [],
      commands: ["kubectl edit cm -n kube-system kubelet-config"],
      vipMoves: [],
      warnings: ["in data.kubelet, set the keys of `patch` to the values shown (null: delete the key)"],
      patch: patchOf(a, b, keys),
    },
  ];
  const { plan } = next;
  const cps = controlPlanesInOrder(plan, existing);
  const workers = plan.nodes.filter((n) => !n.controlPlane && existing.has(n.name));
  for (const node of [...workers, ...cps]) {
    const patches = next.artifacts.some(
      (x) => x.path === `nodes/${node.name}/etc/kubernetes/patches/kubeletconfiguration+strategic.yaml`,
    );
    steps.push({
      node: node.name,
      kind: "kubelet",
      title: `${node.name}: kubelet configuration from kubelet-config, kubelet restart`,
      files: [],
      commands: [
        `kubeadm upgrade node phase kubelet-config${patches ? " --patches /etc/kubernetes/patches" : ""}`,
        "rc-service kubelet restart",
      ],
      vipMoves: [],
      waitFor: nodeReady(node.name),
      warnings: [],
      down: [node.name],
    });
  }
  return steps;
}

export const nodeReady = (node: string): string => `kubectl wait --for=condition=Ready node/${node} --timeout=300s`;

type PlannedTaint = PlannedNode["taints"][number];
const taintText = (t: PlannedTaint) => `${t.key}${t.value === "" ? "" : `=${t.value}`}:${t.effect}`;

/** Labels and taints are applied by kubeadm at join only: kubectl applies a change to an existing node. */
export function labelTaintSteps(old: TreeSide, next: TreeSide): Step[] {
  const steps: Step[] = [];
  const before = new Map(old.plan.nodes.map((n) => [n.name, n]));
  for (const node of next.plan.nodes) {
    const was = before.get(node.name);
    if (!was) continue;
    const commands: string[] = [];
    const name = shellQuote(node.name);
    for (const [k, v] of Object.entries(node.labels))
      if (was.labels[k] !== v) commands.push(`kubectl label node ${name} ${shellQuote(`${k}=${v}`)} --overwrite`);
    for (const k of Object.keys(was.labels))
      if (!Object.hasOwn(node.labels, k)) commands.push(`kubectl label node ${name} ${shellQuote(`${k}-`)}`);
    const had = new Set(was.taints.map(taintText));
    const has = new Set(node.taints.map(taintText));
    for (const t of was.taints)
      if (!has.has(taintText(t)) && !node.taints.some((n) => n.key === t.key && n.effect === t.effect))
        commands.push(`kubectl taint node ${name} ${shellQuote(`${t.key}:${t.effect}-`)}`);
    for (const t of node.taints)
      if (!had.has(taintText(t))) commands.push(`kubectl taint node ${name} ${shellQuote(taintText(t))} --overwrite`);
    if (commands.length === 0) continue;
    steps.push({
      node: null,
      kind: "kubectl",
      title: `${node.name}: labels and taints (kubeadm sets them only at join)`,
      files: [],
      commands,
      vipMoves: [],
      warnings: [],
    });
  }
  return steps;
}
