// The one interface the pipeline knows: each output format declares what it generates, what it checks after the
// overlays, which free-form spec parts it carries and its PLAN.md section. The pipeline never names a format.
import type { Artifact } from "./artifact.js";
import type { IssuePath, SpecIssue } from "./issues.js";
import type { AppliedPatch } from "./overlay/apply.js";
import type { BurstPlan, ClusterPlan } from "./plan/types.js";

/** The artifacts that ship (after overlays) and the patches applied to each, by path. */
export interface Shipped {
  readonly artifacts: readonly Artifact[];
  readonly applied: ReadonlyMap<string, readonly AppliedPatch[]>;
}

/**
 * A free-form part of the spec (e.g. `cilium.values`) that a module copies into its artifacts: those artifacts pass
 * their upstream schema whenever the part is not empty, and a problem there is reported at the part's spec path.
 */
export interface FreeFormPart<P = ClusterPlan> {
  /** Where the part is in the spec, e.g. `["cilium", "values"]`. */
  readonly specPath: readonly string[];
  readonly value: (plan: P) => Readonly<Record<string, unknown>>;
  /** The artifacts that carry it. */
  readonly carriedBy: (artifact: Artifact) => boolean;
  /** The documents (of any of the module's artifacts) whose JSON pointers are read against it; default: carriedBy's. */
  readonly readsAt?: (artifact: Artifact, document: unknown) => boolean;
}

/** Plan facts the upstream-schema checker is loaded with (`loadArtifactChecker` of `@clusterspec/schemas`). */
export interface SchemaParameters {
  /** The Cilium chart the values are checked against. */
  readonly ciliumVersion?: string;
}

/** The schema parameters a module decides, and the spec path the checker's notes about them are reported at. */
export interface SchemaParametersOf<P = ClusterPlan> {
  readonly specPath: IssuePath;
  readonly of: (plan: P) => SchemaParameters;
}

/**
 * The one file a caller wants (`clusterspec explain` regenerates a file thousands of times): a module may build
 * only what that file needs and leave out the rest (every other node's files, the cluster's). Optional on both
 * sides: a module that ignores it returns every file, and a caller keeps only the file it asked for either way.
 */
export interface ArtifactScope {
  /** The wanted file, as an artifact path: `nodes/k8s-1/etc/keepalived/keepalived.conf`, `PLAN.md`. */
  readonly path: string;
}

/** The node whose folder (`nodes/<node>/…`) holds the scope's file; undefined for a cluster-wide file. */
export const scopeNode = (scope: ArtifactScope): string | undefined => /^nodes\/([^/]+)\//.exec(scope.path)?.[1];

/** The nodes whose files a scoped generation builds: all without a scope, the scope's node alone (or none) with one. */
export function nodesInScope<N extends { readonly name: string }>(
  nodes: readonly N[],
  scope: ArtifactScope | undefined,
): readonly N[] {
  if (scope === undefined) return nodes;
  const node = scopeNode(scope);
  return node === undefined ? [] : nodes.filter((n) => n.name === node);
}

/**
 * One output format. Cloud modules take a `BurstPlan`, which every plan is, so they also run for the cloud burst of
 * an existing cluster.
 */
export interface GeneratorModule<P = ClusterPlan> {
  readonly name: string;
  /**
   * Every file of the format; with a scope it may return only the files of the scope's node (or only the
   * cluster-wide ones), but the scope's file exactly as the unscoped call would.
   */
  readonly generate: (plan: P, scope?: ArtifactScope) => Artifact[];
  /**
   * Markdown section for PLAN.md, starting with a `## ` heading, read from the artifacts that ship (every module's,
   * after overlays); omitted when the module has nothing to say.
   */
  readonly summarize?: (plan: P, artifacts: readonly Artifact[]) => string | undefined;
  /** Limits of the target that a patch could break, checked on the artifacts that ship; issues point into the spec. */
  readonly check?: (plan: P, shipped: Shipped) => SpecIssue[];
  readonly freeForm?: readonly FreeFormPart<P>[];
  readonly schemaParameters?: SchemaParametersOf<P>;
}

/** A cloud module: it also runs for the cloud burst of an existing cluster. */
export interface BurstGeneratorModule extends GeneratorModule<BurstPlan> {
  readonly burst: true;
}

export const isBurstModule = (m: GeneratorModule | BurstGeneratorModule): m is BurstGeneratorModule =>
  "burst" in m && m.burst === true;
