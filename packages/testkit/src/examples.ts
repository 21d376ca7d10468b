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
