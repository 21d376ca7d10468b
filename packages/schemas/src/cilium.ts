// The Cilium chart as Helm sees it, made strict: values.schema.json (which has no additionalProperties anywhere),
// the keys values.yaml documents (some only as comments, e.g. loadBalancer.mode), and the documented values.
import { didYouMean, parseSemver, parseYamlDocuments, type SchemaProblem } from "@clusterspec/core";
import { ajv07, problemsOf, withoutMeta } from "./ajv.js";

type Json = Record<string, unknown>;
const isMap = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** The key paths a chart's templates read (data/cilium/<version>/template-keys.json, scripts/derive-cilium-template-keys.mjs). */
interface TemplateKeys {
  readonly keys: readonly string[];
}

/** Stored charts (data/cilium/<version>/), each loaded only when asked for. */
const CHARTS: Readonly<Record<string, () => Promise<[Json, string, TemplateKeys]>>> = {
  "1.19.6": async () => [
    (await import("../data/cilium/1.19.6/values.schema.json", { with: { type: "json" } })).default as Json,
    (await import("./generated/cilium-1.19.6-values.js")).default,
    (await import("../data/cilium/1.19.6/template-keys.json", { with: { type: "json" } })).default,
  ],
  "1.20.0": async () => [
    (await import("../data/cilium/1.20.0/values.schema.json", { with: { type: "json" } })).default as Json,
    (await import("./generated/cilium-1.20.0-values.js")).default,
    (await import("../data/cilium/1.20.0/template-keys.json", { with: { type: "json" } })).default,
  ],
};

export const chartVersions: readonly string[] = Object.keys(CHARTS);

/** The stored chart for a version: the same one, else the nearest minor (then the newest patch of it). */
export function nearestChart(version: string): string {
  if (chartVersions.includes(version)) return version;
  const want = parseSemver(version);
  const score = (v: string) => {
    const s = parseSemver(v);
    return s && want ? Math.abs(s.minor - want.minor) * 1000 - s.patch : Number.POSITIVE_INFINITY;
  };
  return [...chartVersions].sort((a, b) => score(a) - score(b))[0] as string;
}

/** Values whose upstream schema only checks the type, with the values the chart documents. */
export const DOCUMENTED_VALUES: Readonly<Record<string, readonly unknown[]>> = {
  kubeProxyReplacement: [true, false, "true", "false"],
  routingMode: ["native", "tunnel"],
  tunnelProtocol: ["vxlan", "geneve"],
  "ipam.mode": ["cluster-pool", "kubernetes", "multi-pool", "crd", "eni", "azure", "alibabacloud", "delegated-plugin"],
  "loadBalancer.mode": ["snat", "dsr", "hybrid"],
  "loadBalancer.dsrDispatch": ["opt", "ipip", "geneve"],
  "encryption.type": ["ipsec", "wireguard", "ztunnel"],
};

/**
 * Key paths values.yaml documents only as a comment (`  # mode: snat` inside `loadBalancer:`): the templates read
 * them, the schema omits them. One pass over the text, tracking the uncommented keys above each line.
 */
