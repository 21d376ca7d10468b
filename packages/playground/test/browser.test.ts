// The playground in a real Chromium (Debian's, installed by .ci/run; nothing here downloads a browser), driven by
// playwright-core against the built static folder served on 127.0.0.1.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AT_REST, holderMap, isCloudBurstPlan, resolvePlan, simulateFailover, validateSpec } from "@clusterspec/core";
import { exampleInput, exampleNames, examplesDir, exampleText, readTree, toolAvailable } from "@clusterspec/testkit";
import { generateChecked } from "clusterspec";
import { MANIFEST, runCli } from "clusterspec/cli";
import { applyPatch } from "diff";
import { unzipSync } from "fflate";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mermaidBlocks } from "../src/engine.js";
import { specFromFragment } from "../src/share.js";
import { buildPlayground, type StaticServer, serveStatic } from "./static-server.js";
import { artifactsDir, cliChanges } from "./support.js";

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

/** For a change that waits on the editor's lint delay and a render on a loaded machine. */
const POLL = { timeout: 20_000 };

/** Waits until every render the page queued has finished. */
async function settled(p: Page = page): Promise<void> {
  try {
    await p.waitForFunction(
      () => {
        const app = document.getElementById("app");
        return app !== null && app.dataset.requested !== "0" && app.dataset.requested === app.dataset.rendered;
      },
      undefined,
      { timeout: 20_000 },
    );
  } catch (e) {
    const status = await p.locator("#status").textContent();
    throw new Error(`the page did not settle (status: ${status}; errors: ${pageErrors.join(" | ")})`, { cause: e });
  }
}

