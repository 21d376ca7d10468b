// The bundled example clusters, for tests that run on the reference specs.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";

export const examplesDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples");

/** Example folders that hold a cluster.yaml, e.g. `bare-metal-ha`, `hybrid-cloud-burst`. */
export function exampleNames(): string[] {
  return readdirSync(examplesDir)
    .filter((d) => existsSync(join(examplesDir, d, "cluster.yaml")))
    .sort();
}

/** Examples that generate a cluster (not only the cloud burst of an existing one). */
export function clusterExampleNames(): string[] {
  return exampleNames().filter((d) => !/^existingCluster:/m.test(exampleText(d)));
}

export function exampleText(name = "bare-metal-ha"): string {
  return readFileSync(join(examplesDir, name, "cluster.yaml"), "utf8");
}

/** An example spec as a plain object, fresh on every call so tests may mutate it. */
// biome-ignore lint/suspicious/noExplicitAny: tests edit specs freely to break them on purpose
export function exampleInput(name = "bare-metal-ha"): any {
  return parse(exampleText(name));
}

/** Test fixture specs beside the examples (packages/testkit/fixtures/<name>.yaml), e.g. the dual-stack cloud burst. */
export const fixturesDir = join(dirname(fileURLToPath(import.meta.url)), "..", "fixtures");

/** The fixture specs' names: `dual-stack-cloud`, `dual-stack-cloud-burst-only`, `ipv6-only`, `ipv6-only-cloud-burst-only`. */
export function fixtureNames(): string[] {
  return readdirSync(fixturesDir)
    .filter((f) => f.endsWith(".yaml"))
    .map((f) => f.slice(0, -".yaml".length))
    .sort();
}

export function fixtureText(name: string): string {
  return readFileSync(join(fixturesDir, `${name}.yaml`), "utf8");
}

/** Where a fixture's golden tree is committed: packages/testkit/fixtures/generated/<name>/ (examples/examples.test.ts). */
export function fixtureGeneratedDir(name: string): string {
  return join(fixturesDir, "generated", name);
}

/** The spec text of an example (`dual-stack`) or of a fixture (`fixture:ipv6-only`). */
export function specText(name: string): string {
  return name.startsWith("fixture:") ? fixtureText(name.slice("fixture:".length)) : exampleText(name);
}

/** A spec of specText as a plain object, fresh on every call so tests may mutate it. */
// biome-ignore lint/suspicious/noExplicitAny: tests edit specs freely to break them on purpose
export function specInput(name: string): any {
  return parse(specText(name));
}

/** Every spec by its specText name: the examples' (`dual-stack`), then the fixtures' (`fixture:ipv6-only`). */
function specNames(): string[] {
  return [...exampleNames(), ...fixtureNames().map((n) => `fixture:${n}`)];
}

/** Every spec that generates a cluster, by name: clusterExampleNames() and the fixtures' (`fixture:ipv6-only`). */
export function clusterSpecNames(): string[] {
  return specNames().filter((n) => !/^existingCluster:/m.test(specText(n)));
}

/** Every spec with a cloud section, by name: the examples' (`hybrid-cloud-burst`) and the fixtures' (`fixture:<name>`). */
export function cloudSpecTexts(): (readonly [string, string])[] {
  return specNames()
    .map((n) => [n, specText(n)] as const)
    .filter(([, text]) => /^cloud:/m.test(text));
}