export function commentedKeys(valuesText: string): Set<string> {
  const out = new Set<string>();
  const stack: string[] = [];
  let annotation = false;
  for (const line of valuesText.split("\n")) {
    // `# @schema` … `# @schema` blocks are helm-schema annotations (`# type: [null, string]`), not keys
    if (/^ *# @schema@?\s*$/.test(line)) {
      annotation = !annotation;
      continue;
    }
    if (!/^ *#/.test(line)) annotation = false;
    else if (annotation) continue;
    const key = /^( *)([A-Za-z0-9_][A-Za-z0-9_.\-/]*):( |$)/.exec(line);
    if (key) {
      const depth = (key[1] ?? "").length / 2;
      stack.length = Math.min(stack.length, depth);
      stack[depth] = key[2] ?? "";
      continue;
    }
    const commented = /^( *)# ([A-Za-z][A-Za-z0-9]*):( |$)/.exec(line);
    if (commented) {
      const depth = (commented[1] ?? "").length / 2;
      if (!Number.isInteger(depth) || depth > stack.length) continue;
      out.add([...stack.slice(0, depth), commented[2]].join("."));
    }
  }
  return out;
}

/** Helm's coalescing of user values over chart defaults: maps merge deeply, anything else wins, null deletes. */
export function coalesce(defaults: Json, user: Json): Json {
  const out: Json = { ...defaults };
  for (const [k, v] of Object.entries(user)) {
    if (v === null) delete out[k];
    else if (isMap(v) && isMap(out[k])) out[k] = coalesce(out[k] as Json, v);
    else out[k] = v;
  }
  return out;
}

interface SchemaNode {
  properties?: Record<string, SchemaNode>;
}

/** A node whose listed properties are label keys (`kubernetes.io/os`) is a free-form map with an example. */
const strictNode = (node: SchemaNode | undefined): node is Required<SchemaNode> =>
  node?.properties !== undefined &&
  Object.keys(node.properties).length > 0 &&
  !Object.keys(node.properties).some((k) => k.includes("/") || k.includes("."));

export interface CiliumChart {
  /** The stored chart version used. */
  readonly chart: string;
  /** Problems of a values document: unknown keys (with a did-you-mean), undocumented values, upstream schema. */
  check(values: unknown): SchemaProblem[];
}

const loaded = new Map<string, Promise<CiliumChart>>();

/** The chart nearest to `version`, parsed and compiled once per process. */
export function loadCiliumChart(version: string): Promise<CiliumChart> {
  const chart = nearestChart(version);
  let p = loaded.get(chart);
  if (!p) {
    p = compileChart(chart);
    loaded.set(chart, p);
  }
  return p;
}

async function compileChart(chart: string): Promise<CiliumChart> {
  const load = CHARTS[chart];
  if (!load) throw new Error("no Cilium chart stored");
  const [schema, valuesText, templates] = await load();
  // a key the templates read is a key of the chart, even where values.schema.json and values.yaml leave it out
  // (nodePort.directRoutingDevice): its prefixes are maps the templates walk through
  const templateKeys = new Set(templates.keys);
  const templatePrefixes = new Set(
    templates.keys.flatMap((k) => k.split(".").map((_, i, parts) => parts.slice(0, i + 1).join("."))),
  );
  // values.yaml is parsed only when a key is not in the schema (parsing it costs about 0.5 s)
  let parsedDefaults: Json | undefined;
  const defaultsAt = (path: readonly string[]): unknown => {
    parsedDefaults ??= (parseYamlDocuments(valuesText)[0] ?? {}) as Json;
    let node: unknown = parsedDefaults;
    for (const p of path) node = isMap(node) ? node[p] : undefined;
    return node;
  };
  const commented = commentedKeys(valuesText);
  const validate = ajv07().compile(withoutMeta(schema));

  const unknownKeys = (values: Json): SchemaProblem[] => {
    const problems: SchemaProblem[] = [];
    const walk = (value: unknown, node: SchemaNode | undefined, path: string[]) => {
      if (!isMap(value) || !strictNode(node)) return;
      for (const [k, v] of Object.entries(value)) {
        const p = [...path, k];
        const def = node.properties[k] ? undefined : defaultsAt(path);
        if (node.properties[k]) walk(v, node.properties[k], p);
        else if (isMap(def) && k in def) continue;
        else if (templateKeys.has(p.join(".")) || (isMap(v) && templatePrefixes.has(p.join(".")))) continue;
        else if (!commented.has(p.join("."))) {
          const siblings = [
            ...Object.keys(node.properties),
            ...(isMap(def) ? Object.keys(def) : []),
            ...[...templatePrefixes, ...commented]
              .filter((c) => c.startsWith(path.join(".")) && c.split(".").length === p.length)
              .map((c) => c.split(".").at(-1) as string),
          ];
          const hint = didYouMean(k, siblings);
          problems.push({
            document: 0,
            pointer: p,
            message: `unknown key ${p.join(".")}: not in the Cilium ${chart} chart's values.schema.json, not documented in its values.yaml and read by none of its templates${hint ? `; did you mean ${[...path, hint].join(".")}?` : ""}`,
          });
        }
      }
    };
    walk(values, schema as SchemaNode, []);
    return problems;
  };

  const undocumentedValues = (values: Json): SchemaProblem[] =>
    Object.entries(DOCUMENTED_VALUES).flatMap(([dotted, allowed]) => {
      const path = dotted.split(".");
      let v: unknown = values;
      for (const p of path) v = isMap(v) ? v[p] : undefined;
      return v === undefined || allowed.includes(v)
        ? []
        : [
            {
              document: 0,
              pointer: path,
              message: `${dotted} must be one of ${JSON.stringify(allowed)} (the values the chart documents)`,
            },
          ];
    });

  return {
    chart,
    check(values) {
      if (!isMap(values)) return [{ document: 0, pointer: [], message: "Cilium values must be a mapping" }];
      // Helm validates the user's values coalesced over values.yaml. The chart schema has no `required` and no
      // `additionalProperties`, and the defaults pass it, so checking the user's values alone gives the same verdict.
      const upstream = validate(values) ? [] : problemsOf(0, validate.errors);
      return [...unknownKeys(values), ...undocumentedValues(values), ...upstream];
    },
  };
}
