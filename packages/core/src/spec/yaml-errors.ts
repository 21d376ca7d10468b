// YAML syntax errors in plain words: what is wrong, where (the offending character, not the start of its line) and
// how to fix it. The yaml library reports some errors where the parser noticed them (an unclosed quote at the end of
// the file, a mis-indented key at column 1); each message here points at what the user has to change.
import { isMap, isScalar, isSeq, type LineCounter, type Node, type YAMLError } from "yaml";
import type { SpecIssueCode } from "../error-catalog.js";
import type { IssuePath, SpecIssue } from "../issues.js";

/** A column where a block level starts on an earlier line: a key of a mapping or the `-` of a list item. */
interface Level {
  readonly col: number; // 0-based
  readonly kind: "key" | "dash";
  readonly line: number; // 0-based
  readonly name: string; // the key, or the item's text after `- `
  readonly offset: number;
}

const lineStarts = (text: string): number[] => {
  const out = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") out.push(i + 1);
  return out;
};

const isContent = (line: string): boolean => line.trim() !== "" && !line.trimStart().startsWith("#");

/** The key of a `key: value` line (text after dashes), unquoted, or the text itself. */
const keyOf = (text: string): string => {
  const m = /^("[^"]*"|'[^']*'|[^\s:#][^:#]*?)\s*:(\s|$)/.exec(text);
  return (m?.[1] ?? text.trim()).replace(/^["']|["']$/g, "");
};

/** The levels a line opens: the `-` of each list item on it, then the key after them. */
function levelsOfLine(line: string, index: number, start: number): Level[] {
  const out: Level[] = [];
  let col = line.length - line.trimStart().length;
  while (/^-(\s|$)/.test(line.slice(col))) {
    const rest = line.slice(col + 1);
    out.push({ col, kind: "dash", line: index, name: rest.trim(), offset: start + col });
    col += 1 + (rest.length - rest.trimStart().length);
    if (rest.trim() === "") return out;
  }
  out.push({ col, kind: "key", line: index, name: keyOf(line.slice(col)), offset: start + col });
  return out;
}

/** The block levels open at `lineIndex`, deepest first: each earlier line that starts further left than those after it. */
function levelsAbove(lines: readonly string[], starts: readonly number[], lineIndex: number): Level[] {
  const out: Level[] = [];
  let limit = Number.POSITIVE_INFINITY;
  for (let i = lineIndex - 1; i >= 0 && limit > 0; i--) {
    const line = lines[i] ?? "";
    if (!isContent(line)) continue;
    for (const level of levelsOfLine(line, i, starts[i] ?? 0).reverse())
      if (level.col < limit) {
        out.push(level);
        limit = level.col;
      }
  }
  return out;
}

/** The path of the deepest mapping entry or list item whose source holds `offset`. */
function pathAt(root: unknown, offset: number, text: string): IssuePath {
  const path: (string | number)[] = [];
  let node = root as Node | null | undefined;
  for (let depth = 0; depth < 100 && node; depth++) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        const key = p.key as Node | null;
        const value = p.value as Node | null;
        const from = key?.range?.[0] ?? value?.range?.[0];
        const to = value?.range?.[1] ?? key?.range?.[1];
        return from !== undefined && to !== undefined && from <= offset && offset <= to;
      });
      if (!pair || !isScalar(pair.key)) break;
      // A key the parser read across lines (an unclosed quote, a missing colon) is not a name of the spec.
      const range = pair.key.range;
      if (range && text.slice(range[0], range[1]).includes("\n")) break;
      path.push(String(pair.key.value));
      node = pair.value as Node | null;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((item) => {
        const r = (item as Node | null)?.range;
        return r != null && r[0] <= offset && offset <= r[1];
      });
      if (i < 0) break;
      path.push(i);
      node = node.items[i] as Node | null;
    } else break;
  }
  return path;
}

const spaces = (n: number) => `${n} space${n === 1 ? "" : "s"}`;
const quoted = (s: string) => JSON.stringify(s.length > 40 ? `${s.slice(0, 40)}…` : s);

interface Plain {
  readonly message: string;
  readonly offset: number;
  /** The offset whose entry names the issue's path, when not `offset` itself. */
  readonly pathOffset?: number;
}

