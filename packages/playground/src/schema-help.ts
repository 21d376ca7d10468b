// Hover and completion from the spec's JSON Schema (core's specJsonSchema, what `clusterspec schema` prints).
import { isMap, isScalar, isSeq, type Node, parseDocument } from "yaml";

export interface JsonSchema {
  readonly type?: string | readonly string[];
  readonly description?: string;
  readonly default?: unknown;
  readonly enum?: readonly unknown[];
  readonly const?: unknown;
  readonly properties?: Readonly<Record<string, JsonSchema>>;
  readonly required?: readonly string[];
  readonly items?: JsonSchema;
  readonly additionalProperties?: JsonSchema | boolean;
  readonly anyOf?: readonly JsonSchema[];
  readonly oneOf?: readonly JsonSchema[];
}

export type YamlPath = (string | number)[];

/** Path of the YAML node at `offset`, and whether the offset is on a key. */
export function yamlPathAt(text: string, offset: number): { path: YamlPath; onKey: boolean } {
  const doc = parseDocument(text);
  const path: YamlPath = [];
  let node = doc.contents as Node | null;
  while (node) {
    if (isMap(node)) {
      // The last pair starting at or before the offset: a block value's range runs up to the next key.
      const pair = node.items.findLast((p) => {
        const start = (p.key as Node | null)?.range?.[0] ?? (p.value as Node | null)?.range?.[0];
        return start !== undefined && start <= offset;
      });
      const end = (pair?.value as Node | null)?.range?.[1] ?? (pair?.key as Node | null)?.range?.[1];
      if (end === undefined || offset > end) break;
      if (!pair) break;
      const key = pair.key as Node | null;
      path.push(isScalar(key) ? String(key.value) : "");
      if (key?.range && offset <= key.range[1]) return { path, onKey: true };
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const index = node.items.findLastIndex((item) => {
        const r = (item as Node | null)?.range;
        return r != null && r[0] <= offset && offset <= r[1];
      });
      if (index < 0) break;
      path.push(index);
      node = node.items[index] as Node | null;
    } else break;
  }
  return { path, onKey: false };
}

/** The object schemas a value at `path` may take (several where the schema has alternatives). */
export function schemasAt(schema: JsonSchema, path: readonly (string | number)[]): JsonSchema[] {
  let current: JsonSchema[] = [schema];
  for (const seg of path) {
    const next: JsonSchema[] = [];
    for (const s of current.flatMap(alternatives)) {
      if (typeof seg === "number") {
        if (s.items) next.push(s.items);
      } else if (s.properties?.[seg]) next.push(s.properties[seg]);
      else if (typeof s.additionalProperties === "object") next.push(s.additionalProperties);
    }
    current = next;
  }
  return current;
}

function alternatives(s: JsonSchema): JsonSchema[] {
  const alts = s.anyOf ?? s.oneOf;
  return alts ? [s, ...alts.flatMap(alternatives)] : [s];
}

/** Short type text: `integer (1..255)`, `"BACKUP" | "MASTER"`, `list of string`. */
export function describeType(s: JsonSchema): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(describeType).join(" or ");
  if (s.type === "array") return `list of ${s.items ? describeType(s.items) : "any"}`;
  if (s.type === "object" && !s.properties && typeof s.additionalProperties === "object")
    return `map of ${describeType(s.additionalProperties)}`;
  return Array.isArray(s.type) ? s.type.join(" | ") : String(s.type ?? "any");
}

export interface Hover {
  readonly title: string;
  readonly type: string;
  readonly description: string | undefined;
  readonly default: string | undefined;
}

/** What the schema says about the key or value at `offset`. */
export function hoverAt(schema: JsonSchema, text: string, offset: number): Hover | undefined {
  const { path } = yamlPathAt(text, offset);
  const key = path.findLast((p) => typeof p === "string");
  if (key === undefined) return undefined;
  // Hovering a list item describes the list's key.
  while (typeof path[path.length - 1] === "number") path.pop();
  const [s] = schemasAt(schema, path);
  if (!s) return undefined;
  return {
    title: path.map((p) => (typeof p === "number" ? `[${p}]` : p)).join("."),
    type: describeType(s),
    description: s.description,
    default: s.default === undefined ? undefined : JSON.stringify(s.default),
  };
}

export interface KeyCompletion {
  readonly key: string;
  readonly type: string;
  readonly description: string | undefined;
  readonly required: boolean;
}

/**
 * Keys the schema allows in the mapping that a new key on `line` (1-based) would join, without keys already there.
 * The mapping is found by indentation: a list item started at the same indentation, or the key above that owns it.
 */
export function keyCompletions(schema: JsonSchema, text: string, line: number): KeyCompletion[] {
  const lines = text.split("\n");
  const current = lines[line - 1] ?? "";
  const indent = keyIndent(current);
  const rest = lines.map((l, i) => (i === line - 1 ? "" : l)).join("\n");
  let parentPath: YamlPath = [];
  for (let i = line - 2; i >= 0; i--) {
    const l = lines[i] ?? "";
    if (l.trim() === "" || l.trim().startsWith("#")) continue;
    const own = keyIndent(l);
    if (own > indent) continue;
    const offset = lines.slice(0, i).reduce((n, x) => n + x.length + 1, 0) + own;
    const at = yamlPathAt(rest, offset).path;
    if (own === indent && /^\s*- /.test(l) && !/^\s*- /.test(current)) {
      parentPath = at.slice(0, -1);
      break;
    }
    if (own < indent) {
      parentPath = /^\s*- /.test(current) ? [...at, 0] : at;
      break;
    }
  }
  const doc = parseDocument(rest);
  const mapping = parentPath.length === 0 ? doc.contents : doc.getIn(parentPath, true);
  const present = new Set(isMap(mapping) ? mapping.items.map((p) => (isScalar(p.key) ? String(p.key.value) : "")) : []);
  const out = new Map<string, KeyCompletion>();
  for (const s of schemasAt(schema, parentPath).flatMap(alternatives))
    for (const [key, prop] of Object.entries(s.properties ?? {}))
      if (!present.has(key) && !out.has(key))
        out.set(key, {
          key,
          type: describeType(prop),
          description: prop.description,
          required: s.required?.includes(key) ?? false,
        });
  return [...out.values()];
}

/** Column where a line's key starts (`- ` counts as indentation, as YAML reads it). */
function keyIndent(line: string): number {
  const m = /^(\s*)((?:- )*)/.exec(line);
  return (m?.[1]?.length ?? 0) + (m?.[2]?.length ?? 0);
}
