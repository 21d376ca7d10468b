// What each published package declares: licence, README, links, engines, and exactly the runtime
// dependencies its sources import; then the packed tarballs, published to a real registry and used from it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { checkPackage, createPackageFromTarballData } from "@arethetypeswrong/core";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = join(import.meta.dirname, "..", "..", "..");
const license = readFileSync(join(repo, "LICENSE"), "utf8");
const dirs = readdirSync(join(repo, "packages"));
const manifest = (d: string) => JSON.parse(readFileSync(join(repo, "packages", d, "package.json"), "utf8"));
const published = dirs.filter((d) => !manifest(d).private);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(".ts"))
    .map((e) => join(e.parentPath, e.name));
}

function importedPackages(dir: string): Set<string> {
  const out = new Set<string>();
  // static imports and re-exports, and dynamic import("pkg") (the lazily loaded schemas)
  for (const file of sourceFiles(join(dir, "src")))
    for (const m of readFileSync(file, "utf8").matchAll(
      /^(?:import|export)[^"']*from\s+["']([^"'.][^"']*)["']|\bimport\(\s*["']([^"'.][^"']*)["']/gm,
    )) {
      const spec = m[1] ?? m[2] ?? "";
      if (spec.startsWith("node:")) continue;
      out.add(spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : (spec.split("/")[0] ?? spec));
    }
  return out;
}

describe("published packages", () => {
  it("are the ten libraries, the provisioner and the CLI; testkit and the examples are private", () => {
    expect(published.map((d) => manifest(d).name).sort()).toEqual([
      "@clusterspec/cilium",
      "@clusterspec/cloud-init",
      "@clusterspec/core",
      "@clusterspec/host",
      "@clusterspec/keepalived",
      "@clusterspec/kubeadm",
      "@clusterspec/netifrc",
      "@clusterspec/provisioner",
      "@clusterspec/rollout",
      "@clusterspec/schemas",
      "@clusterspec/terraform-json",
      "@clusterspec/wireguard",
      "clusterspec",
    ]);
    expect(manifest("testkit").private).toBe(true);
    expect(manifest("testkit").scripts.prepack).toContain("process.exit(1)");
  });

  it.each(published)("%s ships the Apache-2.0 LICENSE and a README, and says where it lives", (d) => {
    const pkg = manifest(d);
    expect(readFileSync(join(repo, "packages", d, "LICENSE"), "utf8")).toBe(license);
    expect(readFileSync(join(repo, "packages", d, "README.md"), "utf8")).toMatch(/ESM only/);
    expect(pkg.license).toBe("Apache-2.0");
    expect(pkg.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]));
    expect(pkg.repository).toMatchObject({ type: "git", directory: `packages/${d}` });
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.bugs.url).toMatch(/^https:\/\//);
    expect(pkg.type).toBe("module");
    // require(esm) works unflagged from Node 20.19 on.
    expect(pkg.engines).toEqual({ node: ">=20.19" });
  });

  it.each(published)("%s declares exactly the runtime dependencies its sources import", (d) => {
    const pkg = manifest(d);
    const used = importedPackages(join(repo, "packages", d));
    const optionalPeers = Object.keys(pkg.peerDependenciesMeta ?? {});
    for (const p of optionalPeers) used.delete(p);
    expect(Object.keys(pkg.dependencies ?? {}).sort()).toEqual([...used].sort());
  });
});

// ---- the published shape, through a real registry ----
// Every published package, packed by `pnpm run pack` (scripts/pack.mjs), linted as a tarball (publint --strict,
// arethetypeswrong with the ESM-only profile), published with `npm publish` to a verdaccio on 127.0.0.1 (a root devDependency:
// the lockfile pins it and its dependencies, so a fresh clone's `pnpm install` brings it), then installed with plain
// npm into an empty project whose .npmrc points at that registry, and used there as a user would: `npx clusterspec
// generate` on a bundled example, a library import, a type-check. The registry has no uplink: the third-party
// packages are the workspace's installed copies (the lockfile's versions), packed and put on it first, so the test
// reaches no other registry. Needs the build (the test command builds first).

const exec = (cmd: string, args: string[], cwd: string, env: Record<string, string> = {}) =>
  spawnSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, maxBuffer: 1 << 28 });
const explain = (r: ReturnType<typeof exec>) => `exit ${r.status}\n${r.stdout}${r.stderr}${r.error ?? ""}`;

/** Every file under `dir`, as paths relative to it, sorted. */
function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

