// Terraform JSON syntax reads every string as a template: `${` starts an interpolation and `%{` a
// directive. Literal text from the spec is escaped (`$${`, `%%{`); expressions are written only by `expr`.

/** A Terraform JSON object, as the builders return it. */
export type Json = Record<string, unknown>;

/** A literal string as Terraform must see it: `${` → `$${`, `%{` → `%%{`. */
export function tfLiteral(value: string): string {
  return value.replace(/([$%])\{/g, "$1$1{");
}

/** An interpolation of a Terraform expression we generate on purpose (references, path.module, functions). */
export function tfExpr(expression: string): string {
  return `\${${expression}}`;
}
