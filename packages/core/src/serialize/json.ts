import { InternalError } from "../issues.js";

/** Sorted keys, `undefined` dropped, non-plain objects rejected (cdk8s sanitizeValue); 2-space indent, one trailing newline. */
export function stableJson(value: unknown): string {
  return `${JSON.stringify(sanitize(value, "$"), null, 2)}\n`;
}

function sanitize(value: unknown, path: string): unknown {
  if (value === null || typeof value === "string" || typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new InternalError(`non-finite number at ${path}`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => sanitize(v === undefined ? null : v, `${path}[${i}]`));
  if (typeof value === "object" && [Object.prototype, null].includes(Object.getPrototypeOf(value))) {
    // null prototype: a key named __proto__ stays an ordinary key instead of replacing the prototype
    const out: Record<string, unknown> = Object.create(null);
    for (const key of Object.keys(value).sort()) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sanitize(v, `${path}.${key}`);
    }
    return out;
  }
  throw new InternalError(`can't render non-plain value of type ${typeof value} at ${path}`);
}
