// The page: spec editor on the left; generated files, PLAN.md and the failover view on the right.
import { specJsonSchema } from "@clusterspec/core";
import type { GenerateResult } from "clusterspec";
import { createEditor } from "./editor.js";
import {
  checkNodes,
  fileTree,
  type LineIssue,
  lineIssues,
  runSpec,
  SPEC_NAME,
  type TreeFolder,
  vipHolders,
  vipNodes,
  zipTree,
} from "./engine.js";
import { renderMarkdown, renderMermaid, renderMermaidBlocks } from "./markdown.js";
import type { JsonSchema } from "./schema-help.js";
import { shareFragment, specFromFragment } from "./share.js";
import "./style.css";

type Generated = Extract<GenerateResult, { ok: true }>;

const byId = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing`);
  return el as T;
};

// Bundled at build time: the page needs no server but its static files.
const examples: Record<string, string> = Object.fromEntries(
  Object.entries(
    import.meta.glob<string>("../../../examples/*/cluster.yaml", { query: "?raw", import: "default", eager: true }),
  ).map(([path, text]) => [path.split("/").at(-2) ?? path, text]),
);

const app = byId<HTMLElement>("app");
const status = byId<HTMLElement>("status");
const issuesList = byId<HTMLUListElement>("issues");
const exampleSelect = byId<HTMLSelectElement>("example");
const yourSpec = byId<HTMLOptionElement>("your-spec");
const resetButton = byId<HTMLButtonElement>("reset");
const downloadButton = byId<HTMLButtonElement>("download");
const exampleNames = Object.keys(examples).sort();
const defaultExample = exampleNames.includes("bare-metal-ha") ? "bare-metal-ha" : (exampleNames[0] ?? "");

/** Where the page keeps the user's text and base between visits (this browser only; nothing leaves it). */
const STORAGE_KEY = "clusterspec-playground";
interface Saved {
  readonly text: string;
  /** The example "Reset to example" loads: the last one chosen. */
  readonly example: string;
  readonly base: Base;
}
/** What the Changes tab compares the text with. */
interface Base {
  readonly text: string;
  readonly label: string;
}

/** The example "Reset to example" loads. */
let resetExample = defaultExample;
let base: Base = { text: examples[defaultExample] ?? "", label: `example ${defaultExample}` };

let lastText: string | undefined;
let lastIssues: Promise<readonly LineIssue[]> = Promise.resolve([]);
let shown: Generated | undefined;
let selectedPath = "PLAN.md";
const down = new Set<string>();
const unhealthy = new Set<string>();
let renderQueue: Promise<void> = Promise.resolve();

/**
 * Validates and generates (once per text), then renders everything that depends on it. Generation is async (the
 * schemas load on demand); a result that arrives after the text changed again is not shown.
 */
function check(text: string): Promise<readonly LineIssue[]> {
  if (text === lastText) return lastIssues;
  lastText = text;
  claimExample(text);
  save(text);
  const issues = runSpec(text).then((result) => {
    const found = lineIssues(result, text);
    if (text !== lastText) return found;
    renderIssues(found);
    const errors = result.ok ? 0 : result.errors.length;
    status.textContent = result.ok
      ? `✔ valid: ${result.artifacts.length} files${result.warnings.length ? `, ${result.warnings.length} warning(s)` : ""}`
      : `✖ ${errors} error(s): the files below are from the last valid spec`;
    status.dataset.ok = String(result.ok);
    if (result.ok) {
      if (shown?.plan.name !== result.plan.name) {
        down.clear();
        unhealthy.clear();
      }
      shown = result;
      downloadButton.disabled = false;
    }
    return found;
  });
  lastIssues = issues;
  // Requested now, rendered once this text's result is in (tests wait for the two to match).
  enqueue(async () => {
    await issues;
    await renderOutputs();
  });
  if (currentTab === "changes") enqueue(renderChanges);
  return issues;
}

/** The select names an example only while the text is that example's, word for word; else it says "your spec". */
function claimExample(text: string): void {
  const claimed = exampleNames.find((name) => examples[name] === text);
  if (claimed !== undefined) resetExample = claimed;
  yourSpec.hidden = claimed !== undefined;
  exampleSelect.value = claimed ?? "";
  app.dataset.example = claimed ?? "";
  resetButton.disabled = claimed === resetExample;
  resetButton.title = `Replace the text with the example ${resetExample}`;
}

function save(text: string): void {
  const saved: Saved = { text, example: resetExample, base };
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(saved));
  } catch {
    // Storage off or full: the page works, it just forgets on reload.
  }
}

function restore(): Saved | undefined {
  try {
    const saved = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? "null") as Partial<Saved> | null;
    if (typeof saved?.text !== "string") return undefined;
    const example =
      typeof saved.example === "string" && Object.hasOwn(examples, saved.example) ? saved.example : defaultExample;
    const stored = saved.base;
    const savedBase =
      typeof stored?.text === "string" && typeof stored.label === "string"
        ? stored
        : { text: examples[example] ?? "", label: `example ${example}` };
    return { text: saved.text, example, base: savedBase };
  } catch {
    return undefined;
  }
}

function renderIssues(issues: readonly LineIssue[]): void {
  issuesList.replaceChildren(
    ...issues.map((issue) => {
      const li = document.createElement("li");
      li.dataset.line = String(issue.line);
      li.dataset.severity = issue.severity;
      const button = li.appendChild(document.createElement("button"));
      button.type = "button";
      button.className = "go-to-line";
      button.textContent = `line ${issue.line}`;
      button.addEventListener("click", () => editor.goToLine(issue.line));
      // One line per issue (its message); the rest of the CLI's text (where, the code frame) on demand.
      const [first = "", ...rest] = issue.text.split("\n");
      const details = li.appendChild(document.createElement("details"));
      details.appendChild(document.createElement("summary")).textContent = first;
      details.appendChild(document.createElement("pre")).textContent = rest.join("\n");
      return li;
    }),
  );
}

/** Renders run one after another; `data-requested`/`data-rendered` tell when the page has caught up (tests wait on it). */
function enqueue(render: () => Promise<void>): void {
  const revision = Number(app.dataset.requested ?? "0") + 1;
  app.dataset.requested = String(revision);
  renderQueue = renderQueue
    .then(render)
    .catch((e: unknown) => {
      status.textContent = `✖ the page failed: ${(e as Error).message}`;
    })
    .then(() => {
      app.dataset.rendered = String(revision);
    });
}

async function renderOutputs(): Promise<void> {
  if (!shown) return;
  renderTree(shown);
  await renderPlan(shown);
  await renderFailover(shown);
}

function renderTree(result: Generated): void {
  if (!result.artifacts.some((a) => a.path === selectedPath)) selectedPath = "PLAN.md";
  const folderList = (folder: TreeFolder): HTMLUListElement => {
    const ul = document.createElement("ul");
    for (const sub of folder.folders) {
      const details = document.createElement("details");
      details.open = true;
      const summary = details.appendChild(document.createElement("summary"));
      summary.textContent = `${sub.name}/`;
      summary.title = `${sub.name}/`;
      details.appendChild(folderList(sub));
      ul.appendChild(document.createElement("li")).appendChild(details);
    }
    for (const file of folder.files) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "file";
      button.dataset.path = file.path;
      button.textContent = file.name;
      button.title = file.path;
      button.setAttribute("aria-pressed", String(file.path === selectedPath));
      button.addEventListener("click", () => showFile(file.path));
      ul.appendChild(document.createElement("li")).appendChild(button);
    }
    return ul;
  };
  byId("tree").replaceChildren(folderList(fileTree(result.artifacts)));
  showFile(selectedPath);
}

function showFile(path: string): void {
  const artifact = shown?.artifacts.find((a) => a.path === path);
  if (!artifact) return;
  selectedPath = path;
  for (const b of document.querySelectorAll<HTMLButtonElement>("#tree button.file"))
    b.setAttribute("aria-pressed", String(b.dataset.path === path));
  const mode = artifact.mode === undefined ? "" : ` (mode ${artifact.mode.toString(8)})`;
  byId("file-path").textContent = `${path}${mode}${artifact.secret ? " — secret" : ""}`;
  byId("file-content").textContent = artifact.content;
}

async function renderPlan(result: Generated): Promise<void> {
  const plan = result.artifacts.find((a) => a.path === "PLAN.md")?.content ?? "";
  const article = byId("plan");
  article.innerHTML = renderMarkdown(plan);
  await renderMermaidBlocks(article);
}

async function renderFailover(result: Generated): Promise<void> {
  const nodes = vipNodes(result.plan);
  byId("no-vips").hidden = nodes.length > 0;
  for (const n of [...down]) if (!nodes.includes(n)) down.delete(n);
  const checked = checkNodes(result.plan);
  for (const n of [...unhealthy]) if (!checked.includes(n)) unhealthy.delete(n);
  const boxes = (fieldsetId: string, name: string, names: readonly string[], set: Set<string>): void => {
    const fieldset = byId(fieldsetId);
    if (fieldsetId === "unhealthy") fieldset.hidden = names.length === 0;
    fieldset.replaceChildren(
      fieldset.querySelector("legend") ?? document.createElement("legend"),
      ...names.map((node) => {
        const label = document.createElement("label");
        const box = label.appendChild(document.createElement("input"));
        box.type = "checkbox";
        box.name = name;
        box.value = node;
        box.checked = set.has(node);
        box.addEventListener("change", () => {
          if (box.checked) set.add(node);
          else set.delete(node);
          enqueue(() => renderFailover(result));
        });
        label.append(` ${node}`);
        return label;
      }),
    );
  };
  boxes("nodes", "down", nodes, down);
  boxes("unhealthy", "unhealthy", checked, unhealthy);
  const holders = vipHolders(result.plan, down, unhealthy);
  byId("holders")
    .querySelector("tbody")
    ?.replaceChildren(
      ...holders.map((h) => {
        const tr = document.createElement("tr");
        tr.dataset.vip = h.key;
        tr.dataset.changed = String(h.now !== h.normally);
        for (const text of [h.vip, h.kind, h.normally ?? "nobody", h.now ?? NOBODY])
          tr.appendChild(document.createElement("td")).textContent = text;
        return tr;
      }),
    );
  const lines = ["flowchart LR"];
  for (const [i, n] of nodes.entries())
    lines.push(`  n${i}["${n}${down.has(n) ? " (down)" : unhealthy.has(n) ? " (check failing)" : ""}"]`);
  holders.forEach((h, i) => {
    lines.push(`  v${i}(["${h.vip}"])`);
    const holder = h.now === undefined ? -1 : nodes.indexOf(h.now);
    if (holder >= 0) lines.push(`  n${holder} --> v${i}`);
  });
  lines.push("  classDef down fill:#fdd,stroke:#b00,color:#600");
  lines.push("  classDef unhealthy fill:#ffe9c7,stroke:#b60,color:#630");
  nodes.forEach((n, i) => {
    if (down.has(n)) lines.push(`  class n${i} down`);
    else if (unhealthy.has(n)) lines.push(`  class n${i} unhealthy`);
  });
  const diagram = byId("holders-diagram");
  diagram.dataset.source = lines.join("\n");
  if (nodes.length > 0) await renderMermaid(diagram, diagram.dataset.source);
  else diagram.replaceChildren();
  app.dataset.down = [...down].join(",");
  app.dataset.unhealthy = [...unhealthy].join(",");
}

/** What the table says when no node can hold a VIP. */
const NOBODY = "nobody (every node of it is down or in FAULT)";

let currentTab = "files";

function selectTab(tab: string): void {
  currentTab = tab;
  if (tab === "changes") enqueue(renderChanges);
  for (const b of document.querySelectorAll<HTMLButtonElement>("[role=tab]"))
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  for (const panel of document.querySelectorAll<HTMLElement>(".tab")) panel.hidden = panel.id !== `tab-${tab}`;
}

function loadExample(name: string): void {
  const text = examples[name];
  if (text === undefined) return;
  resetExample = name;
  loadText(text, `example ${name}`);
}

/** Replaces the whole text (an example, a file, a shared link); the text as loaded becomes the base. */
function loadText(text: string, baseLabel: string): void {
  base = { text, label: baseLabel };
  showBase();
  editor.setText(text);
  void check(text);
}

const MAX_FILE_BYTES = 1024 * 1024;

async function openFile(file: File): Promise<void> {
  if (file.size > MAX_FILE_BYTES) {
    notice(`✖ ${file.name} is ${file.size} bytes: a cluster spec is at most ${MAX_FILE_BYTES} bytes`);
    return;
  }
  loadText(await file.text(), `file ${file.name}`);
}

function notice(text: string): void {
  byId("share-bar").hidden = false;
  byId("share-url").parentElement?.setAttribute("hidden", "");
  byId("share-note").textContent = text;
}

async function share(): Promise<void> {
  const url = new URL(location.href);
  url.hash = shareFragment(editor.view.state.doc.toString());
  const input = byId<HTMLInputElement>("share-url");
  input.value = url.href;
  input.parentElement?.removeAttribute("hidden");
  byId("share-bar").hidden = false;
  input.select();
  let copied = false;
  try {
    await navigator.clipboard.writeText(url.href);
    copied = true;
  } catch {
    // No clipboard permission: the link is selected in the box.
  }
  byId("share-note").textContent =
    `${copied ? "Copied. " : ""}The spec is in the link's #fragment (${url.hash.length} characters, deflated): browsers never send a fragment to a server.`;
}