/** A line whose indentation puts it in no block above it, or a list item's line without its `- `. */
function misplacedLine(lines: readonly string[], starts: readonly number[], lineIndex: number): Plain {
  const line = lines[lineIndex] ?? "";
  const indent = line.length - line.trimStart().length;
  const offset = (starts[lineIndex] ?? 0) + indent;
  const own = levelsOfLine(line, lineIndex, starts[lineIndex] ?? 0);
  const first = own[0] as Level;
  const what = first.kind === "dash" ? "this list item" : `the key ${quoted(first.name)}`;
  const levels = levelsAbove(lines, starts, lineIndex);
  const deeper = [...levels].reverse().find((l) => l.col > indent);
  const same = levels.find((l) => l.col === indent);
  const shallower = levels.find((l) => l.col < indent);
  const where = (l: Level) => `line ${l.line + 1}`;
  // A key in the column of a list's `-`: a new item without its dash, most likely.
  if (same?.kind === "dash" && first.kind === "key") {
    const itemKeys = deeper?.kind === "key" ? deeper : undefined;
    return {
      message: `${what} is in the column of the list items' "-" (${where(same)}) but does not start with "- ": write "- ${line.trim()}" to start a new item${itemKeys ? `, or indent it by ${spaces(itemKeys.col)} to add it to the item above` : ""}`,
      offset,
      pathOffset: same.offset,
    };
  }
  if (same?.kind === "key" && first.kind === "dash")
    return {
      message: `${what} is in the column of the key ${quoted(same.name)} (${where(same)}): a mapping holds "key: value" lines, not list items; put the list under a key of its own, indented deeper than that key`,
      offset,
      pathOffset: same.offset,
    };
  const near = [deeper, shallower];
  const candidates =
    first.kind === "dash" && near.some((l) => l?.kind === "dash") ? near.filter((l) => l?.kind === "dash") : near;
  const options = candidates.flatMap((l) =>
    l === undefined
      ? []
      : [
          l.kind === "key"
            ? `by ${spaces(l.col)} to line it up with ${quoted(l.name)} (${where(l)})`
            : first.kind === "dash"
              ? `by ${spaces(l.col)} like the list item on ${where(l)}`
              : `by ${spaces(l.col)} with "- " for a new item of the list on ${where(l)}`,
        ],
  );
  const between =
    deeper?.kind === "key" && shallower?.kind === "dash" && first.kind === "key"
      ? ' (between the list\'s "-" and the keys of its item)'
      : "";
  return {
    message: `${what} is indented by ${spaces(indent)}${between}, which lines up with nothing above it: indent it ${options.join(", or ") || "like the keys around it"}`,
    offset,
    ...(shallower ? { pathOffset: shallower.offset } : {}),
  };
}

