// The one YAML parse of a spec text (issue 32 item 7): bounded time and stack for every text within the size limit.
// - Depth: the `yaml` library composes nested collections by recursion, as do toJS, hygiene and the schema, so a
//   text of 100,000 `[` overflowed the stack. The concrete syntax tree (yaml's Parser is a loop over an explicit
//   stack) is measured first, without recursion, and a text nested deeper than MAX_DEPTH is never composed.
// - Duplicate keys: yaml's own check (`uniqueKeys`, `compose/util-map-includes.js`: `items.some(...)` for every new
//   key) is quadratic in a mapping's size: 16,000 keys took 11 s, a 2 MiB mapping minutes. It is off here, and
//   duplicateKeyOffset finds the first duplicate with one Set per mapping, in linear time.
import {
  Composer,
  type CST,
  type Document,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  Parser,
  YAMLParseError,
} from "yaml";

/** At most this many collections (mappings and lists) inside each other: a spec needs about 8, Helm values 12. */
export const MAX_DEPTH = 64;

export type ParsedSpec =
  | { readonly ok: true; readonly doc: Document.Parsed }
  /** The text nests collections deeper than MAX_DEPTH: `offset` is the first collection beyond the limit. */
  | { readonly ok: false; readonly offset: number };

/** Parses one YAML document (no duplicate-key check: see duplicateKeyOffset), refusing nesting beyond MAX_DEPTH. */
export function parseSpecText(text: string, lineCounter?: LineCounter): ParsedSpec {
  const tokens = [...new Parser(lineCounter?.addNewLine).parse(text)];
  const deep = tooDeep(tokens);
  if (deep !== undefined) return { ok: false, offset: deep };
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false });
  let doc: Document.Parsed | undefined;
  for (const d of composer.compose(tokens, true, text.length)) {
    if (!doc) doc = d;
    else {
      // As parseDocument does: the second document is an error of the first.
      doc.errors.push(
        new YAMLParseError(
          [d.range[0], d.range[1]],
          "MULTIPLE_DOCS",
          "Source contains multiple documents; please use YAML.parseAllDocuments()",
        ),
      );
      break;
    }
  }
  // compose(…, forceDoc = true) always yields a document, as parseDocument relies on.
  return { ok: true, doc: doc as Document.Parsed };
}

const COLLECTIONS = new Set(["block-map", "block-seq", "flow-collection"]);

/** The offset of the first collection nested deeper than MAX_DEPTH in the syntax tree, walked with a stack. */
function tooDeep(tokens: readonly CST.Token[]): number | undefined {
  const stack: { token: CST.Token; depth: number }[] = tokens.map((token) => ({ token, depth: 0 }));
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { token, depth } = next;
    if (token.type === "document") {
      if (token.value) stack.push({ token: token.value, depth });
      continue;
    }
    if (!COLLECTIONS.has(token.type)) continue;
    if (depth + 1 > MAX_DEPTH) return token.offset;
    for (const item of (token as CST.BlockMap | CST.BlockSequence | CST.FlowCollection).items as CST.CollectionItem[]) {
      if (item.key) stack.push({ token: item.key, depth: depth + 1 });
      if (item.value) stack.push({ token: item.value, depth: depth + 1 });
    }
  }
  return undefined;
}

/**
 * The source offset of the first key that repeats an earlier key of its mapping (a scalar equal in type and value,
 * as yaml's own check compares), or undefined. Recursion is bounded by MAX_DEPTH, checked before.
 */
export function duplicateKeyOffset(root: unknown): number | undefined {
  let first: number | undefined;
  const visit = (node: unknown): void => {
    if (isSeq(node)) {
      for (const item of node.items) visit(item);
      return;
    }
    if (!isMap(node)) return;
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (!isPair(pair)) continue;
      if (isScalar(pair.key)) {
        const k = pair.key.value;
        if (seen.has(k)) {
          const at = pair.key.range?.[0];
          if (at !== undefined && (first === undefined || at < first)) first = at;
        } else seen.add(k);
      }
      visit(pair.key);
      visit(pair.value);
    }
  };
  visit(root);
  return first;
}
