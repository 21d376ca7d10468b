// Provenance, measured rather than threaded (DESIGN-27 decision 4): which spec fields a generated line depends on is
// found by changing each field of the validated spec (defaults included) to another valid value, regenerating, and
// diffing the file. Nothing in the generators knows about it, so a plain `generate` pays nothing: this module is
// imported by `explain` alone (the library entry re-exports it; the CLI's generate never loads it).
import {
  isBurstModule,
  isCloudBurstPlan,
  loadSpec,
  locateIssues,
  parseYamlDocuments,
  specJsonSchema,
  toDotPath,
  validateSpec,
} from "@clusterspec/core";
import type { AnyPlan, Artifact, ArtifactChecker, ArtifactScope, IssuePath, SpecIssue } from "@clusterspec/core/types";
import { diffArrays } from "diff";
import { type GenerateOptions, generate } from "./generate.js";
import { generatorModules } from "./generators.js";
import { unsetFieldsOf } from "./provenance-unset.js";

type Module = NonNullable<GenerateOptions["modules"]>[number];

export interface ExplainOptions extends Omit<GenerateOptions, "checker"> {
  /** The generated file, relative to the output folder (`nodes/k8s-1/etc/keepalived/keepalived.conf`). */
  readonly file: string;
  /** 1-based: explain this line alone (faster: only changes that reach it are followed). */
  readonly line?: number;
  /**
   * Valid perturbations tried per spec field (default 3): each is another value the field could have; a line
   * that depends on the field only past some threshold may need more than one.
   */
  readonly perturbations?: number;
}

/** One spec field a line depends on. */
export interface ExplainSource {
  /** Its spec path, `vrrp.basePriority`, `nodes[1].interfaces.wan1.address`, `overlays[2].patch.spec.x`. */
  readonly path: string;
  /** How the line depends on it: its value, or whether it is there at all (an array element, an object). */
  readonly change: "value" | "presence";
  /** The spec did not set it: the schema's default filled it in. */
  readonly defaulted: boolean;
  /** The default it took (value sources only). */
  readonly defaultValue?: unknown;
  /**
   * The spec does not set it and the schema gives it no default (a VIP's `vrid`, `externalVips.replicas`): adding it,
   * at a value the schema allows, changes the line. Present only when true.
   */
  readonly unset?: boolean;
  /** Where the spec text sets it (1-based), when the spec came as text and sets it. */
  readonly line?: number;
  readonly column?: number;
}

export interface ExplainedLine {
  /** 1-based. */
  readonly number: number;
  readonly text: string;
  /** In spec order; empty for a line no spec field changed (constant text). */
  readonly sources: readonly ExplainSource[];
}

export type ExplainResult =
  | {
      readonly ok: true;
      readonly file: string;
      readonly lines: readonly ExplainedLine[];
      /** Spec fields for which no valid other value was found: the lines may depend on them unseen. */
      readonly unmeasured: readonly string[];
      /** How many regenerations the measurement took. */
      readonly regenerations: number;
      readonly warnings: readonly SpecIssue[];
    }
  | {
      readonly ok: false;
      /** The spec's problems (empty when the spec is fine and `target` says what is wrong). */
      readonly errors: readonly SpecIssue[];
      readonly warnings: readonly SpecIssue[];
      /** The file is not in the generated tree, or the line is not in the file. */
      readonly target?: { readonly message: string; readonly closeMatches: readonly string[] };
    };

/** The schema checks are generate's job; explain only compares texts, so every patched file is taken as it is. */
const ACCEPT_ALL: ArtifactChecker = { check: () => [], notes: [] };

type Path = (string | number)[];

/** A spec field to perturb: a primitive's value, or the presence of an array element or object. */
interface Leaf {
  readonly path: Path;
  readonly change: "value" | "presence";
  /** Other values to try, in order (presence: removal, twice, in two rounds grouped apart, like a boolean). */
  readonly candidates: readonly unknown[];
  /** The next candidate to try. */
  cursor: number;
  /** More valid candidates to try than the default: a version's thresholds can be anywhere in its range. */
  readonly extraRounds?: number;
  /** An optional field with no default that the spec leaves out: the candidates add it. */
  readonly unset?: boolean;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every `enum` of the spec's JSON Schema: a string in one of them is tried as the others. */
function enumsOf(schema: unknown): string[][] {
  const out: string[][] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) for (const n of node) visit(n);
    else if (isObject(node)) {
      const values = node.enum;
      if (Array.isArray(values) && values.every((v) => typeof v === "string")) out.push(values as string[]);
      for (const v of Object.values(node)) visit(v);
    }
  };
  visit(schema);
  return out;
}

