// Upstream JSON schemas (in packages/schemas/data, with provenance) compiled with ajv, for the tests.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import AjvDraft04 from "ajv-draft-04";
import addFormats from "ajv-formats";

export const schemaDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "schemas", "data");

export function readSchema(relativePath: string): Record<string, unknown> {
  return JSON.parse(readFileSync(join(schemaDir, relativePath), "utf8")) as Record<string, unknown>;
}

/** ajv for draft-07 schemas (kubeadm/kubelet, Cilium chart). */
export function ajv07(): InstanceType<typeof Ajv.default> {
  const ajv = new Ajv.default({ strict: false, allErrors: true, validateFormats: true, logger: false });
  addFormats.default(ajv as never);
  return ajv;
}

/** ajv for draft-04 (cloud-init's schema, like its Draft4Validator). */
export function ajv04(): InstanceType<typeof AjvDraft04.default> {
  const ajv = new AjvDraft04.default({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv as never);
  return ajv;
}

export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
    .join("\n");
}

export type { ValidateFunction };
