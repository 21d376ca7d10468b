// planChanges: what a spec change does to each generated file, and the ordered steps that make it live. Pure: the
// caller passes both trees (validated spec, plan, shipped artifacts), the per-node planners (keepalived, netifrc),
// and, for the files and lines of each spec change and the spec lines of the messages, a regenerate callback and a
// line lookup (rollout imports no generator and reads no text).
import { contentLength, sameContent, toDotPath } from "@clusterspec/core";
import type { Artifact, ClusterSpec } from "@clusterspec/core/types";
import { clusterSteps, hostSteps, planned, unknownNodeFile } from "./file-steps.js";
import {
  apiserverDownMoves,
  controlPlaneSteps,
  kubeletConfigSteps,
  labelTaintSteps,
  nodeReady,
  readyzOf,
  type Step,
} from "./kubeadm-steps.js";
import { fileDelta, type LineDelta, type LineTable, lineTable } from "./lines.js";
import type { NodeStepPlanner, TreeSide } from "./node-steps.js";
import { type LineOf, notInPlaceChanges } from "./not-in-place.js";
import { applyEdit, diffSpecs, editNew, editOld, editPath, revertEdit, type SpecEdit } from "./spec-diff.js";
import type { ChangePlan, RolloutStep, SpecChange } from "./types.js";

export interface ChangeContext {
  /** The spec path's line in the old or new spec text (1-based), when the spec came from text. */
  readonly lineOf?: LineOf;
  /**
   * The artifacts of a spec (the generate pipeline), or undefined when the spec is not valid. With it, each of
   * several spec changes gets exactly its own lines; without it, each lists every changed line.
   */
  readonly regenerate?: (spec: ClusterSpec) => readonly Artifact[] | undefined;
  /** Above this many spec changes, lines are shared rather than measured (two generations per change). */
  readonly maxExactChanges?: number;
  /**
   * Nor past this many bytes generated for the measure (two trees per change): on 300 nodes × 254 VIPs (34 MiB a
   * tree) one generation is a second, so a large cluster's several changes share their lines.
   */
  readonly maxExactBytes?: number;
}

const DEFAULT_MAX_EXACT = 24;
const DEFAULT_MAX_EXACT_BYTES = 48 * 2 ** 20;

export function planChanges(
  old: TreeSide,
  next: TreeSide,
  planners: readonly NodeStepPlanner[] = [],
  context: ChangeContext = {},
): ChangePlan {
  const lineOf: LineOf = context.lineOf ?? (() => undefined);
  const oldFiles = new Map(old.artifacts.map((a) => [a.path, a]));
  const newFiles = new Map(next.artifacts.map((a) => [a.path, a]));
  // one count table for every file's line delta and comparison: the files repeat each other's lines (lines.ts)
  const table = lineTable();
  const changed = [...new Set([...oldFiles.keys(), ...newFiles.keys()])]
    .filter((p) => !sameContent(oldFiles.get(p), newFiles.get(p), table.equalParts))
    .sort();

  const edits = diffSpecs(old.spec, next.spec);
  const specChanges = describeChanges(edits, old, next, changed, oldFiles, newFiles, lineOf, context, table);

  const external = planners.map((p) => p(old, next));
  const checks = notInPlaceChanges(old, next, lineOf);
  const notInPlace = [...checks.notInPlace, ...external.flatMap((e) => e.notInPlace)];
  const refused = [...checks.refused, ...external.flatMap((e) => e.refused)];
  if (refused.length > 0) return { schemaVersion: 1, specChanges, steps: [], notInPlace, refused };

  const oldNames = new Set(old.plan.nodes.map((n) => n.name));
  const newNames = new Set(next.plan.nodes.map((n) => n.name));
  const staying = new Set([...newNames].filter((n) => oldNames.has(n)));
  const changedCluster = changed.filter((p) => !p.startsWith("nodes/"));
  const cluster = clusterSteps(old, next, changedCluster);
  const isHelmCilium = (s: Step) => s.kind === "helm" && s.files.includes("cluster/cilium-values.yaml");

  const ordered: Step[] = [
    // keepalived and netifrc first: their planners order them safely among themselves
    ...external.flatMap((e) => e.steps),
    ...next.plan.nodes
      .filter((n) => staying.has(n.name))
      .flatMap((n) => withReadiness(next, hostSteps(n.name, changed))),
    ...controlPlaneSteps(old, next, staying),
    ...kubeletConfigSteps(old, next, staying),
    ...labelTaintSteps(old, next),
    ...cluster.filter(isHelmCilium),
    ...joinSteps(next, newNames, oldNames, changed),
    ...cluster.filter((s) => !isHelmCilium(s)),
    ...removalSteps(old, next, oldNames, newNames),
  ];
  const covered = new Set(ordered.flatMap((s) => s.files));
  // kubeadm.yaml is read only at join: a changed one on a node that stays is installed for the next join
  const installOnly: Step[] = [];
  for (const n of next.plan.nodes) {
    const path = `nodes/${n.name}/kubeadm.yaml`;
    if (staying.has(n.name) && changed.includes(path) && !covered.has(path)) {
      installOnly.push({
        node: n.name,
        kind: "kubeadm",
        title: `${n.name}: kubeadm.yaml (install only: kubeadm reads it at join)`,
        files: [path],
        commands: [],
        vipMoves: [],
        warnings: [],
      });
      covered.add(path);
    }
  }
  const steps: RolloutStep[] = [...ordered, ...installOnly].map((s, i) => ({ index: i + 1, ...s }));
  const unplanned = changed.flatMap((p) => {
    const m = /^nodes\/([^/]+)\/(.*)$/.exec(p);
    if (!m || covered.has(p) || !newNames.has(m[1] ?? "")) return [];
    const rest = m[2] ?? "";
    return planned(rest) !== undefined || unknownNodeFile(rest) ? [{ path: p, node: m[1] ?? null }] : [];
  });
  return {
    schemaVersion: 1,
    specChanges,
    steps,
    notInPlace,
    refused,
    ...(unplanned.length > 0 ? { unplanned } : {}),
  };
}

