// What each published package declares: licence, README, links, engines, and exactly the runtime
// dependencies its sources import. scripts/check-packages.mjs (run by .ci/run) checks the packed tarballs.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const license = readFileSync(join(repo, "LICENSE"), "utf8");
const dirs = readdirSync(join(repo, "packages"));
const manifest = (d: string) => JSON.parse(readFileSync(join(repo, "packages", d, "package.json"), "utf8"));
const published = dirs.filter((d) => !manifest(d).private);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

function importedPackages(dir: string): Set<string> {
  const out = new Set<string>();
  // static imports and re-exports, and dynamic import("pkg") (the lazily loaded schemas)
  for (const file of sourceFiles(join(dir, "src")))
    for (const m of readFileSync(file, "utf8").matchAll(
      /^(?:import|export)[^"']*from\s+["']([^"'.][^"']*)["']|\bimport\(\s*["']([^"'.][^"']*)["']/gm,
    )) {
      const spec = m[1] ?? m[2] ?? "";
      if (spec.startsWith("node:")) continue;
      out.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] ?? spec));
    }
  return out;
}

describe("published packages", () => {
  it("are the ten libraries and the CLI; testkit and the examples are private", () => {
    expect(published.map((d) => manifest(d).name).sort()).toEqual([
      "@clusterspec/cilium",
      "@clusterspec/cloud-init",
      "@clusterspec/core",
      "@clusterspec/host",
      "@clusterspec/keepalived",
      "@clusterspec/kubeadm",
      "@clusterspec/netifrc",
      "@clusterspec/rollout",
      "@clusterspec/schemas",
      "@clusterspec/terraform-json",
      "@clusterspec/wireguard",
      "clusterspec",
    ]);
    expect(manifest("testkit").private).toBe(true);
    expect(manifest("testkit").scripts.prepack).toContain("process.exit(1)");
  });

  it.each(published)("%s ships the Apache-2.0 LICENSE and a README, and says where it lives", (d) => {
    const pkg = manifest(d);
    expect(readFileSync(join(repo, "packages", d, "LICENSE"), "utf8")).toBe(license);
    expect(readFileSync(join(repo, "packages", d, "README.md"), "utf8")).toMatch(/ESM only/);
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]));
    expect(pkg.repository).toMatchObject({ type: "git", directory: `packages/${d}` });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\//);
    expect(pkg.type).toBe("module");
    // require(esm) works unflagged from Node 20.19 on.
    expect(pkg.engines).toEqual({ node: ">=20.19" });
  });

  it.each(published)("%s declares exactly the runtime dependencies its sources import", (d) => {
    const pkg = manifest(d);
    const used = importedPackages(join(repo, "packages", d));
    const optionalPeers = Object.keys(pkg.peerDependenciesMeta ?? {});
    for (const p of optionalPeers) used.delete(p);
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual([...used].sort());
  });
});
