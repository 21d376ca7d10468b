// Every place a spec holds a string, found by walking the zod schema (issue 16): the hostile-string property test
// generates its cases from here, so a field added to the schema is covered without touching the test.
import type { z } from "zod";

/**
 * A string position in the schema: `nodes[].interfaces{key}` (a record key), `nodes[].interfaces{}.vlan.parent`
 * (a value), `cilium.values{}…` (any string inside a free-form part).
 */
export type SlotPattern = string;

export interface StringSlot {
  readonly pattern: SlotPattern;
  /** Where this occurrence is in a spec value. */
  readonly path: readonly (string | number)[];
  /** `key`: the record key at `path` (its last segment); `value`: the string at `path`. */
  readonly kind: "key" | "value";
  /** `enum`/`literal`: only listed strings pass; `free`: inside a free-form part (any string). */
  readonly type: "string" | "enum" | "literal" | "free";
}

interface Def {
  readonly type: string;
  readonly shape?: Record<string, z.ZodType>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly keyType?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
  readonly in?: z.ZodType;
  readonly out?: z.ZodType;
  readonly getter?: () => z.ZodType;
}

const defOf = (s: z.ZodType): Def => (s as unknown as { _zod: { def: Def } })._zod.def;

const WRAPPERS = new Set(["optional", "default", "prefault", "nullable", "readonly", "catch", "nonoptional"]);
const NON_STRING = new Set(["number", "boolean", "bigint", "null", "undefined", "never", "int", "nan", "date"]);

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function unwrap(s: z.ZodType): z.ZodType {
  let d = defOf(s);
  let out = s;
  for (;;) {
    if (WRAPPERS.has(d.type) && d.innerType) out = d.innerType;
    else if (d.type === "pipe" && d.in) out = d.in;
    else if (d.type === "lazy" && d.getter) out = d.getter();
    else return out;
    d = defOf(out);
  }
}

const stringType = (type: string): StringSlot["type"] | undefined =>
  type === "string" || type === "template_literal"
    ? "string"
    : type === "enum"
      ? "enum"
      : type === "literal"
        ? "literal"
        : undefined;

/** Every string pattern of a schema: the list a spec must cover to exercise every string field. */
export function schemaStringPatterns(schema: z.ZodType): Map<SlotPattern, StringSlot["type"]> {
  const out = new Map<SlotPattern, StringSlot["type"]>();
  const walk = (s: z.ZodType, pattern: string, depth: number): void => {
    if (depth > 40) throw new Error(`schema too deep at ${pattern}`);
    const u = unwrap(s);
    const d = defOf(u);
    const leaf = stringType(d.type);
    if (leaf) {
      out.set(pattern, leaf);
      return;
    }
    switch (d.type) {
      case "object":
        for (const [k, v] of Object.entries(d.shape ?? {})) walk(v, pattern === "" ? k : `${pattern}.${k}`, depth + 1);
        return;
      case "array":
        if (d.element) walk(d.element, `${pattern}[]`, depth + 1);
        return;
      case "record":
        out.set(`${pattern}{key}`, "string");
        if (d.valueType) walk(d.valueType, `${pattern}{}`, depth + 1);
        return;
      case "union":
        for (const o of d.options ?? []) walk(o, pattern, depth + 1);
        return;
      case "unknown":
      case "any":
        out.set(`${pattern}…`, "free");
        return;
      default:
        if (NON_STRING.has(d.type)) return;
        throw new Error(`string-slots: schema type ${d.type} at ${pattern} is not handled; teach the walker about it`);
    }
  };
  walk(schema, "", 0);
  return out;
}

/** Does `value` fit this union option's shape (keys of a strict object, or the primitive's type)? */
function fits(option: z.ZodType, value: unknown): boolean {
  const d = defOf(unwrap(option));
  if (stringType(d.type)) return typeof value === "string";
  if (d.type === "object") return isMap(value) && Object.keys(value).every((k) => Object.hasOwn(d.shape ?? {}, k));
  if (d.type === "array") return Array.isArray(value);
  if (d.type === "record") return isMap(value);
  if (d.type === "unknown" || d.type === "any") return true;
  return !isMap(value) && !Array.isArray(value) && typeof value !== "string";
}

/** Every string of `value` (an input spec) with the schema pattern it fills. */
export function specStringSlots(schema: z.ZodType, value: unknown): StringSlot[] {
  const out: StringSlot[] = [];
  const free = (v: unknown, pattern: string, path: (string | number)[]): void => {
    if (typeof v === "string") out.push({ pattern: `${pattern}…`, path, kind: "value", type: "free" });
    else if (Array.isArray(v))
      v.forEach((x, i) => {
        free(x, pattern, [...path, i]);
      });
    else if (isMap(v))
      for (const [k, x] of Object.entries(v)) {
        out.push({ pattern: `${pattern}{key}`, path: [...path, k], kind: "key", type: "free" });
        free(x, pattern, [...path, k]);
      }
  };
  const walk = (s: z.ZodType, v: unknown, pattern: string, path: (string | number)[]): void => {
    if (v === undefined) return;
    const u = unwrap(s);
    const d = defOf(u);
    const leaf = stringType(d.type);
    if (leaf) {
      if (typeof v === "string") out.push({ pattern, path, kind: "value", type: leaf });
      return;
    }
    switch (d.type) {
      case "object":
        if (isMap(v))
          for (const [k, sub] of Object.entries(d.shape ?? {}))
            walk(sub, v[k], pattern === "" ? k : `${pattern}.${k}`, [...path, k]);
        return;
      case "array":
        if (Array.isArray(v) && d.element) {
          const element = d.element;
          v.forEach((x, i) => {
            walk(element, x, `${pattern}[]`, [...path, i]);
          });
        }
        return;
      case "record":
        if (isMap(v))
          for (const [k, x] of Object.entries(v)) {
            out.push({ pattern: `${pattern}{key}`, path: [...path, k], kind: "key", type: "string" });
            if (d.valueType) walk(d.valueType, x, `${pattern}{}`, [...path, k]);
          }
        return;
      case "union": {
        const option = (d.options ?? []).find((o) => fits(o, v));
        if (option) walk(option, v, pattern, path);
        return;
      }
      case "unknown":
      case "any":
        // The record above already named this key: only what is inside counts here.
        if (isMap(v) || Array.isArray(v)) {
          const before = out.length;
          free(v, pattern, path);
          // Keys inside a free-form part share the record's key pattern.
          for (let i = before; i < out.length; i++) {
            const slot = out[i];
            if (slot?.kind === "key") out[i] = { ...slot, pattern: `${pattern.replace(/\{\}$/, "")}{key}` };
          }
        } else if (typeof v === "string") out.push({ pattern: `${pattern}…`, path, kind: "value", type: "free" });
        return;
      default:
        return;
    }
  };
  walk(schema, value, "", []);
  return out;
}
