// `clusterspec pin-vrids <spec> [--dry-run]`: the migration to VRIDs that follow the address. Writes each VIP's
// VRID as the old positional rule allocated it (core's pinnedVrids) into the spec, and removes
// externalVips.firstVrid, so an existing cluster keeps its numbering. The text is edited in place at the spans the
// YAML Document gives (not re-serialised), so every comment, quote and flow/block choice elsewhere survives; the
// file is replaced atomically (a temporary file beside it, renamed over it) with its mode kept.
import { basename, dirname, join } from "node:path";
import { isMap, isPair, isScalar, isSeq, type Node, type Pair, parseDocument, type YAMLMap, type YAMLSeq } from "yaml";
import type { SpecRun } from "./commands/on-spec.js";
import { CliError, EXIT_INVALID, EXIT_OK } from "./errors.js";
import { describeFsError, isFsError } from "./fs.js";

/** One change to the text: `text.slice(start, end)` becomes `insert`. */
interface Splice {
  readonly start: number;
  readonly end: number;
  readonly insert: string;
}

/** What was pinned, one line each, for the report. */
type Pinned = string[];

export async function runPinVrids(spec: SpecRun, dryRun: boolean): Promise<number> {
  const { io, fs, specPath, display } = spec;
  const fromStdin = spec.specArg === "-";
  if (!fromStdin && fs.kind(specPath) === "symlink")
    throw CliError.of(
      "refused",
      `${specPath} is a symbolic link: pin-vrids rewrites a spec in place and does not follow links; run it on the file the link points to`,
    );
  const text = spec.readSpec();
  const [core, { formatIssues }] = await Promise.all([import("@clusterspec/core"), import("./spec.js")]);
  const fail = (issues: Parameters<typeof formatIssues>[0]) => {
    io.stderr(`${formatIssues(issues, display, { source: text, color: spec.errColor })}\n`);
    return EXIT_INVALID;
  };
  const doc = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  let value: unknown;
  try {
    value = doc.errors.length > 0 ? undefined : doc.toJS({ maxAliasCount: 100 });
  } catch {
    value = undefined;
  }
  // YAML that does not parse: loadSpec says why, at its line, as every other command does.
  if (value === undefined) {
    const loaded = core.loadSpec(text);
    return fail(loaded.ok ? [] : loaded.errors);
  }
  const pins = core.pinnedVrids(value);
  if (!pins.ok) return fail(core.locateIssues(text, [...pins.errors, ...pins.warnings]));
  if (pins.value.controlPlane === undefined) {
    io.stdout(
      `${spec.out.green("✔")} ${display} describes burst nodes for an existing cluster: no VIPs, nothing to pin\n`,
    );
    return EXIT_OK;
  }
  const pinned: Pinned = [];
  const splices = pinSplices(text, doc.contents, pins.value.controlPlane, pins.value.external, pinned);
  const next = applySplices(text, splices);
  // The rewritten spec must be valid and carry exactly the pinned VRIDs: a slip in the splicing is a bug, not a spec.
  const reloaded = core.loadSpec(next);
  if (!reloaded.ok || !carriesPins(reloaded.value, pins.value))
    throw new core.InternalError(`pin-vrids produced a spec that does not carry the pinned VRIDs:\n${next}`);
  if (dryRun) {
    io.stdout(next);
    io.stderr(report(display, pinned, true));
    return EXIT_OK;
  }
  if (next === text) {
    io.stdout(`${spec.out.green("✔")} ${display}: every VRID is pinned already; nothing changed\n`);
    return EXIT_OK;
  }
  writeAtomically(spec, next);
  io.stdout(report(display, pinned, false));
  return EXIT_OK;
}

function report(display: string, pinned: Pinned, dryRun: boolean): string {
  if (pinned.length === 0) return `${display}: every VRID is pinned already; nothing changed\n`;
  const head = dryRun
    ? `${display} would be rewritten (--dry-run: nothing written):`
    : `pinned the VRIDs in ${display}:`;
  return `${head}\n${pinned.map((p) => `  ${p}\n`).join("")}`;
}

