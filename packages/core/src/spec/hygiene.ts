// Checks every string of the input, keys included, before the schema sees it (issue 16): no spec value may carry a
// character that a line format, a shell or a terminal reads differently from what a reviewer sees, and no key may
// reach an object's prototype. Run first by validateSpec, so a new field is covered without touching it.
import type { SpecIssueCode } from "../error-catalog.js";
import type { IssuePath, SpecIssue } from "../issues.js";

/**
 * C0 controls (NUL, tab, line breaks, ESC…), DEL and the C1 controls; the Unicode line and paragraph separators
 * (line breaks to YAML 1.1 and JavaScript); and the invisible format characters: zero-width spaces and joiners,
 * bidirectional embeddings, overrides and isolates, the word joiner and invisible operators, and the BOM.
 */
const FORBIDDEN =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the point is to find them
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]/u;

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
    NAMES[c] ?? (c < 0x20 || (c >= 0x7f && c <= 0x9f) ? "a control character" : "an invisible formatting character");
  return `${name} (${codePoint(c)})`;
}

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
 * Issues for every string (key or value) with a forbidden character, every `__proto__` key and every value that
 * contains itself (YAML makes one from an alias inside the node its anchor marks: `a: &x { b: *x }`); at most 20.
 */
export function inputHygiene(input: unknown): SpecIssue[] {
  const out: SpecIssue[] = [];
  const error = (path: IssuePath, message: string, code: SpecIssueCode = "invalid_format") => {
    if (out.length < MAX_ISSUES) out.push({ path, message, severity: "error", code });
  };
  // The objects and arrays from the root down to the value being visited.
  const ancestors = new Set<object>();
  const visit = (value: unknown, path: (string | number)[]): void => {
    if (out.length >= MAX_ISSUES) return;
    if (typeof value === "string") {
      const bad = forbiddenCharacter(path.length > 2 && isFreeForm(path) ? value.replace(MULTILINE_TEXT, " ") : value);
      if (bad)
        error(
          path,
          `the value contains ${bad}: spec values are printable text on one line (written ${JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value)})`,
        );
      return;
    }
    if (value === null || typeof value !== "object") return;
    if (ancestors.has(value)) {
      error(
        path,
        "this value contains itself (a YAML alias *name inside the node its anchor &name marks): a spec is a tree, write the value out",
        REFERENCE_CYCLE,
      );
      return;
    }
    ancestors.add(value);
    if (Array.isArray(value))
      value.forEach((v, i) => {
        visit(v, [...path, i]);
      });
    else
      for (const key of Object.keys(value)) {
        const at = [...path, key];
        const bad = forbiddenCharacter(key);
        if (bad) error(at, `the key ${JSON.stringify(key)} contains ${bad}: keys are printable text`);
        else if (PROTOTYPE_KEYS.has(key))
          error(at, `the key ${JSON.stringify(key)} is not allowed: it names an object's prototype, not a setting`);
        visit((value as Record<string, unknown>)[key], at);
      }
    ancestors.delete(value);
  };
  visit(input, []);
  return out;
}
