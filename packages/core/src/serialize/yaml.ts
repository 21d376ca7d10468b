import { Document, parseAllDocuments, type Tags, visit } from "yaml";
import { InternalError } from "../issues.js";

// YAML 1.1 so that `yes`, `on`, `0775` are quoted for Go's YAML readers (kubeadm, via sigs.k8s.io/yaml)
// and PyYAML (cloud-init); lineWidth 0 stops long strings (certificates, scripts) from being folded.
// Without the merge tag when writing: it makes the library write a `<<` string plain, which a YAML 1.1 reader
// (PyYAML, Go's yaml.v2) then takes as a merge key. `<<` is written quoted instead (see readAsNonString).
const DOCUMENT_OPTIONS = {
  version: "1.1",
  aliasDuplicateObjects: false,
  customTags: (tags: Tags) => tags.filter((t) => typeof t === "string" || t.tag !== "tag:yaml.org,2002:merge"),
} as const;
const STRING_OPTIONS = { lineWidth: 0, minContentWidth: 0 } as const;

/** One YAML document; LF, exactly one trailing newline; keys stay in insertion order (build objects in the order to ship). */
export function toYaml(value: unknown): string {
  assertPlain(value, "$");
  const fast = blockYaml(value);
  if (fast !== undefined) return fast;
  return viaLibrary(value);
}

/** The `yaml` library's rendering (with the quoting readAsNonString asks for), which blockYaml reproduces byte for
 * byte where it applies (tested). */
export function viaLibrary(value: unknown): string {
  const doc = new Document(value, DOCUMENT_OPTIONS);
  // Keys too: a key `<<` is a merge key to a YAML 1.1 reader, `yes` a bool, `0o17` an int to Go.
  visit(doc, {
    Scalar(_, node) {
      if (typeof node.value === "string" && (readAsNonString(node.value) || ESCAPE_ON_ONE_LINE.test(node.value)))
        node.type = "QUOTE_DOUBLE";
    },
  });
  const text = doc.toString(STRING_OPTIONS);
  return text.endsWith("\n") ? text : `${text}\n`;
}

// ---- the common case without the library's document model: 300 kubeadm.yaml files cost it some 200 ms ----
// Block maps and sequences are laid out here as the library lays them out (indent 2, sequences indented under
// their key); every single-line string is still written by the library itself (its quoting decides what YAML 1.1
// readers must not take for a bool, number, date or null), once per distinct string. Anything else (a multi-line
// string, a non-integer number, a sequence directly in a sequence, a key that needs quotes) renders the whole
// document through the library.

const scalarForms = new Map<string, string | null>();

// Names, paths and versions (`k8s-1`, `/etc/kubernetes/pki`, `kubeadm.k8s.io/v1beta4`) have no indicator character,
// blank or line break: the library writes them plain unless one of its YAML 1.1 tags would read them as something
// else (its own test, `e5` is a float to it), and we quote what readAsNonString names. Tested against the library.
const SAFE_PLAIN = /^[A-Za-z/][A-Za-z0-9._/-]*$/;
let nonStringTags: RegExp[] | undefined;

function plainAsTheLibraryWrites(text: string): boolean {
  if (text.length > 1024 || !SAFE_PLAIN.test(text) || readAsNonString(text)) return false;
  nonStringTags ??= (() => {
    const { schema } = new Document(null, DOCUMENT_OPTIONS);
    const tags = [...schema.tags, ...((schema as { compat?: typeof schema.tags }).compat ?? [])];
    return tags.flatMap((t) => (t.default && t.tag !== "tag:yaml.org,2002:str" && t.test ? [t.test] : []));
  })();
  return !nonStringTags.some((re) => re.test(text));
}

function stringForm(text: string): string | undefined {
  if (plainAsTheLibraryWrites(text)) return text;
  let form = scalarForms.get(text);
  if (form === undefined) {
    if (scalarForms.size > 50_000) scalarForms.clear();
    const t = text.includes("\n") ? "\n\n" : viaLibrary(text);
    const line = t.endsWith("\n") ? t.slice(0, -1) : t;
    form = line.includes("\n") ? null : line;
    scalarForms.set(text, form);
  }
  return form ?? undefined;
}

function scalarForm(value: unknown): string | undefined {
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number")
    return Number.isSafeInteger(value) && !Object.is(value, -0) ? String(value) : undefined;
  return typeof value === "string" ? stringForm(value) : undefined;
}

