// Issue 32 item 3: no resolved secret is printed on any path. One redaction (src/redact.ts) knows every value the
// run resolved and takes it, its lines and their base64 out of every byte the command prints: messages, warnings
// (an overlay's "was …"), --json, an internal error's message and stack. --force never writes resolved secrets
// into a review tree.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FileSystem, nodeFileSystem, REDACTED, Redaction } from "clusterspec/cli";
import fc from "fast-check";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { captureCli } from "./capture-cli.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const example = (name: string) => readFileSync(join(repo, "examples", name, "cluster.yaml"), "utf8");

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-redact-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cli = (argv: string[], env: Record<string, string>, fs?: FileSystem) =>
  captureCli(argv, { cwd: dir, env, ...(fs ? { fs } : {}) });

const SECRETS = {
  KUBEADM_TOKEN: "q1w2e3.r4t5y6u7i8o9p0a1",
  KUBEADM_CERT_KEY: "c0ffee".repeat(10).concat("c0ff"),
  KUBEADM_CA_HASH: `sha256:${"d00d".repeat(16)}`,
  VRRP_AUTH_PASS: "Pw_9:x+Z",
};

/** An overlay that deletes the certificate key from the init node's kubeadm.yaml: its warning quotes the old value. */
const DELETE_CERT_KEY = `  - target: nodes/k8s-1/kubeadm.yaml
    document: InitConfiguration
    patch:
      certificateKey: null
`;

describe("one redaction on every printed byte", () => {
  it("an overlay warning that quotes a resolved value shows it redacted, in text and --json", async () => {
    writeFileSync(join(dir, "cluster.yaml"), example("customised") + DELETE_CERT_KEY);
    const text = await cli(["generate", "cluster.yaml", "--with-secrets", "-o", "deploy"], SECRETS);
    expect(text.code).toBe(0);
    expect(text.stderr).toContain(
      `⚠ overlay deletes a value clusterspec derived: nodes/k8s-1/kubeadm.yaml (InitConfiguration) /certificateKey was "${REDACTED}"\n`,
    );
    const json = await cli(["generate", "cluster.yaml", "--with-secrets", "-o", "deploy2", "--json"], SECRETS);
    expect(json.code).toBe(0);
    expect(json.stdout).toContain(`/certificateKey was \\"${REDACTED}\\"`);
    for (const out of [text.stdout, text.stderr, json.stdout, json.stderr])
      expect(out).not.toContain(SECRETS.KUBEADM_CERT_KEY);
  });

  it("an internal error whose message quotes a secret file's content: exit 2, the stack shown, the secret redacted", async () => {
    writeFileSync(join(dir, "cluster.yaml"), example("bare-metal-ha"));
    // A file system that fails with a plain Error (a bug's kind, not the kernel's) quoting what it was asked to write.
    const failing: FileSystem = {
      ...nodeFileSystem,
      writeFile(path, content, mode) {
        if (path.endsWith("kubeadm.yaml")) throw new Error(`cannot store ${path}: ${content}`);
        nodeFileSystem.writeFile(path, content, mode);
      },
    };
    const r = await cli(["generate", "cluster.yaml", "--with-secrets", "-o", "deploy"], SECRETS, failing);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^clusterspec: internal error \(unexpected\), please report it:\nError: cannot store /);
    expect(r.stderr).toContain(REDACTED);
    expect(r.stderr).toMatch(/\n {4}at /); // the stack is there
    for (const v of Object.values(SECRETS)) expect(r.stderr).not.toContain(v);
  });

  it("--force does not write resolved secrets into a review tree: exit 2, the message, the tree unchanged", async () => {
    writeFileSync(join(dir, "cluster.yaml"), example("bare-metal-ha"));
    expect((await cli(["generate", "cluster.yaml"], {})).code).toBe(0);
    const before = readFileSync(join(dir, "generated", "nodes", "k8s-1", "kubeadm.yaml"), "utf8");
    const r = await cli(["generate", "cluster.yaml", "--with-secrets", "--force", "-o", "generated"], SECRETS);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `✖ ${join(dir, "generated")} holds a review tree with placeholder secrets (often committed); write resolved secrets to another folder (--force does not change this)\n`,
    );
    expect(readFileSync(join(dir, "generated", "nodes", "k8s-1", "kubeadm.yaml"), "utf8")).toBe(before);
  });
});

