// The migration to VRIDs that follow the address: the VRIDs a spec has today under the old positional rule
// (`legacyPositionalVrids`), checked so that a spec with them written in is valid, and the spec's text with them
// written in (`pinVridsInText`, what `clusterspec pin-vrids` writes). The text is edited at the spans the YAML
// Document gives, never re-serialised, so every comment, quote and flow/block choice elsewhere survives. No IO.
import { isMap, isPair, isScalar, isSeq, type Node, type Pair, type YAMLMap, type YAMLSeq } from "yaml";
import { legacyPositionalVrids } from "../facts/vrrp.js";
import { InternalError, type IssuePath, type SpecIssue, type Validated } from "../issues.js";
import { duplicateKeyOffset, parseSpecText } from "./parse.js";
import { ClusterSpecSchema, isCloudBurstSpec, OnPremSpecSchema } from "./schema.js";
import { loadSpec, locateIssues, validateSpec } from "./validate.js";

/** Each VIP's VRID as the spec allocates it today: the control-plane VIP's, and each external address's in order. */
export interface VridPins {
  /** Undefined for the cloud burst of an existing cluster, which has no VIPs (nothing to pin). */
  readonly controlPlane: number | undefined;
  readonly external: readonly number[];
}

const isJsonMap = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

const FIRST_VRID_PATH: IssuePath = ["externalVips", "firstVrid"];

const error = (path: IssuePath, message: string): SpecIssue => ({ path, message, severity: "error", code: "rule" });

/**
 * The VRIDs to pin in `input` (a parsed spec, which may still set the removed `externalVips.firstVrid`): every
 * VIP's VRID under the old positional rule. The spec with them written in (and firstVrid removed) must validate;
 * its problems come back at their paths, and nothing is pinned.
 */
export function pinnedVrids(input: unknown): Validated<VridPins> {
  if (!isJsonMap(input)) return failed(validateSpec(input));
  const pool = input.externalVips;
  const firstVrid = isJsonMap(pool) ? pool.firstVrid : undefined;
  if (
    firstVrid !== undefined &&
    !(Number.isInteger(firstVrid) && (firstVrid as number) >= 1 && (firstVrid as number) <= 255)
  )
    return {
      ok: false,
      errors: [
        error(
          FIRST_VRID_PATH,
          `firstVrid must be an integer in 1..255 to pin the VRIDs it gave, got ${JSON.stringify(firstVrid)}`,
        ),
      ],
      warnings: [],
    };
  const current = isJsonMap(pool) && firstVrid !== undefined ? withoutFirstVrid(input, pool) : input;
  if ("existingCluster" in current) {
    const valid = validateSpec(current);
    if (!valid.ok) return valid;
    if (isCloudBurstSpec(valid.value))
      return { ok: true, value: { controlPlane: undefined, external: [] }, warnings: valid.warnings };
  }
  // The schema alone: the rules would already apply the new VRID rule, which the pinned spec is checked against.
  const schema = Object.hasOwn(current, "cloud") ? ClusterSpecSchema : OnPremSpecSchema;
  const parsed = schema.safeParse(current, { jitless: true });
  if (!parsed.success) return failed(validateSpec(current));
  const legacy = legacyPositionalVrids(parsed.data, firstVrid as number | undefined);
  if (legacy.issues.length > 0)
    return { ok: false, errors: legacy.issues.map((i) => error(i.path, i.message)), warnings: [] };
  const controlPlane = legacy.controlPlane;
  const external = legacy.external.filter((v): v is number => v !== undefined);
  if (controlPlane === undefined || external.length !== legacy.external.length)
    return { ok: false, errors: [error([], "no VRID for every VIP")], warnings: [] };
  const pins: VridPins = { controlPlane, external };
  const checked = validateSpec(withPins(current, pins));
  return checked.ok ? { ok: true, value: pins, warnings: checked.warnings } : checked;
}

function failed(result: Validated<unknown>): Validated<VridPins> {
  return result.ok ? { ok: false, errors: [error([], "expected a cluster spec")], warnings: result.warnings } : result;
}

function withoutFirstVrid(spec: Record<string, unknown>, pool: Record<string, unknown>): Record<string, unknown> {
  const { firstVrid: _removed, ...rest } = pool;
  return { ...spec, externalVips: rest };
}

