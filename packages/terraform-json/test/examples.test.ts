import { loadSpec, resolvePlan } from "@clusterspec/core";
import { checkTerraformJson, type ProviderSchemaFile } from "@clusterspec/schemas/terraform";
import { cloudSpecTexts, readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";

// the examples with a cloud section and the dual-stack fixtures (IPv6 interfaces, IMDS over IPv6, subnet checks)
describe.each(cloudSpecTexts())("example %s", (name, text) => {
  const loaded = loadSpec(text);
  if (!loaded.ok) throw new Error(`example ${name} is invalid`);
  const artifacts = generateTerraform(resolvePlan(loaded.value));

  it.each(artifacts.map((a) => [a.path, a.content] as const))("%s matches the provider schema", (_p, text) => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      expect(checkTerraformJson(JSON.parse(text), schema)).toEqual([]);
    }
  });
});
