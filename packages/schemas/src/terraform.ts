// A small checker of Terraform JSON syntax against `terraform providers schema -json` data: known
// attributes and blocks, required ones present, value types. Strings holding `${` are expressions
// and stand for any type, as in Terraform itself.
import type { SchemaProblem } from "@clusterspec/core";

type TfType = string | [string, unknown];
interface Attribute {
  type: TfType;
  required?: boolean;
  optional?: boolean;
  /** read by Terraform: without optional or required, a value only the provider sets (data sources list them) */
  computed?: boolean;
  "x-config-mode"?: string;
}
interface BlockType {
  nesting_mode: "single" | "list" | "set" | "map";
  block: Block;
  min_items?: number;
  max_items?: number;
}
export interface Block {
  attributes?: Record<string, Attribute>;
  block_types?: Record<string, BlockType>;
}
export interface ProviderSchemaFile {
  "x-all-data-source-types": string[];
  provider_schemas: Record<
    string,
    {
      provider: { block: Block };
      resource_schemas: Record<string, { block: Block }>;
      /** the data sources the subset holds (configurable and computed attributes); others are only named */
      data_source_schemas?: Record<string, { block: Block }>;
    }
  >;
}

const META = new Set(["count", "for_each", "depends_on", "lifecycle", "provider", "provisioner", "connection", "//"]);
const isExpr = (v: unknown): boolean => typeof v === "string" && /(^|[^$])\$\{/.test(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function checkType(value: unknown, type: TfType, path: string, errors: string[]): void {
  if (value === null || isExpr(value)) return;
  if (typeof type === "string") {
    const ok =
      (type === "string" && typeof value === "string") ||
      (type === "number" && typeof value === "number") ||
      (type === "bool" && typeof value === "boolean") ||
      type === "dynamic";
    if (!ok) errors.push(`${path}: expected ${type}, got ${JSON.stringify(value)}`);
    return;
  }
  const [kind, inner] = type;
  if (kind === "list" || kind === "set") {
    if (!Array.isArray(value)) return void errors.push(`${path}: expected a ${kind}`);
    value.forEach((v, i) => {
      checkType(v, inner as TfType, `${path}[${i}]`, errors);
    });
  } else if (kind === "map") {
    if (!isObject(value)) return void errors.push(`${path}: expected a map`);
    for (const [k, v] of Object.entries(value)) checkType(v, inner as TfType, `${path}.${k}`, errors);
  } else if (kind === "object") {
    if (!isObject(value)) return void errors.push(`${path}: expected an object`);
    const attrs = inner as Record<string, TfType>;
    // JSON syntax has no optional object attributes: every key is listed, null where unset
    for (const k of Object.keys(attrs)) if (!(k in value)) errors.push(`${path}: missing object key ${k}`);
    for (const [k, v] of Object.entries(value)) {
      const t = attrs[k];
      if (t === undefined) errors.push(`${path}: unknown object key ${k}`);
      else checkType(v, t, `${path}.${k}`, errors);
    }
  } else errors.push(`${path}: unsupported type ${kind}`);
}

export function checkBlock(body: unknown, block: Block, path: string, errors: string[]): void {
  if (!isObject(body)) return void errors.push(`${path}: expected an object`);
  for (const [key, value] of Object.entries(body)) {
    const attr = block.attributes?.[key];
    const nested = block.block_types?.[key];
    if (attr?.computed && !attr.optional && !attr.required)
      errors.push(`${path}.${key}: ${key} is computed by the provider and cannot be set`);
    else if (attr) checkType(value, attr.type, `${path}.${key}`, errors);
    else if (nested) {
      const items = Array.isArray(value) ? value : [value];
      if (nested.max_items !== undefined && items.length > nested.max_items)
        errors.push(`${path}.${key}: at most ${nested.max_items} block(s)`);
      items.forEach((item, i) => {
        checkBlock(item, nested.block, `${path}.${key}[${i}]`, errors);
      });
    } else if (!META.has(key)) errors.push(`${path}: unknown argument or block ${key}`);
  }
  for (const [key, attr] of Object.entries(block.attributes ?? {}))
    if (attr.required && !(key in body)) errors.push(`${path}: missing required argument ${key}`);
  for (const [key, nested] of Object.entries(block.block_types ?? {})) {
    const v = body[key];
    const n = v === undefined ? 0 : Array.isArray(v) ? v.length : 1;
    if ((nested.min_items ?? 0) > n) errors.push(`${path}: needs at least ${nested.min_items} ${key} block(s)`);
  }
}

const TOP = new Set(["//", "terraform", "provider", "resource", "data", "output", "variable", "locals", "module"]);

/** Every problem of one .tf.json document, as `path: message` lines. */
export function checkTerraformJson(doc: unknown, schema: ProviderSchemaFile): string[] {
  const errors: string[] = [];
  if (!isObject(doc)) return ["document is not an object"];
  const aws = schema.provider_schemas["registry.terraform.io/hashicorp/aws"];
  if (!aws) return ["no aws provider in the schema"];
  for (const key of Object.keys(doc)) if (!TOP.has(key)) errors.push(`unknown top-level key ${key}`);
  const providers = doc.provider;
  if (isObject(providers))
    for (const [name, body] of Object.entries(providers)) {
      if (name !== "aws") errors.push(`provider.${name}: unknown provider`);
      else checkBlock(body, aws.provider.block, "provider.aws", errors);
    }
  const resources = doc.resource;
  if (isObject(resources))
    for (const [type, byName] of Object.entries(resources)) {
      const rs = aws.resource_schemas[type];
      if (!rs) {
        errors.push(`resource.${type}: type not in the schema subset`);
        continue;
      }
      if (!isObject(byName)) continue;
      for (const [name, body] of Object.entries(byName)) checkBlock(body, rs.block, `resource.${type}.${name}`, errors);
    }
  const data = doc.data;
  if (isObject(data))
    for (const [type, byName] of Object.entries(data)) {
      if (!schema["x-all-data-source-types"].includes(type)) {
        errors.push(`data.${type}: unknown data source`);
        continue;
      }
      const ds = aws.data_source_schemas?.[type];
      if (!ds || !isObject(byName)) continue;
      for (const [name, body] of Object.entries(byName)) {
        const path = `data.${type}.${name}`;
        checkBlock(body, ds.block, path, errors);
        checkSelfReferences(body, ds.block, path, errors);
      }
    }
  checkDataReferences(doc, schema, errors);
  return errors;
}

/**
 * `self.<attribute>` in a data source's lifecycle conditions must name one of its attributes (configurable or
 * computed): Terraform refuses the configuration otherwise ("Unsupported attribute"). So must `<v>.<attribute>` of
 * a `for <v> in self.<list>` over a list or set of objects (aws_route_table's `routes`), against the object's
 * attributes.
 */
function checkSelfReferences(body: unknown, block: Block, path: string, errors: string[]): void {
  if (!isObject(body) || !isObject(body.lifecycle)) return;
  for (const kind of ["precondition", "postcondition"] as const) {
    const conditions = body.lifecycle[kind];
    if (!Array.isArray(conditions)) continue;
    conditions.forEach((c, i) => {
      if (!isObject(c)) return;
      for (const field of ["condition", "error_message"] as const) {
        const text: unknown = c[field];
        if (typeof text !== "string") continue;
        const at = `${path}.lifecycle.${kind}[${i}].${field}`;
        for (const expr of interpolations(text)) {
          for (const m of expr.matchAll(/(?<![\w.])self\.(\w+)/g)) {
            const name = m[1] ?? "";
            if (!block.attributes?.[name] && !block.block_types?.[name])
              errors.push(`${at}: self.${name} is not an attribute of this data source`);
          }
          for (const m of expr.matchAll(/\bfor\s+(?:\w+\s*,\s*)?(\w+)\s+in\s+self\.(\w+)\s*:/g)) {
            const v = m[1] ?? "";
            const list = m[2] ?? "";
            const fields = objectElementAttributes(block.attributes?.[list]?.type);
            if (!fields) continue;
            for (const r of expr.matchAll(new RegExp(`(?<![\\w.])${v}\\.(\\w+)`, "g")))
              if (!((r[1] ?? "") in fields))
                errors.push(`${at}: ${v}.${r[1]} is not an attribute of the objects of self.${list}`);
          }
        }
      }
    });
  }
}

/** The attributes of the objects of a list or set of objects, else undefined. */
function objectElementAttributes(type: TfType | undefined): Record<string, unknown> | undefined {
  if (!Array.isArray(type) || (type[0] !== "list" && type[0] !== "set")) return undefined;
  const inner = type[1];
  return Array.isArray(inner) && inner[0] === "object" && isObject(inner[1]) ? inner[1] : undefined;
}

/**
 * `data.<type>.<name>.<attribute>` in any expression of the document, for a data source of the subset: the
 * attribute must be one of its attributes or blocks (a `[N]` after the name, as with `count`, is allowed).
 */
function checkDataReferences(doc: Record<string, unknown>, schema: ProviderSchemaFile, errors: string[]): void {
  const sources = schema.provider_schemas["registry.terraform.io/hashicorp/aws"]?.data_source_schemas ?? {};
  const walk = (v: unknown, path: string): void => {
    if (typeof v === "string") {
      for (const expr of interpolations(v))
        for (const m of expr.matchAll(/(?<![\w.])data\.(\w+)\.([\w-]+)(?:\[\d+\])?\.(\w+)/g)) {
          const [, type = "", name, attr = ""] = m;
          const block = sources[type]?.block;
          if (block && !block.attributes?.[attr] && !block.block_types?.[attr])
            errors.push(`${path}: data.${type}.${name}.${attr} is not an attribute of data source ${type}`);
        }
    } else if (Array.isArray(v))
      v.forEach((x, i) => {
        walk(x, `${path}[${i}]`);
      });
    else if (isObject(v)) for (const [k, x] of Object.entries(v)) walk(x, path ? `${path}.${k}` : k);
  };
  walk(doc, "");
}

/** The live interpolations of a string (escaped `$${` skipped), without the `${` `}`. */
export function interpolations(s: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i++) {
    if ((s[i] === "$" || s[i] === "%") && s[i + 1] === s[i] && s[i + 2] === "{") {
      i += 2;
      continue;
    }
    if ((s[i] === "$" || s[i] === "%") && s[i + 1] === "{") {
      let depth = 0;
      let j = i + 1;
      for (; j < s.length; j++) {
        if (s[j] === "{") depth++;
        else if (s[j] === "}" && --depth === 0) break;
      }
      out.push(`${s[i]}${s.slice(i + 2, j)}`);
      i = j;
    }
  }
  return out;
}

/** What Terraform makes of a string without interpolations: the template escapes undone. */
export function unescapeTemplate(s: string): string {
  let out = "";
  for (let i = 0; i < s.length; i++) {
    if ((s[i] === "$" || s[i] === "%") && s[i + 1] === s[i] && s[i + 2] === "{") {
      out += `${s[i]}{`;
      i += 2;
    } else out += s[i];
  }
  return out;
}

export function allStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) allStrings(v, out);
  else if (isObject(value))
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      allStrings(v, out);
    }
  return out;
}

/** Problems of a .tf.json document against the AWS provider subset (hashicorp/aws 6.66.0). */
export async function loadTerraformChecker(): Promise<(doc: unknown) => SchemaProblem[]> {
  const schema = (await import("../data/aws-provider-subset-6.66.0.json", { with: { type: "json" } }))
    .default as unknown as ProviderSchemaFile;
  return (doc) =>
    checkTerraformJson(doc, schema).map((line) => {
      const [where = "", ...rest] = line.split(": ");
      const message = rest.length === 0 ? line : rest.join(": ");
      const pointer = rest.length === 0 ? [] : where.split(/[.[\]]+/).filter(Boolean);
      // point at the unknown key itself, as for the JSON schemas
      const unknown = /^unknown (?:argument or block|object key) (\S+)$/.exec(message)?.[1];
      return { document: 0, pointer: unknown === undefined ? pointer : [...pointer, unknown], message };
    });
}
