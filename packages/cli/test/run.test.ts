// The command line in-process (runCli with a recording io): help, --json, stdin, colour and messages.
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Ajv2020 from "ajv/dist/2020.js";
import { type CliIO, runCli } from "clusterspec/cli";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validateJson = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "cli-json.schema.json"), "utf8")));

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-run-"));
  writeFileSync(join(work, "cluster.yaml"), exampleSpec);
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

async function cli(argv: string[], opts: { env?: Record<string, string>; stdin?: string; tty?: boolean } = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    cwd: work,
    env: opts.env ?? {},
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    version: "0.0.0-test",
    readStdin: () => opts.stdin ?? "",
    isTTY: { stdout: opts.tty === true, stderr: opts.tty === true },
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

/** A --json run: the document must match docs/cli-json.schema.json. */
async function cliJson(argv: string[], opts: Parameters<typeof cli>[1] = {}) {
  const r = await cli([...argv, "--json"], opts);
  const doc = JSON.parse(r.stdout);
  expect(validateJson(doc) ? [] : validateJson.errors, r.stdout.slice(0, 400)).toEqual([]);
  return { ...r, doc };
}

describe("help", () => {
  it("prints each command's own help for --help and for help <command>", async () => {
    for (const command of ["generate", "validate", "plan", "schema", "help"]) {
      const a = await cli([command, "--help"]);
      const b = await cli(["help", command]);
      expect(a.code).toBe(0);
      expect(a.stdout).toBe(b.stdout);
      expect(a.stdout.startsWith(`clusterspec ${command} - `)).toBe(true);
    }
    expect((await cli(["generate", "--help"])).stdout).toContain("--format <f>");
    expect((await cli(["help"])).stdout).toContain("Commands:");
  });

  it("rejects an unknown command with a suggestion, and an option a command does not take with its help", async () => {
    const a = await cli(["generat", "x.yaml"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown command generat (did you mean generate?)");
    const b = await cli(["validate", "x.yaml", "--force"]);
    expect(b.code).toBe(2);
    expect(b.stderr.split("\n")[0]).toBe("clusterspec: validate does not take --force");
    expect(b.stderr).toContain("clusterspec validate - check a spec");
    expect((await cli(["help", "frob"])).stderr).toContain("unknown command frob");
    expect((await cli(["generate", "cluster.yaml", "--format", "markdown"])).stderr).toContain("add --check");
  });
});

describe("validate", () => {
  it("reads the spec from standard input with -", async () => {
    const r = await cli(["validate", "-"], { stdin: exampleSpec });
    expect(r).toEqual({ code: 0, stdout: "✔ <stdin> is valid\n", stderr: "" });
    const bad = await cli(["validate", "-"], { stdin: exampleSpec.replace("vrid: 5", "vrid: 300") });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("→ at controlPlane.vrid (<stdin>:34:3)");
  });

  it("prints a code frame under each error, in colour only on a terminal or with FORCE_COLOR, never with NO_COLOR", async () => {
    writeFileSync(join(work, "bad.yaml"), exampleSpec.replace("podSubnet:", "podSubnett:"));
    const plain = await cli(["validate", "bad.yaml"]);
    expect(plain.stderr).toMatchInlineSnapshot(`
      "✖ unknown key "podSubnett" (did you mean "podSubnet"?)
        → at kubernetes.podSubnett (bad.yaml:8:3)
        8 |   podSubnett: 10.244.0.0/16
          |   ^^^^^^^^^^
      "
    `);
    const tty = await cli(["validate", "bad.yaml"], { tty: true });
    expect(tty.stderr).toContain("\x1b[31m✖\x1b[0m");
    expect((await cli(["validate", "bad.yaml"], { tty: true, env: { NO_COLOR: "1" } })).stderr).toBe(plain.stderr);
    expect((await cli(["validate", "bad.yaml"], { env: { FORCE_COLOR: "1" } })).stderr).toBe(tty.stderr);
    expect((await cli(["validate", "bad.yaml"], { tty: true, env: { FORCE_COLOR: "0" } })).stderr).toBe(plain.stderr);
  });

  it("--json lists errors with path, line, column, message and code; exit 2", async () => {
    writeFileSync(join(work, "bad.yaml"), exampleSpec.replace("type: AH", "type: AHH"));
    const r = await cliJson(["validate", "bad.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("");
    expect(r.doc).toEqual({
      version: 1,
      command: "validate",
      spec: "bad.yaml",
      ok: false,
      errors: [
        {
          severity: "error",
          code: "invalid_value",
          message: '"AHH" is not one of AH, PASS (did you mean "AH"?)',
          path: ["vrrp", "auth", "type"],
          pathText: "vrrp.auth.type",
          line: 36,
          column: 11,
        },
      ],
      warnings: [],
    });
    const ok = await cliJson(["validate", "cluster.yaml"]);
    expect(ok.code).toBe(0);
    expect(ok.doc.ok).toBe(true);
  });

  it("says in words what is wrong with the spec's path", async () => {
    mkdirSync(join(work, "folder.yaml"));
    const dir = await cli(["validate", "folder.yaml"]);
    expect(dir.code).toBe(2);
    expect(dir.stderr).toBe(
      `✖ cannot read the spec: ${join(work, "folder.yaml")} is a folder, where a file was expected\n`,
    );
    const missing = await cliJson(["validate", "nope.yaml"]);
    expect(missing.code).toBe(2);
    expect(missing.doc.errors[0]).toMatchObject({
      code: "filesystem",
      message: `cannot read the spec: ${join(work, "nope.yaml")} does not exist`,
    });
  });
});

describe("plan --json", () => {
  it("prints the resolved plan", async () => {
    const r = await cliJson(["plan", "cluster.yaml"]);
    expect(r.code).toBe(0);
    expect(r.doc.plan.name).toBe("k8s-test");
    expect(r.doc.plan.nodes.map((n: { name: string }) => n.name)).toEqual(["k8s-1", "k8s-2", "k8s-3"]);
    expect(r.doc.plan.controlPlane.endpoint).toBe("10.118.12.100:6443");
  });
});

describe("generate", () => {
  it("--json lists every file written with mode, size and hash", async () => {
    const r = await cliJson(["generate", "cluster.yaml"]);
    expect(r.code).toBe(0);
    expect(r.doc.secrets).toBe("placeholders");
    const plan = r.doc.files.find((f: { path: string }) => f.path === "PLAN.md");
    const bytes = readFileSync(join(work, "generated", "PLAN.md"));
    expect(plan).toMatchObject({ mode: "0644", bytes: bytes.length, secret: false });
    expect(r.doc.summary.written).toBe(r.doc.files.length);
    const secret = r.doc.files.find((f: { secret: boolean }) => f.secret);
    expect(secret.mode).toBe("0600");
  });

  it("with - as the spec, needs -o", async () => {
    const r = await cli(["generate", "-"], { stdin: exampleSpec });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("name one with -o");
    const ok = await cli(["generate", "-", "-o", "out"], { stdin: exampleSpec });
    expect(ok.code).toBe(0);
    expect(readFileSync(join(work, "out", "nodes", "k8s-1", "etc", "conf.d", "net"), "utf8")).toBe(
      readFileSync(
        join(repo, "examples", "bare-metal-ha", "generated", "nodes", "k8s-1", "etc", "conf.d", "net"),
        "utf8",
      ),
    );
  });

  it("says in words why a secret file cannot be read, at the reference's line", async () => {
    writeFileSync(
      join(work, "cluster.yaml"),
      exampleSpec.replace("password: { env: VRRP_AUTH_PASS }", "password: { file: secrets/vrrp.txt }"),
    );
    const env = {
      KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
      KUBEADM_CERT_KEY: "a".repeat(64),
      KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
    };
    const r = await cli(["generate", "cluster.yaml", "--with-secrets", "-o", "deploy"], { env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `✖ cannot read the secret file: ${join(work, "secrets", "vrrp.txt")} does not exist\n  → at vrrp.auth.password (cluster.yaml:36:21)`,
    );
  });

  it("names the file that stands where a folder is needed", async () => {
    writeFileSync(join(work, "afile"), "x");
    const r = await cli(["generate", "cluster.yaml", "-o", "afile/out"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ cannot write ${join(work, "afile", "out")}: ${join(work, "afile")} is a file, where a folder was expected\n`,
    );
  });
});

describe("generate --check", () => {
  it("says the folder is missing instead of printing a creation diff", async () => {
    const r = await cli(["generate", "cluster.yaml", "--check", "-o", "not-there"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `✖ ${join(work, "not-there")} does not exist, so there is nothing to check: generate it first (clusterspec generate cluster.yaml -o not-there) and commit it\n`,
    );
    const j = await cliJson(["generate", "cluster.yaml", "--check", "-o", "not-there"]);
    expect(j.code).toBe(2);
    expect(j.doc.errors[0].code).toBe("missing_output");
  });

  it("--json lists the drifted files; exit 1 on drift, 0 when fresh", async () => {
    expect((await cli(["generate", "cluster.yaml"])).code).toBe(0);
    const fresh = await cliJson(["generate", "cluster.yaml", "--check"]);
    expect(fresh.code).toBe(0);
    expect(fresh.doc).toMatchObject({ command: "check", ok: true, drift: [] });
    writeFileSync(join(work, "generated", "PLAN.md"), "# hand-edited\n");
    writeFileSync(join(work, "cluster.yaml"), exampleSpec.replace("advertInterval: 1", "advertInterval: 2"));
    const drifted = await cliJson(["generate", "cluster.yaml", "--check"]);
    expect(drifted.code).toBe(1);
    expect(drifted.doc.ok).toBe(false);
    const kinds = Object.fromEntries(drifted.doc.drift.map((d: { path: string; kind: string }) => [d.path, d.kind]));
    expect(kinds["PLAN.md"]).toBe("changed");
    expect(kinds["nodes/k8s-1/etc/keepalived/keepalived.conf"]).toBe("changed");
    for (const d of drifted.doc.drift) if (d.secret) expect(d.patch).toMatch(/content not shown/);
  });

  it("--format markdown: the drifted files, PLAN.md's diff first, every other diff folded", async () => {
    expect((await cli(["generate", "cluster.yaml"])).code).toBe(0);
    const fresh = await cli(["generate", "cluster.yaml", "--check", "--format", "markdown"]);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain("up to date");
    writeFileSync(join(work, "cluster.yaml"), exampleSpec.replace("vrid: 12 }\n", "vrid: 12 }\n    - 10.118.11.23\n"));
    const r = await cli(["generate", "cluster.yaml", "--check", "--format", "markdown"]);
    expect(r.code).toBe(1);
    const md = r.stdout;
    expect(md.split("\n")[0]).toBe("### ❌ clusterspec: generated files are out of date");
    expect(md).toContain("| `PLAN.md` | changed |");
    const planAt = md.indexOf("#### PLAN.md");
    const firstFold = md.indexOf("<details>");
    expect(planAt).toBeGreaterThan(md.indexOf("| file | change |"));
    expect(firstFold).toBeGreaterThan(planAt);
    expect(md.slice(planAt, firstFold)).toContain("```diff\n");
    expect(md).toContain(
      "<details><summary><code>nodes/k8s-1/etc/keepalived/keepalived.conf</code> (changed)</summary>",
    );
    expect(md.match(/<details>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
  });
});

it("colours a --check diff on a terminal only", async () => {
  expect((await cli(["generate", "cluster.yaml"])).code).toBe(0);
  cpSync(join(work, "cluster.yaml"), join(work, "orig.yaml"));
  writeFileSync(join(work, "generated", "PLAN.md"), "# hand-edited\n");
  const piped = await cli(["generate", "cluster.yaml", "--check"]);
  const tty = await cli(["generate", "cluster.yaml", "--check"], { tty: true });
  expect(piped.stdout).not.toContain("\x1b[");
  expect(tty.stdout).toContain("\x1b[31m-# hand-edited\x1b[0m");
});
