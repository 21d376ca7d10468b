// --check against a tree a pull request controls (issue "Reliability round 2", item 2): a symbolic link at a
// generated path, a linked folder inside the tree, a linked manifest and a linked output folder are reported as
// links, never followed, so nothing outside the tree is read or printed (text, markdown, --json).
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
/** What actions/checkout stores in .git/config: the token a pull request must never get printed. */
const TOKEN = "ghs_CI_TOKEN_must_never_be_printed_0123456789";

let dir: string;
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-check-links-"));
  writeFileSync(join(dir, "cluster.yaml"), exampleSpec);
  mkdirSync(join(dir, ".git"));
  writeFileSync(
    join(dir, ".git", "config"),
    `[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic ${TOKEN}\n`,
  );
  mkdirSync(join(dir, "outside"));
  writeFileSync(join(dir, "outside", "keepalived.conf"), `# ${TOKEN}\n`);
  writeFileSync(join(dir, "outside", "manifest.json"), JSON.stringify({ files: [TOKEN] }));
  expect((await cli(["generate", "cluster.yaml"])).code).toBe(0);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cli = (argv: string[]) => runCaptured(argv, dir);

/** --check in every format: the exit codes and everything printed. */
async function checkAll() {
  const text = await cli(["generate", "cluster.yaml", "--check"]);
  const markdown = await cli(["generate", "cluster.yaml", "--check", "--format", "markdown"]);
  const json = await cli(["generate", "cluster.yaml", "--check", "--json"]);
  return {
    codes: [text.code, markdown.code, json.code],
    printed: [text, markdown, json].map((r) => r.stdout + r.stderr).join("\n"),
    text,
    markdown,
    json: JSON.parse(json.stdout),
  };
}

const gen = (...p: string[]) => join(dir, "generated", ...p);
const replaceWithLink = (target: string, ...path: string[]) => {
  rmSync(gen(...path), { recursive: true });
  symlinkSync(target, gen(...path));
};

describe("--check and symbolic links", () => {
  it("reports a generated file replaced by a link to ../.git/config as a link, and prints nothing of its target", async () => {
    replaceWithLink("../.git/config", "PLAN.md");
    const r = await checkAll();
    expect(r.codes).toEqual([1, 1, 1]);
    expect(r.printed).not.toContain(TOKEN);
    expect(r.printed).not.toContain("extraheader");
    expect(r.json.drift).toEqual([
      {
        path: "PLAN.md",
        kind: "changed",
        secret: false,
        patch:
          "PLAN.md is a symbolic link, where clusterspec writes a file; --check never follows a link inside the compared folder (its target is not read): replace it with what clusterspec generates\n",
      },
    ]);
    expect(r.text.stdout).toContain("PLAN.md is a symbolic link");
    expect(r.markdown.stdout).toContain("| `PLAN.md` | changed |");
  });

  it("reports a linked folder inside the tree once, and reads nothing below it", async () => {
    replaceWithLink(join(dir, "outside"), "nodes", "k8s-1", "etc", "keepalived");
    const r = await checkAll();
    expect(r.codes).toEqual([1, 1, 1]);
    expect(r.printed).not.toContain(TOKEN);
    expect(r.json.drift.map((d: { path: string; kind: string }) => [d.path, d.kind])).toEqual([
      ["nodes/k8s-1/etc/keepalived", "changed"],
    ]);
    expect(r.json.drift[0].patch).toContain(
      "nodes/k8s-1/etc/keepalived is a symbolic link, where clusterspec writes the folder nodes/k8s-1/etc/keepalived/;",
    );
  });

  it("reports a stale link without reading it, with or without the manifest", async () => {
    symlinkSync("../.git/config", gen("notes.md"));
    writeFileSync(
      gen(".clusterspec-manifest.json"),
      readFileSync(gen(".clusterspec-manifest.json"), "utf8").replace('"files": [', '"files": [\n    "notes.md",'),
    );
    const withManifest = await checkAll();
    expect(withManifest.printed).not.toContain(TOKEN);
    expect(withManifest.json.drift).toEqual([
      expect.objectContaining({
        path: "notes.md",
        kind: "stale",
        patch: expect.stringContaining("is a symbolic link"),
      }),
    ]);
    rmSync(gen(".clusterspec-manifest.json"));
    const without = await checkAll();
    expect(without.printed).not.toContain(TOKEN);
    expect(without.json.drift.map((d: { path: string }) => d.path)).toEqual(["notes.md"]);
  });

  it("reports a linked manifest as a link and does not read it", async () => {
    replaceWithLink(join(dir, "outside", "manifest.json"), ".clusterspec-manifest.json");
    const r = await checkAll();
    expect(r.codes).toEqual([1, 1, 1]);
    expect(r.printed).not.toContain(TOKEN);
    expect(r.json.drift.map((d: { path: string; kind: string }) => [d.path, d.kind])).toEqual([
      [".clusterspec-manifest.json", "changed"],
    ]);
  });

  it("refuses an output folder that is a link (to .git/), exit 2, without reading it", async () => {
    rmSync(gen(), { recursive: true });
    symlinkSync(".git", gen());
    const r = await checkAll();
    expect(r.codes).toEqual([2, 2, 2]);
    expect(r.printed).not.toContain(TOKEN);
    expect(r.text.stderr).toBe(
      `✖ ${gen()} is a symbolic link: --check compares only a real folder and never follows a link to one (its target is not read); check the folder it points at with -o, or replace the link with the generated folder\n`,
    );
    expect(r.json.errors[0].code).toBe("filesystem");
  });
});
