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
  readonly generate: (plan: P, scope?: ArtifactScope, memo?: GenerationMemo) => Artifact[];
  /**
   * Markdown section for PLAN.md, starting with a `## ` heading, read from the artifacts that ship (every module's,
   * after overlays); omitted when the module has nothing to say.
   */
  readonly summarize?: (plan: P, artifacts: readonly Artifact[]) => string | undefined;
  /** Limits of the target that a patch could break, checked on the artifacts that ship; issues point into the spec. */
  readonly check?: (plan: P, shipped: Shipped) => SpecIssue[];
  readonly freeForm?: readonly FreeFormPart<P>[];
  readonly schemaParameters?: SchemaParametersOf<P>;
  /**
   * The part of the plan the module's files are a function of (`narrowedModule` builds a module whose generate reads
   * nothing else). A caller that generated another plan's tree reuses that tree's files where the two plans' inputs
   * are `sameInputs`: a change plan generates its new tree only where the change reaches (`ModuleOutputs`).
   */
  readonly inputs?: (plan: P) => unknown;
}

/**
 * A module whose files are a function of `inputs(plan)` alone: `generateFrom` is handed the inputs, never the plan,
 * so the types keep it from reading anything the inputs leave out, and two plans with the same inputs get the same
 * files. `inputs` must be cheap (a few picks and a filter): it runs on every generation.
 */
export function narrowedModule<I, P = ClusterPlan>(
  module: Omit<GeneratorModule<P>, "generate" | "inputs"> & {
    readonly inputs: (plan: P) => I;
    readonly generateFrom: (inputs: I, scope?: ArtifactScope, memo?: GenerationMemo) => Artifact[];
  },
): GeneratorModule<P> {
  const { generateFrom, ...rest } = module;
  return { ...rest, generate: (plan, scope, memo) => generateFrom(module.inputs(plan), scope, memo) };
}

/**
 * A cloud module's inputs: the BurstPlan's own fields, not the rest of a cluster's plan that the object also holds
 * (its generator is typed on BurstPlan, which these are).
 */
export const burstInputs = (plan: BurstPlan): BurstPlan => ({
  sourceName: plan.sourceName,
  name: plan.name,
  kubernetes: plan.kubernetes,
  cloud: plan.cloud,
  secrets: plan.secrets,
});

/**
 * Whether two modules' inputs are the same value: JSON-like data (primitives by Object.is, arrays, plain objects;
 * an undefined property as an absent one) compared in depth. Any other object (a Map, a class instance) is the same
 * only as the same object: nothing is taken as equal that the comparison cannot see into.
 */
export function sameInputs(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameInputs(a[i], b[i])) return false;
    return true;
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let defined = 0;
  for (const k in x) {
    if (!Object.hasOwn(x, k) || x[k] === undefined) continue;
    defined++;
    if (!Object.hasOwn(y, k) || !sameInputs(x[k], y[k])) return false;
  }
  for (const k in y) if (Object.hasOwn(y, k) && y[k] !== undefined) defined--;
  return defined === 0;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/**
 * Each module's files as last generated, with the inputs they came from: rendering a second plan through the same
 * record (`clusterspec changes`: the old tree, then the new one) reuses a module's files where its inputs are
 * unchanged. Files are never changed after generation (overlays make new artifacts), so two trees may share them.
 */
export class ModuleOutputs {
  private readonly byModule = new Map<string, { readonly inputs: unknown; readonly artifacts: readonly Artifact[] }>();
  private readonly memos = new Map<string, GenerationMemo>();
  /** How many generations were answered from the record: what a test checks to see reuse happen. */
  reused = 0;

  /** The module's files for `plan`: the recorded ones when its inputs are the same, else generated and recorded. */
  generate<P>(module: GeneratorModule<P>, plan: P): Artifact[] {
    if (module.inputs === undefined) return module.generate(plan);
    const inputs = module.inputs(plan);
    const prior = this.byModule.get(module.name);
    if (prior !== undefined && sameInputs(prior.inputs, inputs)) {
      this.reused++;
      return [...prior.artifacts];
    }
    let memo = this.memos.get(module.name);
    if (memo === undefined) {
      memo = new Map();
      this.memos.set(module.name, memo);
    }
    const artifacts = module.generate(plan, undefined, memo);
    this.byModule.set(module.name, { inputs, artifacts });
    return [...artifacts];
  }
}

/**
 * What a module may keep from one generation to the next of one caller (ModuleOutputs: a change plan's two trees),
 * under keys of its own: pure intermediate results (keepalived's rendered instance blocks), which change what the
 * next generation costs and never what it returns.
 */
export type GenerationMemo = Map<string, unknown>;

/** A cloud module: it also runs for the cloud burst of an existing cluster. */
export interface BurstGeneratorModule extends GeneratorModule<BurstPlan> {
  readonly burst: true;
}

export const isBurstModule = (m: GeneratorModule | BurstGeneratorModule): m is BurstGeneratorModule =>
  "burst" in m && m.burst === true;
