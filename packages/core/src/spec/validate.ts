import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, type Pair, type YAMLMap, YAMLParseError } from "yaml";
import { type IssuePath, Reporter, type SpecIssue, type Validated } from "../issues.js";
import { hygienic } from "./hygiene.js";
import { humaneIssues } from "./messages.js";
import { duplicateKeyOffset, MAX_DEPTH, parseSpecText } from "./parse.js";
import { cloudBurstRules, rules } from "./rules.js";
import {
  type AnySpec,
  type CloudBurstSpec,
  CloudBurstSpecSchema,
  type ClusterSpec,
  ClusterSpecSchema,
  OnPremSpecSchema,
} from "./schema.js";
import { conflictingSections, isCloudBurstInput } from "./sections/cloud-burst/rules.js";
import { yamlSyntaxIssue } from "./yaml-errors.js";

/** Validates any JSON-like value. Never throws on user input: every problem comes back with its path. */
// jitless: zod would otherwise generate and compile a parser per object shape on first use, which a process that
// validates one spec never earns back (measured: 4% of a run's CPU on the bare-metal example, 8% at 300 nodes).
const PARSE_OPTIONS = { reportInput: true, jitless: true } as const;

export function validateSpec(input: unknown): Validated<AnySpec> {
  // Control characters, invisible characters and prototype keys anywhere: refused before any rule runs, and
  // reported with the schema's own findings elsewhere.
  // A value that contains itself would send every walk after this one round in circles, one too deep would overflow
  // the stack, and one that is not plain data cannot be read without running the caller's code (issue 32 item 8).
  const { issues: hygiene, value, fatal } = hygienic(input);
  if (fatal) return { ok: false, errors: hygiene, warnings: [] };
  // From here on only the plain copy is read: own enumerable data properties, each read once.
  if (isCloudBurstInput(value)) return validateCloudBurstSpec(value, hygiene);
  return validateClusterSpec(value, hygiene);
}

/** The schema's issues, minus those at a path hygiene reported already, after hygiene's. */
function withHygiene(hygiene: readonly SpecIssue[], schemaIssues: readonly SpecIssue[]): SpecIssue[] {
  const seen = new Set(hygiene.map((i) => JSON.stringify(i.path)));
  return [...hygiene, ...schemaIssues.filter((i) => !seen.has(JSON.stringify(i.path)))];
}

/** A spec with `existingCluster:` describes only the cloud burst of a cluster managed by other means. */
function validateCloudBurstSpec(
  input: Record<string, unknown>,
  hygiene: readonly SpecIssue[],
): Validated<CloudBurstSpec> {
  const conflicts = conflictingSections(input);
  if (conflicts.length > 0) return { ok: false, errors: withHygiene(hygiene, conflicts), warnings: [] };
  const parsed = CloudBurstSpecSchema.safeParse(input, PARSE_OPTIONS);
  if (!parsed.success || hygiene.length > 0)
    return {
      ok: false,
      errors: withHygiene(
        hygiene,
        parsed.success ? [] : humaneIssues(parsed.error.issues, { schema: CloudBurstSpecSchema, input }),
      ),
      warnings: [],
    };
  const report = new Reporter();
  for (const rule of cloudBurstRules) rule(parsed.data, report);
  if (report.errors.length > 0) return { ok: false, errors: report.errors, warnings: report.warnings };
  return { ok: true, value: parsed.data, warnings: report.warnings };
}

function validateClusterSpec(input: unknown, hygiene: readonly SpecIssue[]): Validated<ClusterSpec> {
  // The same result for a spec without `cloud:`, and the cloud sections' schemas are never built.
  const withCloud = typeof input === "object" && input !== null && Object.hasOwn(input, "cloud");
  const parsed = (withCloud ? ClusterSpecSchema : OnPremSpecSchema).safeParse(input, PARSE_OPTIONS);
  if (!parsed.success || hygiene.length > 0)
    return {
      ok: false,
      errors: withHygiene(
        hygiene,
        parsed.success ? [] : humaneIssues(parsed.error.issues, { schema: ClusterSpecSchema, input }),
      ),
      warnings: [],
    };
  const report = new Reporter();
  for (const rule of rules) rule(parsed.data, report);
  if (report.errors.length > 0) return { ok: false, errors: report.errors, warnings: report.warnings };
  return { ok: true, value: parsed.data, warnings: report.warnings };
}

/** Parses YAML text and validates it; issues carry `line`/`column` wherever the path exists in the text. */
export function loadSpec(text: string): Validated<AnySpec> {
  return loadSpecWithLines(text).validated;
}

/**
 * loadSpec, and the line of any path in the same parse (specLineLocator without a second one): `clusterspec
 * changes` reads two specs of up to 300 nodes, where each YAML parse is a tenth of its time.
 */
