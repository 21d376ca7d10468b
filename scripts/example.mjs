#!/usr/bin/env node
// `pnpm example`: build quietly (the build log only when it fails), then generate the bundled example
// into out/bare-metal-ha and check its committed golden tree, as a user would run the CLI.
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const repo = join(import.meta.dirname, "..");
const build = spawnSync("npx", ["-y", "pnpm@12.4.2", "run", "build"], { cwd: repo, encoding: "utf8" });
if (build.status !== 0) {
  process.stderr.write(`${build.stdout}${build.stderr}✖ build failed\n`);
  process.exit(build.status ?? 1);
}
process.stdout.write("✔ built every package\n");
const bin = join(repo, "packages", "cli", "bin.cjs");
const spec = join("examples", "bare-metal-ha", "cluster.yaml");
for (const args of [
  ["generate", spec, "-o", join("out", "bare-metal-ha")],
  ["generate", spec, "--check"],
]) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: repo, stdio: "inherit" });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