/** A step that takes a node down waits for it: /readyz on a control plane, the Node's Ready condition otherwise. */
function withReadiness(side: TreeSide, steps: Step[]): Step[] {
  return steps.map((s) => {
    if (!s.down || s.down.length === 0 || s.node === null || s.waitFor) return s;
    const node = side.plan.nodes.find((n) => n.name === s.node);
    if (!node) return s;
    return { ...s, waitFor: node.controlPlane ? readyzOf(side.plan, node) : nodeReady(node.name) };
  });
}

function joinSteps(next: TreeSide, newNames: Set<string>, oldNames: Set<string>, changed: readonly string[]): Step[] {
  const { plan } = next;
  const joining = plan.nodes.filter((n) => newNames.has(n.name) && !oldNames.has(n.name));
  // control planes first, one at a time: each must answer /readyz before the next etcd member joins
  return [...joining.filter((n) => n.controlPlane), ...joining.filter((n) => !n.controlPlane)].map((n) => {
    const prefix = `nodes/${n.name}/`;
    const files = changed.filter(
      (p) =>
        p.startsWith(prefix) &&
        planned(p.slice(prefix.length)) !== "keepalived" &&
        planned(p.slice(prefix.length)) !== "netifrc",
    );
    return {
      node: n.name,
      kind: "kubeadm" as const,
      title: `${n.name}: join the cluster as a ${n.controlPlane ? "control plane" : "worker"} (new node)`,
      files,
      commands: ["sysctl --system", "rc-service modules restart", "kubeadm join --config /kubeadm.yaml"],
      vipMoves: [],
      waitFor: n.controlPlane ? readyzOf(plan, n) : nodeReady(n.name),
      warnings: [
        "before the join: the Kubernetes packages installed, the node's network up (conf.d/net) and, where the node has a keepalived.conf, keepalived started, as PLAN.md's Bootstrap says",
        `the join needs a valid bootstrap token${n.controlPlane ? " and uploaded certificates" : ""} (kubernetes.secrets): on a control plane, kubeadm token list${n.controlPlane ? "; kubeadm init phase upload-certs --upload-certs renews the certificates (2 hours)" : ""}`,
        "the tree must be written with --with-secrets: a review tree's placeholders are refused by kubeadm",
      ],
      down: n.controlPlane ? [n.name] : [],
    };
  });
}

function removalSteps(old: TreeSide, next: TreeSide, oldNames: Set<string>, newNames: Set<string>): Step[] {
  const leaving = old.plan.nodes.filter((n) => oldNames.has(n.name) && !newNames.has(n.name));
  const remaining = next.plan.nodes.filter((n) => n.controlPlane);
  return leaving.flatMap((n): Step[] => {
    const other = remaining[0]?.name;
    const etcd = other
      ? `kubectl -n kube-system exec etcd-${other} -- etcdctl --endpoints=https://127.0.0.1:2379 --cacert=/etc/kubernetes/pki/etcd/ca.crt --cert=/etc/kubernetes/pki/etcd/server.crt --key=/etc/kubernetes/pki/etcd/server.key member list`
      : undefined;
    return [
      {
        node: null,
        kind: "kubectl",
        title: `${n.name}: drain (it leaves the cluster)`,
        files: [],
        commands: [`kubectl drain ${n.name} --ignore-daemonsets --delete-emptydir-data`],
        vipMoves: [],
        warnings: [],
      },
      {
        node: n.name,
        kind: "kubeadm",
        title: `${n.name}: kubeadm reset${n.controlPlane ? " (removes its etcd member)" : ""}`,
        files: [],
        commands: ["kubeadm reset -f", "rc-service kubelet stop", "rc-update del kubelet default"],
        vipMoves: n.controlPlane ? apiserverDownMoves(old.plan, n.name).slice(0, 1) : [],
        warnings:
          n.controlPlane && remaining.length % 2 === 0
            ? [
                `${remaining.length} control planes remain: an even etcd membership tolerates no more failures than one fewer`,
              ]
            : [],
        down: [n.name],
        ...(other ? { waitFor: readyzOf(next.plan, remaining[0] ?? n) } : {}),
      },
      {
        node: null,
        kind: "kubectl",
        title: `${n.name}: delete the Node${n.controlPlane ? " and check etcd's members" : ""}`,
        files: [],
        commands: [`kubectl delete node ${n.name}`, ...(n.controlPlane && etcd ? [etcd] : [])],
        vipMoves: [],
        warnings:
          n.controlPlane && etcd
            ? [
                `if ${n.name} is still a member: the same etcdctl command with member remove <ID> in place of member list`,
              ]
            : [],
      },
    ];
  });
}

