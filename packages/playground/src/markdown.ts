// PLAN.md as HTML with its Mermaid diagrams. Mermaid is bundled (no CDN) and loaded on first use.
import { Marked } from "marked";

const escapeHtml = (s: string): string =>
  s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

// Raw HTML in the markdown is shown as text: spec values reach PLAN.md. Only a bare `<br>` is a line break, as
// GitHub renders it: the change plan's tables list a change's files one per line with it.
const marked = new Marked({
  gfm: true,
  renderer: {
    html: ({ text }) => (/^<br\s*\/?>$/i.test(text) ? "<br>" : escapeHtml(text)),
    code: ({ text, lang }) =>
      lang === "mermaid" ? `<div class="mermaid-block" data-source="${escapeHtml(text)}"></div>` : false,
  },
});

export function renderMarkdown(markdown: string): string {
  return marked.parse(markdown, { async: false });
}

type Mermaid = typeof import("mermaid").default;
let mermaidLoad: Promise<Mermaid> | undefined;
let diagramCount = 0;

function loadMermaid(): Promise<Mermaid> {
  mermaidLoad ??= import("mermaid").then(({ default: mermaid }) => {
    mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: "neutral" });
    return mermaid;
  });
  return mermaidLoad;
}

/** Renders one diagram into `target`; a parse error is shown in place and marked `.mermaid-error`. */
export async function renderMermaid(target: HTMLElement, source: string): Promise<void> {
  const mermaid = await loadMermaid();
  try {
    await mermaid.parse(source);
    const { svg } = await mermaid.render(`mermaid-${++diagramCount}`, source);
    target.innerHTML = svg;
    target.classList.remove("mermaid-error");
  } catch (e) {
    target.classList.add("mermaid-error");
    target.textContent = `Mermaid could not render this diagram: ${(e as Error).message}`;
  }
}

/** Renders every ```mermaid block under `root`. */
export async function renderMermaidBlocks(root: HTMLElement): Promise<void> {
  for (const block of root.querySelectorAll<HTMLElement>(".mermaid-block"))
    await renderMermaid(block, block.dataset.source ?? "");
}
