// The one list of output formats. The CLI and the golden tests know nothing format-specific beyond it.
import type { GeneratorModule } from "@clusterspec/core";

export const generatorModules: readonly GeneratorModule[] = [];
