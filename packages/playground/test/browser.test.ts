// The playground in a real Chromium (Debian's, installed by .ci/run; nothing here downloads a browser), driven by
// playwright-core against the built static folder served on 127.0.0.1.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isCloudBurstPlan, mastersWith, resolvePlan, validateSpec } from "@clusterspec/core";
import { exampleInput, exampleNames, examplesDir, exampleText, readTree, toolAvailable } from "@clusterspec/testkit";
import { MANIFEST, runCli } from "clusterspec/cli";
import { unzipSync } from "fflate";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mermaidBlocks } from "../src/engine.js";
import { buildPlayground, type StaticServer, serveStatic } from "./static-server.js";
import { artifactsDir } from "./support.js";

const CHROMIUM = "/usr/bin/chromium";
// Headless, offline-minded flags: no first-run UI, no background fetches, a fresh profile per run.
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

let server: StaticServer | undefined;
let context: BrowserContext | undefined;
let page: Page;
let profileDir = "";
let siteDir = "";
const foreignRequests: string[] = [];
/** Paths the page fetched from our server, in order. */
const ownRequests: string[] = [];
/** What the page fetched to show its first example, and which example that was. */
let firstLoad: { example: string | undefined; requests: string[] } = { example: undefined, requests: [] };
const pageErrors: string[] = [];

beforeAll(async () => {
  // toolAvailable throws under CI when chromium is missing, so CI can never pass by skipping.
  if (!toolAvailable("chromium")) return;
  siteDir = await buildPlayground();
  server = await serveStatic(siteDir);
  profileDir = mkdtempSync(join(tmpdir(), "clusterspec-chromium-"));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
  });
  // The page is static: anything but our loopback server is a bug (a CDN font, a telemetry call).
  await context.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.origin === server?.origin) ownRequests.push(url.pathname);
    if (url.protocol === "data:" || url.protocol === "blob:" || url.origin === server?.origin) return route.continue();
    foreignRequests.push(url.href);
    return route.abort();
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on("pageerror", (e) => pageErrors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") pageErrors.push(`console.${m.type()}: ${m.text()}`);
  });
  await page.goto(`${server.origin}/index.html`);
  await settled();
  firstLoad = {
    example: (await page.getAttribute("#app", "data-example")) ?? undefined,
    requests: [...ownRequests],
  };
}, 120_000);

afterAll(async () => {
  await context?.close();
  await server?.close();
  if (profileDir) rmSync(profileDir, { recursive: true, force: true });
  if (siteDir) rmSync(siteDir, { recursive: true, force: true });
});

const skipUnlessBrowser = (ctx: { skip: (note: string) => void }) => {
  if (!context) ctx.skip("needs Debian's chromium (installed by .ci/run)");
};

/** Waits until every render the page queued has finished. */
async function settled(): Promise<void> {
  try {
    await page.waitForFunction(
      () => {
        const app = document.getElementById("app");
        return app !== null && app.dataset.requested !== "0" && app.dataset.requested === app.dataset.rendered;
      },
      undefined,
      { timeout: 20_000 },
    );
  } catch (e) {
    const status = await page.locator("#status").textContent();
    throw new Error(`the page did not settle (status: ${status}; errors: ${pageErrors.join(" | ")})`, { cause: e });
  }
}

async function loadExample(name: string): Promise<void> {
  await page.selectOption("#example", name);
  await page.waitForSelector(`#app[data-example="${name}"]`);
  await settled();
}

async function screenshot(name: string): Promise<void> {
  mkdirSync(artifactsDir, { recursive: true });
  await page.screenshot({ path: join(artifactsDir, `${name}.png`) });
}

/** Every file the tree shows, opened one by one, with the text the page then displays. */
function filesShown(): Promise<Record<string, string>> {
  return page.evaluate(() => {
    const out: Record<string, string> = {};
    for (const button of document.querySelectorAll<HTMLButtonElement>("#tree button.file")) {
      button.click();
      out[button.dataset.path ?? ""] = document.getElementById("file-content")?.textContent ?? "";
    }
    return out;
  });
}

function goldenTree(name: string): Record<string, string> {
  const tree = readTree(join(examplesDir, name, "generated"));
  delete tree[MANIFEST];
  return Object.fromEntries(Object.entries(tree).map(([path, modeAndContent]) => [path, modeAndContent.slice(4)]));
}

