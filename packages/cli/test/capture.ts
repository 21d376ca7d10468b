// The command run in-process as the tests drive it: argv in; exit code, stdout and stderr out.
import { type CliIO, runCli } from "clusterspec/cli";

export interface Captured {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What a test sets of the process; the streams are always captured. */
export type TestIO = Partial<Omit<CliIO, "cwd" | "stdout" | "stderr">>;

/** Runs `clusterspec <argv>` in `cwd` with an empty environment (unless `io` says otherwise). */
export async function runCaptured(argv: readonly string[], cwd: string, io: TestIO = {}): Promise<Captured> {
  let stdout = "";
  let stderr = "";
  const code = await runCli([...argv], {
    env: {},
    version: "0.0.0-test",
    ...io,
    cwd,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}
