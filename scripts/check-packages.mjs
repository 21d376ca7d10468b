#!/usr/bin/env node
// Packs every published package as npm would receive it, lints the tarballs (publint --strict,
// @arethetypeswrong/cli with the ESM-only profile), then installs them with plain npm into an empty
// project and runs `npx clusterspec generate --check` there against a committed golden tree.
// Needs `pnpm run build` first. Prints one line per check; the tools' output only when one fails.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = join(import.meta.dirname, "..");
const bin = (name) => join(repo, "node_modules", ".bin", name);
const work = mkdtempSync(join(tmpdir(), "clusterspec-pack-"));
const failures = [];

function run(label, cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...options });
  const ok = r.status === 0 && (options.expectOutput ? options.expectOutput(r.stdout) : true);
  process.stdout.write(`${ok ? "✔" : "✖"} ${label}\n`);
  if (!ok) {
    failures.push(label);
    process.stdout.write(`${r.stdout ?? ""}${r.stderr ?? ""}${r.error ? String(r.error) : ""}\n`);
  }
  return r;
}

try {
  const packages = readdirSync(join(repo, "packages"))
    .map((d) => ({
      dir: join(repo, "packages", d),
      pkg: JSON.parse(readFileSync(join(repo, "packages", d, "package.json"), "utf8")),
    }))
    .filter(({ pkg }) => !pkg.private);
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs);
  for (const { dir, pkg } of packages) {
    // pnpm pack rewrites workspace: and catalog: ranges into the versions that ship.
    run(`pack ${pkg.name}`, "npx", ["-y", "pnpm@12.4.2", "pack", "--pack-destination", tarballs], { cwd: dir });
  }
  const files = readdirSync(tarballs).filter((f) => f.endsWith(".tgz"));
  if (files.length !== packages.length) failures.push(`expected ${packages.length} tarballs, got ${files.length}`);
  for (const f of files) {
    const tgz = join(tarballs, f);
    const listing = spawnSync("tar", ["-tzf", tgz], { encoding: "utf8" }).stdout.split("\n");
    for (const required of ["package/LICENSE", "package/README.md", "package/package.json"])
      if (!listing.includes(required)) {
        failures.push(`${f} lacks ${required}`);
        process.stdout.write(`✖ ${f} lacks ${required}\n`);
      }
    const manifest = JSON.parse(spawnSync("tar", ["-xzOf", tgz, "package/package.json"], { encoding: "utf8" }).stdout);
    const ranges = JSON.stringify({ ...manifest.dependencies, ...manifest.peerDependencies });
    if (/workspace:|catalog:/.test(ranges)) failures.push(`${f} still has workspace:/catalog: ranges`);
    run(`publint --strict ${f}`, bin("publint"), ["run", tgz, "--strict"]);
    run(`attw --profile esm-only ${f}`, bin("attw"), [
      tgz,
      "--profile",
      "esm-only",
      "--no-color",
      "--format",
      "table-flipped",
    ]);
  }

  // A consumer that knows nothing of pnpm or the workspace: plain npm, tarballs only for our packages.
  const consumer = join(work, "consumer");
  mkdirSync(consumer);
  writeFileSync(
    join(consumer, "package.json"),
    `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`,
  );
  run(
    "npm install the tarballs into an empty project",
    "npm",
    [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "--loglevel=error",
      ...files.map((f) => join(tarballs, f)),
    ],
    { cwd: consumer },
  );
  cpSync(join(repo, "examples", "bare-metal-ha"), join(consumer, "bare-metal-ha"), { recursive: true });
  run(
    "npx clusterspec generate (installed) writes the example",
    "npx",
    ["--no-install", "clusterspec", "generate", "bare-metal-ha/cluster.yaml", "-o", "out"],
    {
      cwd: consumer,
      expectOutput: (out) => out.includes("✔ wrote"),
    },
  );
  run(
    "npx clusterspec generate --check (installed) matches the committed golden tree",
    "npx",
    ["--no-install", "clusterspec", "generate", "bare-metal-ha/cluster.yaml", "--check"],
    { cwd: consumer, expectOutput: (out) => out.includes("is up to date") },
  );
  writeFileSync(
    join(consumer, "use.mjs"),
    `import { generate } from "clusterspec";\nimport { runCli } from "clusterspec/cli";\nimport { readFileSync } from "node:fs";\n` +
      `const r = generate(readFileSync("bare-metal-ha/cluster.yaml", "utf8"));\n` +
      `if (!r.ok || typeof runCli !== "function") process.exit(1);\nconsole.log(r.artifacts.length + " artifacts");\n`,
  );
  run("import clusterspec and clusterspec/cli from the installed package", "node", ["use.mjs"], {
    cwd: consumer,
    expectOutput: (out) => /^\d+ artifacts\n$/.test(out),
  });
  // The consumer type-checks the installed declarations with skipLibCheck off; the figures are printed.
  cpSync(join(repo, "packages", "cli", "test", "fixtures", "consumer"), join(consumer, "types"), { recursive: true });
  const started = performance.now();
  const tsc = run(
    "tsc (skipLibCheck false) on a consumer of the installed packages",
    process.execPath,
    [join(repo, "node_modules", "typescript", "bin", "tsc"), "-p", "types/tsconfig.json", "--extendedDiagnostics"],
    { cwd: consumer, expectOutput: (out) => !/error TS/.test(out) && !/node_modules\/zod\//.test(out) },
  );
  const figure = (name) => new RegExp(`^${name}:\\s+(\\S+)`, "m").exec(tsc.stdout ?? "")?.[1];
  process.stdout.write(
    `  types ${figure("Types")}, check ${figure("Check time")}, tsc total ${figure("Total time")}, ` +
      `wall ${((performance.now() - started) / 1000).toFixed(2)}s\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  process.stdout.write(`\n${failures.length} package check(s) failed: ${failures.join("; ")}\n`);
  process.exit(1);
}
