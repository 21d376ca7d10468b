// After the summary, every skipped test with its reason (the note of `ctx.skip(note)`), then the one command that
// installs the Debian packages `.ci/run` installs and this machine lacks. A run with nothing skipped prints nothing.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { TestModule } from "vitest/node";
import type { Reporter } from "vitest/reporters";

const repo = import.meta.dirname;

/** The packages `.ci/run` installs with apt-get, in its order. */
export function ciPackages(ciRun: string): string[] {
  const line = /apt-get install((?:[^\n\\]|\\\n)*)/.exec(ciRun)?.[1] ?? "";
  return line
    .replace(/\\\n/g, " ")
    .replace(/>.*$/, "")
    .split(/\s+/)
    .filter((w) => w !== "" && !w.startsWith("-"));
}

/** The packages of `wanted` dpkg does not list as installed (all of them where there is no dpkg). */
function missingPackages(wanted: readonly string[]): string[] {
  // biome-ignore lint/suspicious/noTemplateCurlyInString: dpkg-query's own format syntax
  const format = "${Package} ${db:Status-Status}\\n";
  const r = spawnSync("dpkg-query", ["-W", "-f", format, ...wanted], {
    encoding: "utf8",
  });
  if (r.error) return [...wanted];
  const installed = new Set(
    r.stdout
      .split("\n")
      .filter((l) => l.endsWith(" installed"))
      .map((l) => l.split(" ")[0]),
  );
  return wanted.filter((p) => !installed.has(p));
}

/** The one command that installs what `.ci/run` would and this machine lacks, or what else the skips need. */
export function installCommand(missing: readonly string[], root: boolean): string {
  const sudo = root ? "" : "sudo ";
  if (missing.length > 0) return `${sudo}apt-get install -y --no-install-recommends ${missing.join(" ")}`;
  return root
    ? "every package .ci/run installs is here: run .ci/run to run them as CI does"
    : "sudo npx -y pnpm@12.4.2 test   (the packages are installed; these tests need root)";
}

export default class SkipReasons implements Reporter {
  private log: (text: string) => void = (text) => process.stdout.write(`${text}\n`);
  /** With `-t`, the tests the name filter left out are skipped too: those are not reported. */
  private filtered = false;

  onInit(vitest: { logger: { log: (text: string) => void }; config: { testNamePattern?: RegExp } }): void {
    this.log = (text) => vitest.logger.log(text);
    this.filtered = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const skipped: string[] = [];
    for (const m of testModules)
      for (const t of m.children.allTests()) {
        const r = t.result();
        if (r.state !== "skipped") continue;
        if (r.note === undefined && this.filtered) continue;
        const mode = t.options.mode;
        const reason =
          r.note ?? (mode === "todo" ? "todo" : "skipped with no reason given (give one: ctx.skip(reason))");
        skipped.push(`  ↓ ${m.relativeModuleId} > ${t.fullName}: ${reason}`);
      }
    if (skipped.length === 0) return;
    const missing = missingPackages(ciPackages(readFileSync(join(repo, ".ci", "run"), "utf8")));
    const root = process.getuid?.() === 0;
    this.log(
      [
        "",
        `${skipped.length} skipped test${skipped.length === 1 ? "" : "s"}, and why:`,
        ...skipped,
        "",
        `To run them, install what they need: ${installCommand(missing, root)}`,
        "",
      ].join("\n"),
    );
  }
}
