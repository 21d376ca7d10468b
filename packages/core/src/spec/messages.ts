// zod issues turned into messages a person reads: the subject first, the bad value shown, the expectation
// stated, a did-you-mean for misspelt keys and enum values. One zod issue may become several (one per
// unknown key) or none (a missing key explained by a misspelt sibling).
import type * as z from "zod";
import type { SpecIssueCode } from "../error-catalog.js";
import type { IssuePath, SpecIssue } from "../issues.js";
import { SECRET_LITERAL } from "./fields.js";

type ZodIssue = z.core.$ZodIssue;
type Schema = z.core.$ZodType;

/** Levenshtein distance (insert, delete, substitute), case-sensitive. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++)
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/** The closest candidate when it is close enough to be a slip (case alone, or about one edit in three characters). */
export function didYouMean(word: string, candidates: readonly string[]): string | undefined {
  let best: { c: string; d: number } | undefined;
  for (const c of candidates) {
    const d = c.toLowerCase() === word.toLowerCase() ? 0.5 : editDistance(word, c);
    if (!best || d < best.d) best = { c, d };
  }
  if (!best) return undefined;
  return best.d <= Math.max(1, Math.floor(Math.min(word.length, best.c.length) / 3)) ? best.c : undefined;
}

// ---- walking the schema to a path (known keys, number ranges) ----

interface Def {
  readonly type: string;
  readonly shape?: Record<string, Schema>;
  readonly innerType?: Schema;
  readonly element?: Schema;
  readonly valueType?: Schema;
  readonly options?: readonly Schema[];
  readonly in?: Schema;
  readonly out?: Schema;
  readonly getter?: () => Schema;
  readonly checks?: readonly unknown[];
}
const defOf = (s: Schema): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

/** The object, array, number, … schemas behind wrappers (optional, default, pipe, lazy) and union branches. */
function unwrap(s: Schema, depth = 0): Schema[] {
  if (depth > 20) return [];
  const d = defOf(s);
  if (d.innerType) return unwrap(d.innerType, depth + 1);
  if (d.type === "pipe" && d.in) return unwrap(d.in, depth + 1);
  if (d.type === "lazy" && d.getter) return unwrap(d.getter(), depth + 1);
  if (d.type === "union" && d.options) return d.options.flatMap((o) => unwrap(o, depth + 1));
  return [s];
}

function schemasAt(root: Schema, path: IssuePath): Schema[] {
  let current = unwrap(root);
  for (const seg of path) {
    const next: Schema[] = [];
    for (const s of current) {
      const d = defOf(s);
      if (d.type === "object" && typeof seg === "string" && d.shape?.[seg]) next.push(d.shape[seg]);
      else if (d.type === "array" && typeof seg === "number" && d.element) next.push(d.element);
      else if (d.type === "record" && d.valueType) next.push(d.valueType);
    }
    current = next.flatMap((s) => unwrap(s));
  }
  return current;
}

function knownKeys(root: Schema, path: IssuePath): string[] {
  const keys = new Set<string>();
  for (const s of schemasAt(root, path)) for (const k of Object.keys(defOf(s).shape ?? {})) keys.add(k);
  return [...keys];
}

function numberRange(root: Schema, path: IssuePath): { min?: number; max?: number } {
  for (const s of schemasAt(root, path)) {
    let min: number | undefined;
    let max: number | undefined;
    for (const check of defOf(s).checks ?? []) {
      const c = (check as unknown as { _zod: { def: { check: string; value: unknown; inclusive?: boolean } } })._zod
        .def;
      if (typeof c.value !== "number") continue;
      if (c.check === "greater_than") min = c.inclusive ? c.value : c.value + 1;
      if (c.check === "less_than") max = c.inclusive ? c.value : c.value - 1;
    }
    if (min !== undefined || max !== undefined)
      return { ...(min === undefined ? {} : { min }), ...(max === undefined ? {} : { max }) };
  }
  return {};
}

// ---- messages ----

