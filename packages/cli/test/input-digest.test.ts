// The unchanged-tree shortcut of `generate` (src/input-digest.ts): it is taken only when every input and the tree
// on disk are as the last write left them; changing any input, or the tree, regenerates.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readTree } from "@clusterspec/testkit";
import {
  type CliIO,
  type FileSystem,
  type Inputs,
  inputDigest,
  nodeFileSystem,
  recordPath,
  runCli,
} from "clusterspec/cli";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const SECRETS = {
  VRRP_AUTH_PASS: "s3cret",
  KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
  KUBEADM_CERT_KEY: "a".repeat(64),
  KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
};

let work: string;
let cache: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), "clusterspec-digest-"));
  cache = join(work, "cache");
  writeFileSync(join(work, "cluster.yaml"), exampleSpec);
});
afterEach(() => {
  rmSync(work, { recursive: true, force: true });
});

interface Run {
  readonly args?: readonly string[];
  readonly env?: Record<string, string>;
  readonly code?: string;
  readonly version?: string;
}

/** Full runs so far: only a full run lists the output folder (writeTree); the shortcut never does. */
let fullRuns = 0;
const spyFs: FileSystem = {
  ...nodeFileSystem,
  listFiles: (dir) => {
    fullRuns++;
    return nodeFileSystem.listFiles(dir);
  },
};

async function generate(run: Run = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    cwd: work,
    env: { CLUSTERSPEC_CACHE_DIR: cache, ...run.env },
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    version: run.version ?? "1.0.0",
    codeId: () => run.code ?? "code-1",
    fs: spyFs,
  };
  const exit = await runCli(["generate", "cluster.yaml", ...(run.args ?? [])], io);
  return { exit, stdout, stderr };
}

const outDir = (run: Run = {}) => {
  const i = run.args?.indexOf("-o") ?? -1;
  return i >= 0 ? join(work, run.args?.[i + 1] ?? "") : join(work, "generated");
};
const record = (run: Run = {}) => recordPath({ CLUSTERSPEC_CACHE_DIR: cache }, outDir(run)) as string;
const recordText = (run: Run = {}) => (existsSync(record(run)) ? readFileSync(record(run), "utf8") : "none");
const mtimes = (dir: string) =>
  Object.keys(readTree(dir)).map((f) => `${f}:${statSync(join(dir, f)).mtimeMs}:${statSync(join(dir, f)).ino}`);

/** Generates twice; the second run must take the shortcut, touching neither the tree nor the record. */
async function settled(run: Run = {}) {
  const first = await generate(run);
  expect(first.exit, first.stderr).toBe(0);
  const before = recordText(run);
  expect(before).not.toBe("none");
  const tree = mtimes(outDir(run));
  const full = fullRuns;
  const second = await generate(run);
  expect(second.exit).toBe(0);
  expect(second.stdout).toMatch(/is up to date \(54 files, none touched\)/);
  expect(fullRuns).toBe(full);
  expect(recordText(run)).toBe(before);
  expect(mtimes(outDir(run))).toEqual(tree);
}

/** Whether the next run regenerated instead of taking the shortcut. */
async function regenerates(run: Run = {}): Promise<boolean> {
  const before = fullRuns;
  const r = await generate(run);
  expect(r.exit, r.stderr).toBe(0);
  return fullRuns !== before;
}