/** A second tab on the same origin (same local storage), as a user opens a link or comes back later. */
async function openPage(url: string): Promise<Page> {
  if (!context) throw new Error("no browser");
  const other = await context.newPage();
  other.on("pageerror", (e) => pageErrors.push(e.message));
  await other.goto(url);
  await settled(other);
  return other;
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
    // One line: the message; the CLI's other lines (where, the code frame) open on demand.
    const full = async () =>
      `${await issue.locator("summary").textContent()}\n${await issue.locator("pre").textContent()}\n`;
    expect(await full()).toBe(cli.stderr);
    expect(await issue.locator("summary").textContent()).toBe(cli.stderr.split("\n")[0]);
    const lineHeight = await issue
      .locator("summary")
      .evaluate((el) => Number.parseFloat(getComputedStyle(el).lineHeight) || el.getBoundingClientRect().height);
    const closedHeight = (await issue.boundingBox())?.height ?? 0;
    expect(closedHeight).toBeGreaterThan(0);
    expect(closedHeight).toBeLessThan(2 * lineHeight);
    expect(await issue.locator("pre").isVisible()).toBe(false);
    await issue.locator("summary").click();
    expect(await issue.locator("pre").isVisible()).toBe(true);
    expect((await issue.boundingBox())?.height ?? 0).toBeGreaterThan(3 * lineHeight);
    await issue.locator("summary").click();
    await page.locator(".cm-line", { hasText: /^ {2}vrid: 500$/ }).click();
    await page.keyboard.press("End");
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
    const atRest = holderMap(simulateFailover(plan, AT_REST));
    const expected = (down: Set<string>, unhealthy: Set<string> = new Set()) => {
      const now = holderMap(simulateFailover(plan, { down: [...down], unhealthy: [...unhealthy] }, atRest));
      return plan.vips.map((v) => now.get(v.key) ?? "nobody (every node of it is down or in FAULT)");
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

  it("fails a control-plane node's apiserver check and moves the control-plane VIP as the model says", async (ctx) => {
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
    const atRest = holderMap(simulateFailover(plan, AT_REST));
    const cpIndex = plan.vips.findIndex((v) => v.kind === "control-plane");
    const cpKey = plan.vips[cpIndex]?.key ?? "";
    const sick = atRest.get(cpKey) ?? "";
    const model = holderMap(simulateFailover(plan, { down: [], unhealthy: [sick] }, atRest));
    expect(model.get(cpKey)).not.toBe(sick);

    expect(await page.locator("#unhealthy input").count()).toBeGreaterThan(0);
    await page.check(`#unhealthy input[value="${sick}"]`);
    await settled();
    const after = await holders();
    expect(after.map((r) => r[3])).toEqual(
      plan.vips.map((v) => model.get(v.key) ?? "nobody (every node of it is down or in FAULT)"),
    );
    expect(after[cpIndex]?.[3]).not.toBe(sick);
    expect(await page.locator(`#holders tr[data-vip="${cpKey}"]`).getAttribute("data-changed")).toBe("true");
    expect(await page.locator("#holders-diagram").textContent()).toContain(`${sick} (check failing)`);
    await screenshot("failover-check-failing");

    await page.uncheck(`#unhealthy input[value="${sick}"]`);
    await settled();
    expect((await holders()).map((r) => r[3])).toEqual(plan.vips.map((v) => atRest.get(v.key) ?? ""));
  });

  it("keeps edits across a reload, says 'your spec' for them, and Reset to example brings the example back", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    expect(await selectedExample()).toBe("bare-metal-ha");
    expect(await page.locator("#reset").isDisabled()).toBe(true);
    await page.locator(".cm-line", { hasText: /^ {2}vrid: 5$/ }).click();
    await page.keyboard.press("End");
    await page.keyboard.type(" # mine");
    await expect.poll(selectedExample, POLL).toBe("your spec");
    await settled();
    expect(await page.getAttribute("#app", "data-example")).toBe("");
    expect(await page.locator("#reset").isEnabled()).toBe(true);
    await screenshot("your-spec");

    // Undoing back to the example's very text claims the example again.
    await page.keyboard.press("Control+z");
    await expect.poll(selectedExample, POLL).toBe("bare-metal-ha");
    await page.keyboard.type(" # mine");
    await expect.poll(selectedExample, POLL).toBe("your spec");
    await settled();

    // Another visit (a new tab; the test's own page keeps the chunks it loaded for the offline test).
    const later = await openPage(`${server?.origin}/index.html`);
    try {
      const shows = (p: Page) =>
        p.$eval("#example", (el) => (el as HTMLSelectElement).selectedOptions[0]?.textContent ?? undefined);
      expect(await later.locator(".cm-line", { hasText: /^ {2}vrid: 5 # mine$/ }).count()).toBe(1);
      expect(await shows(later)).toBe("your spec");
      expect(await later.locator("#status").getAttribute("data-ok")).toBe("true");
      expect(await later.locator("#base-label").textContent()).toBe("example bare-metal-ha");

      await later.click("#reset");
      await settled(later);
      expect(await shows(later)).toBe("bare-metal-ha");
      expect(await later.locator(".cm-line", { hasText: /^ {2}vrid: 5$/ }).count()).toBe(1);
      expect(await later.locator("#reset").isDisabled()).toBe(true);
      await later.reload();
      await settled(later);
      expect(await shows(later)).toBe("bare-metal-ha");
      expect(await later.locator(".cm-line", { hasText: "# mine" }).count()).toBe(0);
    } finally {
      await later.close();
    }
  });

  it("opens a local file, and takes a file dropped onto the editor in place of the text", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    const opened = renamed("hybrid-cloud-burst", "opened-cluster");
    await page.setInputFiles("#open-file", { name: "mine.yaml", mimeType: "text/yaml", buffer: Buffer.from(opened) });
    await expect.poll(() => page.locator(".cm-line", { hasText: /^name: opened-cluster$/ }).count(), POLL).toBe(1);
    await settled();
    expect(await page.locator("#status").getAttribute("data-ok")).toBe("true");
    expect(await selectedExample()).toBe("your spec");
    expect(await page.locator("#base-label").textContent()).toBe("file mine.yaml");
    expect(await page.locator('#tree button.file[data-path="PLAN.md"]').count()).toBe(1);

    const dropped = renamed("bare-metal-ha", "dropped-cluster");
    await page.evaluate(
      ({ text }) => {
        const target = document.querySelector(".cm-content");
        if (!target) throw new Error("no editor");
        const data = new DataTransfer();
        data.items.add(new File([text], "dropped.yaml", { type: "text/yaml" }));
        for (const type of ["dragenter", "dragover", "drop"])
          target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      { text: dropped },
    );
    await expect.poll(() => page.locator(".cm-line", { hasText: /^name: dropped-cluster$/ }).count(), POLL).toBe(1);
    await settled();
    // The file replaced the text: one spec, not one inserted into the other.
    expect(await page.locator(".cm-line", { hasText: /^apiVersion: / }).count()).toBe(1);
    expect(await page.locator(".cm-line", { hasText: "opened-cluster" }).count()).toBe(0);
    expect(await page.locator("#base-label").textContent()).toBe("file dropped.yaml");
    expect(await page.locator("#status").getAttribute("data-ok")).toBe("true");

    // Dropped elsewhere on the page (the file tree), it opens as well.
    await page.evaluate(
      ({ text }) => {
        const target = document.getElementById("tree");
        if (!target) throw new Error("no file tree");
        const data = new DataTransfer();
        data.items.add(new File([text], "elsewhere.yaml", { type: "text/yaml" }));
        for (const type of ["dragenter", "dragover", "drop"])
          target.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      },
      { text: opened },
    );
    await expect.poll(() => page.locator(".cm-line", { hasText: /^name: opened-cluster$/ }).count(), POLL).toBe(1);
    expect(await page.locator(".cm-line", { hasText: /^apiVersion: / }).count()).toBe(1);
    expect(await page.locator("#base-label").textContent()).toBe("file elsewhere.yaml");
  });

  it("wraps long lines in the editor and in the file view instead of cutting them off", async (ctx) => {
    skipUnlessBrowser(ctx);
    const name = "hybrid-cloud-burst";
    await loadExample(name);
    await page.click('[data-tab="files"]');
    const golden = goldenTree(name);
    const longest = Object.keys(golden).sort(
      (a, b) => longestLine(golden[b] ?? "") - longestLine(golden[a] ?? "") || (a < b ? -1 : 1),
    )[0];
    expect(longestLine(golden[longest ?? ""] ?? "")).toBeGreaterThan(1000);
    await page.locator(`#tree button.file[data-path="${longest}"]`).scrollIntoViewIfNeeded();
    await page.click(`#tree button.file[data-path="${longest}"]`);
    const file = await page.locator("#file").evaluate((el) => {
      const pre = el.querySelector("pre");
      const style = getComputedStyle(pre ?? el);
      // "normal" is about 1.2 em for a monospace font.
      const lineHeight = Number.parseFloat(style.lineHeight) || 1.2 * Number.parseFloat(style.fontSize);
      return {
        overflow: el.scrollWidth - el.clientWidth,
        lines: (pre?.textContent ?? "").split("\n").length,
        height: pre?.getBoundingClientRect().height ?? 0,
        lineHeight,
      };
    });
    expect(file.overflow).toBeLessThanOrEqual(0);
    // More rows than lines: the long ones wrapped.
    expect(file.height).toBeGreaterThan((file.lines + 10) * file.lineHeight);
    await screenshot("long-lines-file");

    const long = `# ${"a long comment that goes on ".repeat(30).trim()}`;
    // Focus and go to the document's start by keys: a click on a line can land on another one when the editor
    // scrolls between Playwright's scroll-into-view and the click (seen after the Files tab opened a long file).
    await page.locator(".cm-content").focus();
    await page.keyboard.press("Control+Home");
    await page.keyboard.insertText(`${long}\n`);
    await page.locator(".cm-line", { hasText: /^# a long comment/ }).waitFor();
    await page.waitForTimeout(400);
    await settled();
    const editor = await page.locator(".cm-scroller").evaluate((el) => {
      const line = [...el.querySelectorAll(".cm-line")].find((l) => l.textContent?.startsWith("# a long comment"));
      return {
        overflow: el.scrollWidth - el.clientWidth,
        height: line?.getBoundingClientRect().height ?? 0,
        lineHeight: Number.parseFloat(getComputedStyle(line ?? el).lineHeight),
      };
    });
    expect(editor.overflow).toBeLessThanOrEqual(0);
    expect(editor.height).toBeGreaterThan(3 * editor.lineHeight);
    await screenshot("long-lines-editor");
  });

  it("shows every file's full name in the tree, however narrow", async (ctx) => {
    skipUnlessBrowser(ctx);
    await page.setViewportSize({ width: 900, height: 900 });
    try {
      await loadExample("hybrid-cloud-burst");
      await page.click('[data-tab="files"]');
      const names = await page.locator("#tree").evaluate((tree) => {
        const right = tree.getBoundingClientRect().right;
        return {
          overflow: tree.scrollWidth - tree.clientWidth,
          files: [...tree.querySelectorAll<HTMLButtonElement>("button.file")].map((b) => ({
            path: b.dataset.path,
            title: b.title,
            text: b.textContent,
            cut: b.scrollWidth > b.clientWidth || b.getBoundingClientRect().right > right + 0.5,
          })),
        };
      });
      expect(names.overflow).toBeLessThanOrEqual(0);
      expect(names.files.map((f) => f.path).sort()).toEqual(Object.keys(goldenTree("hybrid-cloud-burst")).sort());
      for (const f of names.files) {
        expect(f.title).toBe(f.path);
        expect(f.text).toBe(f.path?.split("/").at(-1));
        expect(f.cut, f.path).toBe(false);
      }
      await screenshot("narrow-tree");
    } finally {
      await page.setViewportSize({ width: 1440, height: 900 });
    }
  });

  it("diffs the generated files against a base and shows the change plan in the words of `clusterspec changes`", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    await page.click('[data-tab="changes"]');
    await settled();
    expect(await page.locator("#base-label").textContent()).toBe("example bare-metal-ha");
    expect(await page.locator("#changes-summary").textContent()).toBe("The generated files are the same.");
    expect(await page.locator("#file-diffs details").count()).toBe(0);

    await page.locator(".cm-line", { hasText: /^ {2}advertInterval: 1$/ }).click();
    await page.keyboard.press("End");
    await page.keyboard.press("Backspace");
    await page.keyboard.type("2");
    await page.locator(".cm-line", { hasText: /^ {2}nameservers: \[1\.1\.1\.1, 8\.8\.8\.8\]$/ }).click();
    await page.keyboard.press("End");
    for (let i = 0; i < "8.8.8.8]".length; i++) await page.keyboard.press("Backspace");
    await page.keyboard.type("9.9.9.9]");

    const base = exampleText("bare-metal-ha");
    const edited = base
      .replace("advertInterval: 1", "advertInterval: 2")
      .replace("nameservers: [1.1.1.1, 8.8.8.8]", "nameservers: [1.1.1.1, 9.9.9.9]");
    const markdown = await cliChanges(base, edited, "markdown");
    expect(markdown.code).toBe(0);
    // The page catches up with the last keystroke (the editor checks 250 ms after it).
    await expect
      .poll(() => page.locator("#change-plan-markdown").getAttribute("data-source"), POLL)
      .toBe(markdown.stdout);
    await settled();
    expect(await page.getAttribute("#app", "data-compared")).toBe("differs");
    expect(await page.locator("#change-plan-markdown h3").textContent()).toBe("clusterspec: change plan");
    // A change's files, one per line in their cell, as GitHub shows the CLI's `<br>`.
    expect(await page.locator("#change-plan-markdown td br").count()).toBeGreaterThan(0);
    expect(await page.locator("#change-plan-markdown").textContent()).not.toContain("<br>");
    expect(await page.locator("#change-plan-markdown").isVisible()).toBe(true);
    await screenshot("changes-markdown");
    await page.selectOption("#plan-format", "text");
    expect(await page.locator("#change-plan-text").isVisible()).toBe(true);
    expect(await page.locator("#change-plan-text").textContent()).toBe((await cliChanges(base, edited, "text")).stdout);

    // Each file the trees differ in, with a patch that turns the base's file into the current one.
    const [before, after] = await Promise.all([
      generateChecked(base, { sourceName: "cluster.yaml" }),
      generateChecked(edited, { sourceName: "cluster.yaml" }),
    ]);
    if (!before.ok || !after.ok) throw new Error("the specs do not generate");
    const old = new Map(before.artifacts.map((a) => [a.path, a.content]));
    const changed = after.artifacts.filter((a) => old.get(a.path) !== a.content);
    const shownDiffs = await page.$$eval("#file-diffs details", (all) =>
      all.map((d) => ({ path: d.dataset.path ?? "", patch: d.querySelector("pre")?.dataset.patch ?? "" })),
    );
    expect(shownDiffs.map((d) => d.path)).toEqual(changed.map((a) => a.path).sort());
    for (const d of shownDiffs)
      expect(applyPatch(old.get(d.path) ?? "", d.patch), d.path).toBe(changed.find((a) => a.path === d.path)?.content);
    expect(await page.locator("#file-diffs .add").count()).toBeGreaterThan(0);
    expect(await page.locator("#file-diffs .del").count()).toBeGreaterThan(0);
    expect(await page.locator("#changes-summary").textContent()).toBe(
      `${changed.length} generated file(s) differ from the base's.`,
    );
    await page.locator("#file-diffs").scrollIntoViewIfNeeded();
    await screenshot("changes-diffs");

    // A link of the plan opens the generated file in the page.
    await page.selectOption("#plan-format", "markdown");
    const link = page.locator('#change-plan-markdown a[href^="generated/nodes/"]').first();
    const target = ((await link.getAttribute("href")) ?? "").split("#")[0]?.slice("generated/".length);
    await link.click();
    expect(await page.locator('[data-tab="files"]').getAttribute("aria-selected")).toBe("true");
    expect(await page.locator("#file-path").textContent()).toMatch(new RegExp(`^${target}( |$)`));

    // Set as base: nothing differs any more.
    await page.click('[data-tab="changes"]');
    await page.click("#set-base");
    await settled();
    expect(await page.locator("#base-label").textContent()).toBe("your snapshot (Set as base)");
    expect(await page.locator("#changes-summary").textContent()).toBe("The generated files are the same.");
    await page.selectOption("#plan-format", "text");
    expect(await page.locator("#change-plan-text").textContent()).toBe(
      (await cliChanges(edited, edited, "text")).stdout,
    );
    expect(await page.locator("#change-plan-text").textContent()).toContain("The specs are the same: nothing to do.");
    await page.selectOption("#plan-format", "markdown");
  });

  it("shows the CLI's message when the current spec has no change plan", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    await page.click('[data-tab="changes"]');
    await page.locator(".cm-line", { hasText: /^ {2}vrid: 5$/ }).click();
    await page.keyboard.press("End");
    await page.keyboard.type("00");
    const base = exampleText("bare-metal-ha");
    const cli = await cliChanges(base, base.replace("vrid: 5", "vrid: 500"), "text");
    expect(cli.code).toBe(2);
    await expect.poll(async () => `${await page.locator("#change-plan-text").textContent()}\n`, POLL).toBe(cli.stderr);
    await settled();
    expect(await page.getAttribute("#change-plan", "data-ok")).toBe("false");
    expect(await page.locator("#change-plan-text").isVisible()).toBe(true);
    expect(await page.locator("#changes-summary").textContent()).toBe("No file diff: a spec does not generate.");
    await page.click('[data-tab="files"]');
  });

  it("shares the spec in the URL fragment: the link round-trips, and the server never sees it", async (ctx) => {
    skipUnlessBrowser(ctx);
    if (!server || !context) return;
    // Not an example, with characters beyond ASCII.
    const text = renamed("bare-metal-ha", "shared-cluster").replace(
      "# Reference cluster 1",
      "# Geteilt: Grüße ✓ — Reference cluster 1",
    );
    await page.setInputFiles("#open-file", { name: "shared.yaml", mimeType: "text/yaml", buffer: Buffer.from(text) });
    await expect.poll(() => page.locator(".cm-line", { hasText: /^name: shared-cluster$/ }).count(), POLL).toBe(1);
    await settled();
    await page.click("#share");
    await expect.poll(() => page.locator("#share-url").inputValue(), POLL).not.toBe("");
    const link = new URL(await page.locator("#share-url").inputValue());
    expect(link.origin).toBe(server.origin);
    expect(link.pathname).toBe("/index.html");
    expect(link.hash.startsWith("#spec=")).toBe(true);
    expect(specFromFragment(link.hash)).toBe(text);
    const payload = link.hash.slice("#spec=".length);
    await screenshot("share-link");

    const before = server.requests.length;
    const other = await openPage(link.href);
    try {
      expect(await other.locator(".cm-line", { hasText: /^name: shared-cluster$/ }).count()).toBe(1);
      expect(await other.locator(".cm-line", { hasText: "Grüße ✓" }).count()).toBe(1);
      expect(await other.locator("#status").getAttribute("data-ok")).toBe("true");
      expect(await other.locator("#base-label").textContent()).toBe("the shared link's spec");
      expect(await other.$eval("#example", (s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent)).toBe(
        "your spec",
      );
      // Off the address bar once loaded; sharing again gives the same link.
      expect(await other.evaluate(() => location.hash)).toBe("");
      await other.click("#share");
      await expect.poll(() => other.locator("#share-url").inputValue(), POLL).toBe(link.href);
    } finally {
      await other.close();
    }
    // The server saw the page load, and never the fragment.
    const seen = server.requests.slice(before);
    expect(seen).toContain("GET /index.html");
    expect(seen.filter((r) => !r.startsWith("GET "))).toEqual([]);
    expect(server.requests.filter((r) => r.includes(payload.slice(0, 16)) || r.includes("spec="))).toEqual([]);
    expect(ownRequests.filter((p) => p.includes(payload.slice(0, 16)))).toEqual([]);

    // A link cut short when it was copied: the page says so and shows the text it had.
    const cut = await openPage(`${server.origin}/index.html#${link.hash.slice(1, link.hash.length / 2)}`);
    try {
      expect(await cut.locator("#share-note").textContent()).toBe(
        "✖ the share link's spec does not decode: was the link cut short when it was copied?",
      );
      expect(await cut.locator("#share-bar").isVisible()).toBe(true);
      expect(await cut.locator(".cm-line", { hasText: /^name: shared-cluster$/ }).count()).toBe(1);
      expect(await cut.evaluate(() => location.hash)).toBe("");
    } finally {
      await cut.close();
    }
  });

  it("refuses a file over 1 MiB with a message, and keeps the text", async (ctx) => {
    skipUnlessBrowser(ctx);
    await loadExample("bare-metal-ha");
    const big = Buffer.alloc(1024 * 1024 + 1, "#");
    await page.setInputFiles("#open-file", { name: "big.yaml", mimeType: "text/yaml", buffer: big });
    await expect
      .poll(() => page.locator("#share-note").textContent(), POLL)
      .toBe("✖ big.yaml is 1048577 bytes: a cluster spec is at most 1048576 bytes");
    expect(await page.locator("#share-url").isVisible()).toBe(false);
    expect(await selectedExample()).toBe("bare-metal-ha");
    expect(await page.locator("#base-label").textContent()).toBe("example bare-metal-ha");
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

  it("loads the change planner and the diff library only once the Changes tab opens", (ctx) => {
    skipUnlessBrowser(ctx);
    // Vite names the chunk after its module, src/compare.ts.
    const compareChunk = /\/assets\/compare-[\w-]+\.js$/;
    expect(firstLoad.requests.filter((p) => compareChunk.test(p))).toEqual([]);
    // The Changes tests above opened it.
    expect(ownRequests.filter((p) => compareChunk.test(p))).not.toEqual([]);
  });

  it("logged no error and threw nothing", (ctx) => {
    skipUnlessBrowser(ctx);
    expect(pageErrors).toEqual([]);
  });
});

/** What the Example select shows. */
function selectedExample(): Promise<string | undefined> {
  return page.$eval("#example", (s) => (s as HTMLSelectElement).selectedOptions[0]?.textContent ?? undefined);
}

/** An example's spec under another cluster name: the user's own text, no example's. */
function renamed(example: string, name: string): string {
  const text = exampleText(example);
  const out = text.replace(/^name: .*$/m, `name: ${name}`);
  if (out === text) throw new Error(`${example} has no top-level name`);
  return out;
}

function longestLine(text: string): number {
  return Math.max(0, ...text.split("\n").map((l) => l.length));
}

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
