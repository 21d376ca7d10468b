// The programmatic API: spec text or object in, artifacts out. Pure: secrets arrive as values.
import {
  type AnyPlan,
  type Artifact,
  type BurstGeneratorModule,
  checkSecretValues,
  type GeneratorModule,
  InternalError,
  isBurstModule,
  isCloudBurstPlan,
  loadSpec,
  OutputLimitError,
  resolvePlan,
  type SecretValues,
  type SpecIssue,
  summarizeCloudBurstCore,
  summarizeCore,
  validateSpec,
} from "@clusterspec/core";
import { generatorModules } from "./generators.js";

type Module = GeneratorModule | BurstGeneratorModule;

export interface GenerateOptions {
  /** Spec file name shown in generated headers; default `cluster.yaml`. */
  readonly sourceName?: string;
  /** Resolved secrets; missing ones render as stable placeholders. */
  readonly secrets?: SecretValues;
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

/** Validates (text is parsed as YAML), resolves the plan and runs every generator. Never throws on bad input. */
export function generate(spec: string | unknown, options: GenerateOptions = {}): GenerateResult {
  const validated = typeof spec === "string" ? loadSpec(spec) : validateSpec(spec);
  if (!validated.ok) return validated;
  const secretErrors: SpecIssue[] = checkSecretValues(options.secrets ?? {}, validated.value).map((i) => ({
    ...i,
    severity: "error",
  }));
  if (secretErrors.length > 0) return { ok: false, errors: secretErrors, warnings: validated.warnings };
  const plan = resolvePlan(validated.value, {
    ...(options.sourceName === undefined ? {} : { sourceName: options.sourceName }),
    ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
  });
  try {
    const artifacts = generateFromPlan(plan, options.modules ?? generatorModules);
    return { ok: true, plan, artifacts, warnings: validated.warnings };
  } catch (e) {
    if (!(e instanceof OutputLimitError)) throw e;
    return {
      ok: false,
      errors: [{ path: e.path, message: e.message, severity: "error" }],
      warnings: validated.warnings,
    };
  }
}
