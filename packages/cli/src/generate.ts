// The programmatic API: spec text or object in, artifacts out. Pure: secrets arrive as values, or from a
// resolver the caller supplies (the CLI's reads the environment and files); the upstream schemas arrive as a
// checker, loaded (by generateChecked, lazily) only when a spec has free-form parts. The pipeline knows the
// `GeneratorModule` interface alone: each module declares its checks, free-form parts and PLAN.md section.
import {
  applyOverlays,
  blameOverlay,
  checkSecretValues,
  InternalError,
  identitiesPath,
  isBurstModule,
  isCloudBurstPlan,
  isJsonMap,
  loadSpec,
  locateIssues,
  mdTable,
  OutputLimitError,
  parseIdentities,
  parseYamlDocuments,
  resolvePlan,
  secretReferences,
  summarizeCloudBurstCore,
  summarizeCore,
  toDotPath,
  toPointer,
  validateSpec,
} from "@clusterspec/core";
import type {
  AnyPlan,
  AnySpec,
  AppliedPatch,
  Artifact,
  ArtifactChecker,
  ArtifactSchemaId,
  BurstGeneratorModule,
  CloudBurstSpecInput,
  ClusterPlan,
  ClusterSpecInput,
  GeneratorModule,
  Identities,
  IdentitiesIssue,
  IssuePath,
  ModuleOutputs,
  Overlay,
  SchemaParameters,
  SecretReference,
  SecretValues,
  Shipped,
  SpecIssue,
  Validated,
} from "@clusterspec/core/types";
import { generatorModules } from "./generators.js";

/** A secret the spec references (its id, the reference and where the spec makes it), as handed to a resolver. */
export type { SecretReference };

type Module = GeneratorModule | BurstGeneratorModule;

/** What a secret resolver found: the values it could read and an issue (at the reference's path) for each it could not. */
export interface SecretResolution {
  readonly values: SecretValues;
  readonly errors: readonly Pick<SpecIssue, "path" | "message">[];
}

export interface GenerateOptions {
  /** Spec file name shown in generated headers; default `cluster.yaml`. */
  readonly sourceName?: string;
  /**
   * Resolved secrets, or a function that resolves the spec's references once it is valid. Missing ones
   * render as stable placeholders.
   */
  readonly secrets?: SecretValues | ((references: readonly SecretReference[]) => SecretResolution);
  /** Override the registered generators (tests, embedding). */
  readonly modules?: readonly Module[];
  /**
   * Upstream schema checks (`loadArtifactChecker` from `@clusterspec/schemas`). Needed only when the spec has
   * overlays or sets a free-form part a module declares; `generateChecked` loads it by itself.
   */
  readonly checker?: ArtifactChecker;
  /**
   * The previous tree's identities.json, parsed (`parseIdentities`): each VIP's priority order is carried forward
   * from it, so masters move only as much as balance needs. Without it (day 1) the orders are positional. The tree
   * written from this result carries the new identities.json. A malformed value throws IdentitiesError.
   */
  readonly identities?: Identities;
}

/** `options.identities` is not an identities.json value; `issues` name each field. */
export class IdentitiesError extends Error {
  override readonly name = "IdentitiesError";
  constructor(readonly issues: readonly IdentitiesIssue[]) {
    super(
      `identities is not a valid identities.json: ${issues.map((i) => `${identitiesPath(i.path) || "(top)"}: ${i.message}`).join("; ")}`,
    );
  }
}

export type GenerateResult =
  | {
      readonly ok: true;
      readonly plan: AnyPlan;
      readonly artifacts: readonly Artifact[];
      readonly warnings: readonly SpecIssue[];
    }
  | { readonly ok: false; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] };

/** A free-form spec part that is set, with what the module says about where it goes. */
interface FreeFormValue {
  readonly specPath: readonly string[];
  readonly value: Readonly<Record<string, unknown>>;
  readonly carriedBy: (artifact: Artifact) => boolean;
  readonly readsAt: (artifact: Artifact, document: unknown) => boolean;
}

/** A module bound to the plan it runs on: all the pipeline calls. */
interface Bound {
  readonly generate: () => Artifact[];
  readonly summarize: (artifacts: readonly Artifact[]) => string | undefined;
  readonly check: (shipped: Shipped) => SpecIssue[];
  /** Its free-form parts that this plan sets. */
  readonly freeForm: readonly FreeFormValue[];
  readonly schemaParameters: { readonly specPath: IssuePath; readonly parameters: SchemaParameters } | undefined;
}