describe("the unchanged-tree shortcut", () => {
  it("leaves an unchanged tree untouched, with the same message and warning as a full run", async () => {
    const full = await generate();
    await settled();
    const short = await generate();
    expect(short.stdout).toBe(
      `✔ ${join(work, "generated")} is up to date (54 files, none touched) (secrets as placeholders)\n`,
    );
    // the full run's placeholder warning is repeated
    expect(short.stderr).toBe(full.stderr);
    expect(short.stderr).toContain("secrets are placeholders");
  });

  it("regenerates when the spec, the code, the version or a flag changes", async () => {
    await settled();
    writeFileSync(join(work, "cluster.yaml"), `${exampleSpec}# a comment changes the bytes\n`);
    expect(await regenerates()).toBe(true);
    expect(await regenerates()).toBe(false);
    expect(await regenerates({ code: "code-2" })).toBe(true);
    expect(await regenerates({ code: "code-2", version: "1.0.1" })).toBe(true);
    expect(await regenerates({ code: "code-2", version: "1.0.1", args: ["--force"] })).toBe(true);
    expect(await regenerates({ code: "code-2", version: "1.0.1", args: ["--force"] })).toBe(false);
  });

  it("regenerates, and repairs, a tree whose files were edited, removed or made writable, or whose manifest changed", async () => {
    await settled();
    const dir = outDir();
    const plan = join(dir, "PLAN.md");
    const original = readFileSync(plan, "utf8");
    writeFileSync(plan, `${original}edited\n`);
    expect(await regenerates()).toBe(true);
    expect(readFileSync(plan, "utf8")).toBe(original);

    const conf = join(dir, "nodes", "k8s-1", "etc", "keepalived", "keepalived.conf");
    const confText = readFileSync(conf, "utf8");
    unlinkSync(conf);
    expect(await regenerates()).toBe(true);
    expect(readFileSync(conf, "utf8")).toBe(confText);

    const auth = join(dir, "nodes", "k8s-1", "etc", "keepalived", "auth.conf");
    chmodSync(auth, 0o644);
    expect(await regenerates()).toBe(true);
    expect(statSync(auth).mode & 0o777).toBe(0o600);

    const manifest = join(dir, ".clusterspec-manifest.json");
    writeFileSync(manifest, readFileSync(manifest, "utf8").replace('"placeholders"', '"resolved"'));
    expect(await regenerates()).toBe(true);
    expect(readFileSync(manifest, "utf8")).toContain('"placeholders"');
    expect(await regenerates()).toBe(false);
  });

  it("regenerates while an interrupted write's journal or stage lies beside the folder", async () => {
    await settled();
    for (const leftover of [".generated.clusterspec-journal.json.tmp", ".generated.clusterspec-new.dead"]) {
      if (leftover.endsWith(".tmp")) writeFileSync(join(work, leftover), "{}");
      else mkdirSync(join(work, leftover));
      expect(await regenerates(), leftover).toBe(true);
      expect(existsSync(join(work, leftover)), leftover).toBe(false); // recovery removed it
    }
    // A journal clusterspec did not write is refused, not replayed nor removed (write.ts).
    writeFileSync(join(work, ".generated.clusterspec-journal.json"), "{}");
    const r = await generate();
    expect(r.exit).toBe(2);
    expect(r.stderr).toContain("it is not a clusterspec journal");
    expect(existsSync(join(work, ".generated.clusterspec-journal.json"))).toBe(true);
  });

  it("with --with-secrets, regenerates when a secret's environment variable or file changes, and only then", async () => {
    writeFileSync(join(work, "token"), `${SECRETS.KUBEADM_TOKEN}\n`);
    writeFileSync(join(work, "cluster.yaml"), exampleSpec.replace("{ env: KUBEADM_TOKEN }", "{ file: token }"));
    const run = { args: ["-o", "deploy", "--with-secrets"], env: SECRETS };
    await settled(run);
    const auth = join(outDir(run), "nodes", "k8s-1", "etc", "keepalived", "auth.conf");
    expect(readFileSync(auth, "utf8")).toContain("s3cret");

    expect(await regenerates({ ...run, env: { ...SECRETS, VRRP_AUTH_PASS: "0ther" } })).toBe(true);
    expect(readFileSync(auth, "utf8")).toContain("0ther");
    expect(await regenerates({ ...run, env: { ...SECRETS, VRRP_AUTH_PASS: "0ther" } })).toBe(false);

    writeFileSync(join(work, "token"), "z9x8c7.v6b5n4m3l2k1j0h9\n");
    expect(await regenerates({ ...run, env: { ...SECRETS, VRRP_AUTH_PASS: "0ther" } })).toBe(true);
    expect(readFileSync(join(outDir(run), "nodes", "k8s-1", "kubeadm.yaml"), "utf8")).toContain("z9x8c7");
    // an unrelated variable is no input
    expect(await regenerates({ ...run, env: { ...SECRETS, VRRP_AUTH_PASS: "0ther", UNRELATED: "x" } })).toBe(false);
    // the record of a tree with resolved secrets is the user's alone
    expect(statSync(record(run)).mode & 0o777).toBe(0o600);
  });

  it("never records a run with warnings (the shortcut could not repeat them), nor without a cache folder", async () => {
    const single = exampleSpec.replace(/roles: \[control-plane, worker\]/g, (m, offset: number) =>
      offset === exampleSpec.indexOf(m) ? m : "roles: [worker]",
    );
    writeFileSync(join(work, "cluster.yaml"), single);
    const r = await generate();
    expect(r.exit, r.stderr).toBe(0);
    expect(r.stderr).toContain("a single control-plane node has no failover");
    expect(recordText()).toBe("none");
    expect((await generate()).stderr).toContain("a single control-plane node has no failover");

    writeFileSync(join(work, "cluster.yaml"), exampleSpec);
    expect((await generate({ env: { CLUSTERSPEC_CACHE_DIR: "off" } })).exit).toBe(0);
    expect(existsSync(cache)).toBe(false);
    // an unreadable record is no record: the run regenerates and records anew
    await settled();
    writeFileSync(record(), "{ not json");
    expect(await regenerates()).toBe(true);
    expect(await regenerates()).toBe(false);
  });

  it("digests every input: changing any one field changes the digest", () => {
    const str = fc.string({ maxLength: 12 });
    const opt = fc.option(str, { nil: undefined });
    const inputs: fc.Arbitrary<Inputs> = fc.record({
      code: str,
      version: str,
      specText: str,
      sourceName: str,
      flags: fc.array(str, { maxLength: 3 }),
      env: fc.array(fc.tuple(str, opt), { maxLength: 3 }),
      files: fc.array(fc.tuple(str, opt), { maxLength: 3 }),
      identities: opt,
    });
    fc.assert(
      fc.property(
        inputs,
        inputs,
        fc.constantFrom<keyof Inputs>(
          "code",
          "version",
          "specText",
          "sourceName",
          "flags",
          "env",
          "files",
          "identities",
        ),
        (a, b, key) => {
          const changed = { ...a, [key]: b[key] };
          fc.pre(JSON.stringify(a[key]) !== JSON.stringify(b[key]));
          expect(inputDigest(changed)).not.toBe(inputDigest(a));
          expect(inputDigest({ ...a })).toBe(inputDigest(a));
        },
      ),
    );
    // an unset variable and an empty one differ
    const base: Inputs = {
      code: "c",
      version: "v",
      specText: "s",
      sourceName: "n",
      flags: [],
      env: [["A", ""]],
      files: [],
      identities: undefined,
    };
    expect(inputDigest({ ...base, env: [["A", undefined]] })).not.toBe(inputDigest(base));
  });
});

