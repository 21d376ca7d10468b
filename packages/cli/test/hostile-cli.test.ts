// Issue 16: no input reaches an internal error. The command exits 2 (bad input, nothing written) or 0 for any
// hostile string in any field, never 70; the NUL byte in the provisioner URL that once gave an InternalError.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const hybrid = readFileSync(join(repo, "examples", "hybrid-cloud-burst", "cluster.yaml"), "utf8");

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-hostile-"));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

const cli = (argv: string[]) =>
  runCaptured(argv, work, { readStdin: () => "", isTTY: { stdout: false, stderr: false } });

describe("hostile input at the command line", () => {
  it("a NUL byte in the provisioner URL: exit 2 with the field and its line, nothing written", async () => {
    writeFileSync(
      join(work, "cluster.yaml"),
      hybrid.replace("url: https://provisioner.example.com", 'url: "https://provisioner.example.com/\\0x"'),
    );
    const r = await cli(["generate", "cluster.yaml", "-o", "out"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("the value contains NUL (U+0000)");
    expect(r.stderr).toMatch(/cloud\.provisioner\.url \(cluster\.yaml:\d+:\d+\)/);
    expect(r.stderr).not.toContain("InternalError");
    expect(existsSync(join(work, "out"))).toBe(false);
  });

  it("a YAML alias inside its own anchor's node: exit 2 with the path and line, nothing written (was exit 70)", async () => {
    writeFileSync(join(work, "cluster.yaml"), hybrid.replace(/^kubernetes:\n/m, "kubernetes: &k\n  self: *k\n"));
    const r = await cli(["generate", "cluster.yaml", "-o", "out"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "this value contains itself (a YAML alias *name inside the node its anchor &name marks)",
    );
    expect(r.stderr).toMatch(/kubernetes\.self \(cluster\.yaml:\d+:\d+\)/);
    expect(existsSync(join(work, "out"))).toBe(false);
  });

  it("any string in a sample of fields: exit 0 or 2, never an internal error", async () => {
    const spec = parse(hybrid);
    const setters: ((s: any, v: string) => void)[] = [
      (s, v) => (s.cloud.provisioner.url = `https://${v}.example.com`),
      (s, v) => (s.nodes[0].name = v),
      (s, v) => (s.nodes[0].interfaces[v] = { mac: "52:54:00:00:00:09" }),
      (s, v) => (s.network.segments[0].interface = v),
      (s, v) => (s.cloud.pools[0].labels[v] = v),
      (s, v) => (s.host = { sysctl: { "vm.swappiness": v } }),
      (s, v) => (s.vrrp.notify = { master: `/etc/keepalived/${v}` }),
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: setters.length - 1 }),
        fc.oneof(
          fc.string({ unit: "binary", maxLength: 12 }),
          fc.constantFrom("\0", "toString", "__proto__", "0o17", "<<", "a".repeat(1100), "\u200b"),
        ),
        async (i, v) => {
          const s = structuredClone(spec);
          setters[i]?.(s, v);
          writeFileSync(join(work, "cluster.yaml"), stringify(s));
          const r = await cli(["validate", "cluster.yaml"]);
          expect([0, 2], `${JSON.stringify(v)}: ${r.stderr}`).toContain(r.code);
        },
      ),
      { numRuns: 60 },
    );
  });
});