function bind<P>(m: GeneratorModule<P>, plan: P, outputs: ModuleOutputs | undefined): Bound {
  return {
    generate: () => (outputs === undefined ? m.generate(plan) : outputs.generate(m, plan)),
    summarize: (artifacts) => m.summarize?.(plan, artifacts),
    check: (shipped) => m.check?.(plan, shipped) ?? [],
    freeForm: (m.freeForm ?? []).flatMap((part) => {
      const value = part.value(plan);
      if (Object.keys(value).length === 0) return [];
      const readsAt = part.readsAt ?? ((a: Artifact) => part.carriedBy(a));
      return [{ specPath: part.specPath, value, carriedBy: part.carriedBy, readsAt }];
    }),
    schemaParameters: m.schemaParameters && {
      specPath: m.schemaParameters.specPath,
      parameters: m.schemaParameters.of(plan),
    },
  };
}

/** Every module that applies: only the cloud modules for the cloud burst of an existing cluster. */
function applicable(plan: AnyPlan, modules: readonly Module[], outputs?: ModuleOutputs): Bound[] {
  if (isCloudBurstPlan(plan)) return modules.filter(isBurstModule).map((m) => bind(m, plan, outputs));
  return modules.map((m) => bind<ClusterPlan>(m, plan, outputs));
}

function planMarkdown(
  plan: AnyPlan,
  bound: readonly Bound[],
  artifacts: readonly Artifact[],
  overlaySection: string | undefined,
): string {
  const core = isCloudBurstPlan(plan) ? summarizeCloudBurstCore(plan) : summarizeCore(plan);
  const sections = [core, ...bound.map((b) => b.summarize(artifacts)), overlaySection];
  return `${sections
    .filter((s): s is string => !!s)
    .map((s) => s.trimEnd())
    .join("\n\n")}\n`;
}

/**
 * PLAN.md: the core summary, then each generator module's section (read from `artifacts`, the files that ship), then
 * the overlays and what they changed.
 */
export function renderPlanMarkdown(
  plan: AnyPlan,
  artifacts: readonly Artifact[],
  modules: readonly Module[] = generatorModules,
  overlaySection?: string,
): string {
  return planMarkdown(plan, applicable(plan, modules), artifacts, overlaySection);
}

const overlaysOf = (plan: AnyPlan): readonly Overlay[] => (isCloudBurstPlan(plan) ? [] : plan.overlays);

function summarizeOverlays(
  changed: readonly { readonly overlay: Overlay; readonly files: readonly string[] }[],
  derived: number,
): string | undefined {
  if (changed.length === 0) return undefined;
  return [
    "## Overlays",
    "",
    "Merge patches (RFC 7386) applied after generation, in this order; every patched file passed its upstream schema before it was written.",
    "",
    mdTable(
      ["#", "target", "document", "files changed"],
      changed.map((c, i) => [
        `overlays[${i}]`,
        c.overlay.target,
        c.overlay.document ?? "-",
        c.files.length === 0 ? "-" : c.files.join(", "),
      ]),
    ),
    ...(derived > 0
      ? [
          "",
          `- ${derived} value(s) clusterspec derived are changed or deleted by overlays (warnings of \`clusterspec validate\`/\`generate\`).`,
        ]
      : []),
  ].join("\n");
}

const byPath = (a: Artifact, b: Artifact) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

/**
 * LF lines, the last one ended. A file of blocks is well formed by construction: each of its parts is a LinePart,
 * checked when it was made (core's linePart), and parts are whole lines.
 */
const linesWellFormed = (a: Artifact): boolean =>
  a.blocks !== undefined || (a.content.endsWith("\n") && !a.content.includes("\r"));

function assertWellFormed(artifacts: readonly Artifact[]): void {
  const seen = new Set<string>();
  for (const a of artifacts) {
    if (seen.has(a.path)) throw new InternalError(`two artifacts share the path ${a.path}`);
    if (a.path.startsWith("/") || a.path.split("/").some((p) => p === ".." || p === "." || p === ""))
      throw new InternalError(`artifact path ${a.path} is not a clean relative path`);
    if (!linesWellFormed(a)) throw new InternalError(`artifact ${a.path} must use LF and end with one newline`);
    seen.add(a.path);
  }
}