describe("the playground in Chromium", () => {
  describe.each(exampleNames())("example %s", (name) => {
    it("shows every file of the CLI's golden tree, byte for byte", async (ctx) => {
      skipUnlessBrowser(ctx);
      await loadExample(name);
      await page.click('[data-tab="files"]');
      const shown = await filesShown();
      expect(Object.keys(shown).sort()).toEqual(Object.keys(goldenTree(name)).sort());
      expect(shown).toEqual(goldenTree(name));
      // A cloud pool's user data where the example has one, else the first node's keepalived.conf.
      const paths = Object.keys(shown).sort();
      const pick = paths.find((p) => p.endsWith("/user-data.yaml")) ?? paths.find((p) => p.endsWith("keepalived.conf"));
      await page.locator(`#tree button.file[data-path="${pick}"]`).scrollIntoViewIfNeeded();
      await page.click(`#tree button.file[data-path="${pick}"]`);
      expect(await page.locator("#file-content").textContent()).toBe(goldenTree(name)[pick ?? ""]);
      await screenshot(`${name}-files`);
    });

    it("downloads the same tree as a zip", async (ctx) => {
      skipUnlessBrowser(ctx);
      await loadExample(name);
      const [download] = await Promise.all([page.waitForEvent("download"), page.click("#download")]);
      expect(download.suggestedFilename()).toBe(`${exampleInput(name).name}-generated.zip`);
      const zip = unzipSync(readFileSync(await download.path()));
      const files = Object.fromEntries(Object.entries(zip).map(([p, bytes]) => [p, new TextDecoder().decode(bytes)]));
      expect(files).toEqual(goldenTree(name));
    });

    it("renders PLAN.md with every Mermaid diagram it has, without a parse error", async (ctx) => {
      skipUnlessBrowser(ctx);
      await loadExample(name);
      await page.click('[data-tab="plan"]');
      const diagrams = mermaidBlocks(readFileSync(join(examplesDir, name, "generated", "PLAN.md"), "utf8"));
      expect(await page.locator("#plan .mermaid-block").count()).toBe(diagrams.length);
      expect(await page.locator("#plan .mermaid-block svg").count()).toBe(diagrams.length);
      expect(await page.locator(".mermaid-error").allTextContents()).toEqual([]);
      const title = readFileSync(join(examplesDir, name, "generated", "PLAN.md"), "utf8").split("\n")[0] ?? "";
      expect(await page.locator("#plan h1").textContent()).toBe(title.replace(/^# /, ""));
      expect(await page.locator("#plan table").count()).toBeGreaterThan(0);
      await screenshot(`${name}-plan`);
    });
  });

  it("shows a typed error at its line with the CLI's message", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    await page.click('[data-tab="files"]');
    const lines = exampleText("bare-metal-ha").split("\n");
    const lineNo = lines.indexOf("  vrid: 5") + 1;
    expect(lineNo).toBeGreaterThan(0);
    await page.locator(".cm-line", { hasText: /^ {2}vrid: 5$/ }).click();
    await page.keyboard.press("End");
    await page.keyboard.type("00");
    const issue = page.locator("#issues li[data-severity=error]");
    await issue.first().waitFor();
    await settled();

    const broken = [...lines.slice(0, lineNo - 1), "  vrid: 500", ...lines.slice(lineNo)].join("\n");
    const cli = await validateWithCli(broken);
    expect(cli.code).toBe(2);
    expect(await issue.count()).toBe(1);
    expect(await issue.getAttribute("data-line")).toBe(String(lineNo));
    expect(`${await issue.locator("pre").textContent()}\n`).toBe(cli.stderr);
    // The editor marks that very line, and its tooltip carries the same text.
    const marked = page.locator(".cm-lintRange-error");
    expect(await marked.count()).toBe(1);
    expect(await marked.evaluate((el) => el.closest(".cm-line")?.textContent)).toBe("  vrid: 500");
    await marked.hover();
    await page.locator(".cm-tooltip-lint").waitFor();
    expect(`${await page.locator(".cm-tooltip-lint .cm-diagnosticText").textContent()}\n`).toBe(cli.stderr);
    await expect.poll(() => page.locator("#status").getAttribute("data-ok")).toBe("false");
    await screenshot("typed-error");

    await page.keyboard.press("Backspace");
    await page.keyboard.press("Backspace");
    await expect.poll(() => page.locator("#issues li").count()).toBe(0);
  });

  it("explains and completes keys from the spec's JSON Schema", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    const line = page.locator(".cm-line", { hasText: /^ {2}vrid: 5$/ });
    await line.getByText("vrid").hover();
    await expect.poll(() => page.locator(".schema-hover").textContent()).toContain("VRRP router id");
    await screenshot("schema-hover");

    await line.click();
    await page.keyboard.press("End");
    await page.keyboard.press("Enter");
    await page.keyboard.type("inter");
    const option = page.locator(".cm-tooltip-autocomplete li", { hasText: "interface" });
    await option.waitFor();
    await screenshot("schema-completion");
    await page.keyboard.press("Enter");
    await page.keyboard.type("wan1");
    expect(await page.locator(".cm-line", { hasText: /^ {2}interface: wan1$/ }).count()).toBe(1);
    await page.waitForTimeout(400);
    await settled();
    expect(await page.locator("#status").getAttribute("data-ok")).toBe("true");

    // Choosing the example again restores its text.
    await loadExample("bare-metal-ha");
    expect(await page.locator(".cm-line", { hasText: /^ {2}interface: wan1$/ }).count()).toBe(0);
  });

  it("fails a node and shows who then holds each VIP", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    await page.click('[data-tab="failover"]');
    const validated = validateSpec(exampleInput("bare-metal-ha"));
    if (!validated.ok) throw new Error("bare-metal-ha is invalid");
    const plan = resolvePlan(validated.value);
    if (isCloudBurstPlan(plan)) throw new Error("bare-metal-ha has VIPs");
    const holders = () =>
      page.$$eval("#holders tbody tr", (rows) =>
        rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)),
      );
    const expected = (down: Set<string>) => {
      const now = mastersWith(plan.vips, down);
      return plan.vips.map((v) => now.get(v.key) ?? "nobody (every node of it is down)");
    };
    expect((await holders()).map((r) => r[3])).toEqual(expected(new Set()));
    await screenshot("failover-all-up");

    const victim = plan.vips[0]?.order[0] ?? "";
    await page.check(`#nodes input[value="${victim}"]`);
    await settled();
    const after = await holders();
    expect(after.map((r) => r[3])).toEqual(expected(new Set([victim])));
    expect(after.map((r) => r[3])).not.toContain(victim);
    expect(await page.locator('#holders tr[data-changed="true"]').count()).toBeGreaterThan(0);
    expect(await page.locator("#holders-diagram svg").count()).toBe(1);
    expect(await page.locator("#holders-diagram").textContent()).toContain(`${victim} (down)`);
    await screenshot("failover-one-down");

    await page.uncheck(`#nodes input[value="${victim}"]`);
    await settled();
    expect((await holders()).map((r) => r[3])).toEqual(expected(new Set()));
  });

  it("keeps working offline once loaded, and never asked any host but its own", async (ctx) => {
    skipUnlessBrowser(ctx);
    await context?.setOffline(true);
    try {
      for (const name of exampleNames()) {
        await loadExample(name);
        await page.click('[data-tab="plan"]');
        expect(await page.locator(".mermaid-error").count()).toBe(0);
      }
      await page.click('[data-tab="failover"]');
      await page.locator("#nodes input").first().check();
      await settled();
      expect(await page.locator("#holders-diagram svg").count()).toBe(1);
    } finally {
      await context?.setOffline(false);
    }
    expect(foreignRequests).toEqual([]);
  });

  it("loads the upstream schemas only for a spec with free-form parts", async (ctx) => {
    skipUnlessBrowser(ctx);
    // ajv and the schemas are chunks of their own (Vite names them after their modules).
    const schemaChunk = /\/assets\/(ajv|kubernetes|cilium|cloud-init|terraform|values\.schema|aws-provider-subset)[-.]/;
    expect(firstLoad.example).toBe("bare-metal-ha");
    expect(firstLoad.requests.filter((p) => schemaChunk.test(p))).toEqual([]);
    await loadExample("customised");
    expect(await page.locator("#status").getAttribute("data-ok")).toBe("true");
    expect(ownRequests.filter((p) => schemaChunk.test(p))).not.toEqual([]);
  });

  it("logged no error and threw nothing", (ctx) => {
    skipUnlessBrowser(ctx);
    expect(pageErrors).toEqual([]);
  });
});

async function validateWithCli(text: string): Promise<{ code: number; stderr: string }> {
  const dir = mkdtempSync(join(tmpdir(), "clusterspec-web-"));
  try {
    writeFileSync(join(dir, "cluster.yaml"), text);
    let stderr = "";
    const code = await runCli(["validate", "cluster.yaml"], {
      cwd: dir,
      env: {},
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
      version: "test",
    });
    return { code, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
