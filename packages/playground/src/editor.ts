// The spec editor: CodeMirror 6 with YAML highlighting, the CLI's issues as diagnostics, hover and key completion
// from the spec's JSON Schema.
import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { yaml } from "@codemirror/lang-yaml";
import { bracketMatching, defaultHighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { type Diagnostic, forceLinting, linter, lintGutter } from "@codemirror/lint";
import { EditorState } from "@codemirror/state";
import { EditorView, highlightActiveLine, hoverTooltip, keymap, lineNumbers } from "@codemirror/view";
import type { LineIssue } from "./engine.js";
import { hoverAt, type JsonSchema, keyCompletions } from "./schema-help.js";

export interface SpecEditor {
  readonly view: EditorView;
  /** Replaces the whole text (loading an example) and checks it at once. */
  setText(text: string): void;
  goToLine(line: number): void;
}

/**
 * `check` validates and generates; its issues become the editor's diagnostics. `dropFile` gets a file dropped onto
 * the editor: it replaces the text (CodeMirror's own drop would insert the file at the drop point).
 */
export function createEditor(
  parent: HTMLElement,
  schema: JsonSchema,
  check: (text: string) => Promise<readonly LineIssue[]>,
  dropFile: (file: File) => void,
): SpecEditor {
  const lint = linter(
    async (view) => {
      const state = view.state;
      return toDiagnostics(state, await check(state.doc.toString()));
    },
    { delay: 250 },
  );
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        history(),
        highlightActiveLine(),
        indentOnInput(),
        bracketMatching(),
        syntaxHighlighting(defaultHighlightStyle),
        yaml(),
        EditorState.tabSize.of(2),
        keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
        lintGutter(),
        lint,
        hoverTooltip((v, pos) => schemaHover(schema, v, pos)),
        autocompletion({ override: [(ctx) => completeKey(schema, ctx)] }),
        EditorView.lineWrapping,
        EditorView.domEventHandlers({
          dragover: (event) => {
            if (!event.dataTransfer?.types.includes("Files")) return false;
            event.preventDefault();
            event.dataTransfer.dropEffect = "copy";
            return true;
          },
          drop: (event) => {
            const file = event.dataTransfer?.files[0];
            if (!file) return false;
            event.preventDefault();
            dropFile(file);
            return true;
          },
        }),
        EditorView.theme({
          "&": { height: "100%" },
          ".cm-scroller": { fontFamily: "var(--mono)" },
          // The CLI's text includes a code frame: keep its columns.
          ".cm-diagnosticText": { fontFamily: "var(--mono)", whiteSpace: "pre-wrap" },
        }),
      ],
    }),
  });
  return {
    view,
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, selection: { anchor: 0 } });
      forceLinting(view);
    },
    goToLine(line) {
      const l = view.state.doc.line(Math.min(Math.max(line, 1), view.state.doc.lines));
      view.dispatch({ selection: { anchor: l.from }, scrollIntoView: true });
      view.focus();
    },
  };
}

function toDiagnostics(state: EditorState, issues: readonly LineIssue[]): Diagnostic[] {
  return issues.map((issue) => {
    const line = state.doc.line(Math.min(Math.max(issue.line, 1), state.doc.lines));
    const from = Math.min(line.from + issue.column - 1, line.to);
    return { from, to: Math.max(line.to, from), severity: issue.severity, message: issue.text };
  });
}

function schemaHover(schema: JsonSchema, view: EditorView, pos: number) {
  const hover = hoverAt(schema, view.state.doc.toString(), pos);
  if (!hover) return null;
  return {
    pos,
    above: true,
    create: () => {
      const dom = document.createElement("div");
      dom.className = "schema-hover";
      const title = dom.appendChild(document.createElement("strong"));
      title.textContent = hover.title;
      const type = dom.appendChild(document.createElement("code"));
      type.textContent = hover.type;
      if (hover.description) dom.appendChild(document.createElement("p")).textContent = hover.description;
      if (hover.default) dom.appendChild(document.createElement("p")).textContent = `default: ${hover.default}`;
      return { dom };
    },
  };
}

function completeKey(schema: JsonSchema, ctx: CompletionContext): CompletionResult | null {
  const line = ctx.state.doc.lineAt(ctx.pos);
  const before = line.text.slice(0, ctx.pos - line.from);
  const m = /^(\s*(?:- )*)([A-Za-z0-9_.-]*)$/.exec(before);
  if (!m || (!ctx.explicit && (m[2] ?? "") === "")) return null;
  const options = keyCompletions(schema, ctx.state.doc.toString(), line.number).map((k) => ({
    label: k.key,
    type: "property",
    detail: `${k.type}${k.required ? " (required)" : ""}`,
    ...(k.description === undefined ? {} : { info: k.description }),
    apply: `${k.key}: `,
  }));
  return { from: ctx.pos - (m[2] ?? "").length, options, validFor: /^[A-Za-z0-9_.-]*$/ };
}