let enumCache: string[][] | undefined;

/** Whether `value` is a member of one of the spec's enums (`btrfs`, `AH`): a choice, not a name. */
function isEnumMember(value: string): boolean {
  enumCache ??= enumsOf(specJsonSchema());
  return enumCache.some((e) => e.includes(value));
}

/** A flag or a choice (a boolean, an enum member): values that act together through what they count. */
const isFlagValue = (value: unknown): boolean =>
  typeof value === "boolean" || (typeof value === "string" && isEnumMember(value));

/** `s` with its `run`-th run of digits from the end moved by `by` (undefined below 0), keeping leading zeros. */
function nudgeDigits(s: string, run: number, by: number): string | undefined {
  const m = [...s.matchAll(/\d+/g)].at(-1 - run);
  if (!m) return undefined;
  const at = m.index ?? 0;
  const n = Number(m[0]) + by;
  if (n < 0 || !Number.isSafeInteger(n)) return undefined;
  return `${s.slice(0, at)}${String(n).padStart(m[0].startsWith("0") ? m[0].length : 0, "0")}${s.slice(at + m[0].length)}`;
}

const VERSION = /^v?\d+\.\d+(\.\d+)?$/;
/**
 * How far a version's minor moves, each way: every minor of a supported range, since which lines change depends on
 * the version reached (1.22 → 1.24 adds a taint that 1.22 → 1.25 replaces). Only the versions take extra rounds, so
 * each round costs a few regenerations.
 */
const VERSION_SPREAD = Array.from({ length: 16 }, (_, i) => i + 1);

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(\/\d{1,2})?$/;
const MAC = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;

/** Other IPv4 addresses (with the same prefix length): near ones, far ones in the same subnet, the next network. */
function otherIpv4(m: RegExpExecArray): string[] {
  const n = m.slice(1, 5).reduce((acc, o) => acc * 256 + Number(o), 0);
  const prefix = m[5] ?? "";
  const bits = prefix === "" ? 32 : Number(prefix.slice(1));
  const size = 2 ** (32 - bits);
  const host = n % size;
  const text = (v: number) => `${[24, 16, 8, 0].map((s) => Math.floor(v / 2 ** s) % 256).join(".")}${prefix}`;
  const hosts = [1, -1, size / 2, size / 4, -size / 4].map((d) => n - host + ((host + d + size) % size));
  const nets = bits > 0 && bits < 32 ? [n + size, n - size] : [];
  return [...new Set([...hosts, ...nets])].filter((v) => v !== n && v >= 0 && v < 2 ** 32).map(text);
}

