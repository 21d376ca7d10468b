// Test helpers: a small keepalived.conf parser (tokens and blocks) and `keepalived -t` inside a throwaway
// network namespace and a private mount namespace.
import { chmodSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { Artifact } from "@clusterspec/core";
import { run, withNetns } from "@clusterspec/testkit";

export interface Statement {
  readonly tokens: readonly string[];
  readonly block: readonly Statement[] | undefined;
}

/** Splits one line as keepalived does: whitespace separates, `"…"` is one token, `#`/`!` start a comment, braces are tokens. */
export function tokenizeLine(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    const c = line[i] ?? "";
    if (/\s/.test(c)) i++;
    else if (c === "#" || c === "!") break;
    else if (c === "{" || c === "}") {
      out.push(c);
      i++;
    } else if (c === '"') {
      const end = line.indexOf('"', i + 1);
      if (end < 0) throw new Error(`unterminated quote: ${line}`);
      out.push(line.slice(i + 1, end));
      i = end + 1;
    } else {
      let j = i;
      while (j < line.length && !/[\s{}"#!]/.test(line[j] ?? "")) j++;
      out.push(line.slice(i, j));
      i = j;
    }
  }
  return out;
}

/** Statements and nested blocks; throws on unbalanced braces. */
export function parseKeepalivedConf(text: string): Statement[] {
  const root: Statement[] = [];
  const stack: Statement[][] = [root];
  for (const line of text.split("\n")) {
    let current: string[] = [];
    const flush = (block: Statement[] | undefined) => {
      if (current.length > 0 || block) (stack[stack.length - 1] ?? root).push({ tokens: current, block });
      current = [];
    };
    for (const t of tokenizeLine(line)) {
      if (t === "{") {
        const block: Statement[] = [];
        flush(block);
        stack.push(block);
      } else if (t === "}") {
        flush(undefined);
        if (stack.length === 1) throw new Error("unbalanced }");
        stack.pop();
      } else current.push(t);
    }
    flush(undefined);
  }
  if (stack.length !== 1) throw new Error("unbalanced {");
  return root;
}

export interface ParsedInstance {
  readonly name: string;
  readonly settings: ReadonlyMap<string, readonly string[]>;
  readonly vips: readonly string[];
  readonly trackScripts: readonly string[];
  readonly auth: ReadonlyMap<string, readonly string[]> | undefined;
  readonly unicastPeers: readonly string[];
}

const settingsOf = (block: readonly Statement[]): Map<string, string[]> => {
  const m = new Map<string, string[]>();
  for (const s of block) if (!s.block && s.tokens[0]) m.set(s.tokens[0], s.tokens.slice(1) as string[]);
  return m;
};

const blockOf = (block: readonly Statement[], name: string): readonly Statement[] | undefined =>
  block.find((s) => s.tokens[0] === name && s.block)?.block;

export function instancesOf(tree: readonly Statement[]): ParsedInstance[] {
  return tree
    .filter((s) => s.tokens[0] === "vrrp_instance" && s.block)
    .map((s) => {
      const block = s.block ?? [];
      const auth = blockOf(block, "authentication");
      return {
        name: s.tokens[1] ?? "",
        settings: settingsOf(block),
        vips: (blockOf(block, "virtual_ipaddress") ?? []).map((v) => v.tokens.join(" ")),
        trackScripts: (blockOf(block, "track_script") ?? []).map((v) => v.tokens.join(" ")),
        auth: auth && settingsOf(auth),
        unicastPeers: (blockOf(block, "unicast_peer") ?? []).map((v) => v.tokens.join(" ")),
      };
    });
}

export interface CheckResult {
  readonly status: number;
  readonly output: string;
}

/**
 * `keepalived -t -f /etc/keepalived/keepalived.conf` with the node's generated /etc/keepalived files.
 * The config names absolute /etc/keepalived paths (the include and the check script), and keepalived -t
 * checks that they exist with safe permissions. Rather than rewrite paths for tests (then the tested file
 * would differ from the golden), a private mount namespace (`unshare -m`) bind-mounts a temp directory
 * over /etc/keepalived: the host's directory is never touched, and the mount vanishes with the process.
 * `ip netns exec` then runs keepalived in a namespace that has the interfaces the file names.
 */
export async function keepalivedCheck(
  files: readonly Pick<Artifact, "path" | "content" | "mode">[],
  interfaces: readonly string[],
): Promise<CheckResult> {
  if (!existsSync("/etc/keepalived"))
    throw new Error("/etc/keepalived is missing: install Debian's keepalived package");
  const dir = mkdtempSync(join(tmpdir(), "cs-keepalived-"));
  try {
    chmodSync(dir, 0o755);
    for (const f of files) {
      const target = join(dir, basename(f.path));
      writeFileSync(target, basename(f.path) === "keepalived.conf" ? forConfigTest(f.content) : f.content);
      chmodSync(target, f.mode ?? 0o644);
    }
    return await withNetns(interfaces, (ns) => {
      const r = run("unshare", [
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        'mount --bind "$1" /etc/keepalived && exec ip netns exec "$2" keepalived -t -f /etc/keepalived/keepalived.conf',
        "sh",
        dir,
        ns.name,
      ]);
      return { status: r.status, output: r.stdout + r.stderr };
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** `keepalived --version` as [major, minor, patch], read once. */
let installedVersion: readonly number[] | undefined;
function keepalivedVersion(): readonly number[] {
  if (installedVersion) return installedVersion;
  const r = run("keepalived", ["--version"]);
  const m = /Keepalived v(\d+)\.(\d+)\.(\d+)/.exec(r.stdout + r.stderr);
  installedVersion = m ? [Number(m[1]), Number(m[2]), Number(m[3])] : [0, 0, 0];
  return installedVersion;
}

/**
 * keepalived before 2.2.8 kills itself under -t when it checks a script that runs as a user other than root:
 * the check compares its parent with the daemon's main pid, which -t is itself (fixed upstream in aae8e910,
 * "config_check: Don't kill process when checking validity of scripts", first in v2.2.8). On such a version
 * the file is checked with `script_user root`, every other byte unchanged; the VRRP lab runs the real file,
 * scripts as the unprivileged user, with the daemon (where the check runs in the VRRP child and works).
 */
export function forConfigTest(conf: string): string {
  const [major = 0, minor = 0, patch = 0] = keepalivedVersion();
  const fixed = major > 2 || (major === 2 && (minor > 2 || (minor === 2 && patch >= 8)));
  return fixed ? conf : conf.replace(/^(\s*script_user) \S+$/m, "$1 root");
}

/** The /etc/keepalived files of one node. */
export function nodeFiles(artifacts: readonly Artifact[], node: string): Artifact[] {
  return artifacts.filter((a) => a.path.startsWith(`nodes/${node}/etc/keepalived/`));
}
