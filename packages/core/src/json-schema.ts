import * as z from "zod";
import { mdCell } from "./plan/summary.js";
import { AnySpecSchema } from "./spec/schema.js";

/** JSON Schema of the spec as users write it, for yaml-language-server (`# yaml-language-server: $schema=…`). */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(AnySpecSchema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  return {
    ...schema,
    $id: "https://clusterspec.dev/schema/v1alpha1/cluster.schema.json",
    title: "clusterspec Cluster",
  };
}

type JsonSchema = {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
};

function typeOf(s: JsonSchema): string {
  if (s.const !== undefined) return `\`${JSON.stringify(s.const)}\``;
  if (s.enum) return s.enum.map((e) => `\`${String(e)}\``).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map(typeOf).join(" or ");
  if (s.type === "array") return `list of ${s.items ? typeOf(s.items) : "any"}`;
  if (s.type === "object" && s.properties) {
    const keys = Object.keys(s.properties);
    return keys.length <= 2 ? `{ ${keys.join(", ")} }` : "object";
  }
  if (s.type === "object" && typeof s.additionalProperties === "object")
    return `map of ${typeOf(s.additionalProperties)}`;
  return Array.isArray(s.type) ? s.type.join(" | ") : (s.type ?? "any");
}

/** Markdown reference of every spec field: path, type, default, required, description — from the zod `.describe()` texts. */
export function renderSpecReference(): string {
  const rows: string[] = [];
  const walk = (s: JsonSchema, path: string, required: boolean) => {
    if (path !== "") {
      const def = s.default === undefined ? "" : `\`${JSON.stringify(s.default)}\``;
      rows.push(
        `| \`${path}\` | ${mdCell(typeOf(s))} | ${required ? "yes" : ""} | ${mdCell(def)} | ${mdCell(s.description ?? "")} |`,
      );
    }
    if (s.properties)
      for (const [k, v] of Object.entries(s.properties))
        walk(v, path === "" ? k : `${path}.${k}`, s.required?.includes(k) ?? false);
    if (s.type === "array" && s.items?.properties)
      walk({ ...s.items, description: undefined as never, default: undefined }, `${path}[]`, false);
    if (typeof s.additionalProperties === "object" && s.additionalProperties.properties)
      walk({ ...s.additionalProperties, description: undefined as never, default: undefined }, `${path}.<name>`, false);
    for (const alt of s.anyOf ?? [])
      if (alt.properties) walk({ ...alt, description: undefined as never, default: undefined }, path, false);
  };
  const schema = specJsonSchema() as JsonSchema;
  walk(schema, "", true);
  // Sub-walks of list items and alternatives repeat their own header row; drop rows without content duplicates.
  const unique = rows.filter((r, i) => rows.indexOf(r) === i && !/^\| `[^`]*` \| [^|]* \| {2}\| {2}\| {2}\|$/.test(r));
  return [
    "# Spec reference",
    "",
    "Generated from the zod schema (`clusterspec schema` prints the JSON Schema). Unknown keys are errors.",
    "",
    "| field | type | required | default | description |",
    "| --- | --- | --- | --- | --- |",
    ...unique,
    "",
  ].join("\n");
}