/** Where a quoted value or flow collection that was never closed opens: the last opening before `end` not closed. */
function unclosedOpening(text: string, end: number, open: string, close: string): number | undefined {
  const stack: number[] = [];
  let quote: string | undefined;
  let comment = false;
  for (let i = 0; i < end && i < text.length; i++) {
    const c = text[i] as string;
    if (c === "\n") comment = false;
    if (comment) continue;
    if (quote) {
      if (c === quote && !(quote === '"' && text[i - 1] === "\\")) {
        if (quote === open) stack.pop();
        quote = undefined;
      }
      continue;
    }
    if (c === "#" && (i === 0 || /\s/.test(text[i - 1] as string))) comment = true;
    else if ((c === '"' || c === "'") && (i === 0 || /[\s:[{,-]/.test(text[i - 1] as string))) {
      quote = c;
      if (c === open) stack.push(i);
    } else if (open !== '"' && open !== "'") {
      if (c === open) stack.push(i);
      else if (c === close) stack.pop();
    }
  }
  return stack.at(-1);
}

const char = (c: string | undefined) => JSON.stringify(c ?? "");

/** Parser messages that need no more than the parser's position, in plain words. */
const PLAIN_MESSAGES: readonly (readonly [RegExp, (m: RegExpExecArray) => string])[] = [
  [
    /^Unexpected (?:scalar|flow-map-start|flow-seq-start|quote|double-quoted-scalar|single-quoted-scalar) at node end$/,
    () =>
      "more text after a value that has ended (a closing quote or bracket ends it): remove it, or quote the whole value",
  ],
  [
    /^Missing , or : between flow (map|sequence) items$/,
    (m) =>
      `a "," is missing between two items of this ${m[1] === "map" ? "{ } mapping" : "[ ] list"}: separate the items with ", "`,
  ],
  [
    /^Unexpected flow-(seq|map)-end token in YAML stream: "(.)"$/,
    (m) =>
      `a ${char(m[2])} that closes nothing: remove it, or open the ${m[1] === "seq" ? "list with [" : "mapping with {"} before it`,
  ],
  [
    /^Plain value cannot start with (?:[a-z ]+) character (.)$/,
    (m) => `a value cannot start with ${char(m[1])} unquoted (YAML reserves it): quote the value, e.g. "${m[1]}…"`,
  ],
  [
    /^Block collections are not allowed within flow collections$/,
    () =>
      'a "- item" or "key: value" line inside [ ] or { }: inside brackets, write the items on one line separated by ", " (or close the bracket first)',
  ],
];

/** The plain-words message and position for a parser error, or undefined to keep the parser's words. */
function plainWords(error: YAMLError, text: string, lines: readonly string[], starts: readonly number[]): Plain {
  const at = error.pos[0];
  let lineIndex = Math.max(
    0,
    starts.findLastIndex((s) => s <= at),
  );
  const firstChar = (i: number) => (starts[i] ?? 0) + ((lines[i] ?? "").length - (lines[i] ?? "").trimStart().length);
  const message = error.message.split("\n")[0]?.replace(/ at line \d+, column \d+:?$/, "") ?? "";
  if (error.code === "TAB_AS_INDENT")
    return {
      message: `line ${lineIndex + 1} is indented with a tab: YAML indents with spaces only, replace the tab with spaces`,
      offset: at,
    };
  if (
    message === "All mapping items must start at the same column" ||
    message === "Sequence item without - indicator" ||
    message === "All sequence items must start at the same column" ||
    message === "A block sequence may not be used as an implicit map key"
  ) {
    // The parser points at the line's start (or a neighbour): the line to fix is the first content line at or after it.
    let i = lineIndex;
    while (i < lines.length - 1 && !isContent(lines[i] ?? "")) i++;
    return misplacedLine(lines, starts, i);
  }
  const quote = /^Missing closing (["'])quote$/.exec(message)?.[1];
  if (quote) {
    const open = unclosedOpening(text, at, quote, quote) ?? at;
    return {
      message: `this ${quote === '"' ? "double" : "single"}-quoted value is never closed: add the closing ${quote} at the end of the value`,
      offset: open,
    };
  }
  const flow =
    /^Flow (sequence|map) (?:in block collection )?must (?:be sufficiently indented and )?end with a ([\]}])/.exec(
      message,
    );
  if (flow) {
    const [openChar, closeChar] = flow[1] === "sequence" ? ["[", "]"] : ["{", "}"];
    const open = unclosedOpening(text, at, openChar, closeChar) ?? at;
    const kind = flow[1] === "sequence" ? "list" : "mapping";
    return {
      message: `this ${kind} opened with ${openChar} is never closed: end it with ${closeChar} (a ${kind} that goes on over several lines indents them deeper than its key)`,
      offset: open,
    };
  }
  if (message === "Nested mappings are not allowed in compact mappings") {
    // `key: a: b` on one line, or a deeper-indented `key: value` line taken as the value of the key above it.
    const next = lineIndex + 1 < lines.length && /^\s+[^\s#-][^:#]*:(\s|$)/.test(lines[lineIndex + 1] ?? "");
    const indentOf = (i: number) => (lines[i] ?? "").length - (lines[i] ?? "").trimStart().length;
    if (next && indentOf(lineIndex + 1) > indentOf(lineIndex) && !/:\s+\S+:(\s|$)/.test(lines[lineIndex] ?? "")) {
      const key = keyOf((lines[lineIndex + 1] ?? "").trim());
      const above = keyOf((lines[lineIndex] ?? "").trim().replace(/^-\s+/, ""));
      return {
        message: `the key ${quoted(key)} is indented deeper than ${quoted(above)} above it, so YAML reads it as part of that value: indent it by ${spaces(indentOf(lineIndex))} like ${quoted(above)}`,
        offset: firstChar(lineIndex + 1),
        pathOffset: firstChar(lineIndex),
      };
    }
    return {
      message: `a value holds "key: value" on the same line: quote the value ("…") or put the mapping on the next lines, indented deeper`,
      offset: at,
    };
  }
  if (
    message === "Implicit keys need to be on a single line" ||
    message === "Implicit map keys need to be followed by map values"
  ) {
    // The key that runs over two lines is the one on the first line without a colon, at or above the error.
    let keyLine = lineIndex;
    while (keyLine > 0 && /:(\s|$)/.test(lines[keyLine] ?? "") && !/:(\s|$)/.test(lines[keyLine - 1] ?? "")) keyLine--;
    if (keyLine !== lineIndex && isContent(lines[keyLine] ?? "")) lineIndex = keyLine;
    const line = lines[lineIndex] ?? "";
    const opened = /^\s*(["'])/.exec(line)?.[1];
    if (opened && !line.trimStart().slice(1).includes(opened))
      return {
        message: `this ${opened === '"' ? "double" : "single"}-quoted text is never closed on its line, so YAML reads on into the next lines: add the closing ${opened}, or remove the opening one`,
        offset: firstChar(lineIndex),
      };
    if (!/:(\s|$)/.test(line))
      return {
        pathOffset:
          levelsAbove(lines, starts, lineIndex).find((l) => l.col < firstChar(lineIndex) - (starts[lineIndex] ?? 0))
            ?.offset ?? -1,
        message: `${quoted(line.trim())} has no ":" after it: a mapping's lines are "key: value" (or "key:" with the value indented below)`,
        offset: firstChar(lineIndex),
      };
  }
  if (
    message === "Block collections are not allowed within flow collections" ||
    message === "Nested mappings are not allowed in compact mappings"
  ) {
    // `{ a: 1 b: 2 }`: two items of a flow collection without the comma between them.
    const before = text.slice(starts[lineIndex] ?? 0, at);
    const open = Math.max(before.lastIndexOf("{"), before.lastIndexOf("["));
    const item = (lines[lineIndex] ?? "").slice(Math.max(open, before.lastIndexOf(",")) + 1);
    if (open >= 0 && /^[^,{}[\]]*?:\s+[^,{}[\]\s]+\s+[^,{}[\]\s:]+:/.test(item))
      return {
        message: `a "," is missing between two items of this ${before[open] === "{" ? "{ } mapping" : "[ ] list"}: separate the items with ", "`,
        offset: at,
        pathOffset: (starts[lineIndex] ?? 0) + open,
      };
  }
  if (message === "Implicit keys need to be on a single line")
    return {
      message:
        'a key runs on past the end of its line: a key and its ":" stay on one line (look for a quote, bracket or "&" left open)',
      offset: at,
    };
  const sameLine = PLAIN_MESSAGES.find(([re]) => re.test(message));
  if (sameLine) return { message: sameLine[1](sameLine[0].exec(message) as RegExpExecArray), offset: at };
  if (message.startsWith("Source contains multiple documents"))
    return {
      message: `a spec is one YAML document, and "---" on line ${lineIndex + 1} starts a second one: remove it, or move what follows into a file of its own`,
      offset: at,
    };
  return { message: `invalid YAML: ${message}`, offset: at };
}

/** The first YAML syntax error as a spec issue: plain words, the offending position and the entry it is in. */
export function yamlSyntaxIssue(
  error: YAMLError,
  text: string,
  root: unknown,
  lineCounter: LineCounter,
  code: SpecIssueCode,
  message?: string,
): SpecIssue {
  const lines = text.split("\n").map((l) => l.replace(/\r$/, ""));
  const starts = lineStarts(text);
  const plain = message === undefined ? plainWords(error, text, lines, starts) : { message, offset: error.pos[0] };
  const pos = lineCounter.linePos(Math.min(plain.offset, Math.max(0, text.length)));
  return {
    path: pathAt(root, plain.pathOffset ?? plain.offset, text),
    message: plain.message,
    severity: "error",
    code,
    line: pos.line,
    column: pos.col,
  };
}
