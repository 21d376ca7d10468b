// The strict kubeadm/kubelet schema (data/kubernetes, see PROVENANCE.md): one validator per apiVersion/kind root.
import type { SchemaProblem } from "@clusterspec/core";
import schema from "../data/kubernetes/kubeadm-kubelet-config.schema.json" with { type: "json" };
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