export function loadSpecWithLines(text: string): {
  validated: Validated<AnySpec>;
  lineOf: (path: IssuePath) => number | undefined;
} {
  const lone = loneCarriageReturnIssue(text);
  if (lone) return { validated: lone, lineOf: () => undefined };
  const lineCounter = new LineCounter();
  const parsed = parseSpecText(text, lineCounter);
  if (!parsed.ok) return { validated: tooDeepIssue(parsed.offset, lineCounter), lineOf: () => undefined };
  const { doc } = parsed;
  const lineOf = (path: IssuePath) => {
    const offset = offsetOf(doc.contents, path);
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
  const done = (validated: Validated<AnySpec>) => ({ validated, lineOf });
  // One syntax error often makes the parser report several more after it: the first is the one to fix. Duplicate
  // keys are looked for once the text parses (in linear time: see parse.ts).
  const duplicate = doc.errors.length > 0 ? undefined : duplicateKeyOffset(doc.contents);
  const first =
    doc.errors[0] ??
    (duplicate === undefined
      ? undefined
      : new YAMLParseError([duplicate, duplicate + 1], "DUPLICATE_KEY", "Map keys must be unique"));
  if (first) {
    const duplicate = first.code === "DUPLICATE_KEY";
    const key = duplicate ? /^\s*("[^"]*"|'[^']*'|[^:#]+?)\s*:/.exec(text.slice(first.pos[0]))?.[1] : undefined;
    const message = key
      ? `duplicate key ${key.startsWith('"') ? key : JSON.stringify(key.replace(/^'|'$/g, ""))}: a key appears once per mapping`
      : undefined;
    const code = duplicate ? "yaml_duplicate_key" : "yaml_syntax";
    return done({
      ok: false,
      errors: [yamlSyntaxIssue(first, text, doc.contents, lineCounter, code, message)],
      warnings: [],
    });
  }
  // A key the YAML reader takes as a number, bool or null (1e3:, 0x1f:, true:, null:) would become another name.
  const keys = nonStringKeys(doc.contents, lineCounter);
  if (keys.length > 0) return done({ ok: false, errors: keys, warnings: [] });
  let value: unknown;
  try {
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // Aliases can nest a value deeper than the text does (an alias of a deep value inside another deep value).
    if (e instanceof RangeError) return done(tooDeepIssue(undefined, lineCounter));
    return done({ ok: false, errors: [aliasIssue(text, (e as Error).message, lineCounter)], warnings: [] });
  }
  const result = validateSpec(value);
  const locate = locator(doc.contents, lineCounter);
  return done(
    result.ok
      ? { ok: true, value: result.value, warnings: result.warnings.map(locate) }
      : { ok: false, errors: result.errors.map(locate), warnings: result.warnings.map(locate) },
  );
}

/** A text nested deeper than MAX_DEPTH (at `offset`, the first collection beyond it), or one whose aliases do. */
/**
 * A text whose lines end in a carriage return alone (classic Mac OS): YAML 1.2 takes a lone CR as a line break, the
 * parser clusterspec uses does not, so it would read one long first line (a comment, when it starts with one) and
 * call the spec empty. Refused in words, with the line, for the library as for the CLI.
 */
function loneCarriageReturnIssue(text: string): Validated<AnySpec> | undefined {
  const at = /\r(?!\n)/.exec(text)?.index;
  if (at === undefined) return undefined;
  const line = text.slice(0, at).split("\n").length;
  return {
    ok: false,
    errors: [
      {
        path: [],
        message: `the spec has a carriage return without a line feed on line ${line} (line breaks of classic Mac OS): save it with LF or CRLF line endings`,
        severity: "error",
        code: "yaml_syntax",
        line,
      },
    ],
    warnings: [],
  };
}

function tooDeepIssue(offset: number | undefined, lineCounter: LineCounter): Validated<AnySpec> {
  const pos = offset === undefined ? undefined : lineCounter.linePos(offset);
  return {
    ok: false,
    errors: [
      {
        path: [],
        message: `the spec nests mappings and lists more than ${MAX_DEPTH} deep${offset === undefined ? " (through its aliases)" : ""}: no setting is that deep, write it flatter`,
        severity: "error",
        code: "too_deep",
        ...(pos ? { line: pos.line, column: pos.col } : {}),
      },
    ],
    warnings: [],
  };
}

/** An alias toJS could not resolve, at the alias, in plain words; any other failure with the reader's words. */
function aliasIssue(text: string, reason: string, lineCounter: LineCounter): SpecIssue {
  const name = /^Unresolved alias \(the anchor must be set before the alias\): (.+)$/.exec(reason)?.[1];
  const at =
    name === undefined
      ? -1
      : text.search(new RegExp(`\\*${name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(?![^\\s,\\]}])`));
  const pos = at < 0 ? undefined : lineCounter.linePos(at);
  return {
    path: [],
    message:
      name === undefined
        ? `invalid YAML: ${reason}`
        : `the alias *${name} refers to no anchor &${name} set before it: mark the value to repeat with &${name} first, or write it out`,
    severity: "error",
    code: "yaml_syntax",
    ...(pos ? { line: pos.line, column: pos.col } : {}),
  };
}

/** Every mapping key that is not a plain or quoted string in the YAML, at its path and line; at most 20. */
function nonStringKeys(root: unknown, lineCounter: LineCounter): SpecIssue[] {
  const out: SpecIssue[] = [];
  const visit = (node: unknown, path: (string | number)[]): void => {
    if (out.length >= 20) return;
    if (isSeq(node)) {
      node.items.forEach((item, i) => {
        visit(item, [...path, i]);
      });
      return;
    }
    if (!isMap(node)) return;
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      const key = pair.key as Node | null;
      if (isScalar(key) && typeof key.value === "string") {
        visit(pair.value, [...path, key.value]);
        continue;
      }
      const source = isScalar(key) ? (key.source ?? String(key.value)) : undefined;
      const read = isScalar(key)
        ? key.value === null
          ? "null"
          : `the ${typeof key.value} ${String(key.value)}`
        : "a collection";
      const pos = lineCounter.linePos(key?.range?.[0] ?? (pair.value as Node | null)?.range?.[0] ?? 0);
      out.push({
        path: [...path, source ?? String(key)],
        message:
          source === undefined
            ? "a key is a collection here, not text: keys are names"
            : `the key ${JSON.stringify(source)} is read as ${read}, not as text: keys are names, quote it ("${source}": ...) if it is one`,
        severity: "error",
        code: "yaml_key_not_string",
        line: pos.line,
        column: pos.col,
      });
    }
  };
  visit(root, []);
  return out;
}

