// runCli in-process with its output captured: what the CLI tests that check text, exit code and files share.
import { type FileSystem, runCli } from "clusterspec/cli";

export async function captureCli(
  argv: string[],
  options: { readonly cwd: string; readonly env?: Record<string, string>; readonly fs?: FileSystem },
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await runCli(argv, {
    cwd: options.cwd,
    env: options.env ?? {},
    version: "0.0.0-test",
    ...(options.fs ? { fs: options.fs } : {}),
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stdout, stderr };
}
