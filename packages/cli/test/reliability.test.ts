// Promises that broke under attack (issue "Reliability"): the lock, foreign entries, links, secrets in diffs,
// non-regular inputs, huge inputs and errors in words. Every new message has an example here.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { buildSpec } from "@clusterspec/core/testing";
import { readTree, toolAvailable } from "@clusterspec/testkit";
import Ajv2020 from "ajv/dist/2020.js";
import {
  acquireOutputLock,
  CliError,
  type CliIO,
  capIssues,
  describeFsError,
  diffTree,
  type FileSystem,
  type LockProcess,
  lockPath,
  nodeFileSystem,
  nodeLockProcess,
  renderCheckMarkdown,
  runCli,
  writeTree,
} from "clusterspec/cli";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const bin = join(repo, "packages", "cli", "bin.cjs");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validateJson = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "cli-json.schema.json"), "utf8")));
const OPTS = { force: false, secrets: "placeholders" } as const;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-rel-"));
  writeFileSync(join(dir, "cluster.yaml"), exampleSpec);
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function cli(argv: string[], env: Record<string, string> = {}) {
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    cwd: dir,
    env,
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    version: "0.0.0-test",
    readStdin: () => "",
  };
  const code = await runCli(argv, io);
  return { code, stdout, stderr };
}

async function cliJson(argv: string[], env: Record<string, string> = {}) {
  const r = await cli([...argv, "--json"], env);
  const doc = JSON.parse(r.stdout);
  expect(validateJson(doc) ? [] : validateJson.errors, r.stdout.slice(0, 400)).toEqual([]);
  return { ...r, doc };
}

