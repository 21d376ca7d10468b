// Renders src/spec/types.ts: the spec as plain TypeScript interfaces, from the zod schema's JSON Schema,
// so the declaration files consumers load never reach into zod's types (a consumer's tsc stays fast).
import { CloudBurstSpecSchema, ClusterSpecSchema } from "@clusterspec/core";
import { z } from "zod";

interface JsonSchema {
  type?: string | string[];
  description?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  additionalProperties?: JsonSchema | boolean;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

function typeOf(s: JsonSchema, indent: string): string {
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((e) => JSON.stringify(e)).join(" | ");
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return alts.map((a) => paren(typeOf(a, indent))).join(" | ");
  const t = s.type;
  if (Array.isArray(t)) return t.map((x) => typeOf({ ...s, type: x }, indent)).join(" | ");
  switch (t) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array":
      return `${paren(s.items ? typeOf(s.items, indent) : "unknown")}[]`;
    case "object": {
      if (s.properties) return objectOf(s, indent);
      if (typeof s.additionalProperties === "object")
        return `{ [key: string]: ${typeOf(s.additionalProperties, indent)} }`;
      return "Record<string, unknown>";
    }
    default:
      return "unknown";
  }
}

const paren = (t: string) => (t.includes(" | ") && !t.startsWith("{") ? `(${t})` : t);

function objectOf(s: JsonSchema, indent: string): string {
  const inner = `${indent}  `;
  const required = new Set(s.required ?? []);
  const lines = Object.entries(s.properties ?? {}).map(([key, prop]) => {
    const name = IDENT.test(key) ? key : JSON.stringify(key);
    const doc = prop.description ? `${inner}/** ${prop.description.replace(/\*\//g, "* /")} */\n` : "";
    const optional = !required.has(key);
    return `${doc}${inner}${name}${optional ? "?" : ""}: ${typeOf(prop, inner)}${optional ? " | undefined" : ""};`;
  });
  return `{\n${lines.join("\n")}\n${indent}}`;
}

export function renderSpecTypes(): string {
  const json = (schema: z.ZodType, io: "input" | "output") =>
    z.toJSONSchema(schema, { io, unrepresentable: "any" }) as unknown as JsonSchema;
  const body = (io: "input" | "output") => objectOf(json(ClusterSpecSchema, io), "");
  const burst = (io: "input" | "output") => objectOf(json(CloudBurstSpecSchema, io), "");
  return `// Generated from the zod schema by packages/core/test/spec-types.test.ts (\`npx vitest run packages/core/test/spec-types.test.ts -u\`).
// Plain interfaces, so declaration files never reach into zod's types and a consumer's tsc stays fast;
// the test also proves them equal to z.input / z.output of ClusterSpecSchema.

/** The spec as it is written (defaults may be left out). */
export interface ClusterSpecInput ${body("input")}

/** A validated spec: defaults filled in. */
export interface ClusterSpec ${body("output")}

export type NodeSpec = ClusterSpec["nodes"][number];
export type InterfaceSpec = NodeSpec["interfaces"][string];
export type SegmentSpec = ClusterSpec["network"]["segments"][number];
export type PoolSpec = NonNullable<ClusterSpec["cloud"]>["pools"][number];
export type SecretRef = NonNullable<ClusterSpec["vrrp"]["auth"]>["password"];

/** The cloud burst of an existing cluster, as it is written. */
export interface CloudBurstSpecInput ${burst("input")}

/** A validated cloud-burst spec: defaults filled in. */
export interface CloudBurstSpec ${burst("output")}

/** Either kind of spec. */
export type AnySpec = ClusterSpec | CloudBurstSpec;
export type CloudSpec = NonNullable<ClusterSpec["cloud"]>;
`;
}
