// The only file that touches process: argv, env, exit code, stdout/stderr.
import { fstatSync, readFileSync, readSync, writeSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { EXIT_INTERNAL } from "./errors.js";
import { Redaction } from "./redact.js";
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
        pause(10);
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

const pause = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * A writer of all of `text` to fd 1 or 2, synchronously: nothing is lost when the process exits, and a run needs
 * neither Node's stream nor its terminal modules (process.stdout loads both, some 10 ms of a small run). A closed
 * reader (EPIPE: `| head`) ends the output quietly; a non-blocking pipe that is full is waited for. On Windows,
 * process.stdout/stderr: consoles there want UTF-16 (WriteConsoleW), which only they speak.
 */
function output(fd: 1 | 2): (text: string) => void {
  if (process.platform === "win32") {
    const stream = fd === 1 ? process.stdout : process.stderr;
    return (text) => {
      stream.write(text);
    };
  }
  let closed = false;
  return (text) => {
    const bytes = Buffer.from(text, "utf8");
    for (let done = 0; done < bytes.length && !closed; ) {
      try {
        done += writeSync(fd, bytes, done);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EAGAIN") pause(10);
        else if (code === "EPIPE") closed = true;
        else throw e;
      }
    }
  };
}

/**
 * Whether fd 1 or 2 is a terminal, asked only when colour depends on it. A pipe or file is told by fstat alone:
 * process.stdout.isTTY would load Node's net, stream and tty modules to say no.
 */
function isatty(fd: 1 | 2): boolean {
  try {
    if (!fstatSync(fd).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return (fd === 1 ? process.stdout : process.stderr).isTTY === true;
}

/** The stack of `e`, mapped to the TypeScript source when it comes from the command's minified bundle (stack.ts). */
async function sourceStack(e: unknown): Promise<string> {
  const stack = (e as Error).stack ?? String(e);
  try {
    const bundle = fileURLToPath(import.meta.url);
    if (!bundle.endsWith(".cjs")) return stack; // the library's own build: its frames name readable code
    const map = JSON.parse(readFileSync(`${bundle}.map`, "utf8"));
    return (await import("./stack.js")).readableStack(stack, bundle, map);
  } catch {
    return stack; // not the bundle (no map beside it): the stack names the sources already
  }
}

/**
 * The command's content hash, written by the build beside each file bin.cjs compiles (tsup.config.ts): the bundle's,
 * and the schemas chunk's where there is one; none outside the bundle.
 */
function codeId(): string | undefined {
  const read = (file: string) => {
    try {
      return readFileSync(new URL(file, import.meta.url), "utf8").trim() || undefined;
    } catch {
      return undefined;
    }
  };
  const bundle = read("./build-id");
  const chunk = read("../dist-chunks/build-id");
  return bundle === undefined ? undefined : chunk === undefined ? bundle : `${bundle}+${chunk}`;
}

export async function main(): Promise<void> {
  const redaction = new Redaction();
  try {
    process.exitCode = await runCli(process.argv.slice(2), {
      cwd: process.cwd(),
      env: process.env,
      stdout: output(1),
      stderr: output(2),
      version: version(),
      readStdin,
      isTTY: {
        get stdout() {
          return isatty(1);
        },
        get stderr() {
          return isatty(2);
        },
      },
      codeId,
      redaction,
      stackOf: sourceStack,
    });
  } catch (e) {
    // runCli reports a bug itself; this is the last resort (an error while it reported one), redacted the same.
    process.stderr.write(redaction.apply(`clusterspec: internal error (unexpected)\n${await sourceStack(e)}\n`));
    process.exitCode = EXIT_INTERNAL;
  }
}
