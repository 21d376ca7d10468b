import { afterEach, beforeEach, vi } from "vitest";

// Generators must be silent: any console call is a failure (zod scripts/fail-on-console.ts).
const methods = ["log", "info", "warn", "error", "debug"] as const;
beforeEach(() => {
  for (const m of methods) {
    vi.spyOn(console, m).mockImplementation((...args: unknown[]) => {
      throw new Error(`console.${m} called in a test: ${args.map(String).join(" ")}`);
    });
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});
