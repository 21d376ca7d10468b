// The programmatic API: spec text or object in, artifacts out. Pure: secrets arrive as values, or from a
// resolver the caller supplies (the CLI's reads the environment and files); the upstream schemas arrive as a
// checker, loaded (by generateChecked, lazily) only when a spec has free-form parts.
import { byteLength, USER_DATA_LIMIT } from "@clusterspec/cloud-init";
import {
  applyOverlays,
  blameOverlay,
  checkSecretValues,
  InternalError,
  isBurstModule,
  isCloudBurstPlan,
  isJsonMap,
  loadSpec,
  locateIssues,
  mdTable,
  OutputLimitError,
  parseYamlDocuments,
  resolvePlan,
  secretReferences,
  summarizeCloudBurstCore,
  summarizeCore,
  toPointer,
  validateSpec,
} from "@clusterspec/core";
import type {
  AnyPlan,
  AppliedPatch,
  Artifact,
  ArtifactChecker,
  ArtifactSchemaId,
  BurstGeneratorModule,
  CloudBurstSpecInput,
  ClusterSpecInput,
  GeneratorModule,
  IssuePath,
  Overlay,
  SecretReference,
  SecretValues,
  SpecIssue,
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
   * overlays, `cilium.values` or `kubernetes.kubelet`; `generateChecked` loads it by itself.
   */
  readonly checker?: ArtifactChecker;
}

export type GenerateResult =
  | {
      readonly ok: true;
      readonly plan: AnyPlan;
      readonly artifacts: readonly Artifact[];
      readonly warnings: readonly SpecIssue[];
    }
  | { readonly ok: false; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] };

/** Artifacts rendered and patched, before their schema check. */
export interface Rendered {
  readonly artifacts: readonly Artifact[];
  readonly errors: readonly SpecIssue[];
  readonly warnings: readonly SpecIssue[];
  /** Artifacts whose free-form content must pass their upstream schema before anything is written. */
  readonly toCheck: readonly Artifact[];
  readonly applied: ReadonlyMap<string, readonly AppliedPatch[]>;
}

/** Thrown by generateFromPlan when overlays or schema checks fail: user errors, reported like spec errors. */
export class ArtifactIssuesError extends Error {
  override readonly name = "ArtifactIssuesError";
  constructor(readonly issues: readonly SpecIssue[]) {
    super(issues.map((i) => i.message).join("\n"));
  }
}

/** PLAN.md: the core summary, then each generator module's section, then the overlays and what they changed. */
export function renderPlanMarkdown(
  plan: AnyPlan,
  modules: readonly Module[] = generatorModules,
  overlaySection?: string,
): string {
  const sections = isCloudBurstPlan(plan)
    ? [summarizeCloudBurstCore(plan), ...modules.filter(isBurstModule).map((m) => m.summarize?.(plan))]
    : [summarizeCore(plan), ...modules.map((m) => m.summarize?.(plan))];
  return `${[...sections, overlaySection]
    .filter((s): s is string => !!s)
    .map((s) => s.trimEnd())
    .join("\n\n")}\n`;
}

/** The artifacts of every module that applies: only the cloud modules for the cloud burst of an existing cluster. */
function runModules(plan: AnyPlan, modules: readonly Module[]): Artifact[] {
  if (isCloudBurstPlan(plan)) return modules.filter(isBurstModule).flatMap((m) => m.generate(plan));
  return modules.flatMap((m) => m.generate(plan));
}

/** The free-form parts of a plan: a cloud-burst spec has none. */
function freeForm(plan: AnyPlan): {
  overlays: readonly Overlay[];
  ciliumValues: Readonly<Record<string, unknown>>;
  kubelet: Readonly<Record<string, unknown>>;
} {
  if (isCloudBurstPlan(plan)) return { overlays: [], ciliumValues: {}, kubelet: {} };
  return { overlays: plan.overlays, ciliumValues: plan.cilium.values, kubelet: plan.kubernetes.knobs.kubelet };
}

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

function assertWellFormed(artifacts: readonly Artifact[]): void {
  const seen = new Set<string>();
  for (const a of artifacts) {
    if (seen.has(a.path)) throw new InternalError(`two artifacts share the path ${a.path}`);
    if (a.path.startsWith("/") || a.path.split("/").some((p) => p === ".." || p === "." || p === ""))
      throw new InternalError(`artifact path ${a.path} is not a clean relative path`);
    if (!a.content.endsWith("\n") || a.content.includes("\r"))
      throw new InternalError(`artifact ${a.path} must use LF and end with one newline`);
    seen.add(a.path);
  }
}