/** A value as it appears in a message: strings quoted, objects and arrays named rather than dumped. */
export function describeValue(v: unknown): string {
  if (v === null) return "null";
  if (v === undefined) return "nothing";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "object") return "a mapping";
  if (typeof v === "string") return JSON.stringify(v.length > 60 ? `${v.slice(0, 57)}...` : v);
  return String(v);
}

const typeName = (expected: string): string =>
  ({ object: "a mapping", array: "a list", string: "a string", number: "a number", boolean: "true or false" })[
    expected
  ] ?? expected;

function valueAt(root: unknown, path: IssuePath): { found: boolean; value: unknown } {
  let v = root;
  for (const seg of path) {
    if (v === null || typeof v !== "object" || !Object.hasOwn(v, seg)) return { found: false, value: undefined };
    v = (v as Record<string | number, unknown>)[seg];
  }
  return { found: true, value: v };
}

const isDefaultMessage = (m: string) => /^(Invalid input|Invalid option|Too small|Too big|Invalid string)/.test(m);

/** Branch issues of a union, the one that comes closest: fewest failures at the union's own level. */
function closestBranch(branches: readonly (readonly ZodIssue[])[]): readonly ZodIssue[] | undefined {
  const score = (issues: readonly ZodIssue[]) =>
    issues.reduce((n, i) => n + (i.path.length === 0 && i.code !== "custom" ? 100 : 1), 0);
  const ranked = [...branches].sort((a, b) => score(a) - score(b));
  const best = ranked[0];
  return best && score(best) < 100 ? best : undefined;
}

export interface MessageContext {
  readonly schema: Schema;
  /** The value that was validated, to tell a missing key from a wrong value and to show the bad value. */
  readonly input: unknown;
}

const toPath = (p: readonly PropertyKey[]): (string | number)[] =>
  p.map((s) => (typeof s === "symbol" ? String(s) : s));

/** The command that writes today's VRIDs into a spec, as messages name it; the CLI puts the spec file it was given in place of `<spec file>`. */
export const PIN_VRIDS_COMMAND = "clusterspec pin-vrids <spec file>";

/** Keys clusterspec read once and no longer does (`removed_key`), by dotted path: what replaces each, and how to migrate. */
const REMOVED_KEYS: ReadonlyMap<string, string> = new Map([
  [
    "externalVips.firstVrid",
    `externalVips.firstVrid is gone: VRIDs now follow each address (its last 8 bits, or its own vrid), not its place in the list. To keep the VRIDs this spec has today, run \`${PIN_VRIDS_COMMAND}\`: it writes each VIP's current VRID into the spec and removes firstVrid`,
  ],
]);

