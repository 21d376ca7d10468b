// `clusterspec changes` and `generate --check --base`: each format and exit code, the JSON document against
// docs/changes.schema.json (ajv), and failures at the path and line of the spec they are about.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { exampleText } from "@clusterspec/testkit";
import Ajv2020 from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const bare = exampleText("bare-metal-ha");
const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validateCliJson = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "cli-json.schema.json"), "utf8")));
const validateChanges = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "changes.schema.json"), "utf8")));

const withWorker = bare.replace(
  "host:",
  `  - name: k8s-4
    roles: [worker]
    rootFilesystem: btrfs
    interfaces:
      wan0: { mac: "52:54:00:12:34:59", address: 10.118.10.23/24, gateway: 10.118.10.1 }
      wan1: { mac: "52:54:00:12:35:59", address: 10.118.12.23/24 }
host:`,
);
const newVip = bare.replace("vip: 10.118.12.100/24", "vip: 10.118.12.101/24");
const lineOf = (text: string, needle: string) => text.split("\n").findIndex((l) => l.includes(needle)) + 1;
const k8s4 = lineOf(withWorker, "- name: k8s-4");
const vipLine = lineOf(newVip, "vip: 10.118.12.101/24");

let work: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-changes-"));
  mkdirSync(join(work, "repo"));
  writeFileSync(join(work, "repo", "base.yaml"), bare);
  writeFileSync(join(work, "repo", "cluster.yaml"), withWorker);
  writeFileSync(join(work, "repo", "new-vip.yaml"), newVip);
  writeFileSync(join(work, "repo", "broken.yaml"), bare.replace("nodeCidrMaskSize: 24", "nodeCidrMaskSize: 200"));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const run = (...argv: string[]) => runCaptured(argv, join(work, "repo"));

