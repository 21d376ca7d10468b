// An internal error in the command's minified bundle is reported at TypeScript source positions (src/stack.ts).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readableStack } from "../src/stack.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const bundle = join(repo, "packages", "cli", "dist-bin", "main.cjs");

/** 1-based line and column of the first occurrence of `text` in `source`. */
function positionOf(source: string, text: string): { line: number; column: number } {
  const at = source.indexOf(text);
  expect(at).toBeGreaterThanOrEqual(0);
  const before = source.slice(0, at).split("\n");
  return { line: before.length, column: (before.at(-1)?.length ?? 0) + 1 };
}

describe("stack traces from the command's bundle", () => {
  it("name the source file and line of each frame in the bundle, and leave other frames alone", () => {
    const code = readFileSync(bundle, "latin1");
    const map = JSON.parse(readFileSync(`${bundle}.map`, "utf8"));
    // A message only write.ts has, found in the bundle as bin.cjs runs it (the file is the function it calls).
    const inBundle = positionOf(code, "refusing to overwrite ");
    const writeTs = readFileSync(join(repo, "packages", "cli", "src", "write.ts"), "utf8");
    const inSource = positionOf(writeTs, "refusing to overwrite ");
    const stack = [
      "Error: boom",
      `    at a (${bundle}:${inBundle.line}:${inBundle.column})`,
      `    at ${bundle}:${inBundle.line}:${inBundle.column}`,
      "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
    ].join("\n");
    const lines = readableStack(stack, bundle, map).split("\n");
    expect(lines[0]).toBe("Error: boom");
    expect(lines[1]).toMatch(new RegExp(`^    at packages/cli/src/write\\.ts:${inSource.line}:\\d+$`));
    expect(lines[2]).toBe(lines[1]);
    expect(lines[3]).toBe("    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)");
  });
});
