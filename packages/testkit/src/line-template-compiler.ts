// ejs's compilation of a line template: what `pnpm codegen` writes into core's precompiled table
// (packages/core/src/generated/precompiled-templates.js, read by core's lineTemplate). Only the codegen test
// compiles templates, so ejs is a dependency of this private package and of no published one.
// ejs's own browser build (ejs.js, shipped in the package): the same two modules as lib/ejs.js and lib/utils.js,
// with no require("fs") / require("path").
import ejs from "ejs/ejs.js";

/** Turns one interpolated value into text of the target format, or throws (core's Escape). */
type Escape = (value: unknown) => string;

/** What ejs compiles a template to in client mode: the locals, then the escape. */
export type LineTemplateRender = (v: unknown, escapeFn: Escape) => string;

/** Every render passes its escape; a compiled template falls back to this one only if a caller forgets. */
function missingEscape(): never {
  throw new Error("a line template renders with the escape of its format");
}

/**
 * The ejs options of every line template. Client mode: the compiled function takes the escape as an argument, so
 * one compiled function serves any escape and its text can be kept (the precompiled table).
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
export const compileLineTemplate = (source: string): LineTemplateRender =>
  ejs.compile(source, OPTIONS) as unknown as LineTemplateRender;