describe("clusterspec changes", () => {
  it("prints the plan as text: the spec change at its line, the files, the numbered steps; exit 0", async () => {
    const r = await run("changes", "base.yaml", "cluster.yaml");
    expect(r.code).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("base.yaml → cluster.yaml: 1 spec change(s), 5 step(s)\n");
    expect(r.stdout).toContain(`  nodes[3] (cluster.yaml:${k8s4}): (none) → {`);
    expect(r.stdout).toContain("      nodes/k8s-1/etc/hosts: line 7\n");
    expect(r.stdout).toContain("  5. k8s-4: join the cluster as a worker (new node) [kubeadm, on k8s-4]\n");
    expect(r.stdout).toContain("       $ kubeadm join --config /kubeadm.yaml\n");
    // The new node's network comes up before its join (the netifrc planner's step), so no changed file is left over.
    expect(r.stdout).toContain("  1. k8s-4: start net.wan0, start net.wan1 [netifrc, on k8s-4]\n");
    expect(r.stdout).not.toContain("Changed files no step installs");
  });

  it("prints markdown for a pull request: the table of spec changes with file:line links, steps with code blocks", async () => {
    const r = await run("changes", "base.yaml", "cluster.yaml", "--format", "markdown");
    expect(r.code).toBe(0);
    expect(
      r.stdout.startsWith(
        "### clusterspec: change plan\n\n`base.yaml` → `cluster.yaml`: 1 spec change(s), 5 step(s).\n",
      ),
    ).toBe(true);
    expect(r.stdout).toContain(`| [\`nodes[3]\`](cluster.yaml#L${k8s4}) | \`(none)\` |`);
    expect(r.stdout).toContain("[nodes/k8s-1/etc/hosts](generated/nodes/k8s-1/etc/hosts#L7) line 7");
    expect(r.stdout).toContain("5. **k8s-4: join the cluster as a worker (new node)** (kubeadm, on `k8s-4`)\n");
    expect(r.stdout).toContain(
      "   ```sh\n   sysctl --system\n   rc-service modules restart\n   kubeadm join --config /kubeadm.yaml\n   ```\n",
    );
  });

  it("prints one JSON document that docs/changes.schema.json accepts, with --json and with --format json", async () => {
    for (const flags of [["--json"], ["--format", "json"]]) {
      const r = await run("changes", "base.yaml", "cluster.yaml", ...flags);
      expect(r.code).toBe(0);
      const doc = JSON.parse(r.stdout);
      expect(validateChanges(doc) ? [] : validateChanges.errors).toEqual([]);
      expect(doc).toMatchObject({
        schemaVersion: 1,
        command: "changes",
        old: "base.yaml",
        new: "cluster.yaml",
        ok: true,
      });
      expect(doc.steps.map((s: { index: number }) => s.index)).toEqual([1, 2, 3, 4, 5]);
    }
  });

  it("a new VRRP password reference alone: every carrier reloads after a drain, the password itself never shown", async () => {
    const renamed = bare.replace("password: { env: VRRP_AUTH_PASS }", "password: { env: VRRP_AUTH_PASS_2026 }");
    expect(renamed).not.toBe(bare);
    writeFileSync(join(work, "repo", "password.yaml"), renamed);
    const env = { VRRP_AUTH_PASS: "0ldPw", VRRP_AUTH_PASS_2026: "n3wPw" };
    const r = await runCaptured(["changes", "base.yaml", "password.yaml"], join(work, "repo"), { env });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      `  vrrp.auth.password.env (password.yaml:${lineOf(renamed, "VRRP_AUTH_PASS_2026")}): VRRP_AUTH_PASS → VRRP_AUTH_PASS_2026\n`,
    );
    // the files are the same placeholders, yet each carrier gets its keepalived step
    for (const node of ["k8s-1", "k8s-2", "k8s-3"])
      expect(r.stdout).toMatch(new RegExp(`\\d+\\. ${node}: \\w+ keepalived`));
    expect(r.stdout).toContain("authentication AH with another password on each side");
    expect(r.stdout).toContain(
      "       ⚠ the VRRP password changed: install auth.conf from a tree written with --with-secrets (a review tree holds a placeholder)\n",
    );
    for (const secret of Object.values(env)) expect(`${r.stdout}${r.stderr}`).not.toContain(secret);
  });

  it("the schema rejects a document that breaks it", async () => {
    const doc = JSON.parse((await run("changes", "base.yaml", "cluster.yaml", "--json")).stdout);
    expect(validateChanges({ ...doc, schemaVersion: 2 })).toBe(false);
    expect(validateChanges({ ...doc, steps: [{ ...doc.steps[0], kind: "reboot" }] })).toBe(false);
    expect(validateChanges({ ...doc, refused: [{ path: "controlPlane.vip", reason: "x" }] })).toBe(false);
  });

  it("refuses a change with no safe procedure: exit 2, no steps, the path and line", async () => {
    const text = await run("changes", "base.yaml", "new-vip.yaml");
    expect(text.code).toBe(2);
    expect(text.stdout).toContain(
      `✖ controlPlane.vip (new-vip.yaml:${vipLine}): the control-plane endpoint (10.118.12.100:6443 → 10.118.12.101:6443)`,
    );
    expect(text.stderr).toBe("✖ 1 change(s) refused: no steps are given\n");
    const json = await run("changes", "base.yaml", "new-vip.yaml", "--json");
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    expect(validateChanges(doc) ? [] : validateChanges.errors).toEqual([]);
    expect(doc.ok).toBe(false);
    expect(doc.steps).toEqual([]);
    expect(doc.errors.map((e: { code: string; path: string; line: number }) => [e.code, e.path, e.line])).toEqual([
      ["change_refused", "controlPlane.vip", vipLine],
    ]);
  });

  it("an invalid spec: exit 2, its issues at their path and line, in text and in JSON (which spec they are about)", async () => {
    const text = await run("changes", "base.yaml", "broken.yaml");
    expect(text.code).toBe(2);
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("broken.yaml:10:3");
    expect(text.stderr).toContain("kubernetes.nodeCidrMaskSize");
    const json = await run("changes", "broken.yaml", "cluster.yaml", "--json");
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    expect(validateChanges(doc) ? [] : validateChanges.errors).toEqual([]);
    expect(doc.errors[0]).toMatchObject({
      code: "out_of_range",
      path: "kubernetes.nodeCidrMaskSize",
      line: 10,
      spec: "old",
    });
  });

  it("the cloud burst of an existing cluster: no nodes to plan for, exit 2 at existingCluster", async () => {
    writeFileSync(join(work, "repo", "burst.yaml"), exampleText("cloud-burst-only"));
    const r = await run("changes", "burst.yaml", "burst.yaml", "--json");
    expect(r.code).toBe(2);
    const doc = JSON.parse(r.stdout);
    expect(validateChanges(doc) ? [] : validateChanges.errors).toEqual([]);
    expect(doc.errors).toEqual([
      {
        severity: "error",
        code: "invalid_value",
        message:
          "a change plan needs a cluster spec (nodes, control plane): the cloud burst of an existing cluster has none; review its cloud/ diff with generate --check",
        path: "existingCluster",
        line:
          exampleText("cloud-burst-only")
            .split("\n")
            .findIndex((l) => l.startsWith("existingCluster:")) + 1,
        spec: "old",
      },
    ]);
  });

  it("a spec that cannot be read: exit 2, in text and JSON", async () => {
    expect(await run("changes", "base.yaml", "missing.yaml")).toMatchObject({ code: 2, stdout: "" });
    const doc = JSON.parse((await run("changes", "base.yaml", "missing.yaml", "--json")).stdout);
    expect(validateChanges(doc) ? [] : validateChanges.errors).toEqual([]);
    expect(doc.errors[0].code).toBe("filesystem");
  });

  it("usage mistakes: exit 2 with the help page", async () => {
    for (const argv of [
      ["changes", "base.yaml"],
      ["changes", "base.yaml", "cluster.yaml", "--format", "html"],
      ["changes", "base.yaml", "cluster.yaml", "--json", "--format", "markdown"],
      ["changes", "-", "cluster.yaml"],
    ]) {
      const r = await run(...argv);
      expect(r.code, argv.join(" ")).toBe(2);
      expect(r.stderr).toContain("Usage:\n  clusterspec changes <old-spec> <new-spec>");
    }
  });
});