/** The real binary, with a timeout: a run that hangs on a FIFO fails the test instead of the suite. */
function bin_(args: string[], timeout = 30_000) {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: dir, encoding: "utf8", timeout });
  return { code: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

const mkfifo = (path: string) => {
  const r = spawnSync("mkfifo", [path]);
  expect(r.status).toBe(0);
};

const v1 = [
  { path: "PLAN.md", content: "# one\n" },
  { path: "nodes/a/etc/gone.conf", content: "old\n" },
  { path: "nodes/a/etc/keep.conf", content: "1\n" },
  { path: "nodes/b/x.conf", content: "b\n" },
];
const v2 = [
  { path: "PLAN.md", content: "# two\n" },
  { path: "nodes/a/etc/keep.conf", content: "2\n" },
  { path: "nodes/c/new.conf", content: "c\n" },
];

const process_ = (over: Partial<LockProcess>): LockProcess => ({ ...nodeLockProcess, ...over });
/** A pid that no process has: one that ran and was reaped. */
const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid;

describe("the output folder's lock", () => {
  it("refuses a second writer while the first is alive, naming it, and leaves its lock alone", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    const release = acquireOutputLock(nodeFileSystem, out, nodeLockProcess);
    try {
      const lock = readFileSync(lockPath(out), "utf8");
      let error: unknown;
      try {
        writeTree(nodeFileSystem, out, v2, OPTS);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).code).toBe(2);
      expect((error as CliError).kind).toBe("locked");
      expect((error as CliError).message).toMatch(
        new RegExp(
          `^another clusterspec run \\(pid ${process.pid}, since \\d{4}-[\\d-]+T[\\d:.]+Z\\) is writing ${out}: run again when it has finished \\(its lock is ${join(dir, ".out.clusterspec-lock")}\\)$`,
        ),
      );
      expect(readFileSync(lockPath(out), "utf8")).toBe(lock);
      expect(readTree(out)["PLAN.md"]).toBe("644:# one\n");
    } finally {
      release();
    }
    expect(existsSync(lockPath(out))).toBe(false);
  });

  it("takes over a lock whose process is gone", () => {
    const out = join(dir, "out");
    const dead = process_({ pid: deadPid() ?? 1 });
    acquireOutputLock(nodeFileSystem, out, dead); // never released: killed
    expect(existsSync(lockPath(out))).toBe(true);
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(readTree(out)["PLAN.md"]).toBe("644:# one\n");
    expect(readdirSync(dir).sort()).toEqual(["cluster.yaml", "out"]);
  });

  it("takes over a lock whose pid now belongs to a later process (start times differ)", () => {
    const out = join(dir, "out");
    acquireOutputLock(nodeFileSystem, out, process_({ startOf: () => "1" })); // this pid, another start
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(existsSync(lockPath(out))).toBe(false);
  });

  it("never takes over a lock from another host, and says which file to remove", () => {
    const out = join(dir, "out");
    acquireOutputLock(nodeFileSystem, out, process_({ host: "build-7", pid: deadPid() ?? 1 }));
    expect(() => writeTree(nodeFileSystem, out, v1, OPTS)).toThrow(
      new RegExp(
        `^another clusterspec run \\(pid \\d+ on build-7, since .*\\) is writing ${out}: run again when it has finished \\(a lock from another host is never taken over: if that run is gone, remove ${join(dir, ".out.clusterspec-lock")}\\)$`,
      ),
    );
    expect(hostname()).not.toBe("build-7");
  });

  it("refuses while a lock file is still being written, and takes it over once it is old", () => {
    const out = join(dir, "out");
    writeFileSync(lockPath(out), "");
    expect(() => writeTree(nodeFileSystem, out, v1, OPTS)).toThrow(
      `another clusterspec run is writing ${out}: run again when it has finished (its lock is ${lockPath(out)})`,
    );
    const old = new Date(Date.now() - 60_000);
    utimesSync(lockPath(out), old, old);
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(existsSync(lockPath(out))).toBe(false);
  });

  it("waits for a lock created an instant ago to be written, and names the run that holds it", () => {
    const out = join(dir, "out");
    const release = acquireOutputLock(nodeFileSystem, out, nodeLockProcess);
    try {
      // The first two reads fall between the holder's create and its write (a race the concurrent test met).
      let reads = 0;
      const racing: FileSystem = {
        ...nodeFileSystem,
        readRegular: (path, maxBytes) =>
          path === lockPath(out) && ++reads <= 2 ? "" : nodeFileSystem.readRegular(path, maxBytes),
      };
      expect(() => acquireOutputLock(racing, out, nodeLockProcess)).toThrow(
        new RegExp(`^another clusterspec run \\(pid ${process.pid}, since \\d{4}-[\\d-]+T[\\d:.]+Z\\) is writing `),
      );
      expect(reads).toBe(3);
    } finally {
      release();
    }
  });

  it("removes the lock scratch files of dead runs (killed between writing and linking) and keeps a live run's", () => {
    const out = join(dir, "out");
    const dead = deadPid() ?? 1;
    const scratch = (name: string) => join(dir, `.out.clusterspec-lock${name}`);
    writeFileSync(scratch(`.${dead}-x`), "half");
    writeFileSync(scratch(`.break.${dead}-123`), "");
    // pid 1 is alive with another start time than the name says: its pid was reused, so the file is dead too
    writeFileSync(scratch(".1-999999999999"), "");
    const init = readFileSync("/proc/1/stat", "utf8");
    const initStart = init.slice(init.lastIndexOf(")") + 2).split(" ")[19];
    writeFileSync(scratch(`.1-${initStart}`), ""); // pid 1 as it is now: a live run's scratch, left alone
    writeTree(nodeFileSystem, out, v1, OPTS);
    expect(readdirSync(dir).sort()).toEqual([`.out.clusterspec-lock.1-${initStart}`, "cluster.yaml", "out"]);
  });

  it("leaves no lock on a full disk: the next run, once there is room, writes the tree", (ctx) => {
    if (!toolAvailable("unshare", { root: true }))
      return ctx.skip("needs unshare (util-linux) and root, as .ci/run has");
    const full = join(dir, "full");
    mkdirSync(full);
    // Both runs inside one mount namespace: the tmpfs is filled, the first run fails, the filler goes, the second runs.
    const script = [
      `mount -t tmpfs -o size=4m tmpfs "${full}" || exit 9`,
      `dd if=/dev/zero of="${full}/filler" bs=4k 2>/dev/null`,
      `"${process.execPath}" "${bin}" generate cluster.yaml -o "${full}/out" 2>&1; echo "exit=$?"`,
      `ls -A "${full}"`,
      `rm "${full}/filler"`,
      `"${process.execPath}" "${bin}" generate cluster.yaml -o "${full}/out" >/dev/null 2>&1; echo "exit=$?"`,
      `ls -A "${full}"`,
    ].join("\n");
    const r = spawnSync("unshare", ["-m", "sh", "-c", script], { cwd: dir, encoding: "utf8", timeout: 60_000 });
    const lines = r.stdout.trim().split("\n");
    expect(lines[0]).toBe(`✖ cannot write ${full}/out: no space left on the device holding ${full}/out`);
    expect(lines.slice(1)).toEqual(["exit=2", "filler", "exit=0", "out"]);
  });

  it("removes a dead run's stage folder and keeps the tree", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    mkdirSync(join(dir, ".out.clusterspec-new.12345-abcdef"));
    writeFileSync(join(dir, ".out.clusterspec-new.12345-abcdef", "PLAN.md"), "half\n");
    writeTree(nodeFileSystem, out, v2, OPTS);
    expect(readdirSync(dir).sort()).toEqual(["cluster.yaml", "out"]);
    expect(readTree(out)["PLAN.md"]).toBe("644:# two\n");
  });

  it("exits 2 from the command line with kind locked in --json", async () => {
    await cli(["generate", "cluster.yaml", "-o", "out"]);
    const release = acquireOutputLock(nodeFileSystem, join(dir, "out"), process_({ pid: process.pid }));
    try {
      const r = await cliJson(["generate", "cluster.yaml", "-o", "out"]);
      expect(r.code).toBe(2);
      expect(r.doc.errors[0].code).toBe("locked");
      expect(r.doc.errors[0].message).toMatch(/^another clusterspec run \(pid \d+, since/);
    } finally {
      release();
    }
  });
});

