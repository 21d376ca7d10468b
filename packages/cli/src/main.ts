// The only file that touches process: argv, env, exit code, stdout/stderr.
import { readFileSync } from "node:fs";
import { runCli } from "./run.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** The bundle's content hash, written by the build beside it (tsup.config.ts); none outside the bundle. */
function codeId(): string | undefined {
  try {
    return readFileSync(new URL("./build-id", import.meta.url), "utf8").trim() || undefined;
  } catch {
    return undefined;
  }
}

export async function main(): Promise<void> {
  try {
    process.exitCode = await runCli(process.argv.slice(2), {
      cwd: process.cwd(),
      env: process.env,
      stdout: (t) => process.stdout.write(t),
      stderr: (t) => process.stderr.write(t),
      version: version(),
      readStdin: () => readFileSync(0, "utf8"),
      isTTY: { stdout: process.stdout.isTTY === true, stderr: process.stderr.isTTY === true },
      codeId,
    });
  } catch (e) {
    // A bug, not bad input: show the stack so it can be reported.
    process.stderr.write(
      `clusterspec: internal error${(e as Error).name === "InternalError" ? "" : " (unexpected)"}\n${(e as Error).stack ?? e}\n`,
    );
    process.exitCode = 70;
  }
}