/** The spec with every VIP's VRID written in, as `clusterspec pin-vrids` writes it into the text. */
export function withPins(spec: Record<string, unknown>, pins: VridPins): Record<string, unknown> {
  const cp = spec.controlPlane;
  const pool = spec.externalVips;
  const addresses = isJsonMap(pool) && Array.isArray(pool.addresses) ? pool.addresses : undefined;
  return {
    ...spec,
    ...(isJsonMap(cp) && pins.controlPlane !== undefined ? { controlPlane: { ...cp, vrid: pins.controlPlane } } : {}),
    ...(isJsonMap(pool) && addresses
      ? {
          externalVips: {
            ...pool,
            addresses: addresses.map((entry, i) =>
              isJsonMap(entry) ? { ...entry, vrid: pins.external[i] } : { address: entry, vrid: pins.external[i] },
            ),
          },
        }
      : {}),
  };
}

/** One change to the text: `text.slice(start, end)` becomes `insert`. */
interface Splice {
  readonly start: number;
  readonly end: number;
  readonly insert: string;
}

/** The spec's text with every VIP's current VRID written in, and one line per change (empty: already pinned). */
export interface PinnedText {
  readonly text: string;
  readonly pinned: readonly string[];
  /** False for the cloud burst of an existing cluster, which has no VIPs. */
  readonly hasVips: boolean;
}

/**
 * `text` with each VIP's VRID under the old positional rule written in: `controlPlane.vrid`, each external address
 * as `{ address, vrid }` (or its `vrid` set), `externalVips.firstVrid` removed. Problems come back located in
 * `text`; running it on its own result changes nothing.
 */
export function pinVridsInText(text: string): Validated<PinnedText> {
  const parsed = parseSpecText(text);
  const doc = parsed.ok ? parsed.doc : undefined;
  let value: unknown;
  try {
    value =
      doc === undefined || doc.errors.length > 0 || duplicateKeyOffset(doc.contents) !== undefined
        ? undefined
        : doc.toJS({ maxAliasCount: 100 });
  } catch {
    value = undefined;
  }
  // YAML that does not parse: loadSpec says why, at its line, as for every other command.
  if (value === undefined) {
    const loaded = loadSpec(text);
    return loaded.ok ? { ok: false, errors: [error([], "the spec cannot be read")], warnings: [] } : loaded;
  }
  const pins = pinnedVrids(value);
  if (!pins.ok)
    return { ok: false, errors: locateIssues(text, pins.errors), warnings: locateIssues(text, pins.warnings) };
  const warnings = locateIssues(text, pins.warnings);
  if (pins.value.controlPlane === undefined) return { ok: true, value: { text, pinned: [], hasVips: false }, warnings };
  const pinned: string[] = [];
  const next = applySplices(
    text,
    pinSplices(text, doc?.contents, pins.value.controlPlane, pins.value.external, pinned),
  );
  // The rewritten spec must be valid and carry exactly the pinned VRIDs: a slip in the splicing is a bug, not a spec.
  const reloaded = loadSpec(next);
  if (!reloaded.ok || !carriesPins(reloaded.value, pins.value))
    throw new InternalError(`pin-vrids produced a spec that does not carry the pinned VRIDs:\n${next}`);
  return { ok: true, value: { text: next, pinned, hasVips: true }, warnings };
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
    if (!r) throw new InternalError(`cannot pin ${key}: its value has no place in the text`);
    return isScalar(pair.value) && pair.value.value === value
      ? undefined
      : { start: r[0], end: r[1], insert: String(value) };
  }
  const last = map.items[map.items.length - 1];
  const end = rangeOf(last?.value)?.[1] ?? rangeOf(last?.key)?.[1];
  if (end === undefined) throw new InternalError(`cannot add ${key}: the mapping is empty`);
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
  pinned: string[],
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
    if (!ir) throw new InternalError("cannot rewrite externalVips.addresses: an item has no place in the text");
    return `\n${indent}- ${applySplices(text.slice(ir[0], ir[1]), items, ir[0])}`;
  });
  // A comment after the list stays on the key's line, which the list no longer shares.
  const end = lineEnd < 0 ? text.length : lineEnd;
  const after = text.slice(r[1], end).trim();
  const comment = after.startsWith("#") ? ` ${after}` : "";
  return [{ start: keyEnd, end: comment ? end : r[1], insert: comment + lines.join("") }];
}
