import * as z from "zod";
import { mdCell } from "./plan/summary.js";
import { CONDITIONALLY_REQUIRED, SPEC_SHAPES } from "./spec/reference-examples.js";
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

const isRequired = (s: JsonSchema, key: string) => s.required?.includes(key) ?? false;

/** The table rows of one section (a top-level key and everything under it). */
function sectionRows(schema: JsonSchema, key: string, required: boolean): string[] {
  const rows: string[] = [];
  const walk = (s: JsonSchema, path: string, req: boolean) => {
    const def = s.default === undefined ? "" : `\`${JSON.stringify(s.default)}\``;
    const when = CONDITIONALLY_REQUIRED.find((c) => c.path === path)?.when;
    const need = req ? "yes" : when ? `when ${when}` : "";
    rows.push(
      `| \`${path}\` | ${mdCell(typeOf(s))} | ${mdCell(need)} | ${mdCell(def)} | ${mdCell(s.description ?? "")} |`,
    );
    if (s.properties) for (const [k, v] of Object.entries(s.properties)) walk(v, `${path}.${k}`, isRequired(s, k));
    if (s.type === "array" && s.items?.properties)
      walk({ ...s.items, description: undefined as never, default: undefined }, `${path}[]`, false);
    if (typeof s.additionalProperties === "object" && s.additionalProperties.properties)
      walk({ ...s.additionalProperties, description: undefined as never, default: undefined }, `${path}.<name>`, false);
    for (const alt of s.anyOf ?? [])
      if (alt.properties) walk({ ...alt, description: undefined as never, default: undefined }, path, false);
  };
  walk(schema, key, required);
  // Sub-walks of list items and alternatives repeat their own header row; drop rows without content and duplicates.
  return rows.filter((r, i) => rows.indexOf(r) === i && !/^\| `[^`]*` \| [^|]* \| {2}\| {2}\| {2}\|$/.test(r));
}

const TABLE_HEAD = ["| field | type | required | default | description |", "| --- | --- | --- | --- | --- |"];
const TOP_LEVEL = ["apiVersion", "kind", "name"];

/**
 * Markdown reference of every spec field, one part per spec shape and one table per section, each with a short
 * example: path, type, required (or when a rule requires it), default, description from the zod `.describe()` texts.
 */
export function renderSpecReference(): string {
  const branches = ((specJsonSchema() as JsonSchema).anyOf ?? []) as JsonSchema[];
  const shapeOf = (marker: string | undefined) =>
    branches.find((b) => (marker === undefined ? !b.properties?.existingCluster : !!b.properties?.[marker]));
  const out = [
    "# Spec reference",
    "",
    "Generated from the zod schema (`clusterspec schema` prints the JSON Schema; `pnpm test:update` rewrites this page).",
    "Unknown keys are errors. A spec has one of two shapes:",
    "",
    ...SPEC_SHAPES.map((shape) => `- ${shape.title}`),
    "",
    "In the tables, `yes` marks a field the schema requires whenever its parent is there, and `when …` a field that a",
    "rule requires in the specs it names. Every example on this page validates (`examples/spec-reference.test.ts`).",
  ];
  for (const shape of SPEC_SHAPES) {
    const schema = shapeOf(shape.marker);
    if (!schema?.properties) continue;
    out.push("", `## ${shape.title}`, "", shape.intro, "", "```yaml", shape.example.trimEnd(), "```");
    out.push("", "### Top level", "", ...TABLE_HEAD);
    for (const key of TOP_LEVEL)
      if (schema.properties[key]) out.push(...sectionRows(schema.properties[key], key, isRequired(schema, key)));
    for (const [key, section] of Object.entries(schema.properties)) {
      if (TOP_LEVEL.includes(key)) continue;
      out.push("", `### \`${key}\``, "");
      if (section.description) out.push(`${section.description}.`, "");
      const snippet = shape.sections[key];
      if (snippet) out.push("```yaml", snippet.trimEnd(), "```", "");
      out.push(...TABLE_HEAD, ...sectionRows(section, key, isRequired(schema, key)));
    }
  }
  return `${out.join("\n")}\n`;
}
