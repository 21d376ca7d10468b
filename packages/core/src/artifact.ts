import { InternalError } from "./issues.js";
import type { ClusterPlan } from "./plan/types.js";

/**
 * The upstream schema a structured artifact is checked against (`@clusterspec/schemas`). Only artifacts that carry
 * one can be patched by overlays: a patched file is always re-checked before it is written.
 */
export type ArtifactSchemaId = "kubeadm" | "kubelet-patch" | "cilium-values" | "cloud-config" | "terraform-aws";

export interface Artifact {
  /** posix path under the output root, e.g. `nodes/k8s-1/etc/keepalived/keepalived.conf` */
  readonly path: string;
  readonly content: string;
  /** set only when not 0o644, e.g. 0o600 for secrets, 0o755 for scripts */
  readonly mode?: number;
  /** holds a secret value (or its placeholder): written 0600 */
  readonly secret?: boolean;
  /** YAML/JSON with an upstream schema: overlays may patch it */
  readonly schema?: ArtifactSchemaId;
  /**
   * The content as named blocks of whole lines (blockArtifact), for a file that repeats shared text, e.g. a
   * keepalived.conf with 254 VRRP instances: `content` is joined from them only when first read, and a change plan
   * compares and diffs files block by block without their text (sameContent, and rollout's blockDelta).
   */
  readonly blocks?: readonly ArtifactBlock[];
}

/**
 * A run of whole lines of a file, named so that a line diff pairs it with the block of the same key in another
 * version of the file. Its text is its parts joined; each part is whole lines too, and parts are shared between
 * blocks and files (one VRRP instance's lines around its priority line are the same in every node's file).
 */
export interface ArtifactBlock {
  /** Unique within its file. */
  readonly key: string;
  readonly parts: readonly LinePart[];
}

declare const wholeLines: unique symbol;

/**
 * Text of whole LF lines, each one ended and none with a CR: a block's part, checked once when it is made
 * (`linePart`). A file of blocks is then well formed by construction, so generate's check of every file skips its
 * blocks instead of walking the 200,000 part references of a 300-node tree, which point at a few hundred strings.
 */
export type LinePart = string & { readonly [wholeLines]: true };

/** `text` as a block part; an InternalError where it is not whole LF lines (a generator's bug, not bad input). */
export function linePart(text: string): LinePart {
  if (!text.endsWith("\n") || text.includes("\r"))
    throw new InternalError(`a block part must be whole LF lines, each ended: ${JSON.stringify(text.slice(0, 80))}`);
  return text as LinePart;
}

/** An artifact made of blocks: its content is joined when first read (and kept), so a change plan never joins it. */
export function blockArtifact(
  path: string,
  blocks: readonly ArtifactBlock[],
  rest: Pick<Artifact, "mode" | "secret" | "schema"> = {},
): Artifact {
  let text: string | undefined;
  return {
    path,
    ...rest,
    blocks,
    get content() {
      text ??= partsFrom(blocks, 0).join("");
      return text;
    },
  };
}

/**
 * Parts found equal, an old tree's part → the new tree's: files share their parts (the same string objects), so a
 * caller comparing two trees passes one of these and each pair's text is compared once, not once per file.
 */
export type EqualParts = Map<string, string>;

/** Whether two parts are the same text (see EqualParts). */
export function samePart(x: string, y: string, equal?: EqualParts): boolean {
  if (equal === undefined) return x === y;
  // the same objects as last time: two pointer comparisons, no text
  if (equal.get(x) === y) return true;
  if (x !== y) return false;
  equal.set(x, y);
  return true;
}

/** Whether two parts lists are the same text, without joining them (their boundaries may differ). */
export function sameParts(a: readonly string[], b: readonly string[], equal?: EqualParts): boolean {
  if (a === b) return true;
  // The leading parts that are equal pair by pair hold the same text on both sides: the rest is compared from
  // there (a keepalived.conf differs from its old version somewhere in its middle, and each part is 400 bytes).
  let k = 0;
  const common = Math.min(a.length, b.length);
  while (k < common && samePart(a[k] as string, b[k] as string, equal)) k++;
  if (k === a.length && k === b.length) return true;
  let i = k;
  let j = k;
  let at = 0; // offset in a[i]
  let bt = 0; // offset in b[j]
  for (;;) {
    while (i < a.length && at === (a[i] as string).length) [i, at] = [i + 1, 0];
    while (j < b.length && bt === (b[j] as string).length) [j, bt] = [j + 1, 0];
    if (i === a.length || j === b.length) return i === a.length && j === b.length;
    const x = a[i] as string;
    const y = b[j] as string;
    const n = Math.min(x.length - at, y.length - bt);
    if (x.slice(at, at + n) !== y.slice(bt, bt + n)) return false;
    at += n;
    bt += n;
  }
}