function showBase(): void {
  byId("base-label").textContent = base.label;
}

function setBase(): void {
  base = { text: editor.view.state.doc.toString(), label: "your snapshot (Set as base)" };
  showBase();
  save(editor.view.state.doc.toString());
  enqueue(renderChanges);
}

/** The Changes tab: the change plan from the base to the text, then each generated file's diff. */
async function renderChanges(): Promise<void> {
  if (currentTab !== "changes") return;
  const text = editor.view.state.doc.toString();
  const { compare } = await import("./compare.js");
  const { files, plan } = await compare(base.text, text);
  const planBox = byId("change-plan");
  const markdown = byId("change-plan-markdown");
  const plain = byId("change-plan-text");
  planBox.dataset.ok = String(plan.ok);
  if (plan.ok) {
    markdown.dataset.source = plan.markdown;
    markdown.innerHTML = renderMarkdown(plan.markdown);
    plain.textContent = plan.text;
  } else {
    markdown.dataset.source = "";
    markdown.replaceChildren();
    plain.textContent = plan.message;
  }
  showPlanFormat();
  byId("changes-summary").textContent =
    files === undefined
      ? "No file diff: a spec does not generate."
      : files.length === 0
        ? "The generated files are the same."
        : `${files.length} generated file(s) differ from the base's.`;
  byId("file-diffs").replaceChildren(
    ...(files ?? []).map((f) => {
      const details = document.createElement("details");
      details.open = true;
      details.dataset.path = f.path;
      details.dataset.status = f.status;
      const summary = details.appendChild(document.createElement("summary"));
      summary.textContent = `${f.path}${f.status === "changed" ? "" : ` (${f.status === "added" ? "new file" : "removed"})`}`;
      const pre = details.appendChild(document.createElement("pre"));
      pre.className = "patch";
      pre.dataset.patch = f.patch;
      for (const line of f.patch.replace(/\n$/, "").split("\n")) {
        const span = pre.appendChild(document.createElement("span"));
        span.textContent = `${line}\n`;
        if (line.startsWith("@@")) span.className = "hunk";
        else if (line.startsWith("+") && !line.startsWith("+++")) span.className = "add";
        else if (line.startsWith("-") && !line.startsWith("---")) span.className = "del";
      }
      return details;
    }),
  );
  app.dataset.compared = text === base.text ? "same" : "differs";
}