/** Runs every generator, applies the overlays and writes PLAN.md; says which artifacts need a schema check. */
export function renderArtifacts(plan: AnyPlan, modules: readonly Module[] = generatorModules): Rendered {
  const generated: Artifact[] = [];
  const free = freeForm(plan);
  try {
    generated.push(...runModules(plan, modules));
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    return {
      artifacts: [],
      errors: [{ path: e.path, message: e.message, severity: "error", code: e.code }],
      warnings: [],
      toCheck: [],
      applied: new Map(),
    };
  }
  const outcome = applyOverlays(generated, free.overlays);
  const patched = new Set(outcome.applied.keys());
  const errors = [...outcome.errors, ...userDataLimits(outcome.artifacts, outcome.applied)];
  const toCheck = outcome.artifacts.filter(
    (a) =>
      patched.has(a.path) ||
      (a.schema === "cilium-values" && Object.keys(free.ciliumValues).length > 0) ||
      (a.schema === "kubeadm" && Object.keys(free.kubelet).length > 0),
  );
  const plan_md: Artifact = {
    path: "PLAN.md",
    content: renderPlanMarkdown(plan, modules, summarizeOverlays(outcome.changed, outcome.warnings.length)),
  };
  const artifacts = [plan_md, ...outcome.artifacts];
  assertWellFormed(artifacts);
  return {
    artifacts: artifacts.sort(byPath),
    errors,
    warnings: outcome.warnings,
    toCheck,
    applied: outcome.applied,
  };
}

/**
 * Patched user data must still reach EC2 as it is: the cloud-init generator gzips what exceeds 16 KiB, which a patch
 * made afterwards would leave stale, so a patched file must stay under the limit and never have a gzipped twin.
 */
function userDataLimits(
  artifacts: readonly Artifact[],
  applied: ReadonlyMap<string, readonly AppliedPatch[]>,
): SpecIssue[] {
  const paths = new Set(artifacts.map((a) => a.path));
  return artifacts.flatMap((a) => {
    const last = applied.get(a.path)?.at(-1);
    if (a.schema !== "cloud-config" || !last) return [];
    const size = byteLength(a.content);
    const twin = a.path.replace(/\.yaml$/, ".gz.b64");
    if (!paths.has(twin) && size <= USER_DATA_LIMIT) return [];
    return [
      {
        path: ["overlays", last.overlay, "target"],
        severity: "error" as const,
        code: "output_limit" as const,
        message: paths.has(twin)
          ? `${a.path} ships gzipped as ${twin} (over the ${USER_DATA_LIMIT} bytes EC2 accepts plain), which a patch would leave stale: user data this large cannot be patched`
          : `${a.path} is ${size} bytes after overlays, over the ${USER_DATA_LIMIT} bytes EC2 accepts as plain user data: patch less`,
      },
    ];
  });
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

/** Checks the artifacts that need it; each problem is reported at the spec path that put the value there. */
export function checkRendered(plan: AnyPlan, rendered: Rendered, checker: ArtifactChecker): SpecIssue[] {
  const free = freeForm(plan);
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
      let path: IssuePath | undefined = blameOverlay(rendered.applied.get(a.path), p.document, p.pointer);
      if (!path && a.schema === "cilium-values") {
        const r = reach(free.ciliumValues, p.pointer);
        if (r.length > 0) path = ["cilium", "values", ...r];
      }
      if (!path && kind === "KubeletConfiguration") {
        const r = reach(free.kubelet, p.pointer);
        if (r.length > 0) path = ["kubernetes", "kubelet", ...r];
      }
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

/** Renders, patches and checks; throws ArtifactIssuesError on user errors (overlays, schema) and OutputLimitError. */
export function generateFromPlan(
  plan: AnyPlan,
  modules: readonly Module[] = generatorModules,
  checker?: ArtifactChecker,
): Artifact[] {
  const rendered = renderArtifacts(plan, modules);
  if (rendered.errors.length > 0) throw new ArtifactIssuesError(rendered.errors);
  if (rendered.toCheck.length > 0) {
    if (!checker) throw new ArtifactIssuesError([needsChecker()]);
    const issues = checkRendered(plan, rendered, checker);
    if (issues.length > 0) throw new ArtifactIssuesError(issues);
  }
  return [...rendered.artifacts];
}

function needsChecker(): SpecIssue {
  return {
    path: [],
    severity: "error",
    code: "upstream_schema",
    message:
      "this spec has free-form parts (overlays, cilium.values or kubernetes.kubelet) that must be checked against the upstream schemas: pass options.checker (loadArtifactChecker from @clusterspec/schemas) or call generateChecked",
  };
}

type Prepared =
  | { readonly ok: false; readonly result: GenerateResult }
  | { readonly ok: true; readonly plan: AnyPlan; readonly warnings: readonly SpecIssue[] };

type SpecInput = ClusterSpecInput | CloudBurstSpecInput;

/** Validation, secrets and the plan: everything before the generators run. */
function prepare(spec: string | SpecInput, options: GenerateOptions): Prepared {
  const text = typeof spec === "string" ? spec : undefined;
  const validated = text === undefined ? validateSpec(spec) : loadSpec(text);
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
  });
  return { ok: true, plan, warnings };
}

