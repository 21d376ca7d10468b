#!/usr/bin/env node
// `pnpm run pack`: packs every published package (each packages/* whose package.json is not private) into
// dist-packages/, or into the folder given with --out, as npm receives them: pnpm pack rewrites workspace: and
// catalog: ranges into the versions that ship. Private packages (testkit, the playground) are never packed.
// Needs `pnpm build` first. Prints the tarballs it wrote, one a line; exits 1 when pnpm pack fails.
// (`pnpm pack` alone is pnpm's built-in for the current package, and `pnpm -r pack` reaches the private ones.)
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const repo = join(import.meta.dirname, "..");
const { values } = parseArgs({ options: { out: { type: "string", default: join(repo, "dist-packages") } } });
const out = resolve(values.out);

/** The published packages: name and folder, from each packages/* manifest that is not private. */
function publishedPackages() {
  return readdirSync(join(repo, "packages"))
    .map((d) => ({
      dir: join(repo, "packages", d),
      pkg: JSON.parse(readFileSync(join(repo, "packages", d, "package.json"), "utf8")),
    }))
    .filter(({ pkg }) => pkg.private !== true)
    .map(({ dir, pkg }) => ({ dir, name: pkg.name, version: pkg.version }));
}

const packages = publishedPackages();
mkdirSync(out, { recursive: true });
// tarballs of an earlier run (an older version, a package since made private) would be installed with these
for (const f of readdirSync(out)) if (f.endsWith(".tgz")) rmSync(join(out, f));
// One pnpm for all of them: --filter by name selects exactly the published packages.
const r = spawnSync(
  "npx",
  ["-y", "pnpm@12.4.2", "-r", ...packages.flatMap((p) => ["--filter", p.name]), "pack", "--pack-destination", out],
  { cwd: repo, encoding: "utf8" },
);
if (r.status !== 0) {
  process.stderr.write(`pnpm pack failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  process.exit(1);
}
const tarballs = readdirSync(out)
  .filter((f) => f.endsWith(".tgz"))
  .sort();
if (tarballs.length !== packages.length) {
  process.stderr.write(`expected ${packages.length} tarballs in ${out}, found ${tarballs.length}\n`);
  process.exit(1);
}
for (const f of tarballs) process.stdout.write(`${join(out, f)}\n`);