describe("entries clusterspec did not write", () => {
  it("keeps a setuid file's owner, mode and mtime, a FIFO, an empty folder and the output folder's mode", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    chmodSync(out, 0o700);
    const setuid = join(out, "nodes", "a", "tool");
    writeFileSync(setuid, "#!/bin/sh\n");
    const asRoot = process.getuid?.() === 0;
    if (asRoot) chownSync(setuid, 1234, 1234);
    chmodSync(setuid, 0o4755);
    const then = new Date("2020-01-02T03:04:05Z");
    utimesSync(setuid, then, then);
    mkfifo(join(out, "nodes", "a", "etc", "pipe")); // beside the file that goes: keeps nodes/a/etc
    mkdirSync(join(out, "nodes", "b", "empty")); // beside the folder's only generated file, which goes
    const before = lstatSync(setuid);

    expect(writeTree(nodeFileSystem, out, v2, OPTS)).toEqual({ written: 3, unchanged: 0, removed: 2 });
    const after = lstatSync(setuid);
    expect([after.uid, after.gid, after.mode, after.mtimeMs, after.ino]).toEqual([
      before.uid,
      before.gid,
      before.mode,
      before.mtimeMs,
      before.ino,
    ]);
    if (asRoot) expect(after.uid).toBe(1234);
    expect(after.mode & 0o7777).toBe(0o4755);
    expect(lstatSync(join(out, "nodes", "a", "etc", "pipe")).isFIFO()).toBe(true);
    expect(existsSync(join(out, "nodes", "a", "etc", "gone.conf"))).toBe(false);
    expect(lstatSync(join(out, "nodes", "b", "empty")).isDirectory()).toBe(true);
    expect(existsSync(join(out, "nodes", "b", "x.conf"))).toBe(false);
    expect(statSync(out).mode & 0o777).toBe(0o700);
    expect(readFileSync(join(out, "nodes", "c", "new.conf"), "utf8")).toBe("c\n");
  });

  it("refuses a FIFO or a folder where a generated file goes, even with --force, and writes nothing", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    unlinkSync(join(out, "nodes", "b", "x.conf"));
    mkfifo(join(out, "nodes", "b", "x.conf"));
    mkdirSync(join(out, "nodes", "c", "new.conf"), { recursive: true });
    const sorted = [...v2, { path: "nodes/b/x.conf", content: "b\n" }].sort((a, b) => a.path.localeCompare(b.path));
    for (const force of [false, true])
      expect(() => writeTree(nodeFileSystem, out, sorted, { ...OPTS, force })).toThrow(
        `cannot write ${out}: 2 entries stand where generated files go:\n` +
          "  nodes/b/x.conf is a FIFO (named pipe), where clusterspec writes a file: move it away\n" +
          "  nodes/c/new.conf is a folder, where clusterspec writes a file: move it away",
      );
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toBe("# one\n");
    expect(lstatSync(join(out, "nodes", "b", "x.conf")).isFIFO()).toBe(true);
    expect(readdirSync(dir).sort()).toEqual(["cluster.yaml", "out"]);
  });

  it("refuses a symbolic link to a folder inside the output, and writes nothing through it", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(elsewhere);
    symlinkSync(elsewhere, join(out, "nodes", "c"));
    expect(() => writeTree(nodeFileSystem, out, v2, OPTS)).toThrow(
      `cannot write ${out}: 1 entry stands where generated files go:\n` +
        "  nodes/c is a symbolic link, where clusterspec writes the folder nodes/c/ (links inside the output are not followed): replace it with a real folder",
    );
    expect(readdirSync(elsewhere)).toEqual([]);
  });
});

