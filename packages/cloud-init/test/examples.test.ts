// Every example with a cloud section, and the dual-stack test fixtures: its user data passes both cloud-init schemas
// and the real tool.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, parseYamlDocuments, resolvePlan } from "@clusterspec/core";
import { ajv04, cloudSpecTexts, formatAjvErrors, readSchema, run, toolAvailable } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateCloudInit } from "../src/generate.js";

const schemas = ["cloud-init/schema-cloud-config-v1.json", "cloud-init/debian-22.4.2/schema-cloud-config-v1.json"].map(
  (path) => [path, ajv04().compile(readSchema(path))] as const,
);

describe.each(cloudSpecTexts())("example %s", (name, text) => {
  const loaded = loadSpec(text);
  if (!loaded.ok) throw new Error(`example ${name} is invalid`);
  const artifacts = generateCloudInit(resolvePlan(loaded.value)).filter((a) => a.path.endsWith("/user-data.yaml"));

  it("has user data", () => {
    expect(artifacts.length).toBeGreaterThan(0);
  });

  it.each(artifacts.map((a) => [a.path, a.content] as const))("%s passes both cloud-config schemas", (_p, text) => {
    const doc = parseYamlDocuments(text)[0];
    for (const [path, validate] of schemas) {
      expect(validate(doc), `${path}: ${formatAjvErrors(validate.errors)}`).toBe(true);
    }
  });

  // toolAvailable throws under CI when cloud-init is missing, so CI can never skip this.
  it.for(artifacts.map((a) => [a.path, a.content] as const))("%s passes cloud-init schema", ([, text], ctx) => {
    if (!toolAvailable("cloud-init")) return ctx.skip("needs the real tool (installed by .ci/run)");
    const dir = mkdtempSync(join(tmpdir(), "cs-cloud-init-"));
    try {
      writeFileSync(join(dir, "user-data"), text);
      const r = run("cloud-init", ["schema", "--config-file", join(dir, "user-data")]);
      expect(`${r.status} ${r.stdout}${r.stderr}`).toMatch(/^0 Valid cloud-config/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
