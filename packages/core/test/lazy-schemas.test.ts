// The cloud sections' schemas are built on first use (spec/sections/cloud, spec/sections/cloud-burst): a spec without `cloud:` never builds them and
// validates to exactly what the whole schema gives. Its own file, so no other test has built them first.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ClusterSpecSchema, loadSpec, validateSpec } from "@clusterspec/core";
import { arbClusterSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { cloudSchemasBuilt } from "../src/spec/schema.js";

const example = (name: string) =>
  readFileSync(join(import.meta.dirname, "..", "..", "..", "examples", name, "cluster.yaml"), "utf8");

describe("the cloud sections' schemas", () => {
  it("are not built to validate the examples without cloud:, and the values are what the whole schema gives", () => {
    const texts = ["bare-metal-ha", "customised"].map(example);
    const values = texts.map((text) => {
      const r = loadSpec(text);
      expect(r.ok).toBe(true);
      return r.ok ? r.value : undefined;
    });
    expect(cloudSchemasBuilt()).toBe(false);
    texts.forEach((text, i) => {
      expect(values[i]).toStrictEqual(ClusterSpecSchema.parse(parse(text)));
    });
    expect(cloudSchemasBuilt()).toBe(true);
  });

  it("give every valid spec, with or without cloud:, the value and errors of the whole schema", () => {
    fc.assert(
      fc.property(arbClusterSpec(), fc.boolean(), (spec, typo) => {
        // A misspelt key: the message still offers every known key, cloud included.
        const input = typo ? { ...spec, clod: {} } : spec;
        const r = validateSpec(input);
        const whole = ClusterSpecSchema.safeParse(input);
        expect(r.ok).toBe(whole.success);
        if (r.ok && whole.success) expect(r.value).toStrictEqual(whole.data);
        if (!r.ok)
          expect(r.errors.map((e) => e.message).join("\n")).toContain('unknown key "clod" (did you mean "cloud"?)');
      }),
      { numRuns: 60 },
    );
  });
});
