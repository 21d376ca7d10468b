// The Cilium chart as Helm sees it: values.yaml defaults, values.schema.json, and our stricter overlay.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseYamlDocuments } from "@clusterspec/core";
import { DOCUMENTED_VALUES } from "@clusterspec/schemas/cilium";
import { ajv07, formatAjvErrors, readSchema, schemaDir } from "@clusterspec/testkit";

type Json = Record<string, unknown>;

// Which charts are stored and which stands in for a version: the runtime's answer (@clusterspec/schemas).
export { chartVersions, coalesce, DOCUMENTED_VALUES, nearestChart } from "@clusterspec/schemas/cilium";

const defaultsCache = new Map<string, Json>();

/** The chart's values.yaml, parsed once per chart (coalesce copies, never mutates it). */
export function chartDefaults(chart: string): Json {
  let d = defaultsCache.get(chart);
  if (!d) {
    d = (parseYamlDocuments(readFileText(`cilium/${chart}/values.yaml`))[0] ?? {}) as Json;
    defaultsCache.set(chart, d);
  }
  return d;
}

export function chartValuesText(chart: string): string {
  return readFileText(`cilium/${chart}/values.yaml`);
}

function readFileText(rel: string): string {
  return readFileSync(join(schemaDir, rel), "utf8");
}

function withoutMeta(schema: Json): Json {
  const { $schema: _meta, ...rest } = schema;
  return rest;
}

const upstreamCache = new Map<string, (v: unknown) => string>();

/** Validates coalesced values against the chart's own values.schema.json; "" when valid. */
export function upstreamErrors(chart: string, values: Json): string {
  let v = upstreamCache.get(chart);
  if (!v) {
    const fn = ajv07().compile(withoutMeta(readSchema(`cilium/${chart}/values.schema.json`)));
    v = (x) => (fn(x) ? "" : formatAjvErrors(fn.errors));
    upstreamCache.set(chart, v);
  }
  return v(values);
}

/**
 * Keys the chart documents in values.yaml only as comments (its templates read them, the schema omits them).
 * Each is checked against the comment in values.yaml, so the list cannot invent a key.
 */
export const COMMENTED_KEYS: readonly (readonly [parent: string, key: string])[] = [
  ["loadBalancer", "mode"],
  ["loadBalancer", "dsrDispatch"],
  ["", "devices"],
];

/** Whether values.yaml documents `key` as a comment directly in the block of the top-level `parent` ("" for top level). */
export function documentedInComment(valuesText: string, parent: string, key: string): boolean {
  if (parent === "") return new RegExp(`^# ${key}: `, "m").test(valuesText);
  const start = valuesText.search(new RegExp(`^${parent}:`, "m"));
  if (start < 0) return false;
  const rest = valuesText.slice(start + parent.length + 1);
  const end = rest.search(/^[A-Za-z]/m);
  return new RegExp(`^  # ${key}: `, "m").test(end < 0 ? rest : rest.slice(0, end));
}

interface Node {
  type?: unknown;
  properties?: Record<string, Node>;
  additionalProperties?: unknown;
  enum?: readonly unknown[];
}

/** The upstream schema made strict: no unknown key where the chart lists its keys, documented values only. */
export function overlaySchema(chart: string): Json {
  const schema = structuredClone(withoutMeta(readSchema(`cilium/${chart}/values.schema.json`))) as Node & Json;
  const values = chartValuesText(chart);
  for (const [parent, key] of COMMENTED_KEYS) {
    if (!documentedInComment(values, parent, key)) continue;
    let node: Node = schema;
    for (const p of parent ? parent.split(".") : []) node = node.properties?.[p] ?? {};
    node.properties ??= {};
    node.properties[key] ??= {};
  }
  const strict = (node: Node) => {
    if (!node.properties || Object.keys(node.properties).length === 0) return;
    node.additionalProperties = false;
    for (const child of Object.values(node.properties)) strict(child);
  };
  strict(schema);
  for (const [path, allowed] of Object.entries(DOCUMENTED_VALUES)) {
    let node: Node | undefined = schema;
    for (const p of path.split(".")) node = node?.properties?.[p];
    if (node) node.enum = allowed;
  }
  return schema;
}

const overlayCache = new Map<string, (v: unknown) => string>();

export function overlayErrors(chart: string, values: Json): string {
  let v = overlayCache.get(chart);
  if (!v) {
    const fn = ajv07().compile(overlaySchema(chart));
    v = (x) => (fn(x) ? "" : formatAjvErrors(fn.errors));
    overlayCache.set(chart, v);
  }
  return v(values);
}
