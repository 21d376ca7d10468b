// Bundled into the command only, in place of @clusterspec/schemas (tsup.config.ts). The upstream schemas and ajv are
// a third of the command's code, and only a spec with free-form parts (overlays, cilium.values, kubernetes.kubelet)
// checks against them; yet V8 parses every byte of the one file it compiles, on every run without a code cache. So
// they are their own file, dist-chunks/schemas.cjs, that bin.cjs compiles (through its code cache) on first use,
// running with this bundle's own core: one copy of core's classes and state, and no second zod schema to build.
import * as core from "@clusterspec/core";
import type * as Schemas from "@clusterspec/schemas";

/** bin.cjs's loader of dist-chunks/<name>.cjs: the chunk's exports, its require answered by `load`. */
declare const __clusterspecChunk: (name: string, load: (id: string) => unknown) => unknown;

let schemas: typeof Schemas | undefined;

function chunk(): typeof Schemas {
  schemas ??= __clusterspecChunk("schemas", (id) => {
    if (id === "@clusterspec/core") return core;
    throw new Error(`dist-chunks/schemas.cjs requires ${id}: only @clusterspec/core is left out of it`);
  }) as typeof Schemas;
  return schemas;
}

export const loadArtifactChecker: typeof Schemas.loadArtifactChecker = (options) =>
  chunk().loadArtifactChecker(options);
