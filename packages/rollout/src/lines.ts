// Which lines of a file a change touched: a line diff (Myers, from `diff`) between the common head and tail, with
// a bounded edit length so that a file rewritten throughout (every priority of a 254-VIP keepalived.conf) costs
// linear time: past the bound, a line counts as changed when its text is not matched by one of the other side
// (a multiset), which finds every added and removed text, though not a pure reordering of identical lines. A search
// bounded at 8 edits runs first: the usual changed file (a priority, a name) needs no more, and skips the multiset.
// The multiset counts only the lines that a linear walk in step (align) leaves unpaired: the same count of each
// text is unmatched either way, and the walk pairs the bulk of a file whose changes are scattered, without hashing it.
//
// A file made of blocks (core's blockArtifact: keepalived.conf, one block per VRRP instance) is diffed block by
// block without its text: blocks are paired by key, in order, and a pair's parts (whole lines each, shared between
// files) are compared one by one; the line diff of two differing parts is worked out once per plan, however many
// files repeat them.

import { sameContent, samePart, sameParts } from "@clusterspec/core";
import type { Artifact, ArtifactBlock, EqualParts } from "@clusterspec/core/types";
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
/** How far align looks past a mismatch for the two sides to pair again (a removed or inserted run of lines). */
const RESYNC_WINDOW = 64;
/** How many lines in a row must pair for align to take an offset: one common line ("}") is no evidence. */
const RESYNC_LINES = 3;
/** align's budget of line comparisons for finding offsets, per line of the middles: past it, the multiset alone. */
const RESYNC_BUDGET = 16;

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
  /** The line count of each part of a blocked file (see blockDelta). */
  readonly partLines: Map<string, number>;
  /** The line delta between two parts, by old part then new part. */
  readonly partDeltas: Map<string, Map<string, LineDelta>>;
  /** Parts found equal (core's EqualParts): shared by the plan's file comparisons. */
  readonly equalParts: EqualParts;
  /** The last blocked file pair's keys and how its blocks paired: every carrier's keepalived.conf has the same keys. */
  lastPairing?: { readonly a: readonly string[]; readonly b: readonly string[]; readonly pairs: readonly Pair[] };
}

type Pair = readonly [number, number];

export const lineTable = (): LineTable => ({
  ids: new Map(),
  counts: [],
  partLines: new Map(),
  partDeltas: new Map(),
  equalParts: new Map(),
});

/**
 * The lines a change adds to and removes from a file: block by block where both versions have blocks (or one is
 * absent), else by their text.
 */
export function fileDelta(
  oldFile: Artifact | undefined,
  newFile: Artifact | undefined,
  table: LineTable = lineTable(),
): LineDelta {
  if (sameContent(oldFile, newFile, table.equalParts)) return NONE;
  if ((oldFile === undefined || oldFile.blocks) && (newFile === undefined || newFile.blocks))
    return blockDelta(oldFile?.blocks ?? [], newFile?.blocks ?? [], table);
  return lineDelta(oldFile?.content, newFile?.content, table);
}

/**
 * The line delta of two files made of blocks: the blocks paired by key are the longest run of keys in the same
 * order on both sides; the lines of an unpaired block are all removed (or added); a pair whose parts line up is
 * diffed part by part (each part pair's delta worked out once per table), otherwise as the two blocks' text. It is
 * a line delta of the files' text (what it keeps is equal and in order), though across block boundaries it may
 * name other occurrences of a repeated line than a diff of the whole text would.
 */
