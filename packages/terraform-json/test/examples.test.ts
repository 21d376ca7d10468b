// Every example with a cloud section: its Terraform files pass the provider schema subsets.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSpec, resolvePlan } from "@clusterspec/core";
import { readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/index.js";
import { checkTerraformJson, type ProviderSchemaFile } from "./provider-schema.js";

const examples = join(import.meta.dirname, "..", "..", "..", "examples");
const withCloud = readdirSync(examples).filter((d) => {
  const file = join(examples, d, "cluster.yaml");
  return existsSync(file) && /^cloud:/m.test(readFileSync(file, "utf8"));
});

describe.each(withCloud)("example %s", (name) => {
  const loaded = loadSpec(readFileSync(join(examples, name, "cluster.yaml"), "utf8"));
  if (!loaded.ok) throw new Error(`example ${name} is invalid`);
  const artifacts = generateTerraform(resolvePlan(loaded.value));

  it.each(artifacts.map((a) => [a.path, a.content] as const))("%s matches the provider schema", (_p, text) => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      expect(checkTerraformJson(JSON.parse(text), schema)).toEqual([]);
    }
  });
});