/** Whether a validated spec gives every VIP the pinned VRID explicitly (and no longer sets firstVrid). */
function carriesPins(spec: unknown, pins: { controlPlane: number | undefined; external: readonly number[] }): boolean {
  const s = spec as {
    controlPlane?: { vrid?: number };
    externalVips?: { addresses: (string | { vrid?: number })[] };
  };
  if (s.controlPlane?.vrid !== pins.controlPlane) return false;
  const addresses = s.externalVips?.addresses ?? [];
  return (
    addresses.length === pins.external.length &&
    addresses.every((a, i) => typeof a !== "string" && a.vrid === pins.external[i])
  );
}

/** The splices applied to `text`, which starts at `offset` of the spec (those outside it are left out). */
function applySplices(text: string, splices: readonly Splice[], offset = 0): string {
  let out = text;
  const inside = splices.filter((s) => s.start >= offset && s.end <= offset + text.length);
  for (const s of inside.sort((a, b) => b.start - a.start))
    out = out.slice(0, s.start - offset) + s.insert + out.slice(s.end - offset);
  return out;
}

const rangeOf = (node: unknown): [number, number] | undefined => {
  const r = (node as Node | null | undefined)?.range;
  return r ? [r[0], r[1]] : undefined;
};

function pairOf(map: YAMLMap, key: string): Pair<unknown, unknown> | undefined {
  return map.items.find((p) => isPair(p) && (isScalar(p.key) ? p.key.value : p.key) === key);
}

/** The column a block mapping's keys start at. */
function keyColumn(text: string, map: YAMLMap): number {
  const first = map.items[0]?.key;
  const start = rangeOf(first)?.[0] ?? 0;
  return start - (text.lastIndexOf("\n", start - 1) + 1);
}

/** Sets `key: value` in a mapping: the value replaced when the key is there, else a new entry after the last one. */
function setInMap(text: string, map: YAMLMap, key: string, value: number): Splice | undefined {
  const pair = pairOf(map, key);
  if (pair) {
    const r = rangeOf(pair.value);
    if (!r) throw new CliError(`cannot pin ${key}: its value has no place in the text`);
    return isScalar(pair.value) && pair.value.value === value
      ? undefined
      : { start: r[0], end: r[1], insert: String(value) };
  }
  const last = map.items[map.items.length - 1];
  const end = rangeOf(last?.value)?.[1] ?? rangeOf(last?.key)?.[1];
  if (end === undefined) throw new CliError(`cannot add ${key}: the mapping is empty`);
  if (map.flow) return { start: end, end, insert: `, ${key}: ${value}` };
  let pos = end;
  while (pos > 0 && text[pos - 1] === "\n") pos--;
  const lineEnd = text.indexOf("\n", pos);
  const at = lineEnd < 0 ? text.length : lineEnd;
  return { start: at, end: at, insert: `\n${" ".repeat(keyColumn(text, map))}${key}: ${value}` };
}

/** Removes `key` and its value from a mapping: its whole line in block style, the entry and a comma in flow style. */
function removeFromMap(text: string, map: YAMLMap, key: string): Splice | undefined {
  const pair = pairOf(map, key);
  if (!pair) return undefined;
  const start = rangeOf(pair.key)?.[0];
  const end = rangeOf(pair.value)?.[1] ?? rangeOf(pair.key)?.[1];
  if (start === undefined || end === undefined) return undefined;
  if (map.flow) {
    const before = text.slice(0, start).search(/,\s*$/);
    if (before >= 0) return { start: before, end, insert: "" };
    const after = /^\s*,\s*/.exec(text.slice(end));
    return { start, end: end + (after?.[0].length ?? 0), insert: "" };
  }
  const lineStart = text.lastIndexOf("\n", start - 1) + 1;
  let pos = end;
  while (pos > start && text[pos - 1] === "\n") pos--;
  const lineEnd = text.indexOf("\n", pos);
  return { start: lineStart, end: lineEnd < 0 ? text.length : lineEnd + 1, insert: "" };
}