function finish(
  plan: AnyPlan,
  rendered: Rendered,
  warnings: readonly SpecIssue[],
  checker: ArtifactChecker | undefined,
): GenerateResult {
  const all = [...warnings, ...rendered.warnings];
  if (rendered.errors.length > 0) return { ok: false, errors: rendered.errors, warnings: all };
  if (rendered.toCheck.length > 0) {
    if (!checker) return { ok: false, errors: [needsChecker()], warnings: all };
    const issues = checkRendered(plan, rendered, checker);
    const notes: SpecIssue[] = checker.notes.map((message) => ({
      path: ["cilium", "version"],
      message,
      severity: "warning",
      code: "upstream_schema",
    }));
    if (issues.length > 0) return { ok: false, errors: issues, warnings: [...all, ...notes] };
    return { ok: true, plan, artifacts: rendered.artifacts, warnings: [...all, ...notes] };
  }
  return { ok: true, plan, artifacts: rendered.artifacts, warnings: all };
}

/** Issues found after validation (overlays, schema checks) get their YAML line too when the spec was text. */
function located(spec: string | unknown, result: GenerateResult): GenerateResult {
  if (typeof spec !== "string") return result;
  const warnings = locateIssues(spec, result.warnings);
  return result.ok ? { ...result, warnings } : { ...result, errors: locateIssues(spec, result.errors), warnings };
}

/**
 * Validates (text is parsed as YAML), resolves secrets and the plan, runs every generator, applies the overlays and
 * checks free-form content against the upstream schemas (`options.checker`). Never throws on bad input: every
 * problem comes back as an error with its path (and line/column for text).
 */
export function generate(text: string, options?: GenerateOptions): GenerateResult;
export function generate(spec: SpecInput, options?: GenerateOptions): GenerateResult;
export function generate(spec: string | SpecInput, options: GenerateOptions = {}): GenerateResult {
  const prepared = prepare(spec, options);
  if (!prepared.ok) return prepared.result;
  const rendered = renderArtifacts(prepared.plan, options.modules ?? generatorModules);
  return located(spec, finish(prepared.plan, rendered, prepared.warnings, options.checker));
}

/** The schema checker a rendering needs, imported only then: a spec without free-form parts never loads a schema. */
export async function loadCheckerFor(plan: AnyPlan, rendered: Rendered): Promise<ArtifactChecker | undefined> {
  const schemas = schemasToLoad(rendered);
  if (schemas.size === 0) return undefined;
  const { loadArtifactChecker } = await import("@clusterspec/schemas");
  return loadArtifactChecker({ schemas, ciliumVersion: isCloudBurstPlan(plan) ? "1.20.0" : plan.cilium.version });
}

/** Like generate, and loads the upstream schemas by itself when the spec needs them. */
export async function generateChecked(
  spec: string | SpecInput,
  options: GenerateOptions = {},
): Promise<GenerateResult> {
  const prepared = prepare(spec, options);
  if (!prepared.ok) return prepared.result;
  const rendered = renderArtifacts(prepared.plan, options.modules ?? generatorModules);
  const checker =
    options.checker ?? (rendered.errors.length > 0 ? undefined : await loadCheckerFor(prepared.plan, rendered));
  return located(spec, finish(prepared.plan, rendered, prepared.warnings, checker));
}
