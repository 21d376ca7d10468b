import { defineConfig } from "tsup";
import { base } from "../../tsup.base.js";

// The library (src/index.ts) and the command (src/bin.ts, run by bin.mjs).
export default defineConfig({ ...base, entry: ["src/index.ts", "src/bin.ts"] });