/** Other values a primitive could take, nearest first: a validation decides which are valid. */
function candidatesOf(value: unknown): unknown[] {
  // Tried twice, each time in other groups: two fields whose changes cancel out in one group (two nodes swapping a
  // role) are then apart in the other.
  if (typeof value === "boolean") return [!value, !value];
  if (typeof value === "number") {
    // near, then far (a threshold further off), then the other side
    if (!Number.isInteger(value)) return [value + 0.5, value * 2, value / 2];
    return [...new Set([value + 1, value * 2, value - 1, value + 16, value - 16, Math.floor(value / 2)])].filter(
      (v) => v !== value,
    );
  }
  if (typeof value !== "string") return [];
  enumCache ??= enumsOf(specJsonSchema());
  const members = enumCache.filter((e) => e.includes(value)).flatMap((e) => e.filter((m) => m !== value));
  if (members.length > 0) {
    const others = [...new Set(members)];
    return others.length === 1 ? [...others, ...others] : others;
  }
  if (VERSION.test(value)) {
    const run = value.split(".").length === 3 ? 1 : 0; // the minor
    const minors = VERSION_SPREAD.flatMap((d) => [nudgeDigits(value, run, d), nudgeDigits(value, run, -d)]);
    return [...new Set([nudgeDigits(value, 0, 1), ...minors].filter((v) => v !== undefined && v !== value))];
  }
  const ip = IPV4.exec(value);
  if (ip) return otherIpv4(ip);
  if (MAC.test(value)) {
    const last = Number.parseInt(value.slice(-2), 16);
    return [last ^ 1, last ^ 0x80, last ^ 0x40].map((b) => `${value.slice(0, -2)}${b.toString(16).padStart(2, "0")}`);
  }
  // A name stays unique with a letter added; a version or duration needs a number changed, near (the patch) and
  // far (the minor, where a version's thresholds are).
  const candidates = [
    nudgeDigits(value, 0, 1),
    `${value}x`,
    nudgeDigits(value, 1, 1),
    nudgeDigits(value, 1, -7),
    nudgeDigits(value, 0, -1),
    value === "" ? "x" : `${value.slice(0, -1)}x`,
    nudgeDigits(value, 0, 7),
    nudgeDigits(value, 1, -1),
  ];
  return [...new Set(candidates.filter((v) => v !== undefined && v !== value))];
}

/** The integers the lines show, the most frequent first (at most `limit`): values a number field may meet. */
function numbersIn(lines: readonly string[], limit: number): number[] {
  const counts = new Map<number, number>();
  for (const line of lines)
    for (const m of line.matchAll(/(?<![\w.:/-])\d{1,6}(?![\w.:/-])/g)) {
      const n = Number(m[0]);
      counts.set(n, (counts.get(n) ?? 0) + 1);
    }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, limit)
    .map(([n]) => n);
}

/**
 * The same fields in another order, neighbours far apart (a golden-ratio stride): a round's groups then hold other
 * fields together than the last round's, so changes that cancel out in one group are apart in the next.
 */
function scattered<T>(items: readonly T[]): T[] {
  const n = items.length;
  if (n < 3) return [...items];
  let stride = Math.max(1, Math.round(n * 0.618));
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  while (gcd(stride, n) !== 1) stride++;
  return items.map((_, i) => items[(i * stride) % n] as T);
}

/** An address without its prefix length, a MAC in lower case: two strings that name the same thing. */
const identityOf = (value: string): string => (MAC.test(value) ? value.toLowerCase() : value.replace(/\/\d{1,3}$/, ""));

/** Every string of the spec, by identity: the values a perturbed name, address or MAC must not take. */
function stringsOf(spec: unknown): Set<string> {
  const out = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === "string") out.add(identityOf(value));
    else if (value !== null && typeof value === "object") for (const v of Object.values(value)) visit(v);
  };
  visit(spec);
  return out;
}

/**
 * The fields of the validated spec, depth first: every primitive, every array element and every nested object.
 * A name, address or MAC is never tried as a value the spec already has, nor as one another field is tried as:
 * uniqueness rules (node names, addresses, MACs) would refuse it, and on a big cluster most near values are a
 * neighbour's, so most groups of perturbations would be refused and each field tried alone.
 */
function leavesOf(spec: unknown, seen: readonly number[], perturbations: number): Leaf[] {
  const out: Leaf[] = [];
  const taken = stringsOf(spec);
  const fresh = (value: string, candidates: unknown[]): unknown[] => {
    if (VERSION.test(value) || isEnumMember(value)) return candidates;
    const out = candidates.filter((c) => typeof c !== "string" || !taken.has(identityOf(c)));
    for (const c of out) if (typeof c === "string") taken.add(identityOf(c));
    return out;
  };
  const visit = (value: unknown, path: Path): void => {
    if (Array.isArray(value))
      value.forEach((item, i) => {
        visit(item, [...path, i]);
        out.push({ path: [...path, i], change: "presence", candidates: [REMOVED, REMOVED], cursor: 0 });
      });
    else if (isObject(value))
      for (const [key, item] of Object.entries(value)) {
        visit(item, [...path, key]);
        if (item !== null && typeof item === "object")
          out.push({ path: [...path, key], change: "presence", candidates: [REMOVED, REMOVED], cursor: 0 });
      }
    else {
      // A number also takes each number the explained lines show: a line may depend on a field only when the two
      // meet (an external VIP's VRID moves past the control-plane VIP's when that takes it).
      const own = typeof value === "string" ? fresh(value, candidatesOf(value)) : candidatesOf(value);
      const met = typeof value === "number" ? seen.filter((n) => n !== value && !own.includes(n)) : [];
      // The numbers met come right after the values of the field's own rounds, not after all its candidates: their
      // extra rounds would otherwise be spent on its far values (an MTU of 3774 tried at 3790, 3758 and 1887, never
      // at 1499, below the 1500 minimum a line shows).
      const candidates = [...own.slice(0, perturbations), ...met, ...own.slice(perturbations)];
      const extraRounds = typeof value === "string" && VERSION.test(value) ? own.length : met.length;
      if (candidates.length > 0) out.push({ path, change: "value", candidates, cursor: 0, extraRounds });
    }
  };
  visit(spec, []);
  return out;
}

