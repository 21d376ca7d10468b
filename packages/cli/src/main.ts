// The only file that touches process: argv, env, exit code, stdout/stderr.
import { readFileSync, readSync } from "node:fs";
import { runCli } from "./run.js";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string };
  return pkg.version;
}

/** Standard input, at most one byte over `maxBytes` (enough for the caller to tell it was too long): /dev/zero ends. */
function readStdin(maxBytes: number): string {
  const buf = Buffer.alloc(maxBytes + 1);
  let n = 0;
  while (n < buf.length) {
    let r: number;
    try {
      r = readSync(0, buf, n, buf.length - n, null);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EAGAIN") {
        // a non-blocking pipe with nothing in it yet: wait a little instead of spinning
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
        continue;
      }
      if ((e as NodeJS.ErrnoException).code === "EOF") break;
      throw e;
    }
    if (r === 0) break;
    n += r;
  }
  return buf.subarray(0, n).toString("utf8");
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
      readStdin,
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
