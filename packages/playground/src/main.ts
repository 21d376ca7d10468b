// The page: spec editor on the left; generated files, PLAN.md and the failover view on the right.
import { specJsonSchema } from "@clusterspec/core";
import type { GenerateResult } from "clusterspec";
import { createEditor } from "./editor.js";
import {
  fileTree,
  type LineIssue,
  lineIssues,
  runSpec,
  type TreeFolder,
  vipHolders,
  vipNodes,
  zipTree,
} from "./engine.js";
import { renderMarkdown, renderMermaid, renderMermaidBlocks } from "./markdown.js";
import type { JsonSchema } from "./schema-help.js";
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
const downloadButton = byId<HTMLButtonElement>("download");

let lastText: string | undefined;
let lastIssues: Promise<readonly LineIssue[]> = Promise.resolve([]);
let shown: Generated | undefined;
let selectedPath = "PLAN.md";
const down = new Set<string>();
let renderQueue: Promise<void> = Promise.resolve();

/**
 * Validates and generates (once per text), then renders everything that depends on it. Generation is async (the
 * schemas load on demand); a result that arrives after the text changed again is not shown.
 */
function check(text: string): Promise<readonly LineIssue[]> {
  if (text === lastText) return lastIssues;
  lastText = text;
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
      if (shown?.plan.name !== result.plan.name) down.clear();
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
  return issues;
}

function renderIssues(issues: readonly LineIssue[]): void {
  issuesList.replaceChildren(
    ...issues.map((issue) => {
      const li = document.createElement("li");
      li.dataset.line = String(issue.line);
      li.dataset.severity = issue.severity;
      const button = li.appendChild(document.createElement("button"));
      button.type = "button";
      button.textContent = `line ${issue.line}`;
      button.addEventListener("click", () => editor.goToLine(issue.line));
      li.appendChild(document.createElement("pre")).textContent = issue.text;
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
      details.appendChild(document.createElement("summary")).textContent = `${sub.name}/`;
      details.appendChild(folderList(sub));
      ul.appendChild(document.createElement("li")).appendChild(details);
    }
    for (const file of folder.files) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "file";
      button.dataset.path = file.path;
      button.textContent = file.name;
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
  const fieldset = byId("nodes");
  fieldset.replaceChildren(
    fieldset.querySelector("legend") ?? document.createElement("legend"),
    ...nodes.map((name) => {
      const label = document.createElement("label");
      const box = label.appendChild(document.createElement("input"));
      box.type = "checkbox";
      box.name = "down";
      box.value = name;
      box.checked = down.has(name);
      box.addEventListener("change", () => {
        if (box.checked) down.add(name);
        else down.delete(name);
        enqueue(() => renderFailover(result));
      });
      label.append(` ${name}`);
      return label;
    }),
  );
  const holders = vipHolders(result.plan, down);
  byId("holders")
    .querySelector("tbody")
    ?.replaceChildren(
      ...holders.map((h) => {
        const tr = document.createElement("tr");
        tr.dataset.vip = h.key;
        tr.dataset.changed = String(h.now !== h.normally);
        for (const text of [h.vip, h.kind, h.normally ?? "nobody", h.now ?? "nobody (every node of it is down)"])
          tr.appendChild(document.createElement("td")).textContent = text;
        return tr;
      }),
    );
  const lines = ["flowchart LR"];
  for (const [i, n] of nodes.entries()) lines.push(`  n${i}["${n}${down.has(n) ? " (down)" : ""}"]`);
  holders.forEach((h, i) => {
    lines.push(`  v${i}(["${h.vip}"])`);
    const holder = h.now === undefined ? -1 : nodes.indexOf(h.now);
    if (holder >= 0) lines.push(`  n${holder} --> v${i}`);
  });
  lines.push("  classDef down fill:#fdd,stroke:#b00,color:#600");
  nodes.forEach((n, i) => {
    if (down.has(n)) lines.push(`  class n${i} down`);
  });
  const diagram = byId("holders-diagram");
  diagram.dataset.source = lines.join("\n");
  if (nodes.length > 0) await renderMermaid(diagram, diagram.dataset.source);
  else diagram.replaceChildren();
  app.dataset.down = [...down].join(",");
}

function selectTab(tab: string): void {
  for (const b of document.querySelectorAll<HTMLButtonElement>("[role=tab]"))
    b.setAttribute("aria-selected", String(b.dataset.tab === tab));
  for (const panel of document.querySelectorAll<HTMLElement>(".tab")) panel.hidden = panel.id !== `tab-${tab}`;
}

function loadExample(name: string): void {
  const text = examples[name];
  if (text === undefined) return;
  exampleSelect.value = name;
  app.dataset.example = name;
  editor.setText(text);
  void check(text);
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

const editor = createEditor(byId("editor"), specJsonSchema() as JsonSchema, check);
for (const name of Object.keys(examples).sort()) exampleSelect.add(new Option(name, name));
exampleSelect.addEventListener("change", () => loadExample(exampleSelect.value));
downloadButton.addEventListener("click", download);
for (const b of document.querySelectorAll<HTMLButtonElement>("[role=tab]"))
  b.addEventListener("click", () => selectTab(b.dataset.tab ?? "files"));
const fromHash = new URLSearchParams(location.hash.slice(1)).get("example");
loadExample(fromHash && fromHash in examples ? fromHash : (Object.keys(examples).sort()[0] ?? ""));
