// Files clusterspec reads back from beside or inside the output (issue "Reliability round 2", item 1): the write
// journal, the stage folders, the previous tree, the manifest, the lock and the record of the last write are acted
// on only when they are this user's own, and a journal only within the folder and its stage. Anything else is
// refused (exit 2) with nothing touched. The shared-folder cases plant the files as a second real user.
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
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { hostname, tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { readTree } from "@clusterspec/testkit";
import { CliError, type CliIO, type FileSystem, nodeFileSystem, recordPath, runCli, writeTree } from "clusterspec/cli";
import { afterEach, beforeEach, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const exampleSpec = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const OPTS = { force: false, secrets: "placeholders" } as const;
const v1 = [
  { path: "PLAN.md", content: "# one\n" },
  { path: "nodes/a/etc/keep.conf", content: "1\n" },
];

let dir: string;
let out: string;
let journal: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-recovery-"));
  out = join(dir, "out");
  journal = join(dir, ".out.clusterspec-journal.json");
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** writeTree's refusal: its CliError (exit 2, kind refused), or a failure when it wrote. */
function refusal(write: () => unknown): CliError {
  try {
    write();
  } catch (e) {
    if (e instanceof CliError) return e;
    throw e;
  }
  throw new Error("the write was not refused");
}

const ourJournal = (body: Record<string, unknown>) =>
  JSON.stringify({ format: "clusterspec-journal/1", outDir: out, stage: ".out.clusterspec-new.dead", ...body });

describe("a write journal clusterspec did not write for this folder", () => {
  it("is refused, not replayed, when a committed journal of an older shape removes ../ files", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    writeFileSync(join(dir, "victim.txt"), "keep me\n");
    writeFileSync(journal, JSON.stringify({ moves: [], removes: ["../victim.txt"] }));
    const e = refusal(() => writeTree(nodeFileSystem, out, v1, OPTS));
    expect([e.code, e.kind]).toEqual([2, "refused"]);
    expect(e.message).toBe(
      `refusing to replay ${journal}: it is not a clusterspec journal, so clusterspec did not write it for ${out}; nothing was changed. Remove it once no clusterspec run is writing ${out}, then run again`,
    );
    expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("keep me\n");
    expect(existsSync(journal)).toBe(true);
  });

  it("is refused when a well-formed journal names a path outside the folder", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    writeFileSync(join(dir, "victim.txt"), "keep me\n");
    for (const bad of ["../victim.txt", "/etc/passwd", "nodes/../../victim.txt", "./PLAN.md", "a//b"]) {
      writeFileSync(journal, ourJournal({ moves: [], removes: [bad] }));
      const e = refusal(() => writeTree(nodeFileSystem, out, v1, OPTS));
      expect(e.message, bad).toContain(`it names ${JSON.stringify(bad)}, a path outside the folder`);
    }
    expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("keep me\n");
  });

  it("plants nothing from outside: a stage that is not this folder's is refused", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    mkdirSync(join(dir, "planted"));
    writeFileSync(join(dir, "planted", "x.conf"), "planted\n");
    for (const stage of ["planted", "../planted", ".out.clusterspec-new/../planted"]) {
      writeFileSync(journal, ourJournal({ stage, moves: ["x.conf"], removes: [] }));
      const e = refusal(() => writeTree(nodeFileSystem, out, v1, OPTS));
      expect(e.message, stage).toContain("its stage is not a stage folder of this folder");
    }
    expect(existsSync(join(out, "x.conf"))).toBe(false);
    expect(readFileSync(join(dir, "planted", "x.conf"), "utf8")).toBe("planted\n");
  });

  it("is refused when it was written for another folder", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    writeFileSync(journal, ourJournal({ outDir: "/somewhere/else", moves: [], removes: ["PLAN.md"] }));
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain("it names another folder");
    expect(readTree(out)["PLAN.md"]).toBe("644:# one\n");
  });

  it("removes nothing through a linked folder inside the output, nor a file the manifest does not list", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    const elsewhere = join(dir, "elsewhere");
    mkdirSync(join(elsewhere, "a", "etc"), { recursive: true });
    writeFileSync(join(elsewhere, "a", "etc", "keep.conf"), "not yours\n");
    rmSync(join(out, "nodes"), { recursive: true });
    symlinkSync(elsewhere, join(out, "nodes"));
    writeFileSync(journal, ourJournal({ moves: [], removes: ["nodes/a/etc/keep.conf"] }));
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      `${join(out, "nodes")} on the way to nodes/a/etc/keep.conf is a symbolic link`,
    );
    expect(readFileSync(join(elsewhere, "a", "etc", "keep.conf"), "utf8")).toBe("not yours\n");

    rmSync(join(out, "nodes"));
    writeFileSync(join(out, "mine.txt"), "the user's\n");
    writeFileSync(journal, ourJournal({ moves: [], removes: ["mine.txt"] }));
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      "it removes mine.txt, which the folder's manifest does not list",
    );
    expect(readFileSync(join(out, "mine.txt"), "utf8")).toBe("the user's\n");
  });

  it("is refused when it is a symbolic link or writable by others", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    writeFileSync(join(dir, "victim.txt"), "keep me\n");
    writeFileSync(join(dir, "elsewhere.json"), JSON.stringify({ moves: [], removes: ["../victim.txt"] }));
    symlinkSync(join(dir, "elsewhere.json"), journal);
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toBe(
      `refusing to use ${journal}, the write journal of ${out}: it is a symbolic link (never followed), so it cannot be proven clusterspec's own; nothing was changed. Remove it once no clusterspec run is writing ${out}, then run again`,
    );
    rmSync(journal);
    writeFileSync(journal, JSON.stringify({ moves: [], removes: ["../victim.txt"] }));
    chmodSync(journal, 0o666);
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      "it is writable by other users (mode 0666)",
    );
    expect(readFileSync(join(dir, "victim.txt"), "utf8")).toBe("keep me\n");
  });
});

