// The programmatic API: spec text or object in, artifacts out. Pure: secrets arrive as values, or from a
// resolver the caller supplies (the CLI's reads the environment and files).
import {
  checkSecretValues,
  InternalError,
  loadSpec,
  locateIssues,
  OutputLimitError,
  resolvePlan,
  secretReferences,
  summarizeCore,
  validateSpec,
} from "@clusterspec/core";
import type {
  Artifact,
  ClusterPlan,
  ClusterSpec,
  ClusterSpecInput,
  GeneratorModule,
  SecretId,
  SecretRef,
  SecretValues,
  SpecIssue,
} from "@clusterspec/core/types";
import { generatorModules } from "./generators.js";

/** A secret the spec references, as handed to a resolver. */
export interface SecretReference {
  readonly id: SecretId;
  readonly ref: SecretRef;
}

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
  readonly modules?: readonly GeneratorModule[];
}

export type GenerateResult =
  | {
      readonly ok: true;
      readonly plan: ClusterPlan;
      readonly artifacts: readonly Artifact[];
      readonly warnings: readonly SpecIssue[];
    }
  | { readonly ok: false; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] };

/** PLAN.md: the core summary, then each generator module's section. */
export function renderPlanMarkdown(plan: ClusterPlan, modules: readonly GeneratorModule[] = generatorModules): string {
  const sections = [summarizeCore(plan), ...modules.map((m) => m.summarize?.(plan)).filter((s): s is string => !!s)];
  return `${sections.map((s) => s.trimEnd()).join("\n\n")}\n`;
}

/** Runs every generator on a plan; artifacts sorted by path, duplicates rejected. */
export function generateFromPlan(
  plan: ClusterPlan,
  modules: readonly GeneratorModule[] = generatorModules,
): Artifact[] {
  const artifacts: Artifact[] = [{ path: "PLAN.md", content: renderPlanMarkdown(plan, modules) }];
  for (const m of modules) artifacts.push(...m.generate(plan));
  const seen = new Set<string>();
  for (const a of artifacts) {
    if (seen.has(a.path)) throw new InternalError(`two artifacts share the path ${a.path}`);
    if (a.path.startsWith("/") || a.path.split("/").some((p) => p === ".." || p === "." || p === ""))
      throw new InternalError(`artifact path ${a.path} is not a clean relative path`);
    if (!a.content.endsWith("\n") || a.content.includes("\r"))
      throw new InternalError(`artifact ${a.path} must use LF and end with one newline`);
    seen.add(a.path);
  }
  return artifacts.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Validates (text is parsed as YAML), resolves secrets and the plan, and runs every generator. Never throws
 * on bad input: every problem comes back as an error with its path (and line/column for text).
 */
export function generate(text: string, options?: GenerateOptions): GenerateResult;
export function generate(spec: ClusterSpecInput, options?: GenerateOptions): GenerateResult;
export function generate(spec: string | ClusterSpecInput, options: GenerateOptions = {}): GenerateResult {
  const text = typeof spec === "string" ? spec : undefined;
  const validated = text === undefined ? validateSpec(spec) : loadSpec(text);
  if (!validated.ok) return validated;
  const { warnings } = validated;
  const value = validated.value as ClusterSpec;
  const fail = (issues: readonly Pick<SpecIssue, "path" | "message">[]): GenerateResult => {
    const errors: SpecIssue[] = issues.map((i) => ({ path: i.path, message: i.message, severity: "error" }));
    return { ok: false, errors: text === undefined ? errors : locateIssues(text, errors), warnings };
  };

  let secrets: SecretValues = {};
  if (typeof options.secrets === "function") {
    const resolution = options.secrets(secretReferences(value));
    secrets = resolution.values;
    if (resolution.errors.length > 0) return fail([...resolution.errors, ...checkSecretValues(secrets)]);
  } else if (options.secrets !== undefined) secrets = options.secrets;
  const secretErrors = checkSecretValues(secrets);
  if (secretErrors.length > 0) return fail(secretErrors);

  const plan = resolvePlan(value, {
    ...(options.sourceName === undefined ? {} : { sourceName: options.sourceName }),
    ...(options.secrets === undefined ? {} : { secrets }),
  });
  try {
    const artifacts = generateFromPlan(plan, options.modules ?? generatorModules);
    return { ok: true, plan, artifacts, warnings };
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    return fail([{ path: e.path, message: e.message }]);
  }
}