// ---- spec changes and their lines ----

function describeChanges(
  edits: readonly SpecEdit[],
  old: TreeSide,
  next: TreeSide,
  changed: readonly string[],
  oldFiles: ReadonlyMap<string, Artifact>,
  newFiles: ReadonlyMap<string, Artifact>,
  lineOf: LineOf,
  context: ChangeContext,
  table: LineTable,
): SpecChange[] {
  const deltas = new Map<string, LineDelta>();
  const overall = (p: string): LineDelta => {
    let d = deltas.get(p);
    if (!d) {
      d = fileDelta(oldFiles.get(p), newFiles.get(p), table);
      deltas.set(p, d);
    }
    return d;
  };
  const status = (p: string): "added" | "removed" | "changed" =>
    !oldFiles.has(p) ? "added" : !newFiles.has(p) ? "removed" : "changed";
  const filesOf = (delta: (p: string) => LineDelta | undefined) =>
    changed.flatMap((p) => {
      const d = delta(p);
      if (!d || (d.added.length === 0 && d.removed.length === 0)) return [];
      const s = status(p);
      // a removed file's lines are the old file's (types.ts)
      const lines = s === "removed" ? d.removed : d.added;
      return [
        { path: p, lines, status: s, ...(s === "changed" && d.removed.length > 0 ? { oldLines: d.removed } : {}) },
      ];
    });
  const max = context.maxExactChanges ?? DEFAULT_MAX_EXACT;
  let treeBytes = 0;
  for (const file of newFiles.values()) treeBytes += contentLength(file);
  const measure =
    edits.length > 1 &&
    edits.length <= max &&
    2 * edits.length * treeBytes <= (context.maxExactBytes ?? DEFAULT_MAX_EXACT_BYTES) &&
    context.regenerate !== undefined;
  return edits.map((edit): SpecChange => {
    const path = editPath(edit);
    const oldLine = edit.kind === "insert" ? undefined : lineOf(edit.oldPath, "old");
    const newLine = edit.kind === "remove" ? undefined : lineOf(edit.newPath, "new");
    const base = {
      path: toDotPath(path),
      old: editOld(edit),
      new: editNew(edit),
      ...(oldLine === undefined ? {} : { oldLine }),
      ...(newLine === undefined ? {} : { newLine }),
    };
    if (edits.length === 1) return { ...base, files: filesOf(overall), attribution: "exact" };
    const exact = measure ? exactFiles(edit, old, next, changed, oldFiles, newFiles, context, table) : undefined;
    if (exact === undefined) return { ...base, files: filesOf(overall), attribution: "shared" };
    return { ...base, files: filesOf((p) => exact.get(p)), attribution: "exact" };
  });
}

/**
 * The lines this change alone makes: the new tree's lines that differ once it is taken back out of the new spec
 * (so they are in the new files' numbering), and the old tree's lines it replaces when it alone is made to the
 * old spec. undefined when either spec is not valid on its own.
 */
function exactFiles(
  edit: SpecEdit,
  old: TreeSide,
  next: TreeSide,
  changed: readonly string[],
  oldFiles: ReadonlyMap<string, Artifact>,
  newFiles: ReadonlyMap<string, Artifact>,
  context: ChangeContext,
  table: LineTable,
): Map<string, LineDelta> | undefined {
  const regenerate = context.regenerate;
  if (!regenerate) return undefined;
  const without = regenerate(revertEdit(next.spec, edit) as ClusterSpec);
  const alone = regenerate(applyEdit(old.spec, edit) as ClusterSpec);
  if (!without || !alone) return undefined;
  const w = new Map(without.map((a) => [a.path, a]));
  const o = new Map(alone.map((a) => [a.path, a]));
  const out = new Map<string, LineDelta>();
  for (const p of changed) {
    const added = fileDelta(w.get(p), newFiles.get(p), table).added;
    const removed = fileDelta(oldFiles.get(p), o.get(p), table).removed;
    if (added.length > 0 || removed.length > 0) out.set(p, { added, removed });
  }
  return out;
}
