#!/usr/bin/env node
// `node scripts/quiet.mjs <command> [args…]`: runs the command with its output held back; on success prints one
// line, on failure everything it printed (in order) and exits with its code. `pnpm test` builds through it.
import { spawn } from "node:child_process";

const [command, ...args] = process.argv.slice(2);
if (!command) {
  process.stderr.write("usage: node scripts/quiet.mjs <command> [args…]\n");
  process.exit(2);
}
const chunks = [];
const child = spawn(command, args, { stdio: ["inherit", "pipe", "pipe"] });
child.stdout.on("data", (c) => chunks.push([process.stdout, c]));
child.stderr.on("data", (c) => chunks.push([process.stderr, c]));
child.on("error", (e) => {
  process.stderr.write(`✖ ${command}: ${e.message}\n`);
  process.exit(127);
});
child.on("close", (code, signal) => {
  const label = [command, ...args].join(" ");
  if (code === 0) {
    process.stdout.write(`✔ ${label}\n`);
    return;
  }
  for (const [stream, c] of chunks) stream.write(c);
  process.stderr.write(`✖ ${label} failed (${signal ?? `exit ${code}`})\n`);
  process.exit(code ?? 1);
});