export function blockDelta(a: readonly ArtifactBlock[], b: readonly ArtifactBlock[], table: LineTable): LineDelta {
  const added: number[] = [];
  const removed: number[] = [];
  let i = 0;
  let j = 0;
  let oldLine = 0;
  let newLine = 0;
  const drop = (block: ArtifactBlock) => {
    for (let n = blockLines(block, table); n > 0; n--) removed.push(++oldLine);
  };
  const add = (block: ArtifactBlock) => {
    for (let n = blockLines(block, table); n > 0; n--) added.push(++newLine);
  };
  // indexed loops here and below: without the optimizing compiler a for…of allocates an iterator and a result per
  // element, and a 300 × 254 change plan passes some 250,000 lines through these
  const take = (d: LineDelta, oldLines: number, newLines: number) => {
    for (let k = 0; k < d.removed.length; k++) removed.push(oldLine + (d.removed[k] as number));
    for (let k = 0; k < d.added.length; k++) added.push(newLine + (d.added[k] as number));
    oldLine += oldLines;
    newLine += newLines;
  };
  const pairs = pairing(a, b, table);
  for (let at = 0; at < pairs.length; at++) {
    const pi = (pairs[at] as Pair)[0];
    const pj = (pairs[at] as Pair)[1];
    while (i < pi) drop(a[i++] as ArtifactBlock);
    while (j < pj) add(b[j++] as ArtifactBlock);
    const p = (a[i++] as ArtifactBlock).parts;
    const q = (b[j++] as ArtifactBlock).parts;
    if (p === q) {
      // the same parts (a block the new tree kept from the old one): equal, nothing to compare
      const n = partsLines(p, table);
      take(NONE, n, n);
    } else if (p.length === q.length)
      for (let k = 0; k < p.length; k++) {
        const x = p[k] as string;
        const y = q[k] as string;
        if (samePart(x, y, table.equalParts)) {
          const n = partLines(x, table);
          take(NONE, n, n);
        } else take(partDelta(x, y, table), partLines(x, table), partLines(y, table));
      }
    else if (sameParts(p, q, table.equalParts)) {
      const n = partsLines(p, table);
      take(NONE, n, n);
    } else take(lineDelta(p.join(""), q.join(""), table), partsLines(p, table), partsLines(q, table));
  }
  while (i < a.length) drop(a[i++] as ArtifactBlock);
  while (j < b.length) add(b[j++] as ArtifactBlock);
  return { added, removed };
}

/**
 * Which blocks pair: by key, the longest run of keys in the same order on both sides. The answer for the last pair
 * of key lists is kept: a change plan's keepalived.conf files repeat them (300 files, 254 blocks each).
 */
function pairing(a: readonly ArtifactBlock[], b: readonly ArtifactBlock[], table: LineTable): readonly Pair[] {
  const last = table.lastPairing;
  if (last && sameKeys(a, last.a) && sameKeys(b, last.b)) return last.pairs;
  const at = new Map<string, number>();
  b.forEach((block, j) => {
    if (!at.has(block.key)) at.set(block.key, j);
  });
  const candidates: [number, number][] = [];
  a.forEach((block, i) => {
    const j = at.get(block.key);
    if (j !== undefined) candidates.push([i, j]);
  });
  const pairs = increasingPairs(candidates);
  table.lastPairing = { a: a.map((block) => block.key), b: b.map((block) => block.key), pairs };
  return pairs;
}

function sameKeys(blocks: readonly ArtifactBlock[], keys: readonly string[]): boolean {
  if (blocks.length !== keys.length) return false;
  for (let i = 0; i < keys.length; i++) if ((blocks[i] as ArtifactBlock).key !== keys[i]) return false;
  return true;
}

/** The longest subsequence of (i, j) pairs, given in increasing i, whose j increase too (patience sorting). */
function increasingPairs(pairs: readonly Pair[]): Pair[] {
  const tails: number[] = []; // tails[k]: index in pairs of the smallest last j of an increasing run of length k + 1
  const previous = new Int32Array(pairs.length);
  for (let k = 0; k < pairs.length; k++) {
    const j = (pairs[k] as Pair)[1];
    let lo = 0;
    let hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((pairs[tails[mid] as number] as Pair)[1] < j) lo = mid + 1;
      else hi = mid;
    }
    previous[k] = lo > 0 ? (tails[lo - 1] as number) : -1;
    tails[lo] = k;
  }
  const out: Pair[] = [];
  for (let k = tails.length > 0 ? (tails[tails.length - 1] as number) : -1; k >= 0; k = previous[k] as number)
    out.push(pairs[k] as Pair);
  return out.reverse();
}

function partLines(part: string, table: LineTable): number {
  let n = table.partLines.get(part);
  if (n === undefined) {
    n = 0;
    for (let at = part.indexOf("\n"); at >= 0; at = part.indexOf("\n", at + 1)) n++;
    table.partLines.set(part, n);
  }
  return n;
}

function partsLines(parts: readonly string[], table: LineTable): number {
  let n = 0;
  for (let k = 0; k < parts.length; k++) n += partLines(parts[k] as string, table);
  return n;
}

const blockLines = (block: ArtifactBlock, table: LineTable): number => partsLines(block.parts, table);

function partDelta(x: string, y: string, table: LineTable): LineDelta {
  let byNew = table.partDeltas.get(x);
  if (byNew === undefined) {
    byNew = new Map();
    table.partDeltas.set(x, byNew);
  }
  let d = byNew.get(y);
  if (d === undefined) {
    d = lineDelta(x, y, table);
    byNew.set(y, d);
  }
  return d;
}

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
  const unmatched = multiset(a, b, align(a, b, head, aEnd, bEnd), table);
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

