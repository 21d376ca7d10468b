// The Cilium chart as Helm sees it: values.yaml defaults, values.schema.json, and our stricter overlay.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseSemver, parseYamlDocuments } from "@clusterspec/core/testing";
import { ajv07, formatAjvErrors, readSchema, schemaDir } from "@clusterspec/testkit";

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** Chart versions whose schema and values are stored (packages/testkit/schemas/cilium/<version>/). */
export const chartVersions: readonly string[] = readdirSync(join(schemaDir, "cilium")).filter((d) => parseSemver(d));

/** The stored chart for a version: the same one, else the nearest minor (then the newest patch of it). */
export function nearestChart(version: string): string {
  const want = parseSemver(version);
  if (!want) throw new Error(`not a version: ${version}`);
  if (chartVersions.includes(version)) return version;
  const score = (v: string) => {
    const s = parseSemver(v);
    return s ? Math.abs(s.minor - want.minor) * 1000 - s.patch : Number.POSITIVE_INFINITY;
  };
  const best = [...chartVersions].sort((a, b) => score(a) - score(b))[0];
  if (!best) throw new Error("no Cilium chart stored");
  return best;
}

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

/** Helm's coalescing of user values over chart defaults: maps merge deeply, anything else the user gives wins, null deletes. */
export function coalesce(defaults: Json, user: Json): Json {
  const out: Json = { ...defaults };
  for (const [k, v] of Object.entries(user)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = coalesce(out[k] as Json, v);
    else out[k] = v;
  }
  return out;
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

/** Documented values of the keys whose upstream schema only checks the type. */
export const DOCUMENTED_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  kubeProxyReplacement: [true, false, "true", "false"],
  routingMode: ["native", "tunnel"],
  tunnelProtocol: ["vxlan", "geneve"],
  "ipam.mode": ["cluster-pool", "kubernetes", "multi-pool", "crd", "eni", "azure", "alibabacloud", "delegated-plugin"],
  "loadBalancer.mode": ["snat", "dsr", "hybrid"],
  "loadBalancer.dsrDispatch": ["opt", "ipip", "geneve"],
  "encryption.type": ["ipsec", "wireguard", "ztunnel"],
};

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