describe("generate --check --base", () => {
  beforeAll(async () => {
    expect((await run("generate", "cluster.yaml")).code).toBe(0);
  });

  it("adds the change plan to the text and markdown output; exit 0 when the tree is up to date", async () => {
    const text = await run("generate", "cluster.yaml", "--check", "--base", "base.yaml");
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("is up to date");
    expect(text.stdout).toContain("base.yaml → cluster.yaml: 1 spec change(s), 5 step(s)");
    const md = await run("generate", "cluster.yaml", "--check", "--base", "base.yaml", "--format", "markdown");
    expect(md.code).toBe(0);
    expect(md.stdout).toContain("### ✅ clusterspec: generated files are up to date");
    expect(md.stdout).toContain("\n### clusterspec: change plan\n");
  });

  it("adds it as `changes` to the JSON document, which both schemas accept", async () => {
    const r = await run("generate", "cluster.yaml", "--check", "--base", "base.yaml", "--json");
    expect(r.code).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(validateCliJson(doc) ? [] : validateCliJson.errors).toEqual([]);
    expect(validateChanges(doc.changes) ? [] : validateChanges.errors).toEqual([]);
    expect(doc.changes.specChanges.map((c: { path: string }) => c.path)).toEqual(["nodes[3]"]);
  });

  it("exit 2 when the base spec is invalid (its path and line) or the change is refused", async () => {
    const invalid = await run("generate", "cluster.yaml", "--check", "--base", "broken.yaml");
    expect(invalid.code).toBe(2);
    expect(invalid.stderr).toContain("broken.yaml:10:3");
    const json = await run("generate", "cluster.yaml", "--check", "--base", "broken.yaml", "--json");
    expect(json.code).toBe(2);
    const doc = JSON.parse(json.stdout);
    expect(validateCliJson(doc) ? [] : validateCliJson.errors).toEqual([]);
    expect(doc.errors[0]).toMatchObject({ code: "out_of_range", pathText: "kubernetes.nodeCidrMaskSize", line: 10 });
    expect(doc.errors[0].message).toMatch(/^the base spec broken.yaml: /);
    mkdirSync(join(work, "vip"));
    writeFileSync(join(work, "vip", "cluster.yaml"), newVip);
    writeFileSync(join(work, "vip", "base.yaml"), bare);
    expect((await runCaptured(["generate", "cluster.yaml"], join(work, "vip"))).code).toBe(0);
    const refused = await runCaptured(
      ["generate", "cluster.yaml", "--check", "--base", "base.yaml"],
      join(work, "vip"),
    );
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("the change plan refuses a change: no steps are given");
  });

  it("--base without --check is a usage mistake", async () => {
    const r = await run("generate", "cluster.yaml", "--base", "base.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--base adds the change plan to --check");
  });
});
