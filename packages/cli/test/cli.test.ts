// Runs the built binary as a user would (the test script builds first).
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { gunzipSync } from "node:zlib";
import { readTree } from "@clusterspec/testkit";
import Ajv2020 from "ajv/dist/2020.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parse } from "yaml";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "packages", "cli", "bin.cjs");
const example = join(repo, "examples", "bare-metal-ha", "cluster.yaml");

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "", ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-cli-"));
  cpSync(example, join(work, "cluster.yaml"));
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

describe("clusterspec binary", () => {
  it("prints help and version", () => {
    const help = cli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(
      "clusterspec generate <spec> [-o <dir>] [--check [--base <old-spec>] [--format markdown]]",
    );
    const version = cli(["--version"]);
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
  });

  it("runs every command and output format through the bundle (its lazily loaded parts included)", () => {
    const out = join(work, "out");
    const json = (args: string[]) => {
      const r = cli([...args, "--json"]);
      expect(r.stderr).toBe("");
      expect(r.code, args.join(" ")).toBe(0);
      return JSON.parse(r.stdout);
    };
    expect(json(["validate", join(work, "cluster.yaml")]).ok).toBe(true);
    expect(json(["plan", join(work, "cluster.yaml")]).plan).toBeDefined();
    // --json lists each file with its SHA-256 (node:crypto, which the bundle loads only for generate)
    const generated = json(["generate", join(work, "cluster.yaml"), "-o", out]);
    expect(generated.files.length).toBeGreaterThan(40);
    for (const f of generated.files) {
      const bytes = readFileSync(join(out, f.path));
      expect(f.sha256, f.path).toBe(createHash("sha256").update(bytes).digest("hex"));
    }
    expect(json(["generate", join(work, "cluster.yaml"), "-o", out, "--check"]).ok).toBe(true);
    const markdown = cli(["generate", join(work, "cluster.yaml"), "-o", out, "--check", "--format", "markdown"]);
    expect(markdown.code).toBe(0);
    const text = cli(["generate", join(work, "cluster.yaml"), "-o", out]);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain("up to date");
  });

  it("gzips user data over EC2's limit (the command's bundle loads fflate only then)", () => {
    // 30 long labels take the ci-arm64 pool's user data over 16 KiB; the other pool stays plain.
    const text = readFileSync(join(repo, "examples", "cloud-burst-only", "cluster.yaml"), "utf8");
    const labels = Array.from(
      { length: 30 },
      (_, n) => `        ci.example.com/label-${n}-${"x".repeat(40)}: "${"v".repeat(63)}"`,
    );
    const spec = text.replace(/^( {6}labels:\n)/m, `$1${labels.join("\n")}\n`);
    expect(spec).toContain("label-29");
    writeFileSync(join(work, "big.yaml"), spec);
    const r = cli(["generate", join(work, "big.yaml"), "-o", join(work, "out")]);
    expect(r.code).toBe(0);
    const pool = join(work, "out", "cloud", "ci-arm64");
    const gz = Buffer.from(readFileSync(join(pool, "user-data.gz.b64"), "utf8"), "base64");
    expect(gz.length).toBeLessThan(16384);
    expect(gunzipSync(gz).toString("utf8")).toBe(readFileSync(join(pool, "user-data.yaml"), "utf8"));
    expect(existsSync(join(work, "out", "cloud", "build-amd64", "user-data.gz.b64"))).toBe(false);
  });

  it("runs from an install path with # and % in it (the bundle's own URL is encoded)", () => {
    const pkg = join(work, "a#b%41c", "clusterspec");
    for (const f of ["bin.cjs", "package.json", "dist-bin"])
      cpSync(join(repo, "packages", "cli", f), join(pkg, f), { recursive: true });
    const run = (args: string[]) =>
      spawnSync(process.execPath, [join(pkg, "bin.cjs"), ...args], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "" },
      });
    const version = run(["--version"]);
    expect(version.stderr).toBe("");
    expect(version.stdout).toBe(
      `${JSON.parse(readFileSync(join(repo, "packages", "cli", "package.json"), "utf8")).version}\n`,
    );
    expect(run(["validate", example]).status).toBe(0);
  });

  it("rejects unknown commands and options with exit 2 and the usage", () => {
    const a = cli(["frobnicate"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toContain("unknown command frobnicate");
    const b = cli(["generate", "--bogus", "x.yaml"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toContain("Usage:");
    expect(cli([]).code).toBe(2);
  });

  it("generates a tree next to the spec, with placeholders, a manifest and 0600 secret files", () => {
    // A secret in the environment must not leak into a tree written without --with-secrets.
    const r = cli(["generate", join(work, "cluster.yaml")], { VRRP_AUTH_PASS: "s3cret-value" });
    expect(r.stderr).toContain("⚠ secrets are placeholders");
    expect(r.code).toBe(0);
    const out = join(work, "generated");
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toContain("# Cluster k8s-test");
    const manifest = JSON.parse(readFileSync(join(out, ".clusterspec-manifest.json"), "utf8"));
    expect(manifest.files).toContain("PLAN.md");
    const tree = readTree(out);
    for (const [path, entry] of Object.entries(tree)) {
      expect(entry, path).not.toMatch(/s3cret-value/);
    }
    // Byte-identical to the committed golden tree.
    const golden = readTree(join(repo, "examples", "bare-metal-ha", "generated"));
    for (const [path, entry] of Object.entries(golden)) expect(tree[path]?.slice(4), path).toBe(entry.slice(4));
  });

  it("resolves secrets only with --with-secrets and -o, writing exactly the files that hold them 0600", () => {
    const env = {
      VRRP_AUTH_PASS: "s3cret",
      KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
      KUBEADM_CERT_KEY: "a".repeat(64),
      KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
    };
    const refused = cli(["generate", join(work, "cluster.yaml"), "--with-secrets"], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("name the output folder with -o");
    const r = cli(["generate", join(work, "cluster.yaml"), "-o", join(work, "deploy"), "--with-secrets"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tree = readTree(join(work, "deploy"));
    const values = Object.values(env);
    const holders = Object.entries(tree).filter(([, e]) => values.some((v) => e.includes(v)));
    expect(holders.map(([p]) => p).sort()).toEqual(
      ["k8s-1", "k8s-2", "k8s-3"]
        .flatMap((n) => [`nodes/${n}/etc/keepalived/auth.conf`, `nodes/${n}/kubeadm.yaml`])
        .sort(),
    );
    for (const [path, entry] of holders) expect(entry.slice(0, 3), path).toBe("600");
    const manifest = JSON.parse(readFileSync(join(work, "deploy", ".clusterspec-manifest.json"), "utf8"));
    expect(manifest.secrets).toBe("resolved");
    expect([...manifest.secretFiles].sort()).toEqual(holders.map(([p]) => p).sort());
  });

  it("writes the cloud burst of an existing cluster: only cloud/** and PLAN.md, WireGuard keys from files 0600", () => {
    cpSync(join(repo, "examples", "cloud-burst-only", "cluster.yaml"), join(work, "cluster.yaml"));
    const keys = (seed: number, n: number) =>
      Array.from({ length: n }, (_, i) => Buffer.alloc(32, seed + i).toString("base64")).join("\n");
    writeFileSync(join(work, "peers.key"), `${keys(10, 6)}\n`);
    writeFileSync(join(work, "peers.pub"), `${keys(100, 6)}\n`);
    const text = readFileSync(join(work, "cluster.yaml"), "utf8")
      .replace("{ file: wireguard/peers.key }", "{ file: peers.key }")
      .replace("{ file: wireguard/peers.pub }", "{ file: peers.pub }");
    writeFileSync(join(work, "cluster.yaml"), text);
    const env = { KUBEADM_CA_HASH: `sha256:${"c".repeat(64)}`, WG_HUB_PRIVATE_KEY: keys(200, 1) };
    const r = cli(["generate", join(work, "cluster.yaml"), "-o", join(work, "deploy"), "--with-secrets"], env);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const tree = readTree(join(work, "deploy"));
    expect(Object.keys(tree).every((p) => p === "PLAN.md" || p.startsWith("cloud/") || p.startsWith("."))).toBe(true);
    const secrets = [env.WG_HUB_PRIVATE_KEY, ...keys(10, 6).split("\n")];
    const holders = Object.entries(tree).filter(([, e]) => secrets.some((v) => e.includes(v)));
    expect(holders.map(([p]) => p).sort()).toEqual([
      "cloud/hub/etc/wireguard/wg0.conf",
      "cloud/provisioner/peer-secrets.yaml",
    ]);
    for (const [path, entry] of holders) expect(entry.slice(0, 3), path).toBe("600");
    // one key short: an error at the reference, with its line
    writeFileSync(join(work, "peers.pub"), `${keys(100, 5)}\n`);
    const short = cli(["generate", join(work, "cluster.yaml"), "-o", join(work, "deploy2"), "--with-secrets"], env);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(
      /hold 5 keys; the pools have 6 burst slots[^\n]*\n {2}→ at cloud\.wireguard\.peerKeys\.publicKeys \(cluster\.yaml:\d+:\d+\)/,
    );
  });

  it("fails with exit 2 and the reference path when a secret cannot be resolved", () => {
    const r = cli(["generate", join(work, "cluster.yaml"), "-o", join(work, "deploy"), "--with-secrets"], {
      VRRP_AUTH_PASS: "waytoolongpassword",
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/→ at kubernetes\.secrets\.bootstrapToken \(cluster\.yaml:\d+:\d+\)/);
    expect(r.stderr).toContain("resolved VRRP auth_pass is invalid");
    expect(existsSync(join(work, "deploy"))).toBe(false);
  });

  it("exits 2 on an invalid spec, names the path and line, and leaves the output folder untouched", () => {
    expect(cli(["generate", join(work, "cluster.yaml")]).code).toBe(0);
    const before = readTree(join(work, "generated"));
    const text = readFileSync(join(work, "cluster.yaml"), "utf8").replace("10.118.12.21/24", "10.118.12.300/24");
    writeFileSync(join(work, "cluster.yaml"), text);
    const r = cli(["generate", join(work, "cluster.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/→ at nodes\[1\]\.interfaces\.wan1\.address \(cluster\.yaml:\d+:\d+\)/);
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(readTree(join(work, "generated"))).toEqual(before);
  });

  it("checks a spec's overlays against the upstream schemas: exit 2 at overlays[i].patch with its line, nothing written", () => {
    expect(cli(["generate", join(work, "cluster.yaml")]).code).toBe(0);
    const before = readTree(join(work, "generated"));
    const text = `${readFileSync(join(work, "cluster.yaml"), "utf8")}overlays:\n  - target: nodes/k8s-1/kubeadm.yaml\n    document: ClusterConfiguration\n    patch: { apiServer: { certSANz: [a.example.com] } }\n`;
    writeFileSync(join(work, "cluster.yaml"), text);
    const r = cli(["generate", join(work, "cluster.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "✖ nodes/k8s-1/kubeadm.yaml (ClusterConfiguration) at /apiServer/certSANz fails its upstream schema: unknown field certSANz",
    );
    expect(r.stderr).toMatch(/→ at overlays\[0\]\.patch\.apiServer\.certSANz \(cluster\.yaml:\d+:\d+\)/);
    expect(readTree(join(work, "generated"))).toEqual(before);
  });

  it("generates the customised example (overlays, free-form values) byte for byte as its committed tree", () => {
    const r = cli(["generate", join(repo, "examples", "customised", "cluster.yaml"), "--check"]);
    expect(`${r.code} ${r.stderr}`).toBe("0 ");
  });

  it("--check exits 0 on a fresh tree and 1 with a unified diff after a hand edit, a deletion and a stale file", () => {
    const spec = join(work, "cluster.yaml");
    expect(cli(["generate", spec]).code).toBe(0);
    const clean = cli(["generate", spec, "--check"]);
    expect(clean.code).toBe(0);
    const out = join(work, "generated");
    const plan = join(out, "PLAN.md");
    writeFileSync(plan, readFileSync(plan, "utf8").replace("# Cluster k8s-test", "# Cluster hand-edited"));
    const files = readdirSync(join(out, "nodes", "k8s-2"), { recursive: true, withFileTypes: true }).filter((e) =>
      e.isFile(),
    );
    const victim = files[0] ? join(files[0].parentPath, files[0].name) : undefined;
    if (victim) rmSync(victim);
    const manifestPath = join(out, ".clusterspec-manifest.json");
    const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));
    manifest.files.push("old/removed.conf");
    writeFileSync(manifestPath, JSON.stringify(manifest));
    cpSync(plan, join(out, "old-removed.tmp"));
    writeFileSync(join(work, "stale.conf"), "x\n");
    cpSync(join(work, "stale.conf"), join(out, "old", "removed.conf"), { recursive: true });
    const before = readTree(out);
    const r = cli(["generate", spec, "--check"]);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain("--- a/PLAN.md");
    expect(r.stdout).toContain("-# Cluster hand-edited");
    expect(r.stdout).toContain("+# Cluster k8s-test");
    if (victim) expect(r.stdout).toContain(relative(out, victim)); // named (secret files without their content)
    expect(r.stdout).toContain("--- a/old/removed.conf");
    expect(r.stdout).not.toContain("old-removed.tmp"); // not ours: never reported, never touched
    expect(readTree(out)).toEqual(before); // --check writes nothing

    // A regeneration restores the tree, removes the stale managed file and keeps the foreign one.
    expect(cli(["generate", spec]).code).toBe(0);
    expect(existsSync(join(out, "old", "removed.conf"))).toBe(false);
    expect(existsSync(join(out, "old-removed.tmp"))).toBe(true);
    expect(cli(["generate", spec, "--check"]).code).toBe(0);
  });

  it("refuses to overwrite a file it did not write unless --force", () => {
    const out = join(work, "generated");
    cpSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), join(out, "PLAN.md"), { recursive: true });
    const r = cli(["generate", join(work, "cluster.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("refusing to overwrite 1 file(s)");
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toContain("apiVersion: clusterspec/v1alpha1");
    expect(cli(["generate", join(work, "cluster.yaml"), "--force"]).code).toBe(0);
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toContain("# Cluster k8s-test");
  });

  it("validate and plan print to stdout", () => {
    const v = cli(["validate", join(work, "cluster.yaml")]);
    expect(v.code).toBe(0);
    expect(v.stdout).toBe("✔ cluster.yaml is valid\n");
    const p = cli(["plan", join(work, "cluster.yaml")]);
    expect(p.code).toBe(0);
    expect(p.stdout).toBe(readFileSync(join(repo, "examples", "bare-metal-ha", "generated", "PLAN.md"), "utf8"));
  });

  it("exits 2, without a stack trace, when the output folder cannot be written", () => {
    writeFileSync(join(work, "a-file"), "x\n");
    const r = cli(["generate", join(work, "cluster.yaml"), "-o", join(work, "a-file", "out")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ cannot write ${join(work, "a-file", "out")}: ${join(work, "a-file")} is a file, where a folder was expected\n`,
    );
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("exits 2 on a missing spec file", () => {
    const r = cli(["validate", join(work, "missing.yaml")]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`✖ cannot read the spec: ${join(work, "missing.yaml")} does not exist\n`);
  });

  it("prints a JSON Schema that accepts the examples and rejects a typo", () => {
    const r = cli(["schema"]);
    expect(r.code).toBe(0);
    const ajv = new Ajv2020.default({ strict: false, logger: false });
    const validate = ajv.compile(JSON.parse(r.stdout));
    const spec = parse(readFileSync(example, "utf8"));
    expect(validate(spec), JSON.stringify(validate.errors)).toBe(true);
    spec.nodes[0].rootFs = "btrfs";
    expect(validate(spec)).toBe(false);
    // The schema committed for yaml-language-server is the one the CLI prints.
    expect(readFileSync(join(repo, "examples", "cluster.schema.json"), "utf8")).toBe(r.stdout);
  });

  it("writes secret files exactly 0600 even under umask 0", () => {
    const env = {
      VRRP_AUTH_PASS: "s3cret",
      KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
      KUBEADM_CERT_KEY: "a".repeat(64),
      KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
    };
    const out = join(work, "deploy");
    const r = spawnSync(
      "sh",
      [
        "-c",
        `umask 0 && exec "$0" "$@"`,
        process.execPath,
        bin,
        "generate",
        join(work, "cluster.yaml"),
        "-o",
        out,
        "--with-secrets",
      ],
      {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", ...env },
      },
    );
    expect(r.status).toBe(0);
    const manifest = JSON.parse(readFileSync(join(out, ".clusterspec-manifest.json"), "utf8"));
    const tree = readTree(out);
    for (const path of manifest.secretFiles) expect(tree[path]?.slice(0, 3), path).toBe("600");
    for (const [path, entry] of Object.entries(tree))
      if (!manifest.secretFiles.includes(path)) expect(["644", "755"], path).toContain(entry.slice(0, 3));
  });
});

describe("clusterspec binary on pipes", () => {
  it("reads - from standard input and prints no colour when piped, even on a colour terminal type", () => {
    const r = spawnSync(process.execPath, [bin, "validate", "-"], {
      encoding: "utf8",
      input: readFileSync(example, "utf8").replace("vrid: 5", "vrid: 0"),
      env: { PATH: process.env.PATH ?? "", TERM: "xterm-256color" },
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(
      "✖ 0 is out of range: expected a number in 1..255\n  → at controlPlane.vrid (<stdin>:34:3)",
    );
    expect(r.stderr).not.toContain("\x1b[");
  });
});
