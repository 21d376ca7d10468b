// Issue 32 (Reliability round 2), the CLI side: inputs that hung or were misnamed (item 7), generated paths that
// are one file on a case-insensitive file system (item 9), file names that reach the markdown summary (item 5).
// Each attack with real files, FIFOs and folders; the message is given in full.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CliError, nodeFileSystem, renderCheckMarkdown, writeTree } from "clusterspec/cli";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureCli } from "./capture-cli.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "packages", "cli", "bin.cjs");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-rel2-"));
  writeFileSync(join(dir, "cluster.yaml"), exampleSpec);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cli = (argv: string[], env: Record<string, string> = {}) => captureCli(argv, { cwd: dir, env });

describe("item 7: inputs that hung or were misnamed", () => {
  it("a cache folder whose mkdir answers ENOENT (under /proc) does not loop: the run writes, exit 0", () => {
    // Node's recursive mkdirSync retries /proc/x for ever: mkdir there answers ENOENT although /proc exists.
    const r = spawnSync(process.execPath, [bin, "generate", "cluster.yaml", "-o", "out"], {
      cwd: dir,
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "", CLUSTERSPEC_CACHE_DIR: "/proc/clusterspec-cache" },
    });
    expect(r.signal).toBeNull(); // not killed by the timeout
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `✔ wrote ${join(dir, "out")}: 54 changed, 0 unchanged, 0 removed (secrets as placeholders)\n`,
    );
  });

  it("mkdirp makes each missing folder once and says ENOENT for one it cannot make", () => {
    expect(() => nodeFileSystem.mkdirp("/proc/clusterspec-x/trees")).toThrow(/ENOENT.*\/proc\/clusterspec-x'/);
    nodeFileSystem.mkdirp(join(dir, "a", "b", "c"));
    expect(existsSync(join(dir, "a", "b", "c"))).toBe(true);
    nodeFileSystem.mkdirp(join(dir, "a", "b")); // there already: nothing to do
    writeFileSync(join(dir, "f"), "");
    expect(() => nodeFileSystem.mkdirp(join(dir, "f"))).toThrow(/EEXIST/);
  });

  it("a spec with carriage returns alone as line breaks is not called empty: exit 2, the line", async () => {
    writeFileSync(join(dir, "mac.yaml"), exampleSpec.replaceAll("\n", "\r"));
    const r = await cli(["validate", "mac.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "✖ cannot read the spec: mac.yaml has a carriage return without a line feed on line 1 (line breaks of classic Mac OS): save it with LF or CRLF line endings\n",
    );
    writeFileSync(join(dir, "late.yaml"), exampleSpec.replace("kind: Cluster\n", "kind: Cluster\r"));
    expect((await cli(["validate", "late.yaml"])).stderr).toContain("without a line feed on line 4 ");
    // CRLF is a line break
    writeFileSync(join(dir, "crlf.yaml"), exampleSpec.replaceAll("\n", "\r\n"));
    expect((await cli(["validate", "crlf.yaml"])).code).toBe(0);
  });

  it("--check -o <FIFO> names a FIFO, not a file: exit 2", async () => {
    spawnSync("mkfifo", [join(dir, "pipe")]);
    const r = await cli(["generate", "cluster.yaml", "--check", "-o", "pipe"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`✖ ${join(dir, "pipe")} is a FIFO (named pipe), where the generated folder was expected\n`);
  });
});

describe("item 9: generated paths that differ only by case", () => {
  it("the writer refuses them before anything is written, exit 2 with the pairs", async () => {
    const out = join(dir, "out");
    const write = () =>
      writeTree(
        nodeFileSystem,
        out,
        [
          { path: "PLAN.md", content: "x\n" },
          { path: "nodes/Web-1/etc/hosts", content: "a\n" },
          { path: "nodes/web-1/etc/hosts", content: "b\n" },
          { path: "cluster/README.md", content: "c\n" },
          { path: "cluster/readme.md", content: "d\n" },
        ],
        { force: false, secrets: "placeholders" },
      );
    expect(write).toThrow(CliError);
    try {
      write();
    } catch (e) {
      expect((e as CliError).code).toBe(2);
      expect((e as CliError).kind).toBe("refused");
      expect((e as Error).message).toBe(
        "refusing to write: 2 pair(s) of generated paths differ only by case, one file on a case-insensitive file system (macOS, Windows):\n" +
          "  nodes/Web-1 and nodes/web-1\n  cluster/README.md and cluster/readme.md\n" +
          "rename the nodes or pools so that their names differ by more than case",
      );
    }
    expect(existsSync(out)).toBe(false);
  });
});

describe("item 5: file names in the markdown summary", () => {
  const hostile = "a`|<img src=x onerror=alert(1)>\n# pwned";

  it("a file a pull request adds to the compared folder stays one escaped name in the table and the summary", async () => {
    expect((await cli(["generate", "cluster.yaml"])).code).toBe(0);
    unlinkSync(join(dir, "generated", ".clusterspec-manifest.json")); // without it every file there is compared
    writeFileSync(join(dir, "generated", hostile), "x\n");
    const r = await cli(["generate", "cluster.yaml", "--check", "--format", "markdown"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("\n| ``a`\\|<img src=x onerror=alert(1)>\\u{a}# pwned`` | stale |\n");
    expect(r.stdout).toContain(
      "<details><summary><code>a`|&lt;img src=x onerror=alert(1)&gt;\\u{a}# pwned</code> (stale)</summary>",
    );
    // in the diff, the name is inside the fenced block, where nothing is markup
    expect(r.stdout).toContain(
      '```diff\n===================================================================\n--- "a/a`|<img src=x onerror=alert(1)>\\n# pwned"\n',
    );
    expect(r.stdout).not.toMatch(/^# pwned/m);
  });

  it("spec and folder names too, and a name that starts with a backtick gets a padded span", () => {
    const md = renderCheckMarkdown({ spec: "`x`.yaml", outDir: "g|en", fileCount: 1, drift: [] });
    expect(md).toBe(
      "### ✅ clusterspec: generated files are up to date\n\n`g|en` matches a fresh generation of `` `x`.yaml `` (1 files).\n",
    );
  });
});