/** `generate cluster.yaml` (default output: generated/ beside the spec) with the record kept in `cache`. */
async function generateCached(cache: string) {
  writeFileSync(join(dir, "cluster.yaml"), exampleSpec);
  let stdout = "";
  let stderr = "";
  const io: CliIO = {
    cwd: dir,
    env: { CLUSTERSPEC_CACHE_DIR: cache },
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    version: "1.0.0",
    codeId: () => "code-1",
  };
  return { code: await runCli(["generate", "cluster.yaml"], io), stdout, stderr };
}

describe("the record of the last write", () => {
  // It is only a cache: one that cannot be proven this user's own is no record (never read, never removed), and the
  // run regenerates as it would without one.
  it("is ignored, not refused, when it is a link or writable by others, or its folder is", async () => {
    const cache = join(dir, "cache");
    expect((await generateCached(cache)).code).toBe(0);
    const record = recordPath({ CLUSTERSPEC_CACHE_DIR: cache }, join(dir, "generated")) as string;
    const text = readFileSync(record, "utf8");
    chmodSync(record, 0o666);
    const open = await generateCached(cache);
    expect([open.code, open.stderr]).toEqual([0, expect.not.stringContaining("✖")]);
    expect(open.stdout).toContain("is up to date");
    expect([lstatSync(record).mode & 0o777, readFileSync(record, "utf8")]).toEqual([0o666, text]);

    rmSync(record);
    writeFileSync(join(dir, "forged.json"), "{}");
    symlinkSync(join(dir, "forged.json"), record);
    const linked = await generateCached(cache);
    expect([linked.code, linked.stderr]).toEqual([0, expect.not.stringContaining("✖")]);
    expect(lstatSync(record).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dir, "forged.json"), "utf8")).toBe("{}");

    rmSync(record);
    expect((await generateCached(cache)).code).toBe(0);
    chmodSync(dirname(record), 0o777);
    const folder = await generateCached(cache);
    expect([folder.code, folder.stderr]).toEqual([0, expect.not.stringContaining("✖")]);
    expect(readFileSync(record, "utf8")).toBe(text);
  });
});

// A second real user plants files in a shared sticky folder, as any local user can in /tmp.
const asRoot = process.getuid?.() === 0;
const ATTACKER = "clusterspec-attacker";
const noSecondUser = !asRoot ? "not root: cannot create a second user and plant files as it" : undefined;
if (noSecondUser && process.env.CI) throw new Error(`the shared-folder tests must run under CI: ${noSecondUser}`);

function attacker(): { uid: number; gid: number } {
  if (spawnSync("id", ["-u", ATTACKER]).status !== 0) {
    const r = spawnSync("useradd", ["--system", "--no-create-home", "--shell", "/usr/sbin/nologin", ATTACKER], {
      encoding: "utf8",
    });
    expect(r.status, r.stderr).toBe(0);
  }
  const id = (flag: string) => Number(spawnSync("id", [flag, ATTACKER], { encoding: "utf8" }).stdout.trim());
  return { uid: id("-u"), gid: id("-g") };
}

/** Runs a shell script as the second user. */
function asAttacker(script: string): void {
  const { uid, gid } = attacker();
  const r = spawnSync("setpriv", [`--reuid=${uid}`, `--regid=${gid}`, "--clear-groups", "sh", "-c", script], {
    encoding: "utf8",
  });
  expect(r.status, r.stderr).toBe(0);
}

