// The one kit for line formats (keepalived.conf, conf.d/net, host files): ejs templates with one option set. The
// template only loops and interpolates; every `<%=` value passes through `escapeValue`.
// ejs's own browser build (ejs.js, shipped in the package): the same two modules as lib/ejs.js and lib/utils.js,
// but with no require("fs") / require("path"), so core and the generators bundle for a browser with no Node shim.
import ejs from "ejs/ejs.js";
import { precompiledTemplates } from "./generated/precompiled-templates.js";

/** Turns one interpolated value into text of the target format, or throws. */
export type Escape = (value: unknown) => string;

/** What ejs compiles a template to in client mode: the locals, then the escape. */
type Render = (v: unknown, escapeFn: Escape) => string;

/** Every render passes its escape; a compiled template falls back to this one only if a caller forgets. */
function missingEscape(): never {
  throw new Error("a line template renders with the escape of its format");
}

/**
 * The ejs options of every line template. Client mode: the compiled function takes the escape as an argument, so
 * one compiled function serves any escape and its text can be kept (generated/precompiled-templates.js).
 * `compileDebug` is off because ejs's debug wrapper rethrows errors through the escape with the (absent) file
 * name, and our escapes throw on that, masking the real error. No `filename`, `include` or file lookup: the
 * source is a string, so no file system is involved.
 */
const OPTIONS = {
  strict: true,
  _with: false,
  localsName: "v",
  escape: missingEscape,
  compileDebug: false,
  client: true,
} as const;

/** ejs's compilation of a template (what the precompiled table holds for it). */
export const compileLineTemplate = (source: string): Render => ejs.compile(source, OPTIONS) as unknown as Render;

const sources = new Set<string>();
/** Every template source lineTemplate was given in this process: the precompiled table's test lists them. */
export const lineTemplateSources = (): readonly string[] => [...sources];

/**
 * A template whose locals are `v`, rendered with `escapeValue`. The repository's templates come precompiled
 * (generated/precompiled-templates.js: no template parsing and no Function constructor at run time, which also
 * suits a page whose CSP forbids eval); any other source is compiled on first use, so a run that never renders
 * a format (--help, validate) does not compile it.
 */
export function lineTemplate<View>(source: string, escapeValue: Escape): (view: View) => string {
  sources.add(source);
  let render: Render | undefined;
  return (view) => {
    render ??= precompiledTemplates.get(source) ?? compileLineTemplate(source);
    const text = render(view, escapeValue);
    flatten(text);
    return text;
  };
}

/**
 * ejs builds its output one `+=` at a time, and V8 keeps such a string as a tree of its pieces until something
 * reads it whole. A keepalived.conf of 250 instances is some 10,000 pieces: kept alive until the file is written,
 * every file's pieces would be copied by the garbage collector again and again (half the CPU time of a
 * 300-node run). Converting to a number makes V8 copy the text into one flat string now, while the pieces are
 * still young and cost the collector nothing (the idiom of the flatstr package).
 */
function flatten(text: string): void {
  Number(text);
}