/** The lines of each middle that align left unpaired, as 0-based indexes in order. */
interface Unpaired {
  readonly a: readonly number[];
  readonly b: readonly number[];
}

/**
 * Pairs equal lines of a[from, aEnd) and b[from, bEnd) in one walk in step: a line that differs while the
 * RESYNC_LINES after it pair again is a replaced line; otherwise the nearest offset within RESYNC_WINDOW after
 * which RESYNC_LINES lines pair is a run removed from a (or inserted into b); otherwise both lines stay unpaired.
 * What it pairs is equal text, so the counts of each text it leaves unpaired differ between the sides exactly as
 * the whole middles' do: the multiset over them finds as many unmatched lines of each text as over everything. A
 * keepalived.conf with a priority changed in every instance (254 VIPs, one removed) leaves some 500 of 5,000 lines
 * to hash, not all.
 */
function align(a: readonly string[], b: readonly string[], from: number, aEnd: number, bEnd: number): Unpaired {
  const ua: number[] = [];
  const ub: number[] = [];
  let budget = RESYNC_BUDGET * (aEnd - from + bEnd - from);
  // whether `n` lines pair from a[i] and b[j] on, each comparison paid from the budget
  const pairs = (i: number, j: number, n: number): boolean => {
    if (i + n > aEnd || j + n > bEnd) return false;
    for (let k = 0; k < n; k++) {
      budget--;
      if (a[i + k] !== b[j + k]) return false;
    }
    return true;
  };
  let i = from;
  let j = from;
  while (i < aEnd && j < bEnd) {
    if (a[i] === b[j]) {
      i++;
      j++;
      continue;
    }
    let skipA = 0;
    let skipB = 0;
    // a replaced line (the common case: a priority, a name) is the cheapest answer, when the lines after it pair
    // again (as many as for an offset: the line after a changed one is often boilerplate both sides share)
    if (!pairs(i + 1, j + 1, RESYNC_LINES))
      for (let d = 1; d <= RESYNC_WINDOW && budget > 0; d++) {
        if (pairs(i + d, j, RESYNC_LINES)) {
          skipA = d;
          break;
        }
        if (pairs(i, j + d, RESYNC_LINES)) {
          skipB = d;
          break;
        }
      }
    if (skipA === 0 && skipB === 0) {
      ua.push(i++);
      ub.push(j++);
      continue;
    }
    for (let k = 0; k < skipA; k++) ua.push(i++);
    for (let k = 0; k < skipB; k++) ub.push(j++);
  }
  while (i < aEnd) ua.push(i++);
  while (j < bEnd) ub.push(j++);
  return { a: ua, b: ub };
}

/** The unpaired lines of a and b whose text the other side's unpaired lines do not match, in 1-based line numbers. */
function multiset(a: readonly string[], b: readonly string[], unpaired: Unpaired, table: LineTable): LineDelta {
  // One hash lookup per line: each text of a gets a number, its count lives in an array, and a's numbers are kept
  // for the backward walk. A line of b is matched while a's count of its text lasts (the first occurrences), and
  // what is left of a's counts are its unmatched occurrences, the last ones of each text (a walked backwards). The
  // backward walk takes every count left back to zero, so the table serves the next call as it is.
  const { ids, counts } = table;
  const aIds = new Int32Array(unpaired.a.length);
  for (let k = 0; k < unpaired.a.length; k++) {
    const l = a[unpaired.a[k] as number] as string;
    let id = ids.get(l);
    if (id === undefined) {
      id = counts.length;
      ids.set(l, id);
      counts.push(0);
    }
    counts[id] = (counts[id] as number) + 1;
    aIds[k] = id;
  }
  const added: number[] = [];
  for (const at of unpaired.b) {
    const id = ids.get(b[at] as string);
    if (id !== undefined && (counts[id] as number) > 0) counts[id] = (counts[id] as number) - 1;
    else added.push(at + 1);
  }
  const removed: number[] = [];
  for (let k = unpaired.a.length - 1; k >= 0; k--) {
    const id = aIds[k] as number;
    if ((counts[id] as number) > 0) {
      counts[id] = (counts[id] as number) - 1;
      removed.push((unpaired.a[k] as number) + 1);
    }
  }
  return { added, removed: removed.reverse() };
}