describe("the built binary", () => {
  it("takes the shortcut with its build id, and regenerates after an edit", () => {
    const bin = join(repo, "packages", "cli", "bin.cjs");
    cpSync(join(work, "cluster.yaml"), join(work, "b.yaml"));
    const run = () =>
      spawnSync(process.execPath, [bin, "generate", join(work, "b.yaml"), "-o", join(work, "b")], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "", CLUSTERSPEC_CACHE_DIR: cache },
      });
    expect(run().stdout).toContain("wrote");
    expect(run().stdout).toContain("is up to date (54 files, none touched)");
    const plan = readFileSync(join(work, "b", "PLAN.md"), "utf8");
    writeFileSync(join(work, "b", "PLAN.md"), "edited\n");
    expect(run().stdout).toContain(": 1 changed, 53 unchanged, 0 removed");
    expect(readFileSync(join(work, "b", "PLAN.md"), "utf8")).toBe(plan);
  });
});

describe("the shortcut reads secret files as a full run does (issue 32 item 4)", () => {
  // The real binary: a reader that blocked on a FIFO would block the test's own event loop in-process.
  const bin = join(repo, "packages", "cli", "bin.cjs");
  const run = () =>
    spawnSync(process.execPath, [bin, "generate", "cluster.yaml", "--with-secrets", "-o", "deploy"], {
      cwd: work,
      encoding: "utf8",
      timeout: 60_000,
      env: { PATH: process.env.PATH ?? "", CLUSTERSPEC_CACHE_DIR: cache, ...SECRETS },
    });
  const refusal = (what: string) =>
    `✖ cannot read the secret file: ${join(work, "token")} is ${what}, where a file was expected\n` +
    "  → at kubernetes.secrets.bootstrapToken (cluster.yaml:18:5)\n";

  for (const [name, plant, what] of [
    ["a FIFO", () => spawnSync("mkfifo", [join(work, "token")]), "a FIFO (named pipe)"],
    ["a link to /dev/zero", () => symlinkSync("/dev/zero", join(work, "token")), "a device"],
  ] as const)
    it(`a secret file that has become ${name} since the recorded write: exit 2 at once, the message`, () => {
      writeFileSync(join(work, "token"), `${SECRETS.KUBEADM_TOKEN}\n`);
      writeFileSync(join(work, "cluster.yaml"), exampleSpec.replace("{ env: KUBEADM_TOKEN }", "{ file: token }"));
      expect(run().stdout).toContain("wrote");
      expect(run().stdout).toContain("is up to date (54 files, none touched)"); // the shortcut, with its record
      unlinkSync(join(work, "token"));
      plant();
      const r = run();
      expect(r.signal).toBeNull(); // not killed by the timeout: it did not hang
      expect(r.status).toBe(2);
      expect(r.stderr.startsWith(refusal(what))).toBe(true);
    });
});
