// One module per command (src/commands/): the command list, the help texts and the dispatcher agree, and the
// command's bundle still initialises only what the command that runs needs.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { COMMAND_LIST } from "../src/commands/index.js";
import { COMMAND_HELP, COMMANDS, USAGE } from "../src/help.js";
import { runCaptured } from "./capture.js";

const cli = (argv: string[]) => runCaptured(argv, tmpdir());

/** The options a help text names: `--name` and the short `-o` (as the long name it stands for). */
function optionsNamed(text: string, shorts: Readonly<Record<string, string>>): string[] {
  const long = [...text.matchAll(/(?<![\w-])--([a-z][a-z-]*)/g)].map((m) => m[1] as string);
  const short = [...text.matchAll(/(?<![\w-])-([a-z])\b/g)].map((m) => shorts[m[1] as string] ?? `-${m[1]}`);
  return [...new Set([...long, ...short])].sort();
}

const names = COMMAND_LIST.map((c) => c.name);
const shorts = Object.fromEntries(
  COMMAND_LIST.flatMap((c) => Object.entries(c.options).flatMap(([name, o]) => (o.short ? [[o.short, name]] : []))),
);

describe("the command list", () => {
  it("holds every documented command once, in the help's order", () => {
    expect(names).toEqual([...COMMANDS]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("gives each command its own help page", () => {
    for (const c of COMMAND_LIST) {
      expect(c.help).toBe(COMMAND_HELP[c.name]);
      expect(c.help.startsWith(`clusterspec ${c.name} - `)).toBe(true);
    }
    expect(Object.keys(COMMAND_HELP).sort()).toEqual([...names].sort());
  });

  it("is what the overview and help's own page list", () => {
    const usageLines = [...USAGE.matchAll(/^ {2}clusterspec ([a-z-]+)/gm)].map((m) => m[1]);
    expect(usageLines.filter((n) => n !== undefined && names.includes(n as never))).toEqual(names);
    const section = USAGE.slice(
      USAGE.indexOf("\nCommands:\n"),
      USAGE.indexOf("\n\n", USAGE.indexOf("\nCommands:\n") + 1),
    );
    expect([...section.matchAll(/^ {2}([a-z-]+) {2,}/gm)].map((m) => m[1])).toEqual(names);
    expect(COMMAND_HELP.help).toContain(`Commands: ${names.join(", ")}.\n`);
  });

  it("documents exactly the options each command declares, in the overview and on its page", () => {
    for (const c of COMMAND_LIST) {
      const declared = Object.keys(c.options).sort();
      const line = USAGE.split("\n").find((l) => l.startsWith(`  clusterspec ${c.name}`)) ?? "";
      expect(optionsNamed(line, shorts), `${c.name} in the overview`).toEqual(declared);
      const options = c.help.includes("\nOptions:\n") ? c.help.slice(c.help.indexOf("\nOptions:\n")) : "";
      const listed = [...options.matchAll(/^ {2}(?:-[a-z], )?--([a-z-]+)/gm)].map((m) => m[1] as string);
      expect(listed.sort(), `${c.name}'s page`).toEqual(declared);
    }
  });

  it("declares an option that two commands share the same way in both (one parse reads them all)", () => {
    const seen = new Map<string, string>();
    for (const c of COMMAND_LIST)
      for (const [name, option] of Object.entries(c.options)) {
        const def = JSON.stringify(option);
        expect(seen.get(name) ?? def, `--${name} of ${c.name}`).toBe(def);
        seen.set(name, def);
        expect(["help", "version"]).not.toContain(name);
      }
  });
});

describe("the dispatcher", () => {
  it("routes each command of the list to its module, with its positionals and options", async () => {
    for (const c of COMMAND_LIST) {
      const run = vi.spyOn(c, "run").mockImplementation(() => 42);
      const option = Object.entries(c.options).find(([, o]) => o.type === "boolean")?.[0];
      const r = await cli([c.name, "a.yaml", ...(option ? [`--${option}`] : [])]);
      expect(r, c.name).toEqual({ code: 42, stdout: "", stderr: "" });
      expect(run).toHaveBeenCalledTimes(1);
      const [context] = run.mock.calls[0] ?? [];
      expect(context?.args).toEqual(["a.yaml"]);
      expect({ ...context?.values }).toEqual(option ? { [option]: true } : {});
      run.mockRestore();
    }
  });

  it("prints each command's page for --help and refuses another command's option with that page", async () => {
    const everyOption = [...new Set(COMMAND_LIST.flatMap((c) => Object.keys(c.options)))];
    for (const c of COMMAND_LIST) {
      expect(await cli([c.name, "--help"])).toEqual({ code: 0, stdout: c.help, stderr: "" });
      for (const other of everyOption.filter((o) => !(o in c.options))) {
        const value = COMMAND_LIST.some((d) => d.options[other]?.type === "string") ? ["x"] : [];
        const r = await cli([c.name, `--${other}`, ...value]);
        expect(r).toEqual({
          code: 2,
          stdout: "",
          stderr: `clusterspec: ${c.name} does not take --${other}\n\n${c.help}`,
        });
      }
    }
  });
});

describe("the command's bundle", () => {
  const repo = join(import.meta.dirname, "..", "..", "..");
  const bin = join(repo, "packages", "cli", "bin.cjs");
  const spec = join(repo, "examples", "bare-metal-ha", "cluster.yaml");
  let work: string;
  beforeAll(() => {
    work = mkdtempSync(join(tmpdir(), "clusterspec-commands-"));
    // Core's first use builds zod (which marks globalThis); node:crypto is in Node's list of loaded modules.
    writeFileSync(
      join(work, "probe.cjs"),
      `process.on("exit", () => require("node:fs").writeSync(3, JSON.stringify({
        core: globalThis.__zod_globalConfig !== undefined,
        crypto: process.moduleLoadList.some((m) => m === "NativeModule crypto"),
      })));\n`,
    );
  });
  afterAll(() => {
    rmSync(work, { recursive: true, force: true });
  });

  /** What a run of the command initialised, through bin.cjs as a user runs it. */
  function initialised(
    args: string[],
    cacheDir = "off",
  ): { code: number | null; core: boolean; crypto: boolean; stdout: string } {
    const r = spawnSync(process.execPath, ["-r", join(work, "probe.cjs"), bin, ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: work, TMPDIR: work, CLUSTERSPEC_CACHE_DIR: cacheDir },
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      encoding: "utf8",
      timeout: 60_000,
    });
    return { code: r.status, stdout: r.stdout, ...JSON.parse(r.output[3] ?? "{}") };
  }

  it("initialises no core and loads no node:crypto for help, --version and a usage mistake", () => {
    for (const args of [["--help"], ["help"], ["help", "simulate"], ["validate", "--help"], ["--version"]])
      expect(initialised(args), args.join(" ")).toMatchObject({ code: 0, core: false, crypto: false });
    for (const args of [[], ["validate"], ["plan", spec, "--force"], ["simulate", "-"]])
      expect(initialised(args), args.join(" ")).toMatchObject({ code: 2, core: false, crypto: false });
  });

  it("initialises core for a command on a spec, and node:crypto only for generate", () => {
    expect(initialised(["validate", spec])).toMatchObject({ code: 0, core: true, crypto: false });
    expect(initialised(["simulate", spec])).toMatchObject({ code: 0, core: true, crypto: false });
    expect(initialised(["generate", spec, "-o", join(work, "out"), "--json"])).toMatchObject({
      code: 0,
      core: true,
      crypto: true,
    });
  });

  it("initialises no core for a generate whose folder is up to date (identities.json is only digested)", () => {
    const out = join(work, "up-to-date");
    const cache = join(work, "records");
    const first = initialised(["generate", spec, "-o", out], cache);
    expect(first).toMatchObject({ code: 0, core: true, crypto: true });
    expect(first.stdout).toContain(`wrote ${out}`);
    const again = initialised(["generate", spec, "-o", out], cache);
    expect(again).toMatchObject({ code: 0, core: false, crypto: true });
    expect(again.stdout).toContain(`${out} is up to date`);
  });
});
