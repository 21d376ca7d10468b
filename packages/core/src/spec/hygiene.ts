// Checks every string of the input, keys included, before the schema sees it (issue 16): no spec value may carry a
// character that a line format, a shell or a terminal reads differently from what a reviewer sees, and no key may
// reach an object's prototype. Run first by validateSpec, so a new field is covered without touching it.
import type { SpecIssueCode } from "../error-catalog.js";
import type { IssuePath, SpecIssue } from "../issues.js";
import { MAX_DEPTH } from "./parse.js";

/**
 * C0 controls (NUL, tab, line breaks, ESC…), DEL and the C1 controls; the Unicode line and paragraph separators
 * (line breaks to YAML 1.1 and JavaScript); and the invisible format characters: zero-width spaces and joiners,
 * bidirectional embeddings, overrides and isolates, the word joiner and invisible operators, and the BOM; the
 * Unicode noncharacters (U+FDD0–U+FDEF and the last two code points of every plane, U+FFFE/U+FFFF…), which
 * cloud-init's and go-yaml's readers refuse (go-yaml `readerc.go`: only #x9 | #xA | #xD | [#x20-#x7E] | #x85 |
 * [#xA0-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF] are printable), and lone surrogates (no UTF-8 for them).
 */
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufdd0-\ufdef\ufffe\uffff\u{1fffe}\u{1ffff}\u{2fffe}\u{2ffff}\u{3fffe}\u{3ffff}\u{4fffe}\u{4ffff}\u{5fffe}\u{5ffff}\u{6fffe}\u{6ffff}\u{7fffe}\u{7ffff}\u{8fffe}\u{8ffff}\u{9fffe}\u{9ffff}\u{afffe}\u{affff}\u{bfffe}\u{bffff}\u{cfffe}\u{cffff}\u{dfffe}\u{dffff}\u{efffe}\u{effff}\u{ffffe}\u{fffff}\u{10fffe}\u{10ffff}\ud800-\udfff]/u;

const NAMES: Readonly<Record<number, string>> = {
  0: "NUL",
  9: "a tab",
  10: "a line break",
  13: "a carriage return",
  27: "ESC",
  127: "DEL",
  8203: "a zero-width space",
  8232: "a line separator",
  8233: "a paragraph separator",
  65279: "a byte order mark",
};

