// Real validators run by the tests. A missing tool fails loudly under CI (CI=true) instead of skipping.
import { execFileSync, spawnSync } from "node:child_process";

export interface ToolResult {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export function run(cmd: string, args: readonly string[], input?: string): ToolResult {
  const r = spawnSync(cmd, args, { encoding: "utf8", input, timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export function hasTool(cmd: string): boolean {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { encoding: "utf8" }).status === 0;
}

/**
 * True when the tool (and, with `root`, root rights) is available. Under CI a missing tool throws,
 * so a CI run can never pass by skipping the real check; on a developer machine the caller may skip.
 */
export function toolAvailable(cmd: string, options: { root?: boolean } = {}): boolean {
  const ok = hasTool(cmd) && (!options.root || process.getuid?.() === 0);
  if (!ok && process.env.CI) {
    throw new Error(`${cmd}${options.root ? " (as root)" : ""} is required under CI: .ci/run installs it`);
  }
  return ok;
}

export function sh(script: string): string {
  return execFileSync("bash", ["-c", script], { encoding: "utf8" });
}
