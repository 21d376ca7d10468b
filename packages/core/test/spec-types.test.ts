// The plain spec types (src/generated/spec-types.ts, written by `pnpm codegen` and kept current by
// packages/cli/test/generated-sources.test.ts) are the zod schema's input and output types.
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type {
  CloudBurstSpec,
  CloudBurstSpecInput,
  ClusterSpec,
  ClusterSpecInput,
} from "../src/generated/spec-types.js";
import type { CloudBurstSpecSchema, ClusterSpecSchema } from "../src/spec/schema.js";

// Mutual assignability, checked by tsc (the test command runs it): the plain interfaces are the zod types.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const outputIsSame: Same<ClusterSpec, z.output<typeof ClusterSpecSchema>> = true;
const inputIsSame: Same<ClusterSpecInput, z.input<typeof ClusterSpecSchema>> = true;
const burstOutputIsSame: Same<CloudBurstSpec, z.output<typeof CloudBurstSpecSchema>> = true;
const burstInputIsSame: Same<CloudBurstSpecInput, z.input<typeof CloudBurstSpecSchema>> = true;

describe("plain spec types", () => {
  it("equal the zod input and output types (a compile-time check)", () => {
    expect([outputIsSame, inputIsSame, burstOutputIsSame, burstInputIsSame]).toEqual([true, true, true, true]);
  });
});
