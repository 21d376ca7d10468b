// Issue 32 item 5: an overlay's strings reach Terraform JSON as literals, map keys included: Terraform evaluates
// `${…}` (an interpolation) and `%{…}` (a directive) in every string of its JSON syntax, `$${` and `%%{` are text.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { terraformLiteral, terraformLiterals } from "@clusterspec/core";
import { generateChecked } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const hybrid = readFileSync(join(repo, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8");

describe("overlay strings on Terraform JSON are literals", () => {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: Terraform's syntax, not a template
  it('writes ${file("/etc/passwd")}, ${HOME} and %{http_code} escaped, in values and in keys', async () => {
    const r = await generateChecked(
      `${hybrid}overlays:\n  - target: cloud/terraform/pool-ci-arm64.tf.json\n    patch: { output: { "x\${HOME}": { value: '\${file("/etc/passwd")} %{http_code} $\${kept}' } } }\n`,
    );
    expect(r.ok).toBe(true);
    const file = r.ok ? r.artifacts.find((a) => a.path === "cloud/terraform/pool-ci-arm64.tf.json") : undefined;
    const json = JSON.parse(file?.content ?? "{}");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Terraform's syntax, not a template
    expect(json.output).toEqual({ "x$${HOME}": { value: '$${file("/etc/passwd")} %%{http_code} $$${kept}' } });
  });

  it("property: a literal reads back as its input (Terraform's unescape), keys and values alike", () => {
    // Terraform's template scanner reads `$${` as `${` and `%%{` as `%{` (hclsyntax scan_string_lit.rl).
    const read = (s: string) => s.replace(/([$%])\1\{/g, "$1{");
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("$", "%", "{", "}", "a") }), (s) => {
        const lit = terraformLiteral(s);
        expect(read(lit)).toBe(s);
        expect(terraformLiterals({ [s]: [s, { [s]: s }] })).toEqual({ [lit]: [lit, { [lit]: lit }] });
      }),
    );
  });
});
