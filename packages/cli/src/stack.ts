// The command's bundle is minified (shorter names make its V8 code cache smaller and faster to load), so a stack
// trace from it names `a` at `main.cjs:4182:77`. An internal error is the one place that stack is shown: this maps
// each frame back to the TypeScript source through the bundle's source map, with Node's own SourceMap class.
import { SourceMap, type SourceMapPayload } from "node:module";
import { posix } from "node:path";

const FRAME = /^\s*at (?:.*? \()?(.*?):(\d+):(\d+)\)?$/;

/**
 * `stack` with every frame in `bundle` replaced by its source position (`packages/cli/src/write.ts:120:7`); other frames and
 * the message stay as they are. The bundle's function names are minified, so frames carry positions only.
 */
export function readableStack(stack: string, bundle: string, map: SourceMapPayload): string {
  const sourceMap = new SourceMap(map);
  return stack
    .split("\n")
    .map((line) => {
      const m = FRAME.exec(line);
      if (!m || m[1] !== bundle) return line;
      const entry = sourceMap.findEntry(Number(m[2]) - 1, Number(m[3]) - 1) as {
        originalSource?: string;
        originalLine?: number;
        originalColumn?: number;
      };
      if (entry.originalSource === undefined || entry.originalLine === undefined) return line;
      // the map's sources are relative to the bundle's folder: as paths in the repository
      const source = posix.join("packages/cli/dist-bin", entry.originalSource);
      return `    at ${source}:${entry.originalLine + 1}:${(entry.originalColumn ?? 0) + 1}`;
    })
    .join("\n");
}
