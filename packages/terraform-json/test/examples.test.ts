import { loadSpec, resolvePlan } from "@clusterspec/core";
import { checkTerraformJson, type ProviderSchemaFile } from "@clusterspec/schemas/terraform";
import { exampleNames, exampleText, readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";

const withCloud = exampleNames().filter((d) => /^cloud:/m.test(exampleText(d)));

describe.each(withCloud)("example %s", (name) => {
  const loaded = loadSpec(exampleText(name));
  if (!loaded.ok) throw new Error(`example ${name} is invalid`);
  const artifacts = generateTerraform(resolvePlan(loaded.value));

  it.each(artifacts.map((a) => [a.path, a.content] as const))("%s matches the provider schema", (_p, text) => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      expect(checkTerraformJson(JSON.parse(text), schema)).toEqual([]);
    }
  });
});