describe("files another user planted in a shared folder", () => {
  let shared: string;
  beforeEach((ctx) => {
    if (noSecondUser !== undefined) return ctx.skip(`${noSecondUser} (run the tests as root)`);
    chmodSync(dir, 0o755);
    shared = join(dir, "tmp");
    mkdirSync(shared);
    chmodSync(shared, 0o1777); // like /tmp: anyone creates, only the owner removes
    out = join(shared, "deploy");
    journal = join(shared, ".deploy.clusterspec-journal.json");
  });

  const secretsEnv = {
    VRRP_AUTH_PASS: "s3cret",
    KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
    KUBEADM_CERT_KEY: "a".repeat(64),
    KUBEADM_CA_HASH: `sha256:${"b".repeat(64)}`,
  };
  async function generateWithSecrets() {
    writeFileSync(join(dir, "cluster.yaml"), exampleSpec);
    let stderr = "";
    const io: CliIO = {
      cwd: dir,
      env: { ...secretsEnv, CLUSTERSPEC_CACHE_DIR: "off" },
      stdout: () => {},
      stderr: (t) => {
        stderr += t;
      },
      version: "1.0.0",
    };
    return { code: await runCli(["generate", "cluster.yaml", "--with-secrets", "-o", out], io), stderr };
  }

  it("a fresh --with-secrets run does not adopt a previous-tree folder another user made", async () => {
    const old = join(shared, ".deploy.clusterspec-old");
    asAttacker(`mkdir "${old}" && echo mine > "${old}/marker"`);
    const r = await generateWithSecrets();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ refusing to use ${old}, the previous tree of ${out}: it belongs to uid ${attacker().uid}, not to this run's user (uid 0), so it cannot be proven clusterspec's own; nothing was changed. Remove it once no clusterspec run is writing ${out}, then run again\n`,
    );
    expect(existsSync(out)).toBe(false);
    expect(lstatSync(old).uid).toBe(attacker().uid);
    expect(readdirSync(old)).toEqual(["marker"]);
  });

  it("a fresh --with-secrets run does not write into an output folder another user made", async () => {
    asAttacker(`mkdir "${out}"`);
    const r = await generateWithSecrets();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`✖ refusing to use ${out}, the output folder: it belongs to uid ${attacker().uid}, `);
    expect(readdirSync(out)).toEqual([]);
    expect(readdirSync(shared)).toEqual(["deploy"]);
  });

  it("a journal another user planted is not replayed: the file it names outside the folder stays", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    const victim = join(dir, "victim.txt");
    writeFileSync(victim, "root's\n");
    asAttacker(`echo '${JSON.stringify({ moves: [], removes: ["../../victim.txt"] })}' > "${journal}"`);
    const e = refusal(() => writeTree(nodeFileSystem, out, v1, OPTS));
    expect(e.message).toContain(`refusing to use ${journal}, the write journal of ${out}: it belongs to uid `);
    expect(readFileSync(victim, "utf8")).toBe("root's\n");
    expect(existsSync(journal)).toBe(true);
  });

  it("a record of the last write another user planted is ignored: the run regenerates, the file stays", async () => {
    const cache = join(shared, "cache");
    const record = recordPath({ CLUSTERSPEC_CACHE_DIR: cache }, join(dir, "generated")) as string;
    asAttacker(`mkdir -p "${dirname(record)}" && chmod 755 "${cache}" "${dirname(record)}" && echo '{}' > "${record}"`);
    const r = await generateCached(cache);
    expect([r.code, r.stderr]).toEqual([0, expect.not.stringContaining("✖")]);
    expect(r.stdout).toContain(`wrote ${join(dir, "generated")}`);
    expect([lstatSync(record).uid, readFileSync(record, "utf8")]).toEqual([attacker().uid, "{}\n"]);
  });

  it("a journal whose stage another user made (after this run listed the stages) moves nothing", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    const stage = join(shared, ".deploy.clusterspec-new.planted");
    writeFileSync(
      journal,
      JSON.stringify({
        format: "clusterspec-journal/1",
        outDir: out,
        stage: basename(stage),
        moves: ["PLAN.md", "x.conf"],
        removes: [],
      }),
    );
    // The stage appears just after the run listed the folder's stages: the race a check of the listing alone loses.
    let planted = false;
    const racing: FileSystem = {
      ...nodeFileSystem,
      listDir(d) {
        const names = nodeFileSystem.listDir(d);
        if (d === shared && !planted) {
          planted = true;
          asAttacker(
            `mkdir -m 777 "${stage}" && echo planted > "${stage}/PLAN.md" && echo planted > "${stage}/x.conf"`,
          );
        }
        return names;
      },
    };
    const e = refusal(() => writeTree(racing, out, v1, OPTS));
    expect(planted).toBe(true);
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toBe("# one\n");
    expect(existsSync(join(out, "x.conf"))).toBe(false);
    expect([e.code, e.kind]).toEqual([2, "refused"]);
    expect(e.message).toContain(`refusing to replay ${journal}: its stage ${stage} is not one of the stage folders`);
    expect(readdirSync(stage).sort()).toEqual(["PLAN.md", "x.conf"]);
    expect(lstatSync(join(stage, "x.conf")).uid).toBe(attacker().uid);

    // Listed with the others, the same stage is refused as another user's folder.
    const listed = refusal(() => writeTree(nodeFileSystem, out, v1, OPTS));
    expect([listed.code, listed.kind]).toEqual([2, "refused"]);
    expect(listed.message).toContain(`refusing to use ${stage}, a stage folder of ${out}: it belongs to uid `);
    expect(readFileSync(join(out, "PLAN.md"), "utf8")).toBe("# one\n");

    // A stage of this user's own that holds another user's file: that file is not moved either.
    rmSync(stage, { recursive: true });
    mkdirSync(stage, { mode: 0o755 });
    writeFileSync(join(stage, "x.conf"), "planted\n");
    chownSync(join(stage, "x.conf"), attacker().uid, attacker().gid);
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      `its staged x.conf belongs to uid ${attacker().uid}, not to this run's user (uid 0)`,
    );
    expect(existsSync(join(out, "x.conf"))).toBe(false);
  });

  it("a write into a folder another user owns and anyone can write (not sticky) is refused; /tmp/<new> works", async () => {
    const open = join(shared, "open");
    asAttacker(`mkdir -m 777 "${open}"`);
    out = join(open, "out");
    const r = await generateWithSecrets();
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ refusing to write ${out}: the folder that holds it and its lock, journal and stages, ${open}, belongs to uid ${attacker().uid}, neither this run's user (uid 0) nor root, so another user could move links into it while clusterspec writes; nothing was changed. Name an output folder inside a folder of your own with -o (or inside a sticky shared folder such as /tmp)\n`,
    );
    expect(readdirSync(open)).toEqual([]);
    // reached through a link of the user's own in the middle of -o: the same folder, the same refusal
    symlinkSync(open, join(dir, "via"));
    out = join(dir, "via", "out");
    const linked = await generateWithSecrets();
    expect([linked.code, linked.stderr]).toEqual([
      2,
      expect.stringContaining(`${open}, belongs to uid ${attacker().uid}`),
    ]);
    expect(readdirSync(open)).toEqual([]);
    // root's own folder, writable by anyone and not sticky: refused too
    const wide = join(dir, "wide");
    mkdirSync(wide);
    chmodSync(wide, 0o777);
    out = join(wide, "out");
    expect((await generateWithSecrets()).stderr).toContain(
      `${wide}, is writable by other users and not sticky (mode 0777)`,
    );
    expect(readdirSync(wide)).toEqual([]);

    // group-writable (umask 002): accepted for the user's own primary group, refused for another group
    const team = join(dir, "team");
    mkdirSync(team);
    chmodSync(team, 0o775);
    out = join(team, "out");
    expect((await generateWithSecrets()).code).toBe(0);
    chownSync(team, 0, attacker().gid);
    rmSync(out, { recursive: true });
    const other = await generateWithSecrets();
    expect(other.stderr).toContain(
      `${team}, is writable by its group (gid ${attacker().gid}, not this user's primary group) and not sticky (mode 0775)`,
    );
    expect(readdirSync(team)).toEqual([]);

    out = join(tmpdir(), `clusterspec-fresh-${process.pid}-${Date.now()}`);
    try {
      const fresh = await generateWithSecrets();
      expect([fresh.code, fresh.stderr]).toEqual([0, ""]);
      expect(existsSync(join(out, ".clusterspec-manifest.json"))).toBe(true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });

  it("a stage folder and a lock another user planted are neither removed nor taken over", () => {
    writeTree(nodeFileSystem, out, v1, OPTS);
    const stage = join(shared, ".deploy.clusterspec-new.planted");
    asAttacker(`mkdir "${stage}"`);
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      `refusing to use ${stage}, a stage folder of ${out}: it belongs to uid `,
    );
    expect(existsSync(stage)).toBe(true);
    rmSync(stage, { recursive: true });

    // A lock naming a process that is gone would be taken over as stale.
    const lock = join(shared, ".deploy.clusterspec-lock");
    const stale = { pid: 999_999_999, host: hostname(), start: null, since: "2020-01-01T00:00:00Z", token: "t" };
    asAttacker(`echo '${JSON.stringify(stale)}' > "${lock}"`);
    expect(refusal(() => writeTree(nodeFileSystem, out, v1, OPTS)).message).toContain(
      `refusing to use ${lock}, a lock file of another run: it belongs to uid `,
    );
    expect(existsSync(lock)).toBe(true);
  });
});
