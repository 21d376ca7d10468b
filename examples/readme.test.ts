// The README as a newcomer uses it (issue 31): its two commands stay what .ci/run and the docs promise, every link
// leads to a file in the repository, and the library example runs unchanged on every example spec.
import * as fs from "node:fs";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import * as library from "clusterspec";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..");
const readme = readFileSync(join(repo, "README.md"), "utf8");
const exampleDirs = readdirSync(import.meta.dirname).filter((d) =>
  existsSync(join(import.meta.dirname, d, "cluster.yaml")),
);

/** The first fenced block of `lang` after the heading `heading`. */
function codeBlock(markdown: string, heading: string, lang: string): string {
  const start = markdown.indexOf(`\n${heading}\n`);
  expect(start, `${heading} exists`).toBeGreaterThanOrEqual(0);
  const m = new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``).exec(markdown.slice(start));
  expect(m, `a \`\`\`${lang} block after ${heading}`).not.toBeNull();
  return m?.[1] ?? "";
}

/** Relative link targets of a markdown file, resolved from the repository root, anchors dropped. */
function linksOf(file: string): { target: string; text: string }[] {
  const text = readFileSync(join(repo, file), "utf8").replace(/```[\s\S]*?```/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => {
    const raw = m[1] ?? "";
    const path = raw.split("#")[0] ?? "";
    return {
      text: raw,
      target: /^[a-z]+:/.test(raw) || path === "" ? raw : resolve(repo, dirname(file), path).slice(repo.length + 1),
    };
  });
}

interface Run {
  readonly stdout: string[];
  readonly stderr: string[];
  readonly exitCode: number | undefined;
}

/**
 * Runs a TypeScript snippet as a user would paste it into an ES module: its imports of node:fs and clusterspec are the
 * real modules, except that readFileSync("cluster.yaml") reads `spec`, and console and process are captured.
 */
async function runSnippet(source: string, spec: string): Promise<Run> {
  const js = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, verbatimModuleSyntax: false },
  }).outputText;
  const modules: Record<string, unknown> = {
    "node:fs": { ...fs, readFileSync: (p: string) => (p === "cluster.yaml" ? spec : fs.readFileSync(p, "utf8")) },
    clusterspec: library,
  };
  const body = js
    .replace(/^export \{\};?$/m, "")
    .replace(/^import \{([^}]*)\} from "([^"]+)";$/gm, (_, names: string, from: string) => {
      expect(Object.hasOwn(modules, from), `the example imports ${from}`).toBe(true);
      return `const {${names}} = __modules[${JSON.stringify(from)}];`;
    });
  expect(body).not.toMatch(/^import /m);
  const out: Run = { stdout: [], stderr: [], exitCode: undefined };
  const captured = {
    log: (...a: unknown[]) => out.stdout.push(a.map(String).join(" ")),
    error: (...a: unknown[]) => out.stderr.push(a.map(String).join(" ")),
  };
  const proc = { exitCode: undefined as number | undefined };
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (
    ...args: string[]
  ) => (...a: unknown[]) => Promise<void>;
  await new AsyncFunction("__modules", "console", "process", body)(modules, captured, proc);
  return { ...out, exitCode: proc.exitCode };
}

describe("README.md", () => {
  it("keeps the two quick-start commands .ci/run and a newcomer rely on", () => {
    const block = codeBlock(readme, "## Quick start (a fresh machine with Node 20.19+ and npm)", "sh");
    expect(block.split("\n").filter((l) => l !== "" && !l.startsWith("#"))).toEqual([
      "npx -y pnpm@12.4.2 install && npx -y pnpm@12.4.2 example",
      "npx -y pnpm@12.4.2 test",
    ]);
    expect(readFileSync(join(repo, ".ci", "run"), "utf8")).toMatch(/^npx -y pnpm@12\.4\.2 test$/m);
  });

  it("says where the generated files go on the servers, near the top", () => {
    const at = readme.indexOf("Copy `nodes/<node>/` onto each server");
    expect(at).toBeGreaterThan(0);
    expect(readme.slice(0, at).split("\n").length).toBeLessThan(100);
  });

  const pages = [
    "README.md",
    ...readdirSync(join(repo, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  it.each(pages)("%s links only to files in the repository", (page) => {
    for (const link of linksOf(page)) {
      expect(link.target, `${page}: ${link.text} is not a file of the repository`).not.toMatch(/^[a-z]+:/);
      expect(existsSync(join(repo, link.target)), `${page}: ${link.text} (${link.target})`).toBe(true);
    }
  });
});

describe("the library examples, run as written", () => {
  const snippets = {
    "README.md": codeBlock(readme, "## Using the library", "ts"),
    "docs/library.md": codeBlock(
      readFileSync(join(repo, "docs", "library.md"), "utf8"),
      "## The entry point: generateChecked",
      "ts",
    ),
    "packages/cli/README.md (the npm page)": codeBlock(
      readFileSync(join(repo, "packages", "cli", "README.md"), "utf8"),
      "As a library (no file system; secrets arrive as values or from a resolver you pass):",
      "ts",
    ),
  };

  describe.each(Object.entries(snippets))("%s", (_page, snippet) => {
    it("names the entry point that works for every valid spec", () => {
      expect(snippet).toMatch(/await generateChecked\(/);
    });

    it.each(exampleDirs)("generates every file of %s, none of them an error", async (name) => {
      const spec = readFileSync(join(import.meta.dirname, name, "cluster.yaml"), "utf8");
      const run = await runSnippet(snippet, spec);
      expect(run.stderr).toEqual([]);
      expect(run.exitCode).toBeUndefined();
      const expected = await library.generateChecked(spec, { sourceName: "cluster.yaml" });
      if (!expected.ok) throw new Error(`example ${name} is invalid`);
      expect(run.stdout.map((l) => l.split(" ")[0])).toEqual(expected.artifacts.map((a) => a.path));
    });
  });

  it("covers a spec with cilium.values, overlays and kubernetes.kubelet (the ones generate alone refuses)", () => {
    const free = exampleDirs.filter((d) => {
      const text = readFileSync(join(import.meta.dirname, d, "cluster.yaml"), "utf8");
      return /^overlays:/m.test(text) && /^ {2}kubelet:/m.test(text) && /^cilium:[\s\S]*^ {2}values:/m.test(text);
    });
    expect(free.length).toBeGreaterThan(0);
    for (const d of free) {
      const r = library.generate(readFileSync(join(import.meta.dirname, d, "cluster.yaml"), "utf8"));
      expect(r.ok ? [] : r.errors.map((e) => e.code)).toEqual(["upstream_schema"]);
    }
  });

  it("prints the errors with their line and exits 2 on a spec with a mistake (README's example)", async () => {
    const spec = readFileSync(join(import.meta.dirname, "bare-metal-ha", "cluster.yaml"), "utf8").replace(
      "podSubnet:",
      "podSubnett:",
    );
    const run = await runSnippet(snippets["README.md"], spec);
    expect(run.exitCode).toBe(2);
    expect(run.stdout).toEqual([]);
    expect(run.stderr.join("\n")).toMatchInlineSnapshot(`
      "✖ unknown key "podSubnett" (did you mean "podSubnet"?)
        → at kubernetes.podSubnett (cluster.yaml:8:3)
        8 |   podSubnett: 10.244.0.0/16
          |   ^^^^^^^^^^"
    `);
  });
});
