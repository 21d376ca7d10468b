// The golden-review workflow users copy: valid for GitHub (SchemaStore's workflow schema), the same
// in docs and examples, pinned to this version, and its clusterspec command line works on our examples.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ajv07, exampleNames, examplesDir, formatAjvErrors, readSchema } from "@clusterspec/testkit";
import { type CliIO, runCli } from "clusterspec/cli";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const repo = join(import.meta.dirname, "..");
const workflowText = readFileSync(join(examplesDir, "github-actions", "golden-review.yml"), "utf8");
const workflow = parse(workflowText);
const validateWorkflow = ajv07().compile(readSchema("github/github-workflow.json"));

describe("golden-review workflow", () => {
  it("is a valid GitHub Actions workflow, and the schema does reject a broken one", () => {
    expect(validateWorkflow(workflow), formatAjvErrors(validateWorkflow.errors)).toBe(true);
    const broken = structuredClone(workflow);
    delete broken.jobs.check["runs-on"];
    expect(validateWorkflow(broken)).toBe(false);
    const misspelt = { ...structuredClone(workflow), job: workflow.jobs };
    expect(validateWorkflow(misspelt)).toBe(false);
  });

  it("is shown verbatim in docs/golden-review.md", () => {
    const doc = readFileSync(join(repo, "docs", "golden-review.md"), "utf8");
    const block = /(`{3,})yaml\n([\s\S]*?)\n\1\n/.exec(doc)?.[2];
    expect(`${block}\n`).toBe(workflowText);
  });

  it("is safe for pull requests from forks: pull_request, no stored token, least permissions", () => {
    expect(Object.keys(workflow.on)).toEqual(["pull_request"]);
    expect(workflow.permissions).toEqual({});
    expect(workflow.jobs.check.permissions).toEqual({ contents: "read", "pull-requests": "write" });
    const steps: { uses?: string; with?: Record<string, unknown> }[] = workflow.jobs.check.steps;
    const checkouts = steps.filter((s) => s.uses?.startsWith("actions/checkout@"));
    expect(checkouts).toHaveLength(1);
    expect(checkouts.map((s) => s.with?.["persist-credentials"])).toEqual([false]);
  });

  it("pins every action to a commit and expands no expression inside a script", () => {
    const steps: { uses?: string; run?: string; env?: Record<string, string> }[] = workflow.jobs.check.steps;
    const uses = steps.flatMap((s) => (s.uses ? [s.uses] : []));
    expect(uses.length).toBeGreaterThan(0);
    for (const u of uses) expect(u, u).toMatch(/^[\w.-]+\/[\w.-]+@[0-9a-f]{40}$/);
    for (const s of steps) if (s.run) expect(s.run, s.run).not.toContain("${{");
    // the base branch's name reaches the script as an environment variable, used quoted
    const script = steps.find((s) => s.run?.includes("git show"));
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's and the shell's syntax, not a template
    expect(script?.env?.BASE).toBe("${{ github.base_ref }}");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's and the shell's syntax, not a template
    expect(script?.run).toContain('git show "origin/${BASE}:${CLUSTER_SPEC}" > clusterspec-base.yaml');
  });

  it("pins the clusterspec version of this repository", () => {
    const pkg = JSON.parse(readFileSync(join(repo, "packages", "cli", "package.json"), "utf8"));
    expect(workflow.env.CLUSTERSPEC_VERSION).toBe(pkg.version);
  });

  it("runs a clusterspec command line that passes on each committed example", async () => {
    const steps: { run?: string }[] = workflow.jobs.check.steps;
    const script = steps.map((s) => s.run ?? "").find((r) => r.includes("--check")) ?? "";
    const line = /clusterspec@\$\{CLUSTERSPEC_VERSION\}" (.*?) \\\n/.exec(script)?.[1];
    // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's and the shell's syntax, not a template
    expect(line).toBe('generate "$CLUSTER_SPEC" --check --format markdown "${base[@]}"');
    for (const name of exampleNames()) {
      const spec = join(examplesDir, name, "cluster.yaml");
      // the base branch's spec: here the same one, so the change plan has no change
      for (const base of [[], ["--base", spec]]) {
        const args = (line ?? "")
          .split(" ")
          // biome-ignore lint/suspicious/noTemplateCurlyInString: GitHub's and the shell's syntax, not a template
          .flatMap((a) => (a === '"$CLUSTER_SPEC"' ? [spec] : a === '"${base[@]}"' ? base : [a]));
        const printed: string[] = [];
        const io: CliIO = { cwd: repo, env: {}, stdout: (t) => printed.push(t), stderr: () => {}, version: "test" };
        expect(await runCli(args, io), `${name} ${base.join(" ")}`).toBe(0);
        const out = printed.join("");
        expect(out).toContain("### ✅ clusterspec: generated files are up to date");
        if (base.length > 0)
          expect(out).toMatch(
            name === "cloud-burst-only"
              ? /#### Change plan\n\nno change plan/
              : /### clusterspec: change plan\n\n.*: 0 spec change\(s\), 0 step\(s\)\./,
          );
      }
    }
  });

  it("walks through a real change: the plan in docs/golden-review.md is what clusterspec changes prints for it", async () => {
    const doc = readFileSync(join(repo, "docs", "golden-review.md"), "utf8");
    const addition = /```diff\n([\s\S]*?)\n```/.exec(doc)?.[1] ?? "";
    const added = addition
      .split("\n")
      .filter((l) => l.startsWith("+"))
      .map((l) => l.slice(1))
      .join("\n");
    const base = readFileSync(join(examplesDir, "bare-metal-ha", "cluster.yaml"), "utf8");
    const work = mkdtempSync(join(tmpdir(), "clusterspec-walkthrough-"));
    try {
      mkdirSync(join(work, "examples", "bare-metal-ha"), { recursive: true });
      writeFileSync(join(work, "base.yaml"), base);
      writeFileSync(
        join(work, "examples", "bare-metal-ha", "cluster.yaml"),
        base.replace("\nhost:", `\n${added}\nhost:`),
      );
      for (const [format, fence] of [
        ["markdown", "````text"],
        ["text", "```text"],
      ] as const) {
        const printed: string[] = [];
        const io: CliIO = { cwd: work, env: {}, stdout: (t) => printed.push(t), stderr: () => {}, version: "test" };
        const args = ["changes", "base.yaml", "examples/bare-metal-ha/cluster.yaml", "--format", format];
        expect(await runCli(args, io)).toBe(0);
        const start = doc.indexOf(`${fence}\n${format === "markdown" ? "### clusterspec" : "base.yaml"}`);
        expect(start, fence).toBeGreaterThan(0);
        const body = doc.slice(start + fence.length + 1, doc.indexOf(`\n${fence.replace("text", "")}\n`, start));
        expect(`${body}\n`).toBe(printed.join(""));
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});
