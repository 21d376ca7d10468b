import { defineConfig } from "vitest/config";
import SkipReasons from "./vitest.skip-reporter.js";

// Tests run on the TypeScript sources through the @clusterspec/source export condition: no build needed for them.
const conditions = ["@clusterspec/source", "import", "default"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    setupFiles: ["./vitest.setup.ts"],
    // After vitest's summary: each skipped test's reason and the command that installs what it needs.
    reporters: ["default", new SkipReasons()],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
