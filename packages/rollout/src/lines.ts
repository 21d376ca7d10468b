// Which lines of a file a change touched: a line diff (Myers, from `diff`) between the common head and tail, with
// a bounded edit length so that a file rewritten throughout (every priority of a 254-VIP keepalived.conf) costs
// linear time: past the bound, a line counts as changed when its text is not matched by one of the other side
// (a multiset), which finds every added and removed text, though not a pure reordering of identical lines. A search
// bounded at 8 edits runs first: the usual changed file (a priority, a name) needs no more, and skips the multiset.
import { diffArrays } from "diff";

export interface LineDelta {
  /** 1-based lines of the new text that are not in the old one. */
  readonly added: readonly number[];
  /** 1-based lines of the old text that are not in the new one. */
  readonly removed: readonly number[];
}

const NONE: LineDelta = { added: [], removed: [] };

/** Edit lengths beyond this go to the multiset: Myers costs (lines × edits). */
const MAX_EDITS = 64;
/** The first, cheap try: most changed files differ in a handful of lines. */
const FEW_EDITS = 8;

const linesOf = (text: string | undefined): string[] => {
  if (text === undefined || text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
};

const range = (from: number, to: number): number[] =>
  Array.from({ length: Math.max(0, to - from) }, (_, i) => from + i + 1);

/**
 * The count table the multiset works in, kept between calls: a planChanges call passes one to all its files, whose
 * line texts repeat from file to file (every carrier's keepalived.conf has every VIP's lines), so each text is
 * inserted once per plan rather than once per file. Every call leaves its counts at zero (see multiset).
 */
export interface LineTable {
  readonly ids: Map<string, number>;
  readonly counts: number[];
}

export const lineTable = (): LineTable => ({ ids: new Map(), counts: [] });

export function lineDelta(
  oldText: string | undefined,
  newText: string | undefined,
  table: LineTable = lineTable(),
): LineDelta {
  if (oldText === newText) return NONE;
  const a = linesOf(oldText);
  const b = linesOf(newText);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const aEnd = a.length - tail;
  const bEnd = b.length - tail;
  if (aEnd === head || bEnd === head) return { added: range(head, bEnd), removed: range(head, aEnd) };
  // Myers needs at least as many edits as the two middles differ in length: past FEW it cannot succeed within FEW
  // (nor, past MAX_EDITS, within MAX_EDITS), so neither search runs nor are the middles copied for it.
  const lengths = Math.abs(aEnd - bEnd);
  // A few edits (a changed priority or name in a long keepalived.conf, the common case) first: Myers explores edit
  // lengths in order and stops at the first that reaches the end, so a search bounded at FEW that succeeds returns
  // exactly what the search bounded at MAX_EDITS would, in (lines × FEW) and without the multiset's hash table.
  if (lengths <= FEW_EDITS) {
    const few = diffArrays(a.slice(head, aEnd), b.slice(head, bEnd), { maxEditLength: FEW_EDITS });
    if (few !== undefined) return positions(few, head);
  }
  // Myers' edit count is at least the multiset's (every unmatched text is an insertion or a deletion), so past the
  // bound the linear multiset answers alone: the same result as a diff that gives up, without its lines × bound.
  const unmatched = multiset(a, head, aEnd, b, bEnd, table);
  if (unmatched.added.length + unmatched.removed.length > MAX_EDITS) return unmatched;
  const changes = diffArrays(a.slice(head, aEnd), b.slice(head, bEnd), { maxEditLength: MAX_EDITS });
  if (changes === undefined) return unmatched;
  return positions(changes, head);
}

/** The 1-based lines a Myers edit script adds and removes, its common head of `head` lines skipped. */
function positions(
  changes: readonly { count?: number; value: readonly string[]; added?: boolean; removed?: boolean }[],
  head: number,
): LineDelta {
  const added: number[] = [];
  const removed: number[] = [];
  let i = head;
  let j = head;
  for (const c of changes) {
    const n = c.count ?? c.value.length;
    if (c.added) {
      for (let k = 0; k < n; k++) added.push(++j);
    } else if (c.removed) {
      for (let k = 0; k < n; k++) removed.push(++i);
    } else {
      i += n;
      j += n;
    }
  }
  return { added, removed };
}

/**
 * The lines of a[from, aEnd) and b[from, bEnd) whose text the other side does not match, in 1-based line numbers
 * (the middles start at line `from` + 1 on both sides).
 */
function multiset(
  a: readonly string[],
  from: number,
  aEnd: number,
  b: readonly string[],
  bEnd: number,
  table: LineTable,
): LineDelta {
  // One hash lookup per line: each text of a gets a number, its count lives in an array, and a's numbers are kept
  // for the backward walk. A line of b is matched while a's count of its text lasts (the first occurrences), and
  // what is left of a's counts are its unmatched occurrences, the last ones of each text (a walked backwards). On
  // 300 nodes × 254 VIPs (remove a VIP: every carrier's keepalived.conf, 1,030 of 5,127 lines) this is most of
  // `changes`' line attribution; the Map-per-count form it replaces looked each line up twice more. The backward
  // walk takes every count left back to zero, so the table serves the next call as it is.
  const { ids, counts } = table;
  const aIds = new Int32Array(aEnd - from);
  for (let k = from; k < aEnd; k++) {
    const l = a[k] as string;
    let id = ids.get(l);
    if (id === undefined) {
      id = counts.length;
      ids.set(l, id);
      counts.push(0);
    }
    counts[id] = (counts[id] as number) + 1;
    aIds[k - from] = id;
  }
  const added: number[] = [];
  for (let k = from; k < bEnd; k++) {
    const id = ids.get(b[k] as string);
    if (id !== undefined && (counts[id] as number) > 0) counts[id] = (counts[id] as number) - 1;
    else added.push(k + 1);
  }
  const removed: number[] = [];
  for (let k = aEnd - from - 1; k >= 0; k--) {
    const id = aIds[k] as number;
    if ((counts[id] as number) > 0) {
      counts[id] = (counts[id] as number) - 1;
      removed.push(from + k + 1);
    }
  }
  return { added, removed: removed.reverse() };
}