const REMOVED = Symbol("removed");

/**
 * The spec with each leaf at its current candidate: removals leave a mark first, so indices stay put until the end.
 * `original` takes a path of the perturbed spec (an issue's) back to the unperturbed one's: after `nodes[1]` is
 * removed, the perturbed `nodes[1]` is the original `nodes[2]`.
 */
function perturb(spec: unknown, group: readonly Leaf[]): { spec: unknown; original: (path: IssuePath) => IssuePath } {
  const copy = structuredClone(spec) as Record<string, unknown>;
  for (const leaf of group) {
    let node: unknown = copy;
    for (const seg of leaf.path.slice(0, -1)) {
      if (node === null || typeof node !== "object") break;
      node = (node as Record<string | number, unknown>)[seg];
    }
    if (node === null || typeof node !== "object") continue; // inside something this group removes
    (node as Record<string | number, unknown>)[leaf.path.at(-1) as string | number] = leaf.candidates[leaf.cursor];
  }
  /** For each array with elements removed (by its original path), the original indices of those kept. */
  const kept = new Map<string, number[]>();
  const prune = (value: unknown, path: Path): unknown => {
    if (Array.isArray(value)) {
      const indices = value.flatMap((v, i) => (v === REMOVED ? [] : [i]));
      if (indices.length < value.length) kept.set(JSON.stringify(path), indices);
      return indices.map((i) => prune(value[i], [...path, i]));
    }
    if (isObject(value))
      return Object.fromEntries(
        Object.entries(value)
          .filter(([, v]) => v !== REMOVED)
          .map(([k, v]) => [k, prune(v, [...path, k])]),
      );
    return value;
  };
  const pruned = prune(copy, []);
  const original = (path: IssuePath): IssuePath => {
    if (kept.size === 0) return path;
    const out: Path = [];
    for (const seg of path) {
      const indices = typeof seg === "number" ? kept.get(JSON.stringify(out)) : undefined;
      out.push(indices === undefined ? seg : (indices[seg as number] ?? seg));
    }
    return out;
  };
  return { spec: pruned, original };
}

/** Up to how many flags and choices (booleans, enum fields) a spec may have for each to be tried alone too. */
const ALONE_FLAGS = 64;

/** How near (in lines) a change must be to the explained line to have possibly been matched in its place. */
const NEAR = 32;

/** A path with its array indices wildcarded: `nodes[*].interfaces`. */
const shapeOf = (path: IssuePath): string => path.map((seg) => (typeof seg === "number" ? "*" : seg)).join(".");

