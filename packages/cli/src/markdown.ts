// Names that reach the markdown summaries (`generate --check --format markdown`, `changes --format markdown`) from
// outside clusterspec's control: file names found in the compared folder (a pull request can add any), the spec and
// folder names given on the command line. The summary is posted as a job summary and a pull-request comment, so a
// name must stay one name there: it cannot close a code span, a table cell, a link or an HTML element, nor start a
// line of its own. Rules from the GitHub Flavored Markdown spec (https://github.github.com/gfm/): code spans 6.1
// (a span ends at a backtick run of its opening length; one space is stripped from each side when both are spaces),
// tables 4.10 (a `|` inside a cell, code spans included, is written `\|`), links 6.3 (destinations in `<…>`).

/** Characters that change how a line reads or where it ends: shown as \u{…} text, never written as they are. */
const INVISIBLE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is spelled out
  /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u115f\u1160\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g;

/** `s` with every control, line-breaking, invisible or bidirectional character spelled out (`\u{a}`). */
export const visible = (s: string): string =>
  s.replace(INVISIBLE, (c) => `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`);

/**
 * `s` as one inline code span: fenced by one backtick more than its longest run of backticks, padded with a space
 * when it starts or ends with a backtick or a space. In a table cell, through `mdCell` as well.
 */
export function mdCode(s: string): string {
  const text = visible(s);
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = "`".repeat(longest + 1);
  const pad = /^[` ]|[` ]$/.test(text) ? " " : "";
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** Text in a table cell: its `|` escaped (GFM 4.10, also inside a code span) and on one line. */
export const mdCell = (s: string): string => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

/** `s` as text inside an HTML element (`<summary><code>…</code></summary>`). */
export const htmlText = (s: string): string =>
  visible(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

/**
 * `s` as a link's text: what could end the text, open a code span, an HTML tag, an entity or a table cell escaped
 * with a backslash (emphasis only styles the text inside it: not escaped, so paths keep their underscores).
 */
export const mdLinkText = (s: string): string => visible(s).replace(/[\\`[\]<>|&]/g, "\\$&");

/** A path as a link destination: percent-encoded, so no space, parenthesis or angle bracket ends it early. */
export const mdLinkTarget = (path: string): string =>
  path
    .split("/")
    .map((seg) => encodeURIComponent(seg).replace(/[()']/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join("/");
