import { defineConfig } from "vitest/config";

// Tests run on the TypeScript sources through the @clusterspec/source export condition: no build needed for them.
const conditions = ["@clusterspec/source", "import", "default"];

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: conditions } },
  test: {
    include: ["packages/*/test/**/*.test.ts", "examples/**/*.test.ts"],
    setupFiles: ["./vitest.setup.ts"],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