function showPlanFormat(): void {
  const ok = byId("change-plan").dataset.ok === "true";
  const text = byId<HTMLSelectElement>("plan-format").value === "text";
  byId("change-plan-markdown").hidden = !ok || text;
  byId("change-plan-text").hidden = ok && !text;
}

/** The change plan's links point into the spec and the generated folder: follow them inside the page. */
function followPlanLink(event: MouseEvent): void {
  const a = (event.target as HTMLElement).closest("a");
  if (!a) return;
  event.preventDefault();
  const [target = "", fragment = ""] = (a.getAttribute("href") ?? "").split("#");
  const line = /^L(\d+)$/.exec(fragment)?.[1];
  if (target === SPEC_NAME && line) editor.goToLine(Number(line));
  else if (target.startsWith("generated/")) {
    selectTab("files");
    showFile(target.slice("generated/".length));
  }
}

function download(): void {
  if (!shown) return;
  const blob = new Blob([zipTree(shown.artifacts) as Uint8Array<ArrayBuffer>], { type: "application/zip" });
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = `${shown.plan.name}-generated.zip`;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

const editor = createEditor(byId("editor"), specJsonSchema() as JsonSchema, check, (file) => void openFile(file));
for (const name of exampleNames) exampleSelect.add(new Option(name, name));
exampleSelect.addEventListener("change", () => loadExample(exampleSelect.value));
resetButton.addEventListener("click", () => loadExample(resetExample));
const fileInput = byId<HTMLInputElement>("open-file");
byId("open").addEventListener("click", () => fileInput.click());
fileInput.addEventListener("change", () => {
  const file = fileInput.files?.[0];
  fileInput.value = "";
  if (file) void openFile(file);
});
// A file dropped anywhere else on the page opens too (instead of the browser leaving the page for it).
document.addEventListener("dragover", (event) => {
  if (event.dataTransfer?.types.includes("Files")) event.preventDefault();
});
document.addEventListener("drop", (event) => {
  const file = event.dataTransfer?.files[0];
  if (!file || event.defaultPrevented) return;
  event.preventDefault();
  void openFile(file);
});
byId("share").addEventListener("click", () => void share());
byId("set-base").addEventListener("click", setBase);
byId("plan-format").addEventListener("change", showPlanFormat);
byId("change-plan-markdown").addEventListener("click", followPlanLink);
downloadButton.addEventListener("click", download);
for (const b of document.querySelectorAll<HTMLButtonElement>("[role=tab]"))
  b.addEventListener("click", () => selectTab(b.dataset.tab ?? "files"));

// What to show first: a shared link's spec, else an example the link names, else the text of the last visit,
// else the default example.
const shared = specFromFragment(location.hash);
const fromHash = new URLSearchParams(location.hash.slice(1)).get("example");
const saved = restore();
if (shared !== undefined) {
  // Off the address bar at once: a reload then shows the user's later edits (kept in storage), not the link's.
  history.replaceState(null, "", `${location.pathname}${location.search}`);
  if (shared instanceof Error) notice(`✖ ${shared.message}`);
}
if (typeof shared === "string") {
  if (saved) resetExample = saved.example;
  loadText(shared, "the shared link's spec");
} else if (fromHash && Object.hasOwn(examples, fromHash)) loadExample(fromHash);
else if (saved) {
  resetExample = saved.example;
  base = saved.base;
  showBase();
  editor.setText(saved.text);
  void check(saved.text);
} else loadExample(defaultExample);
