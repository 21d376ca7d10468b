// What the page shows, computed without the DOM: issues as editor diagnostics, the file tree, the VIP holders.
import {
  type AnyPlan,
  type Artifact,
  AT_REST,
  formatIssues,
  holderMap,
  isCloudBurstPlan,
  type SpecIssue,
  simulateFailover,
  vipCarriers,
} from "@clusterspec/core";
import { type GenerateResult, generateChecked } from "clusterspec";
import { strToU8, type Zippable, zipSync } from "fflate";

/** The spec file name the page reports in messages, as the CLI does for `clusterspec validate cluster.yaml`. */
export const SPEC_NAME = "cluster.yaml";

export interface LineIssue {
  readonly line: number;
  readonly column: number;
  readonly severity: "error" | "warning";
  /** Exactly the CLI's text for this issue: `✖ message`, `  → at path (cluster.yaml:line:col)` and a code frame. */
  readonly text: string;
}

/**
 * The CLI's pipeline: validate, plan, generate, overlays, and the upstream schema checks when the spec has free-form
 * parts (overlays, `cilium.values`, `kubernetes.kubelet`). generateChecked imports `@clusterspec/schemas` only then,
 * so it is a chunk of its own that a spec without free-form parts never loads.
 */
export function runSpec(text: string): Promise<GenerateResult> {
  return generateChecked(text, { sourceName: SPEC_NAME });
}

/** Every issue of a result at its line (1-based; issues without a position go to line 1), as the CLI prints it for `text`. */
export function lineIssues(result: GenerateResult, text: string): LineIssue[] {
  const all: readonly SpecIssue[] = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  return all.map((issue) => ({
    line: issue.line ?? 1,
    column: issue.column ?? 1,
    severity: issue.severity,
    text: formatIssues([issue], SPEC_NAME, { source: text }),
  }));
}

export interface TreeFolder {
  readonly name: string;
  readonly folders: TreeFolder[];
  readonly files: { readonly name: string; readonly path: string }[];
}

/** Artifact paths as nested folders, folders first, both sorted by name. */
export function fileTree(artifacts: readonly Artifact[]): TreeFolder {
  const root: TreeFolder = { name: "", folders: [], files: [] };
  for (const a of artifacts) {
    const parts = a.path.split("/");
    const fileName = parts.pop() ?? a.path;
    let folder = root;
    for (const part of parts) {
      let next = folder.folders.find((f) => f.name === part);
      if (!next) {
        next = { name: part, folders: [], files: [] };
        folder.folders.push(next);
      }
      folder = next;
    }
    folder.files.push({ name: fileName, path: a.path });
  }
  const sort = (f: TreeFolder): void => {
    f.folders.sort((a, b) => (a.name < b.name ? -1 : 1));
    f.files.sort((a, b) => (a.name < b.name ? -1 : 1));
    f.folders.forEach(sort);
  };
  sort(root);
  return root;
}

/** The whole tree as a zip, with each file's mode (scripts stay executable) and a fixed date (same bytes each time). */
export function zipTree(artifacts: readonly Artifact[]): Uint8Array {
  const files: Zippable = {};
  for (const a of artifacts)
    files[a.path] = [strToU8(a.content), { os: 3, attrs: ((a.mode ?? 0o644) | 0o100000) << 16, mtime: ZIP_DATE }];
  return zipSync(files, { level: 6 });
}
const ZIP_DATE = new Date(1980, 0, 1);

export interface VipHolder {
  readonly key: string;
  readonly vip: string;
  readonly kind: string;
  /** Holder with every node up and healthy. */
  readonly normally: string | undefined;
  /** Holder once the `down` nodes fail and the `unhealthy` ones fail their apiserver check; undefined when none can hold it. */
  readonly now: string | undefined;
}

/**
 * Who holds each VIP when `down` nodes fail and `unhealthy` control-plane nodes fail their apiserver check: core's
 * failover model (the one PLAN.md, `clusterspec simulate` and the VRRP lab use), starting from the holders at rest
 * so that nopreempt keeps a live holder.
 */
export function vipHolders(
  plan: AnyPlan,
  down: ReadonlySet<string>,
  unhealthy: ReadonlySet<string> = new Set(),
): VipHolder[] {
  if (isCloudBurstPlan(plan)) return [];
  const normally = holderMap(simulateFailover(plan, AT_REST));
  const now = holderMap(simulateFailover(plan, { down: [...down], unhealthy: [...unhealthy] }, normally));
  return plan.vips.map((v) => ({
    key: v.key,
    vip: `${v.address}/${v.prefixLength}`,
    kind: v.kind,
    normally: normally.get(v.key),
    now: now.get(v.key),
  }));
}

/** Control-plane nodes in the control-plane VIP's order, in spec order: the ones whose apiserver check can fail. */
export function checkNodes(plan: AnyPlan): string[] {
  if (isCloudBurstPlan(plan)) return [];
  const inOrder = new Set(plan.vips.filter((v) => v.kind === "control-plane").flatMap((v) => v.order));
  return plan.nodes.filter((n) => n.controlPlane && inOrder.has(n.name)).map((n) => n.name);
}

/** Nodes that can hold a VIP, in spec order: the ones worth failing (none for a cloud burst of an existing cluster). */
export function vipNodes(plan: AnyPlan): string[] {
  if (isCloudBurstPlan(plan)) return [];
  const inOrder = vipCarriers(plan.vips);
  return plan.nodes.map((n) => n.name).filter((n) => inOrder.has(n));
}

/** The ```mermaid blocks of a markdown text, in order. */
export function mermaidBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? "");
}
