// The strict kubeadm/kubelet schema (data/kubernetes, see PROVENANCE.md): one validator per apiVersion/kind root.
import type { SchemaProblem } from "@clusterspec/core";
import schema from "../data/kubernetes/kubeadm-kubelet-config.schema.json" with { type: "json" };
import apiSubset from "../data/kubernetes/openapi-v3-subset.json" with { type: "json" };
import { ajv07, problemsOf, type ValidateFunction, withoutMeta } from "./ajv.js";

export const KUBELET_API_VERSION = "kubelet.config.k8s.io/v1beta1";

export const kubeadmSchema = schema as unknown as {
  "x-gvk": Record<string, string>;
  "x-kubelet-field-since": Record<string, string>;
  definitions: Record<string, unknown>;
};

let ajv: ReturnType<typeof ajv07> | undefined;
const validators = new Map<string, ValidateFunction>();

/** The validator of the root for `apiVersion/kind`; undefined for a kind the schema does not know. */
export function kubernetesValidator(apiVersion: string, kind: string): ValidateFunction | undefined {
  const key = `${apiVersion}/${kind}`;
  const cached = validators.get(key);
  if (cached) return cached;
  const ref = kubeadmSchema["x-gvk"][key];
  if (!ref) return undefined;
  if (!ajv) {
    ajv = ajv07();
    ajv.addSchema(withoutMeta(schema as Record<string, unknown>), "kubeadm");
  }
  const v = ajv.getSchema(`kubeadm${ref}`);
  if (!v) return undefined;
  validators.set(key, v);
  return v;
}

/** Problems of the documents of a kubeadm.yaml against their roots (strict: unknown fields are errors). */
export function checkKubernetesDocuments(docs: readonly unknown[]): SchemaProblem[] {
  return docs.flatMap((doc, i) => {
    const d = (doc ?? {}) as Record<string, unknown>;
    const v = kubernetesValidator(String(d.apiVersion), String(d.kind));
    if (!v)
      return [
        {
          document: i,
          pointer: ["kind"],
          message: `${String(d.apiVersion)} ${String(d.kind)} is not a kubeadm or kubelet configuration kind`,
        },
      ];
    return v(d) ? [] : problemsOf(i, v.errors);
  });
}

/** A kubeadm kubeletconfiguration patch: KubeletConfiguration fields without apiVersion/kind. */
export function checkKubeletPatch(doc: unknown): SchemaProblem[] {
  const v = kubernetesValidator(KUBELET_API_VERSION, "KubeletConfiguration");
  if (!v) return [];
  const full = { apiVersion: KUBELET_API_VERSION, kind: "KubeletConfiguration", ...(doc as object) };
  return v(full) ? [] : problemsOf(0, v.errors);
}

// ---- Kubernetes API objects (data/kubernetes/openapi-v3-subset.json, see PROVENANCE.md) ----------------------------

type GvkSchema = { "x-kubernetes-group-version-kind"?: { group: string; version: string; kind: string }[] };

/** Every object schema that lists its properties refuses others (the API server's strict field validation). */
function closed(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== "object") return node;
  const out: Record<string, unknown> = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
  if (out.type === "object" && out.properties !== undefined && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

let apiAjv: ReturnType<typeof ajv07> | undefined;
const apiValidators = new Map<string, ValidateFunction>();

/** The kinds of the API subset as `apiVersion/kind` (e.g. `rbac.authorization.k8s.io/v1/Role`). */
export function kubernetesApiKinds(): string[] {
  return Object.values(apiSubset.components.schemas as Record<string, GvkSchema>).flatMap((s) =>
    (s["x-kubernetes-group-version-kind"] ?? []).map(
      (g) => `${g.group === "" ? "" : `${g.group}/`}${g.version}/${g.kind}`,
    ),
  );
}

/** The validator of an API object of `apiVersion` and `kind`; undefined for a kind the subset does not hold. */
export function kubernetesApiValidator(apiVersion: string, kind: string): ValidateFunction | undefined {
  const key = `${apiVersion}/${kind}`;
  const cached = apiValidators.get(key);
  if (cached) return cached;
  const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
  const name = Object.entries(apiSubset.components.schemas as Record<string, GvkSchema>).find(([, s]) =>
    (s["x-kubernetes-group-version-kind"] ?? []).some(
      (g) => g.group === group && g.version === version && g.kind === kind,
    ),
  )?.[0];
  if (name === undefined) return undefined;
  if (!apiAjv) {
    apiAjv = ajv07();
    apiAjv.addSchema({ components: closed(apiSubset.components) }, "k8s-api");
  }
  const v = apiAjv.getSchema(`k8s-api#/components/schemas/${name}`);
  if (!v) return undefined;
  apiValidators.set(key, v);
  return v;
}

/** Problems of Kubernetes API objects (e.g. the documents of cloud/provisioner/rbac.yaml) against the API subset. */
export function checkKubernetesApiObjects(docs: readonly unknown[]): SchemaProblem[] {
  return docs.flatMap((doc, i) => {
    const d = (doc ?? {}) as Record<string, unknown>;
    const v = kubernetesApiValidator(String(d.apiVersion), String(d.kind));
    if (!v)
      return [
        {
          document: i,
          pointer: ["kind"],
          message: `${String(d.apiVersion)} ${String(d.kind)} is not a kind of the API subset`,
        },
      ];
    return v(d) ? [] : problemsOf(i, v.errors);
  });
}
