// Shared by the playground tests: where test artifacts (screenshots, sizes) go. The folder is gitignored.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { runCli } from "clusterspec/cli";
import { CHANGES_NAMES } from "../src/compare.js";

export const artifactsDir = resolve(import.meta.dirname, "../../../.artifacts/playground");

/** `clusterspec changes base.yaml cluster.yaml --format <format>` in a fresh folder: what the Changes tab must print. */
export async function cliChanges(
  oldText: string,
  newText: string,
  format: "text" | "markdown",
): Promise<{ code: number; stdout: string; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "clusterspec-changes-"));
  try {
    writeFileSync(join(dir, CHANGES_NAMES.oldSpec), oldText);
    writeFileSync(join(dir, CHANGES_NAMES.newSpec), newText);
    let stdout = "";
    let stderr = "";
    const code = await runCli(["changes", CHANGES_NAMES.oldSpec, CHANGES_NAMES.newSpec, "--format", format], {
      cwd: dir,
      env: {},
      stdout: (t) => {
        stdout += t;
      },
      stderr: (t) => {
        stderr += t;
      },
      version: "test",
    });
    return { code, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