describe("-o at a symbolic link", () => {
  it("writes into the link's target, keeps the link, and stages beside the target", async () => {
    const target = join(dir, "real", "tree");
    mkdirSync(target, { recursive: true });
    symlinkSync(target, join(dir, "link"));
    const first = await cli(["generate", "cluster.yaml", "-o", "link"]);
    expect(first.code, first.stderr).toBe(0);
    expect(lstatSync(join(dir, "link")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(target, "PLAN.md"), "utf8")).toContain("# Cluster k8s-test");
    writeFileSync(join(dir, "cluster.yaml"), exampleSpec.replace("k8s-test", "k8s-next"));
    const second = await cli(["generate", "cluster.yaml", "-o", "link"]);
    expect(second.code, second.stderr).toBe(0);
    expect(readFileSync(join(target, "PLAN.md"), "utf8")).toContain("# Cluster k8s-next");
    expect(readdirSync(join(dir, "real"))).toEqual(["tree"]);
    expect(readdirSync(dir).sort()).toEqual(["cluster.yaml", "link", "real"]);
  });

  it("refuses a dangling link and a link to a file", async () => {
    symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
    const a = await cli(["generate", "cluster.yaml", "-o", "dangling"]);
    expect(a.code).toBe(2);
    expect(a.stderr).toBe(
      `✖ ${join(dir, "dangling")} is a symbolic link to a folder that does not exist: create its target or point -o at a real folder\n`,
    );
    expect(existsSync(join(dir, "nowhere"))).toBe(false);
    symlinkSync(join(dir, "cluster.yaml"), join(dir, "to-file"));
    const b = await cli(["generate", "cluster.yaml", "-o", "to-file"]);
    expect(b.code).toBe(2);
    expect(b.stderr).toBe(
      `✖ ${join(dir, "to-file")} is a symbolic link to ${join(dir, "cluster.yaml")}, which is not a folder: point -o at a folder\n`,
    );
    const c = await cli(["generate", "cluster.yaml", "-o", "cluster.yaml"]);
    expect(c.stderr).toBe(`✖ ${join(dir, "cluster.yaml")} is a file, where the output folder was expected\n`);
  });
});

