// A spec's fields one by one, for the properties that change one field at a time (explain's, ModuleOutputs').

export type Path = (string | number)[];

/** Every primitive of a validated spec with its path. */
export function primitives(value: unknown, path: Path = []): { path: Path; value: unknown }[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => primitives(v, [...path, i]));
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => primitives(v, [...path, k]));
  return [{ path, value }];
}

/** A copy of `spec` with the field at `path` set to `value`. */
export function setAt(spec: unknown, path: Path, value: unknown): unknown {
  const copy = structuredClone(spec) as Record<string | number, unknown>;
  let node = copy;
  for (const seg of path.slice(0, -1)) node = node[seg] as Record<string | number, unknown>;
  node[path.at(-1) as string | number] = value;
  return copy;
}
