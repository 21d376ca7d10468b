// The error catalog (error-catalog.ts) against what documents it: docs/cli-json.md's table of codes (generated from
// the catalog), the `code` enum of docs/cli-json.schema.json and the codes of the documented examples.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  ERROR_CATALOG,
  EXIT_INVALID,
  exitCodeOf,
  ISSUE_CODES,
  isIssueCode,
  renderCodeTable,
} from "../src/error-catalog.js";
import { repoRoot } from "./helpers.js";

const docPath = join(repoRoot, "docs", "cli-json.md");
const schemaPath = join(repoRoot, "docs", "cli-json.schema.json");
const BLOCK = /(<!-- codes:start[^\n]*-->\n)[\s\S]*?(<!-- codes:end -->)/;

describe("the error catalog", () => {
  it("docs/cli-json.md's table of codes is the catalog's (pnpm codegen rewrites it)", async () => {
    const doc = readFileSync(docPath, "utf8");
    expect(doc, "the codes:start/codes:end markers").toMatch(BLOCK);
    await expect(
      doc.replace(BLOCK, `$1\n${renderCodeTable()}\n\n$2`),
      "docs/cli-json.md's codes are stale: run pnpm codegen",
    ).toMatchFileSnapshot(docPath);
  });

  it("docs/cli-json.schema.json's code enum is the catalog's codes, in its order", () => {
    const schema = JSON.parse(readFileSync(schemaPath, "utf8"));
    expect(schema.$defs.code.enum).toEqual([...ISSUE_CODES]);
    expect(schema.$defs.issue.properties.code).toEqual({ $ref: "#/$defs/code" });
    expect(schema.$defs.omitted.properties.code).toEqual({ $ref: "#/$defs/code" });
  });

  it("every code in the documented JSON examples of docs/cli-json.md is a catalog code", () => {
    const doc = readFileSync(docPath, "utf8");
    const shown = [...doc.matchAll(/"code": "([^"]+)"/g)].map((m) => m[1]);
    expect(shown.length).toBeGreaterThan(0);
    expect(shown.filter((c) => !isIssueCode(c))).toEqual([]);
  });

  it("every code the docs name in backquotes outside the table is a catalog code or another documented word", () => {
    const doc = readFileSync(docPath, "utf8").replace(BLOCK, "");
    const section = doc.slice(doc.indexOf("## Errors and warnings"), doc.indexOf("## `validate --json`"));
    const words = [...section.matchAll(/`([a-z]+_[a-z_]+)`/g)].map((m) => m[1]);
    expect(words.filter((w) => !isIssueCode(w))).toEqual([]);
  });

  it("says what each code means, once, with an exit code that is a named one", () => {
    for (const code of ISSUE_CODES) {
      expect(ERROR_CATALOG[code].meaning.length, code).toBeGreaterThan(10);
      expect(exitCodeOf(code)).toBe(EXIT_INVALID);
    }
    expect(new Set(ISSUE_CODES).size).toBe(ISSUE_CODES.length);
    expect(ISSUE_CODES.every((c) => /^[a-z]+(_[a-z]+)*$/.test(c))).toBe(true);
  });

  it("tells catalog codes from other strings, including zod's own issue code custom and prototype keys", () => {
    expect(isIssueCode("rule")).toBe(true);
    expect(isIssueCode("secret")).toBe(true);
    expect(isIssueCode("custom")).toBe(false);
    expect(isIssueCode("toString")).toBe(false);
    expect(isIssueCode(undefined)).toBe(false);
  });
});
