// The one kit for line formats (keepalived.conf, conf.d/net, host files): ejs templates with one option set. The
// template only loops and interpolates; every `<%=` value passes through `escapeValue`.
import { precompiledTemplates } from "./generated/precompiled-templates.js";

/** Turns one interpolated value into text of the target format, or throws. */
export type Escape = (value: unknown) => string;

/** What ejs compiles a template to in client mode: the locals, then the escape. */
type Render = (v: unknown, escapeFn: Escape) => string;

const sources = new Set<string>();
/** Every template source lineTemplate was given in this process: the precompiled table's test lists them. */
export const lineTemplateSources = (): readonly string[] => [...sources];

/**
 * A template whose locals are `v`, rendered with `escapeValue`. Templates come precompiled
 * (generated/precompiled-templates.js, ejs's client-mode output, written by `pnpm codegen` with the compiler in
 * packages/testkit): no template parsing and no Function constructor at run time, which also suits a page whose
 * CSP forbids eval, and no ejs among the runtime dependencies (ejs 3 brings jake and six more packages). A source
 * that is not in the table fails on its first render, naming the command that adds it.
 */
export function lineTemplate<View>(source: string, escapeValue: Escape): (view: View) => string {
  sources.add(source);
  let render: Render | undefined;
  return (view) => {
    render ??= precompiledTemplates.get(source) ?? notPrecompiled(source);
    const text = render(view, escapeValue);
    flatten(text);
    return text;
  };
}

function notPrecompiled(source: string): never {
  const first = source.split("\n", 1)[0] ?? "";
  throw new Error(
    `lineTemplate: the template starting ${JSON.stringify(first.slice(0, 60))} is not precompiled: run \`pnpm codegen\` (it writes packages/core/src/generated/precompiled-templates.js)`,
  );
}

/**
 * ejs builds its output one `+=` at a time, and V8 keeps such a string as a tree of its pieces until something
 * reads it whole. A keepalived.conf of 250 instances is some 10,000 pieces: kept alive until the file is written,
 * every file's pieces would be copied by the garbage collector again and again (half the CPU time of a
 * 300-node run). Reading one character makes V8 copy the text into one flat string now, while the pieces are
 * still young and cost the collector nothing. The character goes to an exported variable, which the optimising
 * compiler cannot prove unread: `Number(text)` (the flatstr package's idiom), whose result nothing used, was
 * dropped once the template's caller was optimised, and the texts stayed trees (measured: the first read of a
 * 300-node tree's keepalived.conf files copied 31 MiB).
 */
export function flatten(text: string): void {
  flattenSink = text.charCodeAt(text.length - 1);
}

/** The last character flatten read: only there so that the read happens. */
export let flattenSink = 0;
