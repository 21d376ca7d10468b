// The one kit for line formats (keepalived.conf, conf.d/net, host files): ejs templates compiled once (on first use), with
// one option set. The template only loops and interpolates; every `<%=` value passes through `escapeValue`.
// ejs's own browser build (ejs.js, shipped in the package): the same two modules as lib/ejs.js and lib/utils.js,
// but with no require("fs") / require("path"), so core and the generators bundle for a browser with no Node shim.
import ejs from "ejs/ejs.js";

/** Turns one interpolated value into text of the target format, or throws. */
export type Escape = (value: unknown) => string;

/**
 * Compiles a template whose locals are `v`. `compileDebug` is off because ejs's debug wrapper rethrows
 * errors through the escape with the (absent) file name, and our escapes throw on that, masking the real error.
 * No `filename`, `include` or file lookup: the source is a string, so no file system is involved.
 */
export function lineTemplate<View>(source: string, escapeValue: Escape): (view: View) => string {
  // Compiled on first use, not at import: a run that never renders this format (--help, validate) skips it.
  let render: ejs.TemplateFunction | undefined;
  return (view) => {
    render ??= ejs.compile(source, {
      strict: true,
      _with: false,
      localsName: "v",
      escape: escapeValue,
      compileDebug: false,
    });
    const text = render(view as ejs.Data);
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