/** Artifacts rendered and patched, before their schema check. */
export interface Rendered {
  readonly artifacts: readonly Artifact[];
  readonly errors: readonly SpecIssue[];
  readonly warnings: readonly SpecIssue[];
  /** Artifacts whose free-form content must pass their upstream schema before anything is written. */
  readonly toCheck: readonly Artifact[];
  readonly applied: ReadonlyMap<string, readonly AppliedPatch[]>;
  /** By artifact path: the free-form parts set in its module, where a schema problem may come from. */
  readonly freeForm: ReadonlyMap<string, readonly FreeFormValue[]>;
  /** What the checker is loaded with, from the modules that run; its notes are reported at `notesPath`. */
  readonly schemaParameters: SchemaParameters;
  readonly notesPath: IssuePath;
}

const nothingRendered = (errors: SpecIssue[]): Rendered => ({
  artifacts: [],
  errors,
  warnings: [],
  toCheck: [],
  applied: new Map(),
  freeForm: new Map(),
  schemaParameters: {},
  notesPath: [],
});

/**
 * Runs every generator, applies the overlays, runs the modules' checks and writes PLAN.md; says what to schema-check.
 * With `outputs` (a change plan's two trees), a module whose inputs are those of the last tree rendered through it
 * keeps that tree's files instead of generating them again.
 */
export function renderArtifacts(
  plan: AnyPlan,
  modules: readonly Module[] = generatorModules,
  outputs?: ModuleOutputs,
): Rendered {
  const bound = applicable(plan, modules, outputs);
  const generated: Artifact[] = [];
  const freeForm = new Map<string, readonly FreeFormValue[]>();
  try {
    for (const b of bound) {
      const out = b.generate();
      generated.push(...out);
      if (b.freeForm.length > 0) for (const a of out) freeForm.set(a.path, b.freeForm);
    }
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    return nothingRendered([{ path: e.path, message: e.message, severity: "error", code: e.code }]);
  }
  const outcome = applyOverlays(generated, overlaysOf(plan));
  const shipped: Shipped = { artifacts: outcome.artifacts, applied: outcome.applied };
  const errors = [...outcome.errors, ...bound.flatMap((b) => b.check(shipped))];
  const toCheck = outcome.artifacts.filter(
    (a) => outcome.applied.has(a.path) || (freeForm.get(a.path) ?? []).some((part) => part.carriedBy(a)),
  );
  const plan_md: Artifact = {
    path: "PLAN.md",
    content: planMarkdown(plan, bound, outcome.artifacts, summarizeOverlays(outcome.changed, outcome.warnings.length)),
  };
  const artifacts = [plan_md, ...outcome.artifacts];
  assertWellFormed(artifacts);
  const parameters = bound.flatMap((b) => (b.schemaParameters ? [b.schemaParameters] : []));
  return {
    artifacts: artifacts.sort(byPath),
    errors,
    warnings: outcome.warnings,
    toCheck,
    applied: outcome.applied,
    freeForm,
    schemaParameters: Object.assign({}, ...parameters.map((p) => p.parameters)) as SchemaParameters,
    notesPath: parameters[0]?.specPath ?? [],
  };
}

/** The schemas a rendering needs (none when the spec has no free-form part). */
export function schemasToLoad(rendered: Rendered): Set<ArtifactSchemaId> {
  return new Set(rendered.toCheck.flatMap((a) => (a.schema === undefined ? [] : [a.schema])));
}

/** The deepest key of a free-form value that a pointer reaches into. */
function reach(value: unknown, pointer: readonly string[]): string[] {
  const out: string[] = [];
  let node = value;
  for (const seg of pointer) {
    if (!isJsonMap(node) || !Object.hasOwn(node, seg)) break;
    out.push(seg);
    node = node[seg];
  }
  return out;
}

/** The spec path behind a problem in a free-form part that the artifact's module copied into that document. */
function freeFormPath(
  parts: readonly FreeFormValue[],
  artifact: Artifact,
  document: unknown,
  pointer: readonly string[],
): IssuePath | undefined {
  for (const part of parts) {
    if (!part.readsAt(artifact, document)) continue;
    const r = reach(part.value, pointer);
    if (r.length > 0) return [...part.specPath, ...r];
  }
  return undefined;
}

