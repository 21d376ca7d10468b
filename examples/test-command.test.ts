// The test command's output (issue 31 item 5): each skipped test ends the run with its reason and the one command
// that installs what is missing; the build says one line on success; the lint is silent on a clean tree.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ciPackages, installCommand } from "../vitest.skip-reporter.js";

const repo = join(import.meta.dirname, "..");
const ciRun = readFileSync(join(repo, ".ci", "run"), "utf8");
const pkg = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")) as { scripts: Record<string, string> };

describe("the skipped tests' report", () => {
  it("knows every package .ci/run installs, and nothing else", () => {
    const packages = ciPackages(ciRun);
    expect(packages).toEqual(expect.arrayContaining(["keepalived", "cloud-init", "chromium", "nftables", "python3"]));
    for (const p of packages) expect(p).toMatch(/^[a-z0-9][a-z0-9.+-]+$/);
    const line = ciRun.slice(ciRun.indexOf("apt-get install"));
    for (const p of packages) expect(line).toContain(p);
  });

  it("names the one command that installs what is missing", () => {
    expect(installCommand(["keepalived", "chromium"], false)).toBe(
      "sudo apt-get install -y --no-install-recommends keepalived chromium",
    );
    expect(installCommand(["cloud-init"], true)).toBe("apt-get install -y --no-install-recommends cloud-init");
  });

  it("prints each skipped test with its reason after the summary", () => {
    const dir = mkdtempSync(join(tmpdir(), "clusterspec-skips-"));
    try {
      writeFileSync(
        join(dir, "skips.test.ts"),
        [
          'it("runs", () => {});',
          'it("needs a tool", (ctx) => ctx.skip("needs the real tool (installed by .ci/run)"));',
          'it.skipIf(true)("is skipped by a condition", () => {});',
          'describe("in a shared folder", () => {',
          '  beforeEach((ctx) => ctx.skip("not root: cannot create a second user"));',
          '  it("refuses a planted file", () => { throw new Error("ran"); });',
          "});",
          "",
        ].join("\n"),
      );
      writeFileSync(
        join(dir, "vitest.config.mjs"),
        `import SkipReasons from ${JSON.stringify(join(repo, "vitest.skip-reporter.ts"))};\nexport default { test: { globals: true, include: ["skips.test.ts"], reporters: ["default", new SkipReasons()] } };\n`,
      );
      const r = spawnSync(process.execPath, [join(repo, "node_modules", "vitest", "vitest.mjs"), "run"], {
        cwd: dir,
        encoding: "utf8",
        env: { ...process.env, CI: "", NO_COLOR: "1", FORCE_COLOR: "0" },
      });
      expect(r.status, r.stderr).toBe(0);
      const report = r.stdout.slice(r.stdout.indexOf("3 skipped tests, and why:"));
      expect(report.split("\n").slice(0, 5)).toEqual([
        "3 skipped tests, and why:",
        "  ↓ skips.test.ts > needs a tool: needs the real tool (installed by .ci/run)",
        "  ↓ skips.test.ts > is skipped by a condition: skipped with no reason given (give one: ctx.skip(reason))",
        "  ↓ skips.test.ts > in a shared folder > refuses a planted file: not root: cannot create a second user",
        "",
      ]);
      expect(report.split("\n")[5]).toMatch(/^To run them, install what they need: /);

      // With a name filter (-t), the tests it leaves out are not reported as skipped without a reason.
      const filtered = spawnSync(
        process.execPath,
        [join(repo, "node_modules", "vitest", "vitest.mjs"), "run", "-t", "needs a tool"],
        { cwd: dir, encoding: "utf8", env: { ...process.env, CI: "", NO_COLOR: "1", FORCE_COLOR: "0" } },
      );
      expect(filtered.status, filtered.stderr).toBe(0);
      const lines = filtered.stdout.split("\n");
      expect(
        lines.slice(lines.indexOf("1 skipped test, and why:"), lines.indexOf("1 skipped test, and why:") + 3),
      ).toEqual([
        "1 skipped test, and why:",
        "  ↓ skips.test.ts > needs a tool: needs the real tool (installed by .ci/run)",
        "",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the test script", () => {
  it("still builds, typechecks, lints and tests, the build quietly", () => {
    expect(pkg.scripts.test).toBe(
      "node scripts/quiet.mjs pnpm run build && pnpm run typecheck && pnpm run lint && vitest run",
    );
  });

  it("shows a command's output only when it fails", () => {
    const quiet = (...args: string[]) =>
      spawnSync(process.execPath, [join(repo, "scripts", "quiet.mjs"), ...args], { encoding: "utf8" });
    const ok = quiet(process.execPath, "-e", "console.log('360 lines of build output')");
    expect([ok.status, ok.stdout, ok.stderr]).toEqual([
      0,
      `✔ ${process.execPath} -e console.log('360 lines of build output')\n`,
      "",
    ]);
    const failed = quiet(process.execPath, "-e", "console.log('the log'); console.error('the error'); process.exit(3)");
    expect(failed.status).toBe(3);
    expect(failed.stdout + failed.stderr).toContain("the log");
    expect(failed.stderr).toContain("the error");
  });
});
