// The share link's encoding and the Changes tab's computation, in Node (the page's behaviour is in browser.test.ts).
import { exampleNames, exampleText } from "@clusterspec/testkit";
import { fc, test } from "@fast-check/vitest";
import { applyPatch } from "diff";
import { inflateSync, strFromU8 } from "fflate";
import { describe, expect, it } from "vitest";
import { compare, fileDiffs } from "../src/compare.js";
import { runSpec } from "../src/engine.js";
import { SHARE_KEY, shareFragment, specFromFragment } from "../src/share.js";
import { cliChanges } from "./support.js";

describe("the share link's fragment", () => {
  test.prop([fc.string({ unit: "binary", maxLength: 2000 })])(
    "round-trips any text, in URL-safe characters",
    (text) => {
      const fragment = shareFragment(text);
      expect(fragment).toMatch(/^spec=[A-Za-z0-9_-]*$/);
      expect(specFromFragment(`#${fragment}`)).toBe(text);
      expect(specFromFragment(`example=x&${fragment}`)).toBe(text);
    },
  );

  it.each(exampleNames())("carries example %s deflated, shorter than the text", (name) => {
    const text = exampleText(name);
    const fragment = shareFragment(text);
    expect(fragment.length).toBeLessThan(text.length);
    const base64 = fragment.slice(`${SHARE_KEY}=`.length).replace(/-/g, "+").replace(/_/g, "/");
    // Raw deflate, as fflate's (and zlib's) inflateRaw reads it.
    expect(strFromU8(inflateSync(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))))).toBe(text);
  });

  it("says a link cut short does not decode, and a fragment without a spec carries none", () => {
    const fragment = shareFragment(exampleText("bare-metal-ha"));
    const message = "the share link's spec does not decode: was the link cut short when it was copied?";
    expect(specFromFragment(fragment.slice(0, fragment.length / 2))).toEqual(new Error(message));
    expect(specFromFragment("#spec=not%20base64")).toEqual(new Error(message));
    expect(specFromFragment("#example=bare-metal-ha")).toBeUndefined();
    expect(specFromFragment("")).toBeUndefined();
  });
});

/** bare-metal-ha with two changes that have steps (nameservers: netifrc; advertInterval: keepalived). */
function edited(): string {
  const text = exampleText("bare-metal-ha");
  const out = text
    .replace("advertInterval: 1", "advertInterval: 2")
    .replace("nameservers: [1.1.1.1, 8.8.8.8]", "nameservers: [1.1.1.1, 9.9.9.9]");
  if (out === text) throw new Error("bare-metal-ha changed: update the edit");
  return out;
}

describe("compare (the Changes tab)", () => {
  it("prints the change plan in the words of `clusterspec changes`, as text and as markdown", async () => {
    const base = exampleText("bare-metal-ha");
    const { plan } = await compare(base, edited());
    if (!plan.ok) throw new Error(plan.message);
    expect(plan.text).toBe((await cliChanges(base, edited(), "text")).stdout);
    expect(plan.markdown).toBe((await cliChanges(base, edited(), "markdown")).stdout);
    expect(plan.text).toContain("2 spec change(s)");
  });

  it("gives the CLI's error for the side that does not validate", async () => {
    const base = exampleText("bare-metal-ha");
    const broken = base.replace("vrid: 5", "vrid: 500");
    const { plan, files } = await compare(base, broken);
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    const cli = await cliChanges(base, broken, "text");
    expect(cli.code).toBe(2);
    expect(`${plan.message}\n`).toBe(cli.stderr);
    expect(files).toBeUndefined();
  });

  it("diffs exactly the generated files that differ, each patch turning the base's file into the current one", async () => {
    const [before, after] = await Promise.all([runSpec(exampleText("bare-metal-ha")), runSpec(edited())]);
    if (!before.ok || !after.ok) throw new Error("the specs do not generate");
    const diffs = fileDiffs(before.artifacts, after.artifacts);
    const old = new Map(before.artifacts.map((a) => [a.path, a.content]));
    const changed = after.artifacts.filter((a) => old.get(a.path) !== a.content).map((a) => a.path);
    expect(diffs.map((d) => d.path)).toEqual(changed.sort());
    expect(diffs.length).toBeGreaterThan(3);
    for (const d of diffs) {
      expect(d.status).toBe("changed");
      expect(d.patch.startsWith(`--- base/${d.path}\n+++ current/${d.path}\n`)).toBe(true);
      expect(applyPatch(old.get(d.path) ?? "", d.patch)).toBe(after.artifacts.find((a) => a.path === d.path)?.content);
    }
  });

  it("marks files only one tree has as added or removed", () => {
    const a = { path: "a.txt", content: "one\n" };
    const b = { path: "b.txt", content: "two\n" };
    const diffs = fileDiffs([a], [b]);
    expect(diffs.map((d) => [d.path, d.status])).toEqual([
      ["a.txt", "removed"],
      ["b.txt", "added"],
    ]);
    expect(diffs[0]?.patch).toBe("--- base/a.txt\n+++ /dev/null\n@@ -1,1 +0,0 @@\n-one\n");
    expect(fileDiffs([a], [a])).toEqual([]);
  });
});
