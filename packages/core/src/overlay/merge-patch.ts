// RFC 7386 JSON merge patch, the one merge used for cilium.values, kubernetes.kubelet and overlays.

export type JsonMap = Record<string, unknown>;

export const isJsonMap = (v: unknown): v is JsonMap => v !== null && typeof v === "object" && !Array.isArray(v);

/** RFC 7386: a mapping patch merges key by key, `null` deletes, anything else (arrays too) replaces. Never mutates. */
export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonMap(patch)) return structuredClone(patch);
  const out: JsonMap = isJsonMap(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    // defineProperty: a key such as "constructor" or "__proto__" is data here, never the object's prototype.
    else
      Object.defineProperty(out, key, {
        value: mergePatch(Object.hasOwn(out, key) ? out[key] : undefined, value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
  }
  return out;
}

/** A JSON pointer segment (RFC 6901). */
export const pointerSegment = (s: string | number): string => String(s).replace(/~/g, "~0").replace(/\//g, "~1");
export const toPointer = (path: readonly (string | number)[]): string =>
  path.map((p) => `/${pointerSegment(p)}`).join("");

/** Leaves an existing value that a patch replaces or deletes: `{ path, before, after }` (after undefined: deleted). */
export function changedValues(
  target: unknown,
  patch: unknown,
  path: (string | number)[] = [],
): { path: (string | number)[]; before: unknown; after: unknown }[] {
  if (!isJsonMap(patch) || !isJsonMap(target)) {
    if (target === undefined || JSON.stringify(target) === JSON.stringify(patch)) return [];
    return [{ path, before: target, after: patch }];
  }
  return Object.entries(patch).flatMap(([k, v]) => {
    if (!Object.hasOwn(target, k)) return [];
    if (v === null) return [{ path: [...path, k], before: target[k], after: undefined }];
    return changedValues(target[k], v, [...path, k]);
  });
}