/** Checks the artifacts that need it; each problem is reported at the spec path that put the value there. */
export function checkRendered(plan: AnyPlan, rendered: Rendered, checker: ArtifactChecker): SpecIssue[] {
  const issues: SpecIssue[] = [];
  // Placeholders of unresolved secrets are malformed on purpose (kubeadm must refuse a review tree).
  const placeholders = new Set(Object.values(plan.secrets).flatMap((s) => (s?.isPlaceholder ? [s.value] : [])));
  const valueAt = (doc: unknown, pointer: readonly string[]): unknown =>
    pointer.reduce<unknown>(
      (v, k) => (v !== null && typeof v === "object" ? (v as Record<string, unknown>)[k] : undefined),
      doc,
    );
  for (const a of rendered.toCheck) {
    const problems = checker.check(a);
    if (problems.length === 0) continue;
    const docs = a.path.endsWith(".json") ? [JSON.parse(a.content)] : parseYamlDocuments(a.content);
    for (const p of problems) {
      const doc = docs[p.document];
      const value = valueAt(doc, p.pointer);
      if (typeof value === "string" && placeholders.has(value)) continue;
      const kind = isJsonMap(doc) && typeof doc.kind === "string" ? doc.kind : undefined;
      const path =
        blameOverlay(rendered.applied.get(a.path), p.document, p.pointer) ??
        freeFormPath(rendered.freeForm.get(a.path) ?? [], a, doc, p.pointer);
      issues.push({
        path: path ?? [],
        severity: "error",
        code: "upstream_schema",
        message: `${a.path}${kind ? ` (${kind})` : ""} at ${toPointer(p.pointer) || "/"} fails its upstream schema: ${p.message}`,
      });
    }
  }
  return issues;
}

/** "overlays, a or b": what a spec may have that needs the upstream schemas, from every module's declaration. */
function freeFormNames(modules: readonly Module[]): string {
  const names = ["overlays", ...modules.flatMap((m) => (m.freeForm ?? []).map((p) => toDotPath(p.specPath))).sort()];
  return names.length === 1 ? names.join("") : `${names.slice(0, -1).join(", ")} or ${names.at(-1)}`;
}

function needsChecker(modules: readonly Module[]): SpecIssue {
  return {
    path: [],
    severity: "error",
    code: "upstream_schema",
    message: `this spec has free-form parts (${freeFormNames(modules)}) that must be checked against the upstream schemas: pass options.checker (loadArtifactChecker from @clusterspec/schemas) or call generateChecked`,
  };
}

type Prepared =
  | { readonly ok: false; readonly result: GenerateResult }
  | { readonly ok: true; readonly plan: AnyPlan; readonly warnings: readonly SpecIssue[] };

type SpecInput = ClusterSpecInput | CloudBurstSpecInput;

/** A caller's identities, checked: a library caller may hand over any JSON it read. */
function checkedIdentities(identities: unknown): Identities {
  const parsed = parseIdentities(identities);
  if (!parsed.ok) throw new IdentitiesError(parsed.issues);
  return parsed.value;
}

/** Validation, secrets and the plan: everything before the generators run. */
function prepare(
  spec: string | SpecInput,
  options: GenerateOptions,
  validated: Validated<AnySpec> = typeof spec === "string" ? loadSpec(spec) : validateSpec(spec),
): Prepared {
  const text = typeof spec === "string" ? spec : undefined;
  if (!validated.ok) return { ok: false, result: validated };
  const { warnings } = validated;
  const value = validated.value;
  const fail = (issues: readonly Pick<SpecIssue, "path" | "message">[]): Prepared => {
    const errors: SpecIssue[] = issues.map((i) => ({
      path: i.path,
      message: i.message,
      severity: "error",
      code: "secret",
    }));
    return {
      ok: false,
      result: { ok: false, errors: text === undefined ? errors : locateIssues(text, errors), warnings },
    };
  };

  let secrets: SecretValues = {};
  if (typeof options.secrets === "function") {
    const resolution = options.secrets(secretReferences(value));
    secrets = resolution.values;
    if (resolution.errors.length > 0) return fail([...resolution.errors, ...checkSecretValues(secrets, value)]);
  } else if (options.secrets !== undefined) secrets = options.secrets;
  const secretErrors = checkSecretValues(secrets, value);
  if (secretErrors.length > 0) return fail(secretErrors);

  const plan = resolvePlan(value, {
    ...(options.sourceName === undefined ? {} : { sourceName: options.sourceName }),
    ...(options.secrets === undefined ? {} : { secrets }),
    ...(options.identities === undefined ? {} : { identities: checkedIdentities(options.identities) }),
  });
  return { ok: true, plan, warnings };
}

function finish(
  plan: AnyPlan,
  rendered: Rendered,
  warnings: readonly SpecIssue[],
  checker: ArtifactChecker | undefined,
  modules: readonly Module[],
): GenerateResult {
  const all = [...warnings, ...rendered.warnings];
  if (rendered.errors.length > 0) return { ok: false, errors: rendered.errors, warnings: all };
  if (rendered.toCheck.length > 0) {
    if (!checker) return { ok: false, errors: [needsChecker(modules)], warnings: all };
    const issues = checkRendered(plan, rendered, checker);
    const notes: SpecIssue[] = checker.notes.map((message) => ({
      path: rendered.notesPath,
      message,
      severity: "warning",
      code: "upstream_schema",
    }));
    if (issues.length > 0) return { ok: false, errors: issues, warnings: [...all, ...notes] };
    return { ok: true, plan, artifacts: rendered.artifacts, warnings: [...all, ...notes] };
  }
  return { ok: true, plan, artifacts: rendered.artifacts, warnings: all };
}