/** One path is the other or inside it. */
function related(a: IssuePath, b: IssuePath): boolean {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** The value at `path`, or `missing`. */
function at(value: unknown, path: IssuePath, missing: unknown): unknown {
  let node = value;
  for (const seg of path) {
    if (Array.isArray(node) && typeof seg === "number" && seg < node.length) node = node[seg];
    else if (isObject(node) && typeof seg === "string" && Object.hasOwn(node, seg)) node = node[seg];
    else return missing;
  }
  return node;
}

/**
 * The lines of `before` (0-based) that `after` changes: removed or replaced lines, and for lines that only appear,
 * the line above the place they appear at (the first line when at the top). A file that is gone changes every line.
 */
export function changedLines(before: readonly string[], after: readonly string[] | undefined): Set<number> {
  const changed = new Set<number>();
  if (after === undefined) {
    for (let i = 0; i < before.length; i++) changed.add(i);
    return changed;
  }
  let index = 0;
  let previousRemoved = false;
  for (const part of diffArrays(before as string[], after as string[])) {
    if (part.removed) {
      for (let i = 0; i < part.count; i++) changed.add(index + i);
      index += part.count;
      previousRemoved = true;
    } else if (part.added) {
      if (!previousRemoved) changed.add(Math.max(0, index - 1));
      previousRemoved = false;
    } else {
      index += part.count;
      previousRemoved = false;
    }
  }
  return changed;
}

/** A file's lines, without the empty string after its final newline. */
export const linesOf = (content: string): string[] => {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

function levenshtein(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++)
      next[j] = Math.min(
        (row[j] ?? 0) + 1,
        (next[j - 1] ?? 0) + 1,
        (row[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    row = next;
  }
  return row[b.length] ?? 0;
}

/** Up to five generated paths nearest to a file name that is not one: same ending first, then by edit distance. */
export function closeMatches(file: string, paths: readonly string[]): string[] {
  const base = file.split("/").at(-1) ?? file;
  const score = (p: string) =>
    (p.endsWith(`/${file}`) || p === file ? 0 : p.endsWith(`/${base}`) ? 1 : 2) * 10_000 + levenshtein(file, p);
  return [...paths].sort((a, b) => score(a) - score(b) || (a < b ? -1 : 1)).slice(0, 5);
}

/** Each module's files for one plan, generated once when first asked (moduleOf and focused share them). */
function filesByModule(plan: AnyPlan): (m: Module) => readonly Artifact[] {
  const files = new Map<Module, readonly Artifact[]>();
  return (m) => {
    let out = files.get(m);
    if (out === undefined) {
      out = !isCloudBurstPlan(plan) || isBurstModule(m) ? (m.generate(plan as never) as Artifact[]) : [];
      files.set(m, out);
    }
    return out;
  };
}

/** The module whose generate writes `file` for this plan (undefined for PLAN.md, which every module feeds). */
function moduleOf(
  plan: AnyPlan,
  modules: readonly Module[],
  file: string,
  filesOf: (m: Module) => readonly Artifact[],
): Module | undefined {
  if (file === "PLAN.md") return undefined;
  for (const m of isCloudBurstPlan(plan) ? modules.filter(isBurstModule) : modules)
    if (filesOf(m).some((a) => a.path === file)) return m;
  return undefined;
}

/**
 * The modules for the re-generations: the one that writes the file runs; every other returns the files it wrote for
 * the unchanged spec (overlays still find their targets) and adds nothing to PLAN.md. The one that runs is asked for
 * the file alone (its scope: a node's keepalived.conf needs none of the other 299 nodes') whenever nothing else
 * reads its other files: no overlay (which could target them) and no check of its own (which reads them all).
 */
function focused(
  modules: readonly Module[],
  target: Module | undefined,
  file: string,
  filesOf: (m: Module) => readonly Artifact[],
): readonly Module[] {
  if (target === undefined) return modules;
  return modules.map((m): Module => {
    if (m === target) {
      const { summarize: _unused, ...rest } = m;
      if (m.check !== undefined) return rest as Module;
      const scope: ArtifactScope = { path: file };
      const generate = (p: AnyPlan) =>
        (m.generate as (p: AnyPlan, scope?: ArtifactScope) => Artifact[])(
          p,
          isCloudBurstPlan(p) || p.overlays.length > 0 ? undefined : scope,
        );
      return { ...rest, generate } as Module;
    }
    const files = filesOf(m) as Artifact[];
    return { name: m.name, ...(isBurstModule(m) ? { burst: true } : {}), generate: () => files } as Module;
  });
}

/**
 * Which spec fields each line of a generated file depends on, measured: every field of the validated spec (defaults
 * included) is changed to other valid values (each perturbed spec passes the real validation, or the next value is
 * tried), the file is regenerated and diffed, and the field is listed for every line that changed. Fields are tried
 * in groups: a group that leaves the file unchanged is done; one that changes it, or is not valid, is split down to
 * single fields. Pure, never throws on bad input, like generate.
 */
export function explain(spec: string | Record<string, unknown>, options: ExplainOptions): ExplainResult {
  const { file, line, perturbations = 3, ...generateOptions } = options;
  const text = typeof spec === "string" ? spec : undefined;
  const validated = text === undefined ? validateSpec(spec) : loadSpec(text);
  if (!validated.ok) return validated;
  const modules = generateOptions.modules ?? generatorModules;
  const run = (input: unknown, mods: readonly Module[]) =>
    generate(input as Parameters<typeof generate>[0], { ...generateOptions, modules: mods, checker: ACCEPT_ALL });
  const base = run(validated.value, modules);
  if (!base.ok) return text === undefined ? base : { ...base, errors: locateIssues(text, base.errors) };
  const warnings = validated.warnings;
  const artifact = base.artifacts.find((a) => a.path === file);
  if (!artifact)
    return {
      ok: false,
      errors: [],
      warnings,
      target: {
        message: `${file} is not a file this spec generates`,
        closeMatches: closeMatches(
          file,
          base.artifacts.map((a) => a.path),
        ),
      },
    };
  const before = linesOf(artifact.content);
  if (line !== undefined && (!Number.isInteger(line) || line < 1 || line > before.length))
    return {
      ok: false,
      errors: [],
      warnings,
      target: {
        message: `${file} has ${before.length} line${before.length === 1 ? "" : "s"}: there is no line ${line}`,
        closeMatches: [],
      },
    };
  const wanted = line === undefined ? undefined : line - 1;
  const filesOf = filesByModule(base.plan);
  const mods = focused(modules, moduleOf(base.plan, modules, file, filesOf), file, filesOf);

  let regenerations = 0;
  /** The lines of interest this group's perturbation changes, or the problems of the perturbed spec. */
  /** A line number no line has: the group is to be split, though the line did not change. */
  const SPLIT = -1;
  const measure = (group: readonly Leaf[]): Set<number> | readonly SpecIssue[] => {
    regenerations++;
    const perturbed = perturb(validated.value, group);
    const result = run(perturbed.spec, mods);
    // issues named by the unperturbed spec's paths, so they name the fields that were changed
    if (!result.ok) return result.errors.map((issue) => ({ ...issue, path: perturbed.original(issue.path) }));
    const after = result.artifacts.find((a) => a.path === file);
    if (after?.content === artifact.content) return new Set();
    const changed = changedLines(before, after === undefined ? undefined : linesOf(after.content));
    if (wanted === undefined) return changed;
    if (changed.has(wanted)) return new Set([wanted]);
    // Lines near it changed and an element removed: the diff may have matched the line to a like one nearby (a
    // VIP's block of lines removed beside another's change), so the group is split as if it had changed the line.
    const shifted =
      [...changed].some((i) => Math.abs(i - wanted) <= NEAR) &&
      group.some((l) => l.change === "presence" && typeof l.path.at(-1) === "number");
    return shifted && group.length > 1 ? new Set([SPLIT]) : new Set();
  };

  // One line: its numbers and either side of each (a minimum over the nodes moves only below it); a whole file: its
  // most frequent numbers alone, since each is a round of group testing over the number fields.
  const met =
    wanted === undefined
      ? numbersIn(before, 8)
      : numbersIn([before[wanted] ?? ""], 4)
          .flatMap((n) => [n, n - 1, n + 1])
          .filter((n) => n >= 0);
  // The fields it could have but does not, added at values their schema allows (as many as a present field's).
  const leaves = [
    ...leavesOf(validated.value, met, perturbations),
    ...unsetFieldsOf(validated.value, specJsonSchema(), met).map(
      ({ path, candidates }): Leaf => ({
        path,
        change: "value",
        candidates,
        cursor: 0,
        unset: true,
      }),
    ),
  ];
  const sourcesOf = new Map<Leaf, Set<number>>();
  const measured = new Set<Leaf>();
  const attribute = (leaf: Leaf, changed: Set<number>) => {
    measured.add(leaf);
    if (changed.size === 0) return;
    const set = sourcesOf.get(leaf) ?? new Set<number>();
    for (const i of changed) set.add(i);
    sourcesOf.set(leaf, set);
  };
  /**
   * What was refused, by kind of change: a field's shape (`nodes[*].roles[*]`) with the value it was tried at
   * (`"control-plane"`), or the removal of an object under a key (`nodes[*].interfaces.wan1`). A kind refused alone
   * for three fields and never accepted is not tried again for the others (a sixth control plane, a removed
   * segment interface: refused for each of 300 nodes alike); a removal refused as a missing required key, at once.
   * Numbers and free strings (addresses, names) differ per field, so they never meet here.
   */
  const refusals = new Map<string, number>();
  const accepted = new Set<string>();
  const kindOf = (leaf: Leaf): string | undefined => {
    const value = leaf.candidates[leaf.cursor];
    if (leaf.change === "presence")
      return typeof leaf.path.at(-1) === "string" ? `${shapeOf(leaf.path)} removed` : undefined;
    return typeof value === "boolean" || typeof value === "string"
      ? `${shapeOf(leaf.path)}=${String(value)}`
      : undefined;
  };
  const refusedKind = (leaf: Leaf): boolean => {
    const kind = kindOf(leaf);
    return kind !== undefined && !accepted.has(kind) && (refusals.get(kind) ?? 0) >= 3;
  };
  /** One more refusal of the leaf's kind; a required key (every node's `interfaces`) at once. */
  const refuse = (leaf: Leaf, issues: readonly SpecIssue[]): void => {
    const kind = kindOf(leaf);
    if (kind === undefined) return;
    const missing = issues.some((i) => i.code === "missing_key" && related(i.path, leaf.path));
    refusals.set(kind, missing ? 3 : (refusals.get(kind) ?? 0) + 1);
  };
  /** Past the value the leaf was refused at, and its repeats (a boolean's second try, a removal's). */
  const refused = (leaf: Leaf): void => {
    const value = leaf.candidates[leaf.cursor];
    while (leaf.cursor < leaf.candidates.length && leaf.candidates[leaf.cursor] === value) leaf.cursor++;
  };
  const search = (all: Leaf[]): void => {
    const group =
      refusals.size === 0
        ? all
        : all.filter((leaf) => {
            while (leaf.cursor < leaf.candidates.length && refusedKind(leaf)) leaf.cursor++;
            return leaf.cursor < leaf.candidates.length;
          });
    if (group.length === 0) return;
    const changed = measure(group);
    if (group.length === 1) {
      const leaf = group[0] as Leaf;
      const kind = kindOf(leaf);
      if (changed instanceof Set) {
        if (kind !== undefined) accepted.add(kind);
        attribute(leaf, changed);
        return;
      }
      refuse(leaf, changed);
      refused(leaf);
      if (leaf.cursor < leaf.candidates.length) search(group);
      return;
    }
    if (changed instanceof Set) {
      if (changed.size === 0) for (const leaf of group) measured.add(leaf);
      else splitSearch(group);
      return;
    }
    const named = group.filter((leaf) => changed.some((issue) => related(issue.path, leaf.path)));
    if (named.length === 0 || named.length === group.length) {
      splitSearch(group);
      return;
    }
    search(group.filter((leaf) => !named.includes(leaf)));
    search(named);
  };
  const splitSearch = (group: Leaf[]): void => {
    const half = Math.ceil(group.length / 2);
    search(group.slice(0, half));
    search(group.slice(half));
  };
  // The spec's own fields first, then the ones it leaves out, each in rounds of their own: an added field grouped
  // with the spec's could cancel out a change of theirs (replicas added beside a VIP removed), so the spec's fields
  // are measured as if no field were added.
  for (const part of [leaves.filter((l) => !l.unset), leaves.filter((l) => l.unset)])
    for (let round = 0; ; round++) {
      // For one line, a field found to change it is done: more values could only change it again.
      const pending = part.filter(
        (l) =>
          l.cursor < l.candidates.length &&
          round < perturbations + (l.extraRounds ?? 0) &&
          (wanted === undefined || !sourcesOf.has(l)),
      );
      if (pending.length === 0) break;
      // Changes that can hide each other are never tried together, else the group changes nothing and each is taken
      // as not mattering: the cluster's own settings (fields outside every list) apart from the lists' elements (a
      // setting switches how a node's field is written: Kubernetes 1.25 moves a btrfs node's storage gate from
      // conf.d to kubeadm.yaml); removals apart from values (a removed vrrp.auth hides its type changed to AH); and
      // a flag or choice of the elements by the value it is set to (one node's carriesExternalVips turned off
      // beside another's turned on leaves the carriers' count, and the lines that show it, as they were).
      const apart = new Map<string, Leaf[]>();
      for (const l of pending) {
        const value = l.candidates[l.cursor];
        const key = `${l.path.some((seg) => typeof seg === "number")} ${l.change} ${isFlagValue(value) ? `${shapeOf(l.path)}=${String(value)}` : ""}`;
        const fields = apart.get(key);
        if (fields) fields.push(l);
        else apart.set(key, [l]);
      }
      // Each round starts from smaller groups (halves, then quarters, at most eighths), each in another order: fields
      // that act only together (every node on btrfs moves the storage setting from each node's kubeadm.yaml to the
      // cluster's) would otherwise meet in the first group of every round and hide each other's change every time.
      for (const fields of apart.values()) {
        const ordered = round % 2 === 0 ? fields : scattered(fields);
        const size = Math.ceil(ordered.length / 2 ** Math.min(round, 3));
        for (let at = 0; at < ordered.length; at += size) search(ordered.slice(at, at + size));
      }
      for (const leaf of pending) leaf.cursor++; // the next round tries the next value
    }
  // Flags and choices act together through what they count (carriers, btrfs nodes): a node turned carrier beside
  // another reshuffles the VIP orders differently from either alone. Where they are few (a small cluster), each is
  // also tried alone at each of its values, so for them the answer does not depend on the groups.
  const flags = leaves.filter((l) => l.change === "value" && !l.unset && l.candidates.some(isFlagValue));
  if (flags.length <= ALONE_FLAGS)
    for (const leaf of flags)
      for (const value of new Set(leaf.candidates)) {
        if (wanted !== undefined && sourcesOf.has(leaf)) break;
        leaf.cursor = leaf.candidates.indexOf(value);
        const changed = measure([leaf]);
        if (changed instanceof Set) attribute(leaf, changed);
      }

  const raw = text === undefined ? spec : parseYamlDocuments(text)[0];
  const MISSING = Symbol("missing");
  const located =
    text === undefined
      ? []
      : locateIssues(
          text,
          leaves.map((l) => ({ path: l.path, message: "", severity: "warning", code: "rule" })),
        );
  const sourceOf = (leaf: Leaf, i: number): ExplainSource => {
    if (leaf.unset) return { path: toDotPath(leaf.path), change: leaf.change, defaulted: false, unset: true };
    const defaulted = at(raw, leaf.path, MISSING) === MISSING;
    const position = located[i];
    return {
      path: toDotPath(leaf.path),
      change: leaf.change,
      defaulted,
      ...(defaulted && leaf.change === "value" ? { defaultValue: at(validated.value, leaf.path, undefined) } : {}),
      ...(!defaulted && position?.line !== undefined ? { line: position.line, column: position.column ?? 1 } : {}),
    };
  };
  const perLine = before.map((): ExplainSource[] => []);
  leaves.forEach((leaf, i) => {
    const changed = sourcesOf.get(leaf);
    if (!changed) return;
    const source = sourceOf(leaf, i);
    for (const n of changed) perLine[n]?.push(source);
  });
  const lines = before.flatMap((t, i) =>
    wanted === undefined || wanted === i ? [{ number: i + 1, text: t, sources: perLine[i] ?? [] }] : [],
  );
  // A removal that no spec survives (a required field, the last control plane) is not a missing measurement.
  // Nor is a field the spec leaves out that no value can be added at.
  const unmeasured = leaves
    .filter((l) => l.change === "value" && !l.unset && !measured.has(l))
    .map((l) => toDotPath(l.path));
  return { ok: true, file, lines, unmeasured, regenerations, warnings };
}
