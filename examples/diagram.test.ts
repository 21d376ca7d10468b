// PLAN.md's Mermaid picture must render where reviewers see it: the real mermaid package, in Debian's headless
// Chromium (driven by playwright-core; nothing downloads a browser), parses and renders every example's diagram
// and a 16-node one, and fails on a broken diagram (so this check can fail).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { failoverDiagram } from "@clusterspec/core";
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { clusterExampleNames, exampleInput, examplesDir, toolAvailable } from "@clusterspec/testkit";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const CHROMIUM = "/usr/bin/chromium";
const mermaidBundle = createRequire(import.meta.url).resolve("mermaid/dist/mermaid.min.js");

let browser: Browser | undefined;
const available = (): boolean => toolAvailable(CHROMIUM);

beforeAll(async () => {
  if (!available()) return;
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    // No sandbox as root; no background connections (this machine's network is closed).
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
});
afterAll(async () => {
  await browser?.close();
});

/** mermaid.parse then mermaid.render in a blank page: the error text, or the size of the SVG. */
async function render(text: string): Promise<{ ok: true; svgLength: number } | { ok: false; error: string }> {
  if (!browser) throw new Error("no browser");
  const page = await browser.newPage();
  try {
    await page.setContent("<!doctype html><html><body></body></html>");
    await page.addScriptTag({ path: mermaidBundle });
    return await page.evaluate(async (source) => {
      const mermaid = (globalThis as any).mermaid;
      mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
      try {
        await mermaid.parse(source);
        const { svg } = await mermaid.render("diagram", source);
        return { ok: true as const, svgLength: String(svg).length };
      } catch (e) {
        return { ok: false as const, error: String((e as Error).message ?? e) };
      }
    }, text);
  } finally {
    await page.close();
  }
}

describe("PLAN.md's Mermaid diagram", () => {
  it.for(clusterExampleNames())(
    "renders from example %s's committed PLAN.md",
    { timeout: 60_000 },
    async (name, ctx) => {
      if (!available()) return ctx.skip("needs Debian's chromium (installed by .ci/run)");
      // The block GitHub renders in a pull request: the golden PLAN.md's mermaid fence.
      const plan = readFileSync(join(examplesDir, name, "generated", "PLAN.md"), "utf8");
      const block = /^```mermaid\n([\s\S]*?)\n```$/m.exec(plan)?.[1];
      expect(block).toBe(failoverDiagram(mustResolve(exampleInput(name))));
      expect(await render(block ?? "")).toMatchObject({ ok: true });
    },
  );

  it("renders at 16 nodes with 200 external VIPs (grouped)", { timeout: 60_000 }, async (ctx) => {
    if (!available()) return ctx.skip("needs Debian's chromium (installed by .ci/run)");
    const plan = mustResolve(buildSpec({ controlPlanes: 5, workers: 13, poolSize: 200, cloud: false }));
    expect(await render(failoverDiagram(plan))).toMatchObject({ ok: true });
  });

  it("fails on a broken diagram", { timeout: 60_000 }, async (ctx) => {
    if (!available()) return ctx.skip("needs Debian's chromium (installed by .ci/run)");
    const broken = `${failoverDiagram(mustResolve(exampleInput()))}\n  cp ==>|"unclosed label| n0`;
    const result = await render(broken);
    expect(result.ok).toBe(false);
  });
});