/** verdaccio on 127.0.0.1 at a port the kernel picks, no uplink; resolves with its URL once it listens. */
function startRegistry(work: string): Promise<{ url: string; child: ChildProcess }> {
  const config = join(work, "verdaccio.yaml");
  writeFileSync(
    config,
    [
      `storage: ${JSON.stringify(join(work, "storage"))}`,
      "auth:",
      `  htpasswd: { file: ${JSON.stringify(join(work, "htpasswd"))}, max_users: 10 }`,
      "packages:",
      "  '**': { access: $all, publish: $authenticated }",
      "log: { type: stdout, format: json, level: warn }",
      "",
    ].join("\n"),
  );
  const start = `const { runServer } = require(${JSON.stringify(join(repo, "node_modules", "verdaccio"))});
runServer(${JSON.stringify(config)}).then((app) => {
  const server = app.listen(0, "127.0.0.1", () => process.stdout.write("listening " + server.address().port + "\\n"));
});`;
  const child = spawn(process.execPath, ["-e", start], { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((done, fail) => {
    let out = "";
    const seen = (chunk: Buffer) => {
      out += chunk.toString();
      const port = /listening (\d+)/.exec(out)?.[1];
      if (port) done({ url: `http://127.0.0.1:${port}/`, child });
    };
    child.stdout.on("data", seen);
    child.stderr.on("data", seen);
    child.on("exit", (code) => fail(new Error(`verdaccio exited ${code} before listening:\n${out}`)));
  });
}

/** The folder of package `name` as Node resolves it from `from` (pnpm links each dependency beside its dependent). */
function packageDir(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, "node_modules", name);
    if (existsSync(join(candidate, "package.json"))) return realpathSync(candidate);
    if (dirname(dir) === dir) throw new Error(`${name} not found from ${from}`);
  }
}

/**
 * The third-party packages the published ones need, with what they need in turn (dependencies, and peers too:
 * npm reads an optional peer's metadata), as the workspace installed them: name → folder.
 */
function thirdPartyClosure(): Map<string, string> {
  const found = new Map<string, string>();
  const visit = (dir: string) => {
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const name of Object.keys({ ...pkg.dependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies })) {
      if (name === "clusterspec" || name.startsWith("@clusterspec/") || found.has(name)) continue;
      const at = packageDir(name, dir);
      found.set(name, at);
      visit(at);
    }
  };
  for (const d of published) visit(join(repo, "packages", d));
  return found;
}