const isMap = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function mapLines(map: Record<string, unknown>, indent: string, out: string[], lead: string = indent): boolean {
  let first = lead;
  for (const key of Object.keys(map)) {
    if (key.length > 1024 || stringForm(key) !== key) return false;
    const at = first;
    first = indent;
    const v = map[key];
    if (isMap(v) || Array.isArray(v)) {
      const empty = Array.isArray(v) ? v.length === 0 : Object.keys(v).length === 0;
      if (empty) out.push(`${at}${key}: ${Array.isArray(v) ? "[]" : "{}"}`);
      else {
        out.push(`${at}${key}:`);
        if (!(Array.isArray(v) ? seqLines(v, `${indent}  `, out) : mapLines(v, `${indent}  `, out))) return false;
      }
    } else {
      const form = scalarForm(v);
      if (form === undefined) return false;
      out.push(`${at}${key}: ${form}`);
    }
  }
  return true;
}

function seqLines(seq: readonly unknown[], indent: string, out: string[]): boolean {
  for (const item of seq) {
    if (Array.isArray(item)) {
      if (item.length > 0) return false;
      out.push(`${indent}- []`);
    } else if (isMap(item)) {
      if (Object.keys(item).length === 0) out.push(`${indent}- {}`);
      else if (!mapLines(item, `${indent}  `, out, `${indent}- `)) return false;
    } else {
      const form = scalarForm(item);
      if (form === undefined) return false;
      out.push(`${indent}- ${form}`);
    }
  }
  return true;
}

/** A non-empty block map or sequence rendered as the library renders it, or undefined where it does not apply. */
export function blockYaml(value: unknown): string | undefined {
  const out: string[] = [];
  if (Array.isArray(value)) {
    if (value.length === 0 || !seqLines(value, "", out)) return undefined;
  } else if (isMap(value)) {
    if (Object.keys(value).length === 0 || !mapLines(value, "", out)) return undefined;
  } else return undefined;
  return `${out.join("\n")}\n`;
}

// A one-line string with a tab or another control character: plain, PyYAML (cloud-init) refuses the tab; in double
// quotes every reader reads the escapes. Multi-line strings stay block scalars, where tabs are content.
// biome-ignore lint/suspicious/noControlCharactersInRegex: these are what needs quoting
const ESCAPE_ON_ONE_LINE = /^[^\n]*[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff][^\n]*$/;

// What some YAML reader takes for something other than a string when written plain. The `yaml` library's 1.1 schema
// quotes most of these; Go's decoders (sigs.k8s.io/yaml, yaml.v2/v3, used by kubeadm and Helm) also run
// strconv.ParseInt(s, 0, 64) with '_' removed (0o17, 0b101, 1_000), strconv.ParseFloat (.5, 1e3, 0x1p-2, Inf) and
// ParseBool, YAML 1.2 adds 0o17 and .inf, and YAML 1.1 has sexagesimal numbers (1:20) and timestamps.
const GO_INT = /^[-+]?(0[bB][01_]+|0[oO][0-7_]+|0[xX][0-9a-fA-F_]+|[0-9][0-9_]*)$/;
const GO_FLOAT =
  /^[-+]?((\.[0-9_]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9_]+)?|0[xX][0-9a-fA-F_]*\.?[0-9a-fA-F_]*[pP][-+]?[0-9_]+|\.?inf(inity)?|\.?nan)$/i;
const BOOL_OR_NULL = /^(y|yes|n|no|true|false|on|off|t|f|null|nil|~|)$/i;
const SEXAGESIMAL = /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/;
const TIMESTAMP = /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt\s]|$)/;
/** YAML 1.1's merge key and value key. */
const SPECIAL_KEY = /^(<<|=)$/;

/** True when a plain scalar `s` would be read as a number, bool, null, timestamp or merge key by some reader. */
export function readAsNonString(s: string): boolean {
  return (
    GO_INT.test(s) ||
    GO_FLOAT.test(s) ||
    BOOL_OR_NULL.test(s) ||
    SEXAGESIMAL.test(s) ||
    TIMESTAMP.test(s) ||
    SPECIAL_KEY.test(s)
  );
}

/** Several documents joined by `---`. */
export function toYamlDocuments(values: readonly unknown[]): string {
  return values.map((v, i) => (i === 0 ? "" : "---\n") + toYaml(v)).join("");
}

/** Parses YAML back as the Go/Python readers do (1.1), throwing on any error: for tests and round-trip checks. */
export function parseYamlDocuments(text: string): unknown[] {
  return parseAllDocuments(text, { version: "1.1" }).map((d) => {
    if (!(d instanceof Document)) throw new InternalError("empty YAML stream");
    if (d.errors.length > 0) throw new InternalError(d.errors.map((e) => e.message).join("\n"));
    return d.toJS();
  });
}

function assertPlain(value: unknown, path: string): void {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InternalError(`non-finite number at ${path}`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      assertPlain(v, `${path}[${i}]`);
    });
    return;
  }
  if (typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) {
      if (v === undefined) throw new InternalError(`undefined at ${path}.${k}: omit the key instead`);
      assertPlain(v, `${path}.${k}`);
    }
    return;
  }
  throw new InternalError(`can't render non-plain value of type ${typeof value} at ${path}`);
}