describe("outputs that are not a place for files", () => {
  it("refuses -o / and -o /proc/x at once, before reading anything", () => {
    const t0 = performance.now();
    const root = bin_(["generate", "cluster.yaml", "-o", "/"]);
    const proc = bin_(["generate", "cluster.yaml", "-o", "/proc/x"]);
    const check = bin_(["generate", "cluster.yaml", "--check", "-o", "/"]);
    expect([root.code, proc.code, check.code]).toEqual([2, 2, 2]);
    expect(root.stderr).toBe("✖ refusing to write into /, the root folder: name a folder of its own with -o\n");
    expect(proc.stderr).toBe(
      "✖ refusing to write into /proc/x: /proc is a kernel file system, not a place for files; name another folder with -o\n",
    );
    expect(check.stderr).toBe("✖ refusing to check /, the root folder: name a folder of its own with -o\n");
    expect(performance.now() - t0).toBeLessThan(30_000); // each run is a start-up and a validation, not a scan
  });

  it("says a read-only file system is read-only, not that a folder does not exist", (ctx) => {
    if (!toolAvailable("unshare", { root: true }))
      return ctx.skip("needs unshare (util-linux) and root, as .ci/run has");
    const ro = join(dir, "ro");
    mkdirSync(ro);
    const r = spawnSync(
      "unshare",
      [
        "-m",
        "sh",
        "-c",
        `mount -t tmpfs -o ro,size=1m tmpfs "${ro}" && exec "${process.execPath}" "${bin}" generate cluster.yaml -o "${ro}/a/b"`,
      ],
      { cwd: dir, encoding: "utf8", timeout: 30_000 },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(r.stderr).toBe(`✖ cannot write ${ro}/a/b: ${ro}/a is on a read-only file system\n`);
  });

  it("says in words what each file-system error means, with the path", () => {
    const err = (code: string) => Object.assign(new Error(code), { code, path: "/x/y", syscall: "open" });
    const words = Object.fromEntries(
      ["EROFS", "EACCES", "ENOSPC", "EDQUOT", "ENOTEMPTY", "ELOOP", "ENAMETOOLONG", "EMFILE", "EBUSY", "EIO"].map(
        (c) => [c, describeFsError(err(c), nodeFileSystem, "/x")],
      ),
    );
    expect(words).toEqual({
      EROFS: "/x/y is on a read-only file system",
      EACCES: "permission denied for /x/y",
      ENOSPC: "no space left on the device holding /x/y",
      EDQUOT: "disk quota exceeded on the device holding /x/y",
      ENOTEMPTY: "/x/y is a folder that is not empty",
      ELOOP: "/x/y has too many levels of symbolic links (a link loop?)",
      ENAMETOOLONG: "the name /x/y is too long for the file system",
      EMFILE: "too many open files while reading /x/y",
      EBUSY: "/x/y is busy (a mount point or in use)",
      EIO: "input/output error on /x/y (the disk or network file system failed)",
    });
  });
});

describe("files that are read", () => {
  const env = {
    KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
    KUBEADM_CERT_KEY: "a".repeat(64),
    KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
  };
  const withSecretFile = (file: string) =>
    writeFileSync(
      join(dir, "cluster.yaml"),
      exampleSpec.replace("password: { env: VRRP_AUTH_PASS }", `password: { file: ${file} }`),
    );

  it("refuses a FIFO, a device and an oversized file as a secret, without hanging or reading it", async () => {
    mkfifo(join(dir, "pipe"));
    writeFileSync(join(dir, "big"), "x".repeat(70_000));
    const cases: [string, string][] = [
      [join(dir, "pipe"), `${join(dir, "pipe")} is a FIFO (named pipe), where a file was expected`],
      ["/dev/zero", "/dev/zero is a device, where a file was expected"],
      [join(dir, "big"), `${join(dir, "big")} is 70,000 bytes, over the limit of 65,536`],
    ];
    for (const [file, why] of cases) {
      withSecretFile(file);
      const r = await cli(["generate", "cluster.yaml", "--with-secrets", "-o", "deploy"], env);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        `✖ cannot read the secret file: ${why}\n  → at vrrp.auth.password (cluster.yaml:36:21)`,
      );
      expect(existsSync(join(dir, "deploy"))).toBe(false);
    }
  });

  it("refuses a FIFO as the spec (the real binary, which would block on it) and a spec over 2 MiB", () => {
    mkfifo(join(dir, "spec.yaml"));
    const r = bin_(["validate", "spec.yaml"], 20_000);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ cannot read the spec: ${join(dir, "spec.yaml")} is a FIFO (named pipe), where a file was expected\n`,
    );
    writeFileSync(join(dir, "huge.yaml"), `# ${"x".repeat(2 * 1024 * 1024)}\n`);
    const h = bin_(["validate", "huge.yaml"]);
    expect(h.code).toBe(2);
    expect(h.stderr).toBe(
      `✖ cannot read the spec: ${join(dir, "huge.yaml")} is 2,097,155 bytes, over the limit of 2,097,152\n`,
    );
  });
});