function locator(root: unknown, lineCounter: LineCounter): (issue: SpecIssue) => SpecIssue {
  return (issue) => {
    // An empty document has no node at all: its first line is where the mapping should start.
    const offset = offsetOf(root, issue.path) ?? (issue.path.length === 0 ? 0 : undefined);
    if (offset === undefined) return issue;
    const pos = lineCounter.linePos(offset);
    return { ...issue, line: pos.line, column: pos.col };
  };
}

/** Adds `line`/`column` from the spec text to issues found later (e.g. while the CLI resolves secrets). */
export function locateIssues(text: string, issues: readonly SpecIssue[]): SpecIssue[] {
  if (issues.length === 0) return []; // nothing to locate: no second parse of the spec
  const lineCounter = new LineCounter();
  const parsed = parseSpecText(text, lineCounter);
  return parsed.ok ? issues.map(locator(parsed.doc.contents, lineCounter)) : [...issues];
}

/**
 * The 1-based line of what each path names in the spec text (the key of a mapping entry, the item of a list), from
 * one parse: `clusterspec changes` asks it for every changed path of both specs.
 */
export function specLineLocator(text: string): (path: IssuePath) => number | undefined {
  const lineCounter = new LineCounter();
  const parsed = parseSpecText(text, lineCounter);
  const root = parsed.ok ? parsed.doc.contents : undefined;
  return (path) => {
    const offset = offsetOf(root, path);
    return offset === undefined ? undefined : lineCounter.linePos(offset).line;
  };
}

/** Each mapping's entries by key (the first of equal keys), built once: a path lookup is then linear in its length. */
const pairIndex = new WeakMap<object, Map<unknown, Pair>>();
function pairsOf(map: YAMLMap): Map<unknown, Pair> {
  let index = pairIndex.get(map);
  if (!index) {
    index = new Map();
    for (const p of map.items) {
      const key = isScalar(p.key) ? p.key.value : p.key;
      if (!index.has(key)) index.set(key, p);
    }
    pairIndex.set(map, index);
  }
  return index;
}

/**
 * Source offset of what `path` names: the key of the last mapping entry on it (so a wrong value points at its
 * key, and a missing key at its parent mapping's key), or the item for a list index.
 */
function offsetOf(root: unknown, path: IssuePath): number | undefined {
  let node = root as Node | null | undefined;
  let best = node?.range?.[0];
  for (const seg of path) {
    if (isMap(node)) {
      const pair = pairsOf(node).get(seg);
      if (!pair) return best;
      const key = pair.key as Node | undefined;
      const value = pair.value as Node | null;
      best = key?.range?.[0] ?? value?.range?.[0] ?? best;
      node = value;
    } else if (isSeq(node) && typeof seg === "number") {
      const item = node.items[seg] as Node | undefined;
      if (!item) return best;
      best = item.range?.[0] ?? best;
      node = item;
    } else return best;
  }
  return best;
}