/** Puts a tarball on the registry as `npm publish` does (one PUT of the manifest with the tarball attached). */
async function putTarball(url: string, token: string, tgz: string): Promise<void> {
  const bytes = readFileSync(tgz);
  const manifest = JSON.parse(spawnSync("tar", ["-xzOf", tgz, "package/package.json"], { encoding: "utf8" }).stdout);
  const { name, version } = manifest as { name: string; version: string };
  const file = `${name.split("/").pop()}-${version}.tgz`;
  const body = {
    _id: name,
    name,
    "dist-tags": { latest: version },
    versions: {
      [version]: {
        ...manifest,
        _id: `${name}@${version}`,
        dist: {
          integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
          shasum: createHash("sha1").update(bytes).digest("hex"),
          tarball: new URL(`${name}/-/${file}`, url).href,
        },
      },
    },
    _attachments: {
      [file]: { content_type: "application/octet-stream", data: bytes.toString("base64"), length: bytes.length },
    },
  };
  const res = await fetch(new URL(name.replace("/", "%2f"), url), {
    method: "PUT",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`PUT ${name}@${version}: ${res.status} ${await res.text()}`);
}

describe("the published packages, from a real registry (verdaccio)", () => {
  let work: string;
  let registry: { url: string; child: ChildProcess } | undefined;
  let tarballs: string[];
  let consumer: string;
  let installed: { name: string; version: string }[];

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), "clusterspec-registry-"));
    // 1. the documented command, into a folder of the test's own
    const pack = exec(process.execPath, [join(repo, "scripts", "pack.mjs"), "--out", join(work, "tarballs")], repo);
    expect(pack.status, explain(pack)).toBe(0);
    tarballs = pack.stdout.trim().split("\n");
    // 2. the registry, and a user on it (what `npm adduser` does: PUT the user, get a token)
    registry = await startRegistry(work);
    const res = await fetch(new URL("-/user/org.couchdb.user:ci", registry.url), {
      method: "PUT",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "ci", password: "not-a-secret-local-registry", type: "user", roles: [] }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    const { token } = (await res.json()) as { token: string };
    const host = new URL(registry.url).host;
    const npmrc = (dir: string, auth: boolean) =>
      writeFileSync(
        join(dir, ".npmrc"),
        `registry=${registry?.url}\n${auth ? `//${host}/:_authToken=${token}\n` : ""}audit=false\nfund=false\nupdate-notifier=false\n`,
      );
    // 3. the third-party packages first (the workspace's copies, packed by npm), then ours with `npm publish`
    const publisher = join(work, "publisher");
    mkdirSync(publisher);
    npmrc(publisher, true);
    const mirror = join(work, "third-party");
    mkdirSync(mirror);
    // each installed folder is what its published tarball held (npm pack refuses some of them: their scripts);
    // pnpm hard-links files of equal content, and npm drops a tarball's link entries: each file is stored whole
    for (const [name, dir] of thirdPartyClosure()) {
      const tgz = join(mirror, `${name.replace("/", "-")}.tgz`);
      const tar = exec(
        "tar",
        ["-czf", tgz, "--hard-dereference", "-C", dir, "--transform", "s,^\\.,package,", "."],
        work,
      );
      expect(tar.status, explain(tar)).toBe(0);
    }
    for (const f of readdirSync(mirror)) await putTarball(registry.url, token, join(mirror, f));
    for (const tgz of tarballs) {
      const r = exec("npm", ["publish", tgz, "--loglevel=error"], publisher);
      expect(r.status, `${tgz}: ${explain(r)}`).toBe(0);
    }
    // 4. a user's empty project pointed at the registry: install the command and library, nothing else named
    consumer = join(work, "consumer");
    mkdirSync(consumer);
    npmrc(consumer, false);
    writeFileSync(
      join(consumer, "package.json"),
      `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`,
    );
    const install = exec("npm", ["install", "clusterspec", "--loglevel=error"], consumer, {
      // a cache of its own: nothing npm fetched from elsewhere before stands in for this registry's answers
      npm_config_cache: join(work, "npm-cache"),
    });
    expect(install.status, explain(install)).toBe(0);
    const lock = JSON.parse(readFileSync(join(consumer, "node_modules", ".package-lock.json"), "utf8")) as {
      packages: Record<string, { version: string }>;
    };
    installed = Object.entries(lock.packages).map(([path, p]) => ({
      name: path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length),
      version: p.version,
    }));
  }, 600_000);

  afterAll(() => {
    registry?.child.kill();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("packs exactly the published packages, with licence, README and no workspace: or catalog: range left", () => {
    expect(tarballs.map((t) => basename(t)).sort()).toEqual(
      published.map((d) => `${manifest(d).name.replace("@", "").replace("/", "-")}-${manifest(d).version}.tgz`).sort(),
    );
    for (const tgz of tarballs) {
      const listing = exec("tar", ["-tzf", tgz], work).stdout.split("\n");
      expect(listing).toEqual(expect.arrayContaining(["package/LICENSE", "package/README.md", "package/package.json"]));
      expect(
        listing.filter((f) => /\/(test|testkit)\//.test(f)),
        tgz,
      ).toEqual([]);
      const shipped = JSON.parse(exec("tar", ["-xzOf", tgz, "package/package.json"], work).stdout);
      expect(JSON.stringify({ ...shipped.dependencies, ...shipped.peerDependencies })).not.toMatch(
        /workspace:|catalog:/,
      );
    }
  });

  it("pass publint --strict and arethetypeswrong (ESM-only profile) as tarballs", async () => {
    for (const tgz of tarballs) {
      const bytes = new Uint8Array(readFileSync(tgz));
      // publint's CLI fails on errors, and with --strict on warnings too; suggestions only inform
      const lint = await publint({ pack: { tarball: bytes.slice().buffer }, strict: true, level: "warning" });
      const shipped = JSON.parse(exec("tar", ["-xzOf", tgz, "package/package.json"], work).stdout);
      expect(
        lint.messages.map((m) => formatMessage(m, shipped)),
        basename(tgz),
      ).toEqual([]);
      // the CLI's esm-only profile: the package is not meant for require() from node10 or node16's CommonJS
      const analysis = await checkPackage(createPackageFromTarballData(bytes));
      expect(analysis.types, basename(tgz)).not.toBe(false);
      const problems = "problems" in analysis ? analysis.problems : [];
      expect(
        problems.filter((p) => !("resolutionKind" in p) || !["node10", "node16-cjs"].includes(p.resolutionKind)),
        basename(tgz),
      ).toEqual([]);
    }
  }, 600_000);

  it("installs from the registry alone: every @clusterspec package at the published version", () => {
    const ours = installed.filter((p) => p.name === "clusterspec" || p.name.startsWith("@clusterspec/"));
    // `npm install clusterspec` brings every library; the provisioner is a service of its own, installed apart
    const pulled = published.map((d) => manifest(d).name).filter((n) => n !== "@clusterspec/provisioner");
    expect(ours.map((p) => p.name).sort()).toEqual(pulled.sort());
    for (const p of ours) expect(p.version).toBe("0.1.0");
  });

  it("pulls at most 13 third-party packages, none of them ejs or its build tool", () => {
    const thirdParty = installed.filter(
      (p) => p.name !== "" && p.name !== "clusterspec" && !p.name.startsWith("@clusterspec/"),
    );
    // 21 before ejs left the runtime (7 of them through ejs → jake, a build tool); the templates are precompiled
    expect(thirdParty.map((p) => p.name)).not.toContain("ejs");
    expect(thirdParty.map((p) => p.name)).not.toContain("jake");
    expect(thirdParty.length, thirdParty.map((p) => p.name).join(" ")).toBeLessThanOrEqual(13);
  });

  // bare-metal-ha runs the bundle alone; customised (overlays, cilium.values) loads the schemas chunk too
  it.each(["bare-metal-ha", "customised"])(
    "npx clusterspec generate writes the %s example's golden tree, byte for byte",
    (name) => {
      // the spec's file name is in the generated headers: each example keeps its cluster.yaml
      mkdirSync(join(consumer, name));
      cpSync(join(repo, "examples", name, "cluster.yaml"), join(consumer, name, "cluster.yaml"));
      const args = ["--no-install", "clusterspec", "generate", `${name}/cluster.yaml`, "-o", `out-${name}`];
      const r = exec("npx", args, consumer);
      expect(r.status, explain(r)).toBe(0);
      const golden = join(repo, "examples", name, "generated");
      const out = join(consumer, `out-${name}`);
      expect(files(out)).toEqual(files(golden));
      for (const f of files(golden))
        expect(readFileSync(join(out, f)).equals(readFileSync(join(golden, f))), f).toBe(true);
    },
  );

  it("imports as a library and type-checks against the installed declarations (skipLibCheck off)", () => {
    mkdirSync(join(consumer, "bare-metal-ha"), { recursive: true });
    cpSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), join(consumer, "bare-metal-ha", "cluster.yaml"));
    writeFileSync(
      join(consumer, "use.mjs"),
      `import { readFileSync } from "node:fs";\nimport { generate } from "clusterspec";\nimport { runCli } from "clusterspec/cli";\n` +
        `const r = generate(readFileSync("bare-metal-ha/cluster.yaml", "utf8"));\n` +
        `if (!r.ok || typeof runCli !== "function") process.exit(1);\nconsole.log(r.artifacts.length + " artifacts");\n`,
    );
    const run = exec(process.execPath, ["use.mjs"], consumer);
    expect(run.status, explain(run)).toBe(0);
    expect(run.stdout).toMatch(/^\d+ artifacts\n$/);
    cpSync(join(import.meta.dirname, "fixtures", "consumer"), join(consumer, "types"), { recursive: true });
    const tsc = join(repo, "node_modules", "typescript", "bin", "tsc");
    const check = exec(process.execPath, [tsc, "-p", "types/tsconfig.json", "--listFiles"], consumer);
    expect(check.stdout.split("\n").filter((l) => l.includes("error TS"))).toEqual([]);
    expect(check.status, explain(check)).toBe(0);
    // the declarations came from the installed package, not the workspace
    expect(check.stdout).toContain(join(consumer, "node_modules", "clusterspec", "dist", "index.d.ts"));
    // and the check is not vacuous: a wrong call fails it
    writeFileSync(join(consumer, "types", "wrong.ts"), 'import { generate } from "clusterspec";\ngenerate(42);\n');
    writeFileSync(
      join(consumer, "types", "tsconfig.wrong.json"),
      JSON.stringify({ extends: "./tsconfig.json", files: ["wrong.ts"] }),
    );
    const wrong = exec(process.execPath, [tsc, "-p", "types/tsconfig.wrong.json"], consumer);
    expect(wrong.status).not.toBe(0);
    expect(wrong.stdout).toMatch(/wrong\.ts\(2,10\): error TS\d+/);
    expect(wrong.stdout).toContain("Argument of type 'number' is not assignable to parameter of type 'string'");
  });
});
