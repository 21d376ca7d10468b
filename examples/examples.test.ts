// Golden review: every example's generated/ tree must equal a fresh generation, byte for byte.
// Update with `pnpm test:update`, then review `git diff examples/` like code.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseYamlDocuments, specJsonSchema } from "@clusterspec/core";
import { renderSpecReference } from "@clusterspec/core/testing";
import { type GenerateResult, generateChecked } from "clusterspec";
import { MANIFEST, nodeFileSystem, renderManifest } from "clusterspec/cli";
import { describe, expect, it } from "vitest";

const root = import.meta.dirname;
const exampleDirs = readdirSync(root).filter((d) => existsSync(join(root, d, "cluster.yaml")));
// generateChecked: examples with overlays or free-form values are checked against the upstream schemas, as the CLI does.
const results = new Map<string, GenerateResult>();
for (const name of exampleDirs)
  results.set(
    name,
    await generateChecked(readFileSync(join(root, name, "cluster.yaml"), "utf8"), { sourceName: "cluster.yaml" }),
  );

describe.each(exampleDirs)("example %s", (name) => {
  const dir = join(root, name);
  const result = results.get(name) as GenerateResult;
  if (!result.ok) throw new Error(`example ${name} is invalid: ${JSON.stringify(result.errors)}`);
  const artifacts = result.artifacts;

  it.each(artifacts.map((a) => [a.path, a] as const))("%s matches its golden file", async (_path, artifact) => {
    await expect(artifact.content).toMatchFileSnapshot(join(dir, "generated", artifact.path));
  });

  it("carries the manifest clusterspec generate writes, so the CLI manages the committed tree", async () => {
    await expect(renderManifest(artifacts, "placeholders")).toMatchFileSnapshot(join(dir, "generated", MANIFEST));
  });

  it("commits scripts executable", () => {
    for (const a of artifacts.filter((x) => ((x.mode ?? 0) & 0o111) !== 0))
      expect(statSync(join(dir, "generated", a.path)).mode & 0o111, a.path).not.toBe(0);
  });

  it("leaves no stale golden files", () => {
    const emitted = new Set(artifacts.map((a) => a.path));
    const onDisk = nodeFileSystem.listFiles(join(dir, "generated")).filter((f) => f !== MANIFEST);
    expect(onDisk.filter((f) => !emitted.has(f))).toEqual([]);
  });

  it("parses back every YAML and JSON golden", () => {
    for (const a of artifacts) {
      if (/\.ya?ml$/.test(a.path)) expect(() => parseYamlDocuments(a.content)).not.toThrow();
      if (a.path.endsWith(".json")) expect(() => JSON.parse(a.content)).not.toThrow();
    }
  });

  it("holds placeholders, never a real-shaped secret, in every golden secret file", () => {
    const secretFiles = artifacts.filter((a) => a.secret);
    expect(secretFiles.length).toBeGreaterThan(0);
    for (const a of secretFiles) {
      const onDisk = readFileSync(join(dir, "generated", a.path), "utf8");
      expect(onDisk, a.path).not.toMatch(/\b[a-z0-9]{6}\.[a-z0-9]{16}\b|\b[0-9a-f]{64}\b/);
      expect(
        Object.values(result.plan.secrets).some((s) => s?.isPlaceholder && onDisk.includes(s.value)),
        a.path,
      ).toBe(true);
    }
  });
});

describe("spec documentation", () => {
  it("examples/cluster.schema.json is the current JSON Schema (for yaml-language-server)", async () => {
    await expect(`${JSON.stringify(specJsonSchema(), null, 2)}\n`).toMatchFileSnapshot(
      join(root, "cluster.schema.json"),
    );
  });

  it("docs/spec-reference.md is the current field reference", async () => {
    await expect(renderSpecReference()).toMatchFileSnapshot(join(root, "..", "docs", "spec-reference.md"));
  });
});
