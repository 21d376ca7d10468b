import { Document, parseAllDocuments, stringify } from "yaml";
import { InternalError } from "../issues.js";

// YAML 1.1 so that `yes`, `on`, `0775` are quoted for Go's YAML readers (kubeadm, via sigs.k8s.io/yaml)
// and PyYAML (cloud-init); lineWidth 0 stops long strings (certificates, scripts) from being folded.
const OPTIONS = { version: "1.1", lineWidth: 0, minContentWidth: 0, aliasDuplicateObjects: false } as const;

/** One YAML document; LF, exactly one trailing newline; keys stay in insertion order (build objects in the order to ship). */
export function toYaml(value: unknown): string {
  assertPlain(value, "$");
  const text = stringify(value, OPTIONS);
  return text.endsWith("\n") ? text : `${text}\n`;
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