function pinSplices(
  text: string,
  root: unknown,
  controlPlane: number,
  external: readonly number[],
  pinned: Pinned,
): Splice[] {
  const splices: Splice[] = [];
  const add = (s: Splice | undefined, what: string) => {
    if (!s) return;
    splices.push(s);
    pinned.push(what);
  };
  if (!isMap(root)) return splices;
  const cp = root.get("controlPlane", true);
  if (isMap(cp)) add(setInMap(text, cp, "vrid", controlPlane), `controlPlane.vrid: ${controlPlane}`);
  const pool = root.get("externalVips", true);
  if (!isMap(pool)) return splices;
  const addresses = pool.get("addresses", true);
  if (isSeq(addresses)) {
    const itemSplices: Splice[] = [];
    addresses.items.forEach((item, i) => {
      const vrid = external[i];
      if (vrid === undefined) return;
      const path = `externalVips.addresses[${i}]`;
      if (isMap(item)) {
        const s = setInMap(text, item, "vrid", vrid);
        if (s) itemSplices.push(s);
        if (s) pinned.push(`${path}.vrid: ${vrid} (${String(item.get("address"))})`);
        return;
      }
      const r = rangeOf(item);
      if (!r) return;
      const source = text.slice(r[0], r[1]);
      itemSplices.push({ start: r[0], end: r[1], insert: `{ address: ${source}, vrid: ${vrid} }` });
      pinned.push(`${path}: ${source} → vrid ${vrid}`);
    });
    splices.push(...asBlockList(text, pool, addresses, itemSplices));
  }
  const first = pool.get("firstVrid");
  add(
    removeFromMap(text, pool, "firstVrid"),
    `externalVips.firstVrid: ${String(first)} removed (VRIDs follow each address now)`,
  );
  return splices;
}

/** A line longer than this, made by pinning a one-line list of addresses, becomes a block list (one per line). */
const LONG_LINE = 100;

/**
 * The item splices, or, when they make a one-line flow list (`addresses: [a, b]`, no comment inside) in a block
 * mapping longer than LONG_LINE, one splice that writes the list in block style with the items as edited.
 */
function asBlockList(text: string, pool: YAMLMap, seq: YAMLSeq, items: readonly Splice[]): Splice[] {
  const r = rangeOf(seq);
  if (!r || !seq.flow || pool.flow || items.length === 0) return [...items];
  const source = text.slice(r[0], r[1]);
  if (source.includes("\n") || source.includes("#")) return [...items];
  const lineStart = text.lastIndexOf("\n", r[0] - 1) + 1;
  const lineEnd = text.indexOf("\n", r[1]);
  const edited = applySplices(text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd), items, lineStart);
  if (edited.length <= LONG_LINE) return [...items];
  const keyEnd = text.slice(0, r[0]).trimEnd().length; // just after `addresses:`
  const indent = " ".repeat(keyColumn(text, pool) + 2);
  const lines = seq.items.map((item) => {
    const ir = rangeOf(item);
    if (!ir) throw new CliError("cannot rewrite externalVips.addresses: an item has no place in the text");
    return `\n${indent}- ${applySplices(text.slice(ir[0], ir[1]), items, ir[0])}`;
  });
  return [{ start: keyEnd, end: r[1], insert: lines.join("") }];
}

/** Replaces the spec by a temporary file beside it (same folder: one rename), with the spec's mode. */
function writeAtomically(spec: SpecRun, content: string): void {
  const { fs, specPath } = spec;
  const tmp = join(dirname(specPath), `.${basename(specPath)}.pin-vrids.${process.pid}.tmp`);
  try {
    const mode = fs.owner(specPath)?.mode ?? 0o644;
    fs.removeFile(tmp); // a leftover of a killed run of this same process id
    fs.writeFile(tmp, content, mode);
    // The spec may have become a link since it was read: never rename over a link to somewhere else.
    if (fs.kind(specPath) === "symlink")
      throw CliError.of("refused", `${specPath} became a symbolic link while it was rewritten; nothing written`);
    fs.rename(tmp, specPath);
  } catch (e) {
    try {
      fs.removeFile(tmp);
    } catch {
      // the original error says what went wrong
    }
    if (isFsError(e)) throw new CliError(`cannot write ${specPath}: ${describeFsError(e, fs, specPath)}`, "filesystem");
    throw e;
  }
}
