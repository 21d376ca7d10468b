// Files made of blocks (blockArtifact): their text is the blocks' parts joined, and comparing two of them never
// needs that text but must answer as comparing it would.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type ArtifactBlock,
  blockArtifact,
  contentLength,
  type EqualParts,
  type LinePart,
  linePart,
  sameContent,
  sameParts,
} from "../src/index.js";

/**
 * Texts cut into parts anywhere, so that equal texts often come in different parts. Below LinePart's promise on
 * purpose (a part here may end mid-line): comparing files must answer as comparing their text does, whatever the cuts.
 */
const anyCut = (text: string) => text as LinePart;
/** Texts cut into parts anywhere, so that equal texts often come in different parts. */
const arbParts = fc.array(fc.constantFrom("a", "b", "\n", "ab\n", "ba"), { maxLength: 12 }).chain((pieces) =>
  fc.array(fc.boolean(), { minLength: pieces.length, maxLength: pieces.length }).map((cuts) => {
    const parts: LinePart[] = [];
    let current = "";
    pieces.forEach((p, i) => {
      current += p;
      if (cuts[i]) {
        parts.push(anyCut(current));
        current = "";
      }
    });
    if (current !== "") parts.push(anyCut(current));
    return parts;
  }),
);

const arbBlocks = fc.array(fc.record({ key: fc.constantFrom("#head", "a", "b", "c"), parts: arbParts }), {
  maxLength: 5,
}) satisfies fc.Arbitrary<ArtifactBlock[]>;

const text = (blocks: readonly ArtifactBlock[]) => blocks.map((b) => b.parts.join("")).join("");

describe("files made of blocks", () => {
  it("compare parts as their joined text, however they are cut", () => {
    fc.assert(
      fc.property(arbParts, arbParts, (a, b) => {
        expect(sameParts(a, b)).toBe(a.join("") === b.join(""));
        expect(sameParts(a, [a.join("")])).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("have the blocks' text as content, and compare as that text does (with or without blocks on either side)", () => {
    fc.assert(
      fc.property(arbBlocks, arbBlocks, fc.boolean(), (x, y, plain) => {
        const a = blockArtifact("f", x);
        const b = plain ? { path: "f", content: text(y) } : blockArtifact("f", y);
        expect(a.content).toBe(text(x));
        expect(contentLength(a)).toBe(text(x).length);
        expect(sameContent(a, b)).toBe(text(x) === text(y));
        expect(
          sameContent(
            a,
            blockArtifact(
              "f",
              x.map((block) => ({ ...block, parts: [...block.parts] })),
            ),
          ),
        ).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("answer the same with one EqualParts shared by many comparisons as without", () => {
    // a tree's files share parts: the map remembers pairs found equal, and must never make unequal texts equal
    fc.assert(
      fc.property(fc.array(fc.tuple(arbBlocks, arbBlocks), { minLength: 1, maxLength: 8 }), (files) => {
        const equal: EqualParts = new Map();
        for (const [x, y] of files) {
          expect(sameContent(blockArtifact("f", x), blockArtifact("f", y), equal)).toBe(text(x) === text(y));
          for (const [i, block] of x.entries()) {
            const other = y[i];
            if (other) expect(sameParts(block.parts, other.parts, equal)).toBe(sameParts(block.parts, other.parts));
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it("find equal text cut at other places in blocks of the same shape, and answer again from memory", () => {
    // Blocks of the same keys and part counts, one boundary moved: the first parts that differ are a prefix of one
    // another, so the pairwise walk must hand over to the comparison of the rest rather than answer "different".
    fc.assert(
      fc.property(arbBlocks, fc.nat(), fc.nat(), (x, blockPick, partPick) => {
        const movable = x.flatMap((block, i) =>
          block.parts.flatMap((part, k) => (k + 1 < block.parts.length && part.length >= 2 ? [[i, k] as const] : [])),
        );
        fc.pre(movable.length > 0);
        const [i, k] = movable[(blockPick + partPick) % movable.length] as readonly [number, number];
        const y = x.map((block, j) => {
          if (j !== i) return block;
          const parts = [...block.parts];
          const from = parts[k] as string;
          parts[k] = anyCut(from.slice(0, -1));
          parts[k + 1] = anyCut(from.slice(-1) + (parts[k + 1] as string));
          return { ...block, parts };
        });
        const a = blockArtifact("f", x);
        const b = blockArtifact("f", y);
        expect(sameContent(a, b)).toBe(true);
        expect(sameContent(a, b)).toBe(true);
        // one more character at the end of the moved part: the same shape, another text
        const c = blockArtifact(
          "f",
          y.map((block, j) =>
            j === i ? { ...block, parts: block.parts.map((p, m) => (m === k ? anyCut(`${p}z`) : p)) } : block,
          ),
        );
        expect(sameContent(a, c)).toBe(false);
        expect(sameContent(a, b)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("take only parts of whole LF lines, each ended (linePart), so a file of blocks is well formed as made", () => {
    expect(linePart("a\nb\n")).toBe("a\nb\n");
    for (const bad of ["", "a", "a\nb", "a\r\n", "a\n\r\n"])
      expect(() => linePart(bad), JSON.stringify(bad)).toThrow(/^a block part must be whole LF lines, each ended: /);
  });

  it("join the content once, on first read, and carry mode and secret", () => {
    const parts = [linePart("x\n"), linePart("y\n")];
    const a = blockArtifact("f", [{ key: "k", parts }], { mode: 0o600, secret: true });
    expect(a).toMatchObject({ path: "f", mode: 0o600, secret: true });
    expect(a.content).toBe("x\ny\n");
    expect(a.content).toBe(a.content);
    // a copy (spread) carries the text itself
    expect({ ...a }.content).toBe("x\ny\n");
    expect(sameContent(a, undefined)).toBe(false);
    expect(sameContent(undefined, undefined)).toBe(true);
  });
});