describe("standard input and links at generated paths", () => {
  it("refuses a spec on standard input over 2 MiB", async () => {
    let stderr = "";
    const code = await runCli(["validate", "-"], {
      cwd: dir,
      env: {},
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
      version: "0.0.0-test",
      readStdin: (max) => "x".repeat(max + 1),
    });
    expect(code).toBe(2);
    expect(stderr).toBe(
      "✖ cannot read the spec: standard input holds more than 2,097,152 bytes, the limit for a spec\n",
    );
  });

  it("refuses a link where a generated file goes, and compares none (one to a device is reported as a link)", () => {
    const out = join(dir, "out");
    writeTree(nodeFileSystem, out, v1, OPTS);
    rmSync(join(out, "nodes", "b", "x.conf"));
    symlinkSync("/dev/zero", join(out, "nodes", "b", "x.conf"));
    expect(() => writeTree(nodeFileSystem, out, v1, { ...OPTS, force: true })).toThrow(
      `cannot write ${out}: 1 entry stands where generated files go:\n` +
        "  nodes/b/x.conf is a symbolic link, where clusterspec writes a file: replace it with the file or move it away",
    );
    symlinkSync("/dev/zero", join(out, "nodes", "b", "y.conf"));
    rmSync(join(out, ".clusterspec-manifest.json"));
    const drift = diffTree(nodeFileSystem, out, v1);
    const never =
      "; --check never follows a link inside the compared folder (its target is not read): replace it with what clusterspec generates\n";
    expect(drift.map((d) => d.patch)).toEqual([
      `nodes/b/x.conf is a symbolic link, where clusterspec writes a file${never}`,
      `nodes/b/y.conf is a symbolic link and is no longer generated${never}`,
    ]);
  });
});

describe("secrets in diffs", () => {
  it("never prints a file that held a secret: with the manifest gone, by path and by content shape", () => {
    const out = join(dir, "out");
    const old = [
      { path: "PLAN.md", content: "# one\n" },
      { path: "nodes/a/etc/keepalived/auth.conf", content: "auth_pass s3cr3tpw\n", secret: true },
      { path: "nodes/a/notes.txt", content: "PrivateKey = c2VjcmV0LWtleQ==\n" },
      { path: "nodes/a/id.pem", content: "just a pem\n" },
    ];
    writeTree(nodeFileSystem, out, old, OPTS);
    rmSync(join(out, ".clusterspec-manifest.json")); // the manifest's record is gone too
    const drift = diffTree(nodeFileSystem, out, [{ path: "PLAN.md", content: "# two\n" }]);
    const text = drift.map((d) => d.patch).join("");
    expect(text).not.toMatch(/s3cr3tpw|c2VjcmV0|just a pem/);
    expect(text).toContain("Secret file nodes/a/etc/keepalived/auth.conf is no longer generated (content not shown)");
    expect(text).toContain("Secret file nodes/a/notes.txt is no longer generated (content not shown)");
    expect(text).toContain("Secret file nodes/a/id.pem is no longer generated (content not shown)");
    expect(text).toContain("+# two");
    const md = renderCheckMarkdown({ spec: "cluster.yaml", outDir: "out", fileCount: 1, drift });
    expect(md).not.toMatch(/s3cr3tpw|c2VjcmV0|just a pem/);
    // A generated file whose new text looks like a secret is hidden too, whatever its name.
    const next = diffTree(nodeFileSystem, out, [{ path: "PLAN.md", content: "token: abcdef.0123456789abcdef\n" }]);
    expect(next.find((d) => d.path === "PLAN.md")).toMatchObject({ secret: true, kind: "changed" });
  });

  it("keeps secrets out of --check --json and --format markdown", async () => {
    await cli(["generate", "cluster.yaml", "-o", "out"]);
    const auth = join(dir, "out", "nodes", "k8s-1", "etc", "keepalived", "auth.conf");
    writeFileSync(auth, "auth_pass s3cr3tpw\n");
    rmSync(join(dir, "out", ".clusterspec-manifest.json"));
    const j = await cliJson(["generate", "cluster.yaml", "--check", "-o", "out"]);
    expect(j.code).toBe(1);
    expect(j.stdout).not.toContain("s3cr3tpw");
    const m = await cli(["generate", "cluster.yaml", "--check", "--format", "markdown", "-o", "out"]);
    expect(m.stdout).toContain("nodes/k8s-1/etc/keepalived/auth.conf");
    expect(m.stdout).not.toContain("s3cr3tpw");
    const t = await cli(["generate", "cluster.yaml", "--check", "-o", "out"]);
    expect(`${t.stdout}${t.stderr}`).not.toContain("s3cr3tpw");
  });
});

