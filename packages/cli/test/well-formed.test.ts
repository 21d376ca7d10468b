// generate refuses a tree that a generator got wrong (an InternalError: a bug, never bad input): two files at one
// path, a path that is not clean and relative, text that is not LF lines ended by a newline. A file of blocks is
// well formed as made (core's linePart checks each part once), so only plain files are scanned here.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Artifact, blockArtifact, type GeneratorModule, linePart, resolvePlan } from "@clusterspec/core";
import { mustValidate } from "@clusterspec/core/testing";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { renderArtifacts } from "../src/generate.js";

const example = fileURLToPath(new URL("../../../examples/bare-metal-ha/cluster.yaml", import.meta.url));
const plan = resolvePlan(mustValidate(parse(readFileSync(example, "utf8"))), { sourceName: "cluster.yaml" });
const moduleOf = (artifacts: Artifact[]): GeneratorModule => ({ name: "test", generate: () => artifacts });
const render = (...artifacts: Artifact[]) => renderArtifacts(plan, [moduleOf(artifacts)]);

describe("a generated tree", () => {
  it("passes when every file is LF lines, the last one ended, at a clean relative path", () => {
    const blocks = [{ key: "a", parts: [linePart("x\n"), linePart("y\n")] }];
    expect(
      render({ path: "a/b.conf", content: "x\n" }, blockArtifact("a/c.conf", blocks)).artifacts.map((a) => a.path),
    ).toEqual(["PLAN.md", "a/b.conf", "a/c.conf"]);
  });

  it.each([
    ["a missing last newline", { path: "f", content: "x" }, "artifact f must use LF and end with one newline"],
    ["a CR", { path: "f", content: "x\r\n" }, "artifact f must use LF and end with one newline"],
    ["an absolute path", { path: "/etc/f", content: "x\n" }, "artifact path /etc/f is not a clean relative path"],
    ["a .. in the path", { path: "a/../f", content: "x\n" }, "artifact path a/../f is not a clean relative path"],
    ["an empty segment", { path: "a//f", content: "x\n" }, "artifact path a//f is not a clean relative path"],
  ])("is refused with %s", (_, artifact, message) => {
    expect(() => render(artifact)).toThrow(message);
  });

  it("is refused with two files at one path", () => {
    expect(() => render({ path: "f", content: "x\n" }, { path: "f", content: "y\n" })).toThrow(
      "two artifacts share the path f",
    );
  });
});
