// The programmatic API: spec text or object in, artifacts out. Pure: secrets arrive as values, or from a
// resolver the caller supplies (the CLI's reads the environment and files).
import {
  checkSecretValues,
  InternalError,
  isBurstModule,
  isCloudBurstPlan,
  loadSpec,
  locateIssues,
  OutputLimitError,
  resolvePlan,
  secretReferences,
  summarizeCloudBurstCore,
  summarizeCore,
  validateSpec,
} from "@clusterspec/core";
import type {
  AnyPlan,
  Artifact,
  BurstGeneratorModule,
  CloudBurstSpecInput,
  ClusterSpecInput,
  GeneratorModule,
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
}

export type GenerateResult =
  | {
      readonly ok: true;
      readonly plan: AnyPlan;
      readonly artifacts: readonly Artifact[];
      readonly warnings: readonly SpecIssue[];
    }
  | { readonly ok: false; readonly errors: readonly SpecIssue[]; readonly warnings: readonly SpecIssue[] };

/** PLAN.md: the core summary, then each generator module's section. */
export function renderPlanMarkdown(plan: AnyPlan, modules: readonly Module[] = generatorModules): string {
  const sections = isCloudBurstPlan(plan)
    ? [summarizeCloudBurstCore(plan), ...modules.filter(isBurstModule).map((m) => m.summarize?.(plan))]
    : [summarizeCore(plan), ...modules.map((m) => m.summarize?.(plan))];
  return `${sections
    .filter((s): s is string => !!s)
    .map((s) => s.trimEnd())
    .join("\n\n")}\n`;
}

/** The artifacts of every module that applies: only the cloud modules for the cloud burst of an existing cluster. */
function runModules(plan: AnyPlan, modules: readonly Module[]): Artifact[] {
  if (isCloudBurstPlan(plan)) return modules.filter(isBurstModule).flatMap((m) => m.generate(plan));
  return modules.flatMap((m) => m.generate(plan));
}

/** Runs every generator on a plan; artifacts sorted by path, duplicates rejected. */
export function generateFromPlan(plan: AnyPlan, modules: readonly Module[] = generatorModules): Artifact[] {
  const artifacts: Artifact[] = [
    { path: "PLAN.md", content: renderPlanMarkdown(plan, modules) },
    ...runModules(plan, modules),
  ];
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
export function generate(spec: ClusterSpecInput | CloudBurstSpecInput, options?: GenerateOptions): GenerateResult;
export function generate(
  spec: string | ClusterSpecInput | CloudBurstSpecInput,
  options: GenerateOptions = {},
): GenerateResult {
  const text = typeof spec === "string" ? spec : undefined;
  const validated = text === undefined ? validateSpec(spec) : loadSpec(text);
  if (!validated.ok) return validated;
  const { warnings } = validated;
  const value = validated.value;
  const fail = (issues: readonly Pick<SpecIssue, "path" | "message">[]): GenerateResult => {
    const errors: SpecIssue[] = issues.map((i) => ({ path: i.path, message: i.message, severity: "error" }));
    return { ok: false, errors: text === undefined ? errors : locateIssues(text, errors), warnings };
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
  try {
    const artifacts = generateFromPlan(plan, options.modules ?? generatorModules);
    return { ok: true, plan, artifacts, warnings };
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    return fail([{ path: e.path, message: e.message }]);
  }
}