/** Every zod issue as issues with humane messages and codes. */
export function humaneIssues(issues: readonly ZodIssue[], ctx: MessageContext): SpecIssue[] {
  const out: SpecIssue[] = [];
  const error = (path: IssuePath, code: SpecIssueCode, message: string) =>
    out.push({ path, message, severity: "error", code });

  const visit = (issue: ZodIssue, base: IssuePath) => {
    const path = [...base, ...toPath(issue.path)];
    const { found, value } = valueAt(ctx.input, path);
    switch (issue.code) {
      case "invalid_type": {
        if (path.length === 0 && (value === null || value === undefined))
          return error(
            path,
            "empty_spec",
            "the spec is empty: expected a mapping that starts with apiVersion, kind, name",
          );
        if (!found) {
          const key = path[path.length - 1];
          return error(path, "missing_key", `missing required key ${JSON.stringify(String(key))}`);
        }
        // a schema's own message says more (e.g. "quote it" for a YAML bool where kubeadm reads a string)
        if (!isDefaultMessage(issue.message)) return error(path, "invalid_type", issue.message);
        return error(path, "invalid_type", `expected ${typeName(issue.expected)}, got ${describeValue(value)}`);
      }
      case "unrecognized_keys": {
        const known = knownKeys(ctx.schema, path);
        for (const key of issue.keys) {
          const removed = REMOVED_KEYS.get([...path, key].join("."));
          if (removed) {
            error([...path, key], "removed_key", removed);
            continue;
          }
          const hint = didYouMean(key, known);
          error(
            [...path, key],
            "unknown_key",
            `unknown key ${JSON.stringify(key)}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ""}`,
          );
        }
        return;
      }
      case "invalid_value": {
        const options = issue.values.map((v) => String(v));
        if (options.length === 1)
          return error(path, "invalid_value", `expected ${JSON.stringify(options[0])}, got ${describeValue(value)}`);
        const hint = typeof value === "string" ? didYouMean(value, options) : undefined;
        return error(
          path,
          "invalid_value",
          `${describeValue(value)} is not one of ${options.join(", ")}${hint ? ` (did you mean ${JSON.stringify(hint)}?)` : ""}`,
        );
      }
      case "too_small":
      case "too_big": {
        if (!isDefaultMessage(issue.message)) return error(path, "out_of_range", withValue(issue.message, issue.input));
        if (issue.origin === "number" || issue.origin === "int" || issue.origin === "bigint") {
          const { min, max } = numberRange(ctx.schema, path);
          const range =
            min !== undefined && max !== undefined
              ? `in ${min}..${max}`
              : issue.code === "too_small"
                ? `at least ${issue.minimum}`
                : `at most ${issue.maximum}`;
          return error(path, "out_of_range", `${describeValue(value)} is out of range: expected a number ${range}`);
        }
        const unit = issue.origin === "array" || issue.origin === "set" ? "item" : "character";
        const bound = issue.code === "too_small" ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
        return error(path, "out_of_range", `expected ${bound} ${unit}(s), got ${describeValue(value)}`);
      }
      case "invalid_union": {
        // A missing key whose value may take several shapes (kubernetes.podSubnet: one network or a list).
        if (!found && path.length > 0)
          return error(path, "missing_key", `missing required key ${JSON.stringify(String(path[path.length - 1]))}`);
        const branch = closestBranch(issue.errors);
        if (branch) {
          for (const i of branch) visit(i, path);
          return;
        }
        if (issue.message.startsWith(SECRET_LITERAL)) {
          out.push({ path, message: issue.message, severity: "error", code: "invalid_value", secretValue: true });
          return;
        }
        if (!isDefaultMessage(issue.message)) return error(path, "invalid_value", issue.message);
        const expected = [
          ...new Set(issue.errors.flatMap((b) => b.filter((i) => i.code === "invalid_type").map((i) => i.expected))),
        ];
        return error(
          path,
          "invalid_type",
          `expected ${expected.map(typeName).join(" or ") || "another value"}, got ${describeValue(value)}`,
        );
      }
      case "invalid_key":
        return error(path, "invalid_key", `invalid key: ${issue.issues.map((i) => i.message).join("; ")}`);
      case "invalid_format":
        return error(path, "invalid_format", withValue(issue.message, issue.input));
      default:
        // zod's `custom` (a schema's own refinement: an unsupported version, …) and the rest are invalid_value.
        // A check on the value itself carries it as input; one a parent object added for a child path does not.
        return error(path, "invalid_value", withValue(issue.message, issue.input === value ? value : undefined));
    }
  };
  for (const issue of issues) visit(issue, []);

  // A misspelt key explains the missing one it was meant to be: report the misspelling only.
  const suggested = new Set(
    out
      .filter((i) => i.code === "unknown_key")
      .map((i) => {
        const m = /did you mean "([^"]+)"/.exec(i.message);
        return m ? JSON.stringify([...i.path.slice(0, -1), m[1]]) : "";
      }),
  );
  return out.filter((i) => !(i.code === "missing_key" && suggested.has(JSON.stringify(i.path))));
}

/** A message from the schema, with the offending value added when it is short and not already in it. */
function withValue(message: string, value: unknown): string {
  if (value === undefined || (typeof value === "object" && value !== null)) return message;
  const shown = describeValue(value);
  return message.includes(String(value)) ? message : `${message}, got ${shown}`;
}
