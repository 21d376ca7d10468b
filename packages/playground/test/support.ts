// Shared by the playground tests: where test artifacts (screenshots, sizes) go. The folder is gitignored.
import { resolve } from "node:path";

export const artifactsDir = resolve(import.meta.dirname, "../../../.artifacts/playground");
