// Terraform JSON syntax reads every string as a template: `${` starts an interpolation and `%{` a
// directive. Literal text from the spec is escaped (`$${`, `%%{`); expressions are written only by `expr`.

import { terraformLiteral, terraformLiterals } from "@clusterspec/core";

/** A Terraform JSON object, as the builders return it. */
export type Json = Record<string, unknown>;

/**
 * A literal string as Terraform must see it: `${` → `$${`, `%{` → `%%{`. The one implementation is core's, which
 * the overlays use too (an overlay's strings and keys on a `.tf.json` are literals, issue 32 item 5).
 */
export const tfLiteral: (value: string) => string = terraformLiteral;

/** Every string of a JSON value, map keys included, as a Terraform literal. */
export const tfLiterals: (value: unknown) => unknown = terraformLiterals;

/** An interpolation of a Terraform expression we generate on purpose (references, path.module, functions). */
export function tfExpr(expression: string): string {
  return `\${${expression}}`;
}
