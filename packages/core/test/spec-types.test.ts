import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { CloudBurstSpecSchema, ClusterSpecSchema } from "../src/spec/schema.js";
import type { CloudBurstSpec, CloudBurstSpecInput, ClusterSpec, ClusterSpecInput } from "../src/spec/types.js";
import { renderSpecTypes } from "./spec-types.js";

// Mutual assignability, checked by tsc (the test command runs it): the plain interfaces are the zod types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const outputIsSame: Same<ClusterSpec, z.output<typeof ClusterSpecSchema>> = true;
const inputIsSame: Same<ClusterSpecInput, z.input<typeof ClusterSpecSchema>> = true;
const burstOutputIsSame: Same<CloudBurstSpec, z.output<typeof CloudBurstSpecSchema>> = true;
const burstInputIsSame: Same<CloudBurstSpecInput, z.input<typeof CloudBurstSpecSchema>> = true;

describe("plain spec types", () => {
  it("src/spec/types.ts is what the schema renders", async () => {
    await expect(renderSpecTypes()).toMatchFileSnapshot("../src/spec/types.ts");
  });

  it("equal the zod input and output types (a compile-time check)", () => {
    expect([outputIsSame, inputIsSame, burstOutputIsSame, burstInputIsSame]).toEqual([true, true, true, true]);
  });
});