/**
 * From a resolved plan: runs every generator, applies the overlays and checks free-form content against the upstream
 * schemas (`options.checker`), as generate does after validation. Problems come back as errors with their spec paths.
 */
export function generateFromPlan(
  plan: AnyPlan,
  options: Pick<GenerateOptions, "modules" | "checker"> = {},
): GenerateResult {
  const modules = options.modules ?? generatorModules;
  return finish(plan, renderArtifacts(plan, modules), [], options.checker, modules);
}

/**
 * Issues found after validation (overlays, schema checks) get their YAML line too when the spec was text. `done` are
 * the validation's own issues, located by the parse that validated the text: the text is parsed again only when
 * some other issue needs a line (on 300 nodes, a parse is a tenth of generate's time, and any warning asked for it).
 */
function located(spec: string | unknown, result: GenerateResult, done: readonly SpecIssue[]): GenerateResult {
  if (typeof spec !== "string") return result;
  const known = new Set(done);
  const issues = result.ok ? result.warnings : [...result.errors, ...result.warnings];
  const pending = issues.filter((i) => !known.has(i));
  if (pending.length === 0) return result;
  const found = new Map(pending.map((issue, k) => [issue, k]));
  const fresh = locateIssues(spec, pending);
  const locate = (list: readonly SpecIssue[]) =>
    list.map((i) => {
      const k = found.get(i);
      return k === undefined ? i : (fresh[k] as SpecIssue);
    });
  const warnings = locate(result.warnings);
  return result.ok ? { ...result, warnings } : { ...result, errors: locate(result.errors), warnings };
}

/**
 * generateChecked's synchronous form: validates (text is parsed as YAML), resolves secrets and the plan, runs every
 * generator, applies the overlays and checks free-form content against the upstream schemas with `options.checker`;
 * a spec with free-form parts and no checker comes back `ok: false` (one `upstream_schema` error saying so). Never
 * throws on bad input: every problem comes back as an error with its path (and line/column for text).
 */
export function generate(text: string, options?: GenerateOptions): GenerateResult;
export function generate(spec: SpecInput, options?: GenerateOptions): GenerateResult;
export function generate(spec: string | SpecInput, options: GenerateOptions = {}): GenerateResult {
  const prepared = prepare(spec, options);
  if (!prepared.ok) return prepared.result;
  const modules = options.modules ?? generatorModules;
  const rendered = renderArtifacts(prepared.plan, modules);
  return located(spec, finish(prepared.plan, rendered, prepared.warnings, options.checker, modules), prepared.warnings);
}

/** The schema checker a rendering needs, imported only then: a spec without free-form parts never loads a schema. */
export async function loadCheckerFor(rendered: Rendered): Promise<ArtifactChecker | undefined> {
  const schemas = schemasToLoad(rendered);
  if (schemas.size === 0) return undefined;
  const { loadArtifactChecker } = await import("@clusterspec/schemas");
  // The modules whose artifacts are checked give their schemas' parameters.
  return loadArtifactChecker({ schemas, ...rendered.schemaParameters });
}

/**
 * The library's entry point, for every valid spec: generate, loading the upstream schemas by itself (a dynamic
 * import, hence async) only when the spec has free-form parts or overlays.
 */
export async function generateChecked(
  spec: string | SpecInput,
  options: GenerateOptions = {},
  /** The spec text already loaded (loadSpec of `spec`): `clusterspec changes` keeps the validated spec. */
  validated?: Validated<AnySpec>,
  /** The files of an earlier tree, reused where a module's inputs are unchanged (`clusterspec changes`). */
  outputs?: ModuleOutputs,
): Promise<GenerateResult> {
  const prepared = prepare(spec, options, validated);
  if (!prepared.ok) return prepared.result;
  const modules = options.modules ?? generatorModules;
  const rendered = renderArtifacts(prepared.plan, modules, outputs);
  const checker = options.checker ?? (rendered.errors.length > 0 ? undefined : await loadCheckerFor(rendered));
  return located(spec, finish(prepared.plan, rendered, prepared.warnings, checker, modules), prepared.warnings);
}