/**
 * The last answer about each artifact, by the artifact it was compared with: a change plan asks about one pair of
 * files in several places (the keepalived planner, the files changed, each file's lines). Artifacts are immutable.
 */
const lastAnswer = new WeakMap<Artifact, { readonly other: Artifact; readonly same: boolean }>();

/**
 * Whether two versions of a file have the same text: part by part where both have blocks (however the text is cut
 * into blocks and parts), else their content. `equal`: see EqualParts.
 */
export function sameContent(a: Artifact | undefined, b: Artifact | undefined, equal?: EqualParts): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const known = lastAnswer.get(a);
  if (known?.other === b) return known.same;
  const x = a.blocks;
  const y = b.blocks;
  const same = x === undefined || y === undefined ? a.content === b.content : sameBlocks(a, b, x, y, equal);
  lastAnswer.set(a, { other: b, same });
  return same;
}

function sameBlocks(
  a: Artifact,
  b: Artifact,
  x: readonly ArtifactBlock[],
  y: readonly ArtifactBlock[],
  equal?: EqualParts,
): boolean {
  // Blocks cut alike are compared pair by pair. The first two parts that differ start at the same offset of both
  // texts, so unless one is a prefix of the other (the text cut elsewhere) they answer without reading the rest.
  let i = 0;
  for (; i < x.length && i < y.length; i++) {
    const p = (x[i] as ArtifactBlock).parts;
    const q = (y[i] as ArtifactBlock).parts;
    if (p.length !== q.length) break;
    let k = 0;
    while (k < p.length && samePart(p[k] as string, q[k] as string, equal)) k++;
    if (k === p.length) continue;
    const s = p[k] as string;
    const t = q[k] as string;
    if (!s.startsWith(t) && !t.startsWith(s)) return false;
    break;
  }
  if (i === x.length && i === y.length) return true;
  // cut into other blocks or parts from block i on: the rest compared as one run of parts on each side
  return contentLength(a) === contentLength(b) && sameParts(partsFrom(x, i), partsFrom(y, i), equal);
}

/** The parts of blocks[from…], in order (a loop: V8's flatMap took 60 µs for a 254-instance keepalived.conf). */
function partsFrom(blocks: readonly ArtifactBlock[], from: number): string[] {
  const out: string[] = [];
  for (let i = from; i < blocks.length; i++) {
    const parts = (blocks[i] as ArtifactBlock).parts;
    for (let k = 0; k < parts.length; k++) out.push(parts[k] as string);
  }
  return out;
}

const blocksLength = new WeakMap<readonly ArtifactBlock[], number>();

/** The content's length in UTF-16 units, without joining blocks (summed once per file). */
export function contentLength(a: Artifact): number {
  if (a.blocks === undefined) return a.content.length;
  let n = blocksLength.get(a.blocks);
  if (n === undefined) {
    n = 0;
    // indexed: without the optimizing compiler a for…of allocates per element (65,000 blocks a 300 × 254 tree)
    for (let i = 0; i < a.blocks.length; i++) {
      const parts = (a.blocks[i] as ArtifactBlock).parts;
      for (let k = 0; k < parts.length; k++) n += (parts[k] as string).length;
    }
    blocksLength.set(a.blocks, n);
  }
  return n;
}

/** A pure function of the plan: no IO, clock, randomness or environment. */
export type Generator = (plan: ClusterPlan) => Artifact[];

/**
 * The fixed header of generated files: no version, no timestamp, so golden files do not churn.
 * One line of printable text whatever the spec file is called, so it stays a comment in every format.
 */
/** The longest spec file name a header shows; a longer one keeps its last characters. */
export const SOURCE_NAME_MAX = 200;

export function generatedMarker(plan: { readonly sourceName: string }): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const clean = plan.sourceName.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, "_");
  // Short enough for every line format's reader (keepalived cuts lines at 1,023 bytes): the tail names the file.
  const name = clean.length > SOURCE_NAME_MAX ? `…${clean.slice(clean.length - SOURCE_NAME_MAX + 1)}` : clean;
  return `generated by clusterspec from ${name} - do not edit`;
}

/** One problem of a document against its upstream schema: the document's index in the file and a JSON pointer. */
export interface SchemaProblem {
  readonly document: number;
  readonly pointer: readonly string[];
  readonly message: string;
}

/** Checks artifacts against their upstream schemas (`@clusterspec/schemas` implements it; loaded only when needed). */
export interface ArtifactChecker {
  check(artifact: Artifact): readonly SchemaProblem[];
  /** Notes about the check itself, e.g. that the nearest stored Cilium chart stood in for the spec's version. */
  readonly notes: readonly string[];
}
