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
  readonly parts: readonly string[];
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
      if (text === undefined) {
        const parts: string[] = [];
        for (const b of blocks) for (const p of b.parts) parts.push(p);
        text = parts.join("");
      }
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
  if (a.length === b.length) {
    let k = 0;
    while (k < a.length && samePart(a[k] as string, b[k] as string, equal)) k++;
    if (k === a.length) return true;
  }
  let i = 0;
  let j = 0;
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
 * Whether two versions of a file have the same text: block by block where both have blocks, else their content.
 * `equal`: see EqualParts.
 */
export function sameContent(a: Artifact | undefined, b: Artifact | undefined, equal?: EqualParts): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  const x = a.blocks;
  const y = b.blocks;
  if (x === undefined || y === undefined) return a.content === b.content;
  if (
    x.length === y.length &&
    x.every((block, i) => block.key === y[i]?.key && sameParts(block.parts, y[i].parts, equal))
  )
    return true;
  // the same text may be cut into other blocks (or keys)
  return (
    contentLength(a) === contentLength(b) &&
    sameParts(
      x.flatMap((block) => block.parts),
      y.flatMap((block) => block.parts),
    )
  );
}

const blocksLength = new WeakMap<readonly ArtifactBlock[], number>();

/** The content's length in UTF-16 units, without joining blocks (summed once per file). */
export function contentLength(a: Artifact): number {
  if (a.blocks === undefined) return a.content.length;
  let n = blocksLength.get(a.blocks);
  if (n === undefined) {
    n = 0;
    for (const b of a.blocks) for (const p of b.parts) n += p.length;
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