describe("size limits and repeated errors", () => {
  it("refuses more nodes than the schema allows, early and with exit 2", async () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 998, poolSize: 0, cloud: false });
    writeFileSync(join(dir, "big.yaml"), JSON.stringify(spec));
    const r = await cliJson(["generate", "big.yaml", "-o", "out"]);
    expect(r.code).toBe(2);
    expect(r.doc.errors.map((e: { message: string; pathText: string }) => [e.pathText, e.message])).toEqual([
      [
        "nodes",
        "at most 1,000 nodes, got 1,001: every node's host file lists every node, so the output grows with the square of the node count (1,000 nodes: about 100 MB); split a larger fleet into several clusters",
      ],
    ]);
    expect(existsSync(join(dir, "out"))).toBe(false);
  }, 60_000);

  /** The example spec with its external addresses replaced by this flow list. */
  const withAddresses = (addresses: string) => {
    const changed = exampleSpec.replace(/^ {2}addresses:\n(?: {4}- .*\n)+/m, `  addresses: [${addresses}]\n`);
    expect(changed).not.toBe(exampleSpec);
    return changed;
  };

  it("refuses more external VIPs than there are VRIDs", async () => {
    const addresses = Array.from({ length: 300 }, (_, i) => `10.118.${11 + (i >> 8)}.${i & 255}`).join(", ");
    writeFileSync(join(dir, "cluster.yaml"), withAddresses(addresses));
    const r = await cli(["validate", "cluster.yaml"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "✖ at most 255 external VIPs, got 300: each one is a VRRP instance with its own VRID, and VRIDs are 1-255 per interface\n  → at externalVips.addresses (cluster.yaml:",
    );
  });

  it("prints the first 5 issues of a kind and counts the rest, in text and in --json", async () => {
    // From .1: an address ending in 0 would add a VRID error of its own.
    const addresses = Array.from({ length: 200 }, (_, i) => `172.16.0.${i + 1}`).join(", ");
    writeFileSync(join(dir, "cluster.yaml"), withAddresses(addresses));
    const t = await cli(["validate", "cluster.yaml"]);
    expect(t.code).toBe(2);
    expect(t.stderr.match(/^✖ VIP 172\.16\./gm)).toHaveLength(5);
    expect(t.stderr).toMatch(
      /\n… and 195 more errors like this: VIP 172\.16\.0\.6 is outside .* \(at externalVips\.addresses\[\]\)\n$/,
    );
    const j = await cliJson(["validate", "cluster.yaml"]);
    expect(j.doc.errors.filter((e: { message: string }) => e.message.startsWith("VIP 172.16."))).toHaveLength(5);
    expect(j.doc.omitted).toEqual([
      expect.objectContaining({ severity: "error", pathText: "externalVips.addresses[]", count: 195 }),
    ]);
  });

  it("groups issues by code, path without indices and message without values", () => {
    const issue = (i: number, message: string) => ({
      path: ["nodes", i, "name"],
      message,
      severity: "error" as const,
      code: "rule" as const,
    });
    const many = [
      ...Array.from({ length: 1000 }, (_, i) => issue(i, `name "n${i}" is taken by nodes[${i + 1}]`)),
      issue(0, "something else"),
    ];
    const { shown, omitted } = capIssues(many);
    expect(shown).toHaveLength(6);
    expect(omitted).toEqual([
      { severity: "error", code: "rule", pathText: "nodes[].name", like: 'name "n5" is taken by nodes[6]', count: 995 },
    ]);
  });
});
