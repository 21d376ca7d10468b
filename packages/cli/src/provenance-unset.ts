// The fields a spec could have but does not (issue 27, item 2): optional fields with no default that the validated
// spec leaves out (a VIP's `vrid` when its address gives it, `externalVips.replicas`). explain tries adding each with
// values its JSON Schema allows, so a line that such an addition would change lists the field, marked unset.

type Path = (string | number)[];
type Schema = Record<string, unknown>;

/** A field the spec does not set, with the values to try adding it at. */
export interface UnsetField {
  readonly path: Path;
  readonly candidates: readonly unknown[];
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const typeOf = (value: unknown): string =>
  Array.isArray(value) ? "array" : value === null ? "null" : typeof value === "number" ? "number" : typeof value;

/** Whether a schema (one branch, no anyOf) can describe the value: its type, and for an object its keys. */
function fits(schema: Schema, value: unknown): boolean {
  const type = schema.type;
  const kind = typeOf(value);
  if (type === "integer") return kind === "number" && Number.isInteger(value);
  if (typeof type === "string" && type !== kind) return false;
  if (kind === "object" && isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (!required.every((k) => typeof k === "string" && Object.hasOwn(value, k))) return false;
    if (schema.additionalProperties === false && !Object.keys(value).every((k) => Object.hasOwn(properties, k)))
      return false;
  }
  return true;
}

/** The branch of an `anyOf` that describes the value (the first that fits), or the schema itself. */
function branchOf(schema: unknown, value: unknown): Schema | undefined {
  if (!isObject(schema)) return undefined;
  if (!Array.isArray(schema.anyOf)) return schema;
  for (const branch of schema.anyOf) if (isObject(branch) && fits(branch, value)) return branchOf(branch, value);
  return undefined;
}

/**
 * Values a schema allows for a field that is not there: an integer's minimum, its maximum (when it has a small one,
 * else the minimum's next), then the numbers the explained lines show (`seen`) within its range; a boolean both
 * values; an enum its members. Other strings, objects and arrays have no value that is valid in general.
 */
function valuesFor(schema: unknown, seen: readonly number[]): unknown[] {
  if (!isObject(schema)) return [];
  if (Array.isArray(schema.anyOf)) {
    for (const branch of schema.anyOf) {
      const values = valuesFor(branch, seen);
      if (values.length > 0) return values;
    }
    return [];
  }
  if (Array.isArray(schema.enum)) return [...schema.enum];
  if (schema.type === "boolean") return [true, false];
  if (schema.type === "integer") {
    const min = typeof schema.minimum === "number" ? schema.minimum : 0;
    const max = typeof schema.maximum === "number" ? schema.maximum : Number.MAX_SAFE_INTEGER;
    const bounds = [min, ...(max - min <= 4096 ? [max] : [min + 1])];
    return [...new Set([...bounds, ...seen, min + 1])].filter((n) => n >= min && n <= max);
  }
  return [];
}

/**
 * Every optional field with no default that the validated spec leaves out, inside the objects it has (an object it
 * leaves out altogether is not entered), walking the spec and its JSON Schema together. `seen`: the numbers the
 * explained lines show, as more values for an integer.
 */
export function unsetFieldsOf(spec: unknown, schema: unknown, seen: readonly number[]): UnsetField[] {
  const out: UnsetField[] = [];
  const visit = (value: unknown, node: unknown, path: Path): void => {
    const branch = branchOf(node, value);
    if (branch === undefined) return;
    if (Array.isArray(value)) {
      value.forEach((item, i) => {
        visit(item, branch.items, [...path, i]);
      });
      return;
    }
    if (!isObject(value)) return;
    const properties = isObject(branch.properties) ? branch.properties : {};
    for (const [key, item] of Object.entries(value)) {
      const own = Object.hasOwn(properties, key) ? properties[key] : branch.additionalProperties;
      visit(item, own, [...path, key]);
    }
    for (const [key, property] of Object.entries(properties)) {
      if (Object.hasOwn(value, key) || !isObject(property) || Object.hasOwn(property, "default")) continue;
      const candidates = valuesFor(property, seen);
      if (candidates.length > 0) out.push({ path: [...path, key], candidates });
    }
  };
  visit(spec, schema, []);
  return out;
}