const codePoint = (c: number): string => `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;

/** The first forbidden character of `s`, described (`NUL (U+0000)`), or undefined. */
export function forbiddenCharacter(s: string): string | undefined {
  const m = FORBIDDEN.exec(s);
  if (!m) return undefined;
  const c = m[0].codePointAt(0) ?? 0;
  const name =
    NAMES[c] ??
    (c < 0x20 || (c >= 0x7f && c <= 0x9f)
      ? "a control character"
      : (c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) === 0xfffe
        ? "a Unicode noncharacter"
        : c >= 0xd800 && c <= 0xdfff
          ? "a lone surrogate"
          : "an invisible formatting character");
  return `${name} (${codePoint(c)})`;
}

const FORBIDDEN_ALL = new RegExp(FORBIDDEN.source, "gu");

/** `s` quoted, with every forbidden character written as its escape: a message never carries one to a terminal. */
const shown = (s: string): string =>
  JSON.stringify(s).replace(FORBIDDEN_ALL, (c) => {
    const n = c.codePointAt(0) ?? 0;
    return n > 0xffff ? `\\u{${n.toString(16)}}` : `\\u${n.toString(16).padStart(4, "0")}`;
  });

/** Keys that name an object's prototype: JSON/YAML parsers keep them, but an object lookup would not. */
const PROTOTYPE_KEYS = new Set(["__proto__"]);

const MAX_ISSUES = 20;

/**
 * Free-form parts (Helm values, KubeletConfiguration fields, overlay patches) end up only in YAML, which writes a
 * tab or a line break inside quotes: there a value may hold them (a PEM certificate, a multi-line config), no other.
 */
const isFreeForm = (path: IssuePath): boolean =>
  (path[0] === "kubernetes" && path[1] === "kubelet") ||
  (path[0] === "cilium" && path[1] === "values") ||
  (path[0] === "overlays" && path[2] === "patch");
const MULTILINE_TEXT = /[\t\n]/g;

/** The code of the issue for a value that contains itself: validateSpec stops there, as no schema can walk it. */
export const REFERENCE_CYCLE = "reference_cycle" satisfies SpecIssueCode;

/**
 * Codes after which the input is not handed to the schema: it could not be copied whole (see hygienic), or a walk
 * of it would not end.
 */
const FATAL: ReadonlySet<SpecIssueCode> = new Set(["reference_cycle", "too_deep", "not_plain_data"]);

/** What a value is, for a message about a value YAML cannot hold. */
function kindOf(value: object): string {
  if (value instanceof Date) return "a Date";
  if (value instanceof Map) return "a Map";
  if (value instanceof Set) return "a Set";
  if (value instanceof RegExp) return "a RegExp";
  if (ArrayBuffer.isView(value)) return "a typed array";
  const name = (Object.getPrototypeOf(value) as { constructor?: { name?: unknown } } | null)?.constructor?.name;
  return typeof name === "string" && name !== "" && name !== "Object"
    ? `an instance of the class ${name}`
    : "an object with its own prototype";
}

const PLAIN = "a spec holds only what YAML can: plain objects, arrays, strings, finite numbers, booleans and null";

export interface Hygiene {
  readonly issues: SpecIssue[];
  /**
   * The input rebuilt from plain objects and arrays with only its own enumerable data properties, when no issue
   * is fatal (then the schema reads this copy, never a getter, a prototype or a non-enumerable property of the
   * caller's value); undefined otherwise.
   */
  readonly value: unknown;
  /** An issue means the input must not be walked further (a cycle, too deep, not plain data). */
  readonly fatal: boolean;
}

/**
 * Issues for every string (key or value) with a forbidden character, every `__proto__` key, every value that
 * contains itself (YAML makes one from an alias inside the node its anchor marks: `a: &x { b: *x }`), every value
 * nested deeper than MAX_DEPTH, every number that is not finite or an integer beyond 2^53 (YAML's `.inf`, a 20-digit
 * number, which JavaScript would round), and, from the library, every value YAML cannot hold: a Date, a Map, a
 * class instance, undefined, a function, a symbol, a bigint, a getter or setter, a hole in an array; at most 20.
 * Only own enumerable properties are read, each once, and reading never runs a getter; nothing here throws.
 */
export function hygienic(input: unknown): Hygiene {
  const out: SpecIssue[] = [];
  let fatal = false;
  const error = (path: IssuePath, message: string, code: SpecIssueCode = "invalid_format") => {
    if (FATAL.has(code)) fatal = true;
    if (out.length < MAX_ISSUES) out.push({ path, message, severity: "error", code });
  };
  // The objects and arrays from the root down to the value being visited.
  const ancestors = new Set<object>();
  const visit = (value: unknown, path: (string | number)[]): unknown => {
    if (out.length >= MAX_ISSUES) {
      fatal = true; // the copy stops here: the schema would report what is missing from it
      return undefined;
    }
    if (typeof value === "string") {
      const bad = forbiddenCharacter(path.length > 2 && isFreeForm(path) ? value.replace(MULTILINE_TEXT, " ") : value);
      if (bad)
        error(
          path,
          `the value contains ${bad}: spec values are printable text on one line (written ${shown(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`,
        );
      return value;
    }
    if (typeof value === "number") {
      if (!Number.isFinite(value))
        error(
          path,
          `the number ${String(value)} is not finite: JSON, Helm and the Kubernetes readers hold only finite numbers`,
          "out_of_range",
        );
      else if (Number.isInteger(value) && !Number.isSafeInteger(value))
        error(
          path,
          `the integer ${String(value)} is beyond 2^53 (9007199254740991), where integers lose digits (this is how it reads, not what was written): write it as a string ("…") if it is text`,
          "out_of_range",
        );
      return value;
    }
    if (value === null || typeof value === "boolean") return value;
    if (typeof value !== "object") {
      error(
        path,
        `this value is ${value === undefined ? "undefined" : `a ${typeof value}`}: ${PLAIN}${value === undefined ? " (leave the key out instead)" : ""}`,
        "not_plain_data",
      );
      return undefined;
    }
    if (ancestors.has(value)) {
      error(
        path,
        "this value contains itself (a YAML alias *name inside the node its anchor &name marks): a spec is a tree, write the value out",
        REFERENCE_CYCLE,
      );
      return undefined;
    }
    if (ancestors.size >= MAX_DEPTH) {
      error(
        path,
        `mappings and lists are nested more than ${MAX_DEPTH} deep here: no setting is that deep, write it flatter`,
        "too_deep",
      );
      return undefined;
    }
    let proto: unknown;
    let keys: string[];
    try {
      proto = Object.getPrototypeOf(value);
      keys = Object.keys(value);
    } catch {
      error(path, `this value cannot be read (its traps threw): ${PLAIN}`, "not_plain_data");
      return undefined;
    }
    const isArray = Array.isArray(value);
    if (isArray ? proto !== Array.prototype : proto !== Object.prototype && proto !== null) {
      error(path, `this value is ${isArray ? "an array of its own class" : kindOf(value)}: ${PLAIN}`, "not_plain_data");
      return undefined;
    }
    ancestors.add(value);
    const copy: unknown[] | Record<string, unknown> = isArray ? [] : {};
    const length = isArray ? (value as unknown[]).length : 0;
    // An array's items are its indices: a hole is one of them too (undefined), other keys of an array are not read.
    const names: (string | number)[] = isArray ? Array.from({ length }, (_, i) => i) : keys;
    for (const key of names) {
      const at = [...path, key];
      if (typeof key === "string") {
        const bad = forbiddenCharacter(key);
        if (bad) error(at, `the key ${shown(key)} contains ${bad}: keys are printable text`);
        else if (PROTOTYPE_KEYS.has(key)) {
          error(at, `the key ${JSON.stringify(key)} is not allowed: it names an object's prototype, not a setting`);
          continue; // never assigned to the copy, where it would set its prototype
        }
      }
      let descriptor: PropertyDescriptor | undefined;
      try {
        descriptor = Object.getOwnPropertyDescriptor(value, key);
      } catch {
        error(at, `this value cannot be read (its traps threw): ${PLAIN}`, "not_plain_data");
        continue;
      }
      if (descriptor && !("value" in descriptor)) {
        error(at, `this property is a getter or setter, which is never called: ${PLAIN}`, "not_plain_data");
        continue;
      }
      const item = visit(descriptor?.value, at);
      if (isArray) (copy as unknown[]).push(item);
      else (copy as Record<string, unknown>)[key] = item;
    }
    ancestors.delete(value);
    return copy;
  };
  const value = visit(input, []);
  return fatal ? { issues: out, value: undefined, fatal } : { issues: out, value, fatal };
}

/** hygienic's issues. */
export function inputHygiene(input: unknown): SpecIssue[] {
  return hygienic(input).issues;
}
