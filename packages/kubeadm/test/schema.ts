// Strict kubeadm/kubelet schema (see packages/schemas/PROVENANCE.md): one validator per apiVersion/kind root.
import { kubernetesValidator, kubeadmSchema as runtimeSchema } from "@clusterspec/schemas/kubernetes";
import { formatAjvErrors, type ValidateFunction } from "@clusterspec/testkit";

// The validators are the ones generate runs (@clusterspec/schemas); this file adds the tests' schema walks.
export const kubeadmSchema = runtimeSchema as unknown as {
  "x-gvk": Record<string, string>;
  "x-kubelet-field-since": Record<string, string>;
  definitions: Record<string, SchemaNode>;
};

export interface SchemaNode {
  $ref?: string;
  allOf?: SchemaNode[];
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
}

/** The validator of the root for `apiVersion/kind`; throws for a kind the schema does not know. */
export function validatorFor(apiVersion: string, kind: string): ValidateFunction {
  const v = kubernetesValidator(apiVersion, kind);
  if (!v) throw new Error(`no schema root for ${apiVersion}/${kind}`);
  return v;
}

/** Validation errors of one document against its root ("" when valid). */
export function schemaErrors(doc: Record<string, unknown>): string {
  const v = validatorFor(String(doc.apiVersion), String(doc.kind));
  return v(doc) ? "" : formatAjvErrors(v.errors);
}

function resolve(node: SchemaNode): SchemaNode {
  let n = node;
  while (n.$ref) n = kubeadmSchema.definitions[n.$ref.replace("#/definitions/", "")] ?? {};
  if (n.allOf) {
    const parts = n.allOf.map(resolve);
    return { ...n, properties: Object.assign({}, ...parts.map((p) => p.properties ?? {}), n.properties ?? {}) };
  }
  return n;
}

/** Every key path (arrays as `[]`, maps as `*`) that the schema root allows, to a bounded depth. */
export function allowedPaths(apiVersion: string, kind: string, depth = 6): Set<string> {
  const out = new Set<string>();
  const walk = (node: SchemaNode, prefix: string, d: number) => {
    if (d === 0) return;
    const n = resolve(node);
    for (const [k, child] of Object.entries(n.properties ?? {})) {
      const p = prefix ? `${prefix}.${k}` : k;
      out.add(p);
      walk(child, p, d - 1);
    }
    if (n.items) walk(n.items, `${prefix}[]`, d - 1);
    if (typeof n.additionalProperties === "object") {
      out.add(`${prefix}.*`);
      walk(n.additionalProperties, `${prefix}.*`, d - 1);
    }
  };
  const ref = kubeadmSchema["x-gvk"][`${apiVersion}/${kind}`];
  if (!ref) throw new Error(`no schema root for ${apiVersion}/${kind}`);
  walk({ $ref: ref }, "", depth);
  return out;
}

/** Key paths of a document, in the notation of allowedPaths; map-valued fields are passed as `mapFields`. */
export function documentPaths(value: unknown, mapFields: ReadonlySet<string>, prefix = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v) => documentPaths(v, mapFields, `${prefix}[]`));
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => {
    const p = mapFields.has(prefix) ? `${prefix}.*` : prefix ? `${prefix}.${k}` : k;
    return [p, ...documentPaths(v, mapFields, p)];
  });
}
