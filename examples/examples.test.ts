// Golden review: every example's generated/ tree, and every testkit fixture's tree under
// packages/testkit/fixtures/generated/<name>/, must equal a fresh generation, byte for byte.
// Update with `pnpm test:update`, then review `git diff examples/ packages/testkit/fixtures/` like code.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseYamlDocuments, specJsonSchema } from "@clusterspec/core";
import { renderSpecReference } from "@clusterspec/core/testing";
import { exampleNames, fixtureGeneratedDir, fixtureNames, fixturesDir } from "@clusterspec/testkit";
import { type GenerateResult, generateChecked } from "clusterspec";
import { MANIFEST, nodeFileSystem, renderManifest } from "clusterspec/cli";
import { describe, expect, it } from "vitest";

const root = import.meta.dirname;
/** One golden tree: the spec it is generated from, the name its headers cite, and the folder it is committed in. */
interface GoldenTree {
  label: string;
  spec: string;
  sourceName: string;
  generated: string;
}
const trees: GoldenTree[] = [
  ...exampleNames().map((name) => ({
    label: `example ${name}`,
    spec: join(root, name, "cluster.yaml"),
    sourceName: "cluster.yaml",
    generated: join(root, name, "generated"),
  })),
  ...fixtureNames().map((name) => ({
    label: `fixture ${name}`,
    spec: join(fixturesDir, `${name}.yaml`),
    sourceName: `${name}.yaml`,
    generated: fixtureGeneratedDir(name),
  })),
];
// generateChecked: specs with overlays or free-form values are checked against the upstream schemas, as the CLI does.
const results = new Map<string, GenerateResult>();
for (const t of trees)
  results.set(t.label, await generateChecked(readFileSync(t.spec, "utf8"), { sourceName: t.sourceName }));

it("checks the golden tree of every example and every testkit fixture, and keeps no tree of a removed fixture", () => {
  expect(trees.map((t) => t.label)).toEqual(expect.arrayContaining(["example bare-metal-ha", "fixture ipv6-only"]));
  expect(readdirSync(join(fixturesDir, "generated")).sort()).toEqual(fixtureNames());
});

describe.each(trees.map((t) => [t.label, t] as const))("%s", (label, tree) => {
  const dir = tree.generated;
  const result = results.get(label) as GenerateResult;
  if (!result.ok) throw new Error(`${label} is invalid: ${JSON.stringify(result.errors)}`);
  const artifacts = result.artifacts;

  it.each(artifacts.map((a) => [a.path, a] as const))("%s matches its golden file", async (_path, artifact) => {
    await expect(artifact.content).toMatchFileSnapshot(join(dir, artifact.path));
  });

  it("carries the manifest clusterspec generate writes, so the CLI manages the committed tree", async () => {
    await expect(renderManifest(artifacts, "placeholders")).toMatchFileSnapshot(join(dir, MANIFEST));
  });

  it("commits scripts executable", () => {
    for (const a of artifacts.filter((x) => ((x.mode ?? 0) & 0o111) !== 0))
      expect(statSync(join(dir, a.path)).mode & 0o111, a.path).not.toBe(0);
  });

  it("leaves no stale golden files", () => {
    const emitted = new Set(artifacts.map((a) => a.path));
    const onDisk = nodeFileSystem.listFiles(dir).filter((f) => f !== MANIFEST);
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
      const onDisk = readFileSync(join(dir, a.path), "utf8");
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
