import { defaultClientConditions, defineConfig } from "vite";

// Workspace packages resolve to their TypeScript sources (as in the tests): no library build needed first.
// Relative base: the built folder works from any path, including file copies and sub-folders.
export default defineConfig({
  base: "./",
  resolve: { conditions: ["@clusterspec/source", ...defaultClientConditions] },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1" },
  build: { target: "es2023", outDir: "dist", emptyOutDir: true, chunkSizeWarningLimit: 1500 },
});