describe("Redaction", () => {
  it("takes out the value, each line of a key list, and their base64 at any offset of a longer encoding", () => {
    const key = "yAnz5TF+lXXJte14tji3zlMNq+hd2rYUIgJBgB3fBmk=";
    const other = "SM2/2VPBrGSZJe0Ia0b7DlIfOtOJBsjqxHa8YOFe5Gk=";
    const r = new Redaction();
    r.add(`${key}\n${other}\n`);
    expect(r.apply(`PrivateKey = ${other}\n`)).toBe(`PrivateKey = ${REDACTED}\n`);
    for (const prefix of ["", "a", "ab", "abc"]) {
      const blob = Buffer.from(`${prefix}[Interface]\nPrivateKey = ${key}\nListenPort = 51820\n`).toString("base64");
      expect(r.apply(blob), prefix).toContain(REDACTED);
      // what is left decodes to no part of the key longer than an edge of the encoding
      expect(r.apply(blob)).not.toContain(Buffer.from(key).toString("base64").slice(4, -4));
    }
  });

  it("a short value (a VRRP password may have 1-5 characters) only where it stands alone", () => {
    const r = new Redaction();
    r.add("ab");
    expect(r.apply(`auth_pass ab\nabout "ab" lab\n`)).toBe(`auth_pass ${REDACTED}\nabout "${REDACTED}" lab\n`);
  });

  it("knows a key list for 1,400 burst slots (thousands of forms: once more than one regular expression could hold)", () => {
    const keys = Array.from(
      { length: 1400 },
      (_, i) =>
        Buffer.alloc(32, i % 251)
          .toString("base64")
          .slice(0, 40) + `${i}`.padStart(4, "0"),
    );
    const r = new Redaction();
    r.add(keys.join("\n"));
    const text = `peer 700: ${keys[700]}\nencoded: ${Buffer.from(`PrivateKey = ${keys[1399]}\n`).toString("base64")}\n`;
    const out = r.apply(text);
    expect(out.startsWith(`peer 700: ${REDACTED}\nencoded: `)).toBe(true);
    expect(out).not.toContain(keys[700]);
    expect(out).not.toContain(
      Buffer.from(keys[1399] ?? "")
        .toString("base64")
        .slice(4, -4),
    );
  });

  it("prints everything as it is when no secret was resolved", () => {
    expect(new Redaction().apply("token: abcdef.0123456789abcdef")).toBe("token: abcdef.0123456789abcdef");
  });
});

describe("property: no resolved secret, nor its base64, in any byte printed", () => {
  const lower = "abcdefghijklmnopqrstuvwxyz0123456789".split("");
  const hex = "0123456789abcdef".split("");
  const str = (chars: string[], n: number) =>
    fc.string({ unit: fc.constantFrom(...chars), minLength: n, maxLength: n });
  const vrrpChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:/+=,%-".split("");
  const wgKey = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString("base64"));
  const secrets = fc.record({
    KUBEADM_TOKEN: fc.tuple(str(lower, 6), str(lower, 16)).map(([a, b]) => `${a}.${b}`),
    KUBEADM_CERT_KEY: str(hex, 64),
    KUBEADM_CA_HASH: str(hex, 64).map((h) => `sha256:${h}`),
    VRRP_AUTH_PASS: str(vrrpChars, 8),
    WG_HUB_PRIVATE_KEY: wgKey,
    peers: fc.array(wgKey, { minLength: 6, maxLength: 6 }),
    pubs: fc.array(wgKey, { minLength: 6, maxLength: 6 }),
  });
  const scenario = fc.record({
    spec: fc.constantFrom("bare-metal-ha", "customised", "customised+delete", "cloud-burst-only"),
    json: fc.boolean(),
    failure: fc.constantFrom("none", "internal", "review-tree", "bad-peer-line"),
  });

  it("for random secrets, specs, overlays, formats and failures", async () => {
    await fc.assert(
      fc.asyncProperty(secrets, scenario, async (s, sc) => {
        rmSync(dir, { recursive: true, force: true });
        mkdirSync(join(dir, "wireguard"), { recursive: true });
        const base = sc.spec === "customised+delete" ? "customised" : sc.spec;
        writeFileSync(
          join(dir, "cluster.yaml"),
          example(base) + (sc.spec === "customised+delete" ? DELETE_CERT_KEY : ""),
        );
        // a malformed line among the peer keys: the message about it must not quote the keys around it
        const peers = sc.failure === "bad-peer-line" ? [...s.peers.slice(0, 5), `${s.peers[5]}!`] : s.peers;
        writeFileSync(join(dir, "wireguard", "peers.key"), `${peers.join("\n")}\n`);
        writeFileSync(join(dir, "wireguard", "peers.pub"), `${s.pubs.join("\n")}\n`);
        const { peers: _p, pubs: _q, ...env } = s;
        let fs: FileSystem | undefined;
        if (sc.failure === "internal")
          fs = {
            ...nodeFileSystem,
            writeFile(path, content, mode) {
              // a bug's kind of failure (a plain Error), quoting a file that holds a secret
              if (/PrivateKey|token:|auth_pass|certificateKey/.test(content))
                throw new Error(`cannot store ${path}: ${content}`);
              nodeFileSystem.writeFile(path, content, mode);
            },
          };
        if (sc.failure === "review-tree")
          expect((await cli(["generate", "cluster.yaml", "-o", "out"], {})).code).toBe(0);
        const argv = [
          "generate",
          "cluster.yaml",
          "--with-secrets",
          "-o",
          "out",
          ...(sc.failure === "review-tree" ? ["--force"] : []),
          ...(sc.json ? ["--json"] : []),
        ];
        const r = await cli(argv, env, fs);
        const printed = r.stdout + r.stderr;
        const values = [...Object.values(env), ...s.peers]; // the public keys are no secret
        for (const v of values) {
          expect(printed).not.toContain(v);
          expect(printed).not.toContain(Buffer.from(v).toString("base64"));
        }
        expect([0, 2]).toContain(r.code);
      }),
      { numRuns: 24 },
    );
  });
});
