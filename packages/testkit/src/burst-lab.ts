// The burst lab: an on-prem hub and burst nodes in network namespaces joined by a bridge, with real WireGuard
// (Debian's wireguard-go, brought up by wg-quick from the generated configs), the real provisioner, and stand-ins for
// what cannot run here (packages/testkit/lab/: the Kubernetes and AWS APIs, IMDSv2, kubeadm, and recording stand-ins
// for dnf, systemctl, …). Used by packages/provisioner/test/burst-lab.test.ts.
//
// Each lab namespace gets a "holder" process (`ip netns exec <ns> unshare --mount sleep`) whose private mount
// namespace carries what must not leak to the host or to the other namespaces: /run on a tmpfs (wireguard-go's
// control sockets are /run/wireguard/<interface>.sock, and hub and nodes all call their interface wg0), and on the
// nodes an overlay over /etc (the join script writes /etc/clusterspec and /etc/wireguard) and a /proc/uptime of the
// lab's choosing (the script's bounds count uptime). Everything runs through `nsenter` into a holder.
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const LAB_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "lab");

export interface Exec {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A network namespace with a holder process carrying its private mount namespace. */
export class LabNamespace {
  readonly holder: ChildProcess;
  constructor(readonly name: string) {
    const r = spawnSync("ip", ["netns", "add", name], { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ip netns add ${name}: ${r.stderr}`);
    this.holder = spawn(
      "ip",
      ["netns", "exec", name, "unshare", "--mount", "--propagation", "private", "sleep", "3600"],
      {
        stdio: "ignore",
      },
    );
  }

  get pid(): number {
    if (this.holder.pid === undefined) throw new Error(`holder of ${this.name} did not start`);
    return this.holder.pid;
  }

  /** Waits until the holder runs in its own mount namespace (unshare has exec'd sleep). */
  ready(): void {
    const self = execFileSync("readlink", ["/proc/self/ns/mnt"], { encoding: "utf8" });
    for (let i = 0; i < 100; i++) {
      const r = spawnSync("readlink", [`/proc/${this.pid}/ns/mnt`], { encoding: "utf8" });
      const comm = spawnSync("cat", [`/proc/${this.pid}/comm`], { encoding: "utf8" }).stdout.trim();
      if (r.status === 0 && r.stdout !== self && comm === "sleep") return;
      spawnSync("sleep", ["0.02"]);
    }
    throw new Error(`holder of ${this.name} is not ready`);
  }

  private argv(cmd: string, args: readonly string[]): string[] {
    return ["-t", String(this.pid), "-m", "-n", "--", cmd, ...args];
  }

  exec(cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv, input?: string): Exec {
    const r = spawnSync("nsenter", this.argv(cmd, args), {
      encoding: "utf8",
      env: env ?? process.env,
      input,
      timeout: 60_000,
    });
    return { status: r.status ?? -1, stdout: r.stdout ?? "", stderr: r.stderr ?? "" };
  }

  must(cmd: string, args: readonly string[], env?: NodeJS.ProcessEnv): string {
    const r = this.exec(cmd, args, env);
    if (r.status !== 0)
      throw new Error(`[${this.name}] ${cmd} ${args.join(" ")}: exit ${r.status}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /**
   * Runs a command to its end without blocking the event loop (the lab's servers answer meanwhile). Output goes to
   * files, not pipes: daemons the command starts (wireguard-go) inherit its descriptors and would hold a pipe open.
   */
  run(cmd: string, args: readonly string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<Exec> {
    const out = join(tmpdir(), `cs-burstlab-${process.pid}-${randomBytes(4).toString("hex")}`);
    const fdOut = openSync(`${out}.out`, "w");
    const fdErr = openSync(`${out}.err`, "w");
    return new Promise((resolve, reject) => {
      const child = spawn("nsenter", this.argv(cmd, args), { env, stdio: ["ignore", fdOut, fdErr] });
      const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
      const collect = (): [string, string] => {
        closeSync(fdOut);
        closeSync(fdErr);
        const r: [string, string] = [readFileSync(`${out}.out`, "utf8"), readFileSync(`${out}.err`, "utf8")];
        rmSync(`${out}.out`, { force: true });
        rmSync(`${out}.err`, { force: true });
        return r;
      };
      child.on("error", (e) => {
        clearTimeout(timer);
        collect();
        reject(e);
      });
      child.on("exit", (status) => {
        clearTimeout(timer);
        const [stdout, stderr] = collect();
        resolve({ status: status ?? -1, stdout, stderr });
      });
    });
  }

  /** A long-running process inside the namespace. */
  spawn(cmd: string, args: readonly string[], options: { env?: NodeJS.ProcessEnv; ipc?: boolean } = {}): ChildProcess {
    return spawn("nsenter", this.argv(cmd, args), {
      env: options.env ?? process.env,
      stdio: options.ipc ? ["ignore", "pipe", "pipe", "ipc"] : ["ignore", "pipe", "pipe"],
    });
  }

  /** Ends the processes still in the namespace (wireguard-go daemons, stand-ins), the holder, then the namespace. */
  destroy(): void {
    const pids = spawnSync("ip", ["netns", "pids", this.name], { encoding: "utf8" })
      .stdout.split(/\s+/)
      .filter(Boolean)
      .map(Number);
    for (const pid of pids) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
    this.holder.kill("SIGKILL");
    spawnSync("ip", ["netns", "del", this.name]);
  }
}

/** Names of the lab's namespaces: `csb-<random>-<role>`, so a leftover is recognisable. */
export const labPrefix = (): string => `csb-${randomBytes(3).toString("hex")}`;

/**
 * A bridge in namespace `wan` and one veth per member namespace (`eth0` inside, with the given address/24, and the
 * given IPv6 address/64 when there is one: an IPv6 underlay, without duplicate-address detection's wait).
 * The bridge and its ports live in `wan`; nothing is added to the host's namespace.
 */
export function bridge(wan: string, members: readonly { ns: string; address: string; address6?: string }[]): void {
  const ip = (...args: string[]) => {
    const r = spawnSync("ip", args, { encoding: "utf8" });
    if (r.status !== 0) throw new Error(`ip ${args.join(" ")}: ${r.stderr}`);
  };
  ip("-n", wan, "link", "add", "br0", "type", "bridge");
  ip("-n", wan, "link", "set", "br0", "up");
  members.forEach((m, n) => {
    const port = `p${n}`;
    ip("-n", wan, "link", "add", port, "type", "veth", "peer", "name", "eth0", "netns", m.ns);
    ip("-n", wan, "link", "set", port, "master", "br0", "up");
    ip("-n", m.ns, "link", "set", "lo", "up");
    ip("-n", m.ns, "addr", "add", `${m.address}/24`, "dev", "eth0");
    if (m.address6 !== undefined) ip("-n", m.ns, "addr", "add", `${m.address6}/64`, "dev", "eth0", "nodad");
    ip("-n", m.ns, "link", "set", "eth0", "up");
  });
}

/**
 * Recording stand-ins for the commands the join script calls that cannot run here; each appends
 * `<command>\t<arg>\t…` to $LAB_RECORD. systemctl's `enable --now wg-quick@<if>.service` runs the real
 * `wg-quick up <if>` (what the unit does); `sysctl` passes anything but `--system` to the real one (wg-quick
 * calls it; net.* settings are per network namespace); `sleep` records and sleeps $LAB_SLEEP_SECONDS (default:
 * as asked), so a test can shorten the script's waits without changing the script.
 */
export const RECORDED_COMMANDS = [
  "dnf",
  "systemctl",
  "kubelet",
  "crictl",
  "sysctl",
  "swapoff",
  "resolvectl",
  "logger",
  "sleep",
  "kubeadm",
] as const;

export function writeStandIns(binDir: string, kubernetesVersion: string): void {
  mkdirSync(binDir, { recursive: true });
  const rec = `printf '%s' "\${0##*/}" >>"$LAB_RECORD"; for a in "$@"; do printf '\\t%s' "$a" >>"$LAB_RECORD"; done; printf '\\n' >>"$LAB_RECORD"`;
  const scripts: Record<string, string> = {
    dnf: rec,
    swapoff: rec,
    resolvectl: rec,
    logger: rec,
    crictl: rec,
    kubelet: `${rec}\n[ "\${1:-}" = --version ] && echo "Kubernetes ${kubernetesVersion}"\nexit 0`,
    sysctl: `${rec}\nif [ "\${1:-}" = --system ]; then exit 0; fi\nexec /usr/sbin/sysctl "$@"`,
    sleep: `${rec}\nexec /usr/bin/sleep "\${LAB_SLEEP_SECONDS:-$1}"`,
    systemctl: `${rec}
if [ "\${1:-}" = enable ] && [ "\${2:-}" = --now ] && [[ \${3:-} =~ ^wg-quick@(.+)\\.service$ ]]; then
  exec wg-quick up "\${BASH_REMATCH[1]}"
fi
exit 0`,
    kubeadm: `${rec}\nexec node ${join(LAB_DIR, "kubeadm.mjs")} "$@"`,
  };
  for (const [name, body] of Object.entries(scripts)) {
    const file = join(binDir, name);
    writeFileSync(file, `#!/bin/bash\n# burst-lab stand-in (packages/testkit/src/burst-lab.ts)\n${body}\n`);
    chmodSync(file, 0o755);
  }
}

/** The recorded calls: one array (command, args…) per line. */
export function recorded(text: string): string[][] {
  return text
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("{"))
    .map((l) => l.split("\t"));
}

/** A child process's IPC as request/answer calls: `{ op, call, ...args }` answered by `{ call, ok, value | error }`. */
export class Ipc {
  private n = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  readonly ready: Promise<void>;
  constructor(private readonly child: ChildProcess) {
    let onReady: () => void = () => undefined;
    this.ready = new Promise((resolve) => {
      onReady = resolve;
    });
    child.on("message", (m: { call?: number; ok?: boolean; value?: unknown; error?: string; ready?: boolean }) => {
      if (m.ready) return onReady();
      const w = m.call === undefined ? undefined : this.waiting.get(m.call);
      if (!w) return;
      this.waiting.delete(m.call as number);
      if (m.ok) w.resolve(m.value);
      else w.reject(new Error(m.error));
    });
  }
  call<T>(op: string, args: Record<string, unknown> = {}): Promise<T> {
    const id = ++this.n;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.child.send({ ...args, op, call: id });
    });
  }
}

/** Polls `check` every 100 ms until it returns a value other than undefined, or throws after `ms`. */
export async function until<T>(
  what: string,
  ms: number,
  check: () => Promise<T | undefined> | T | undefined,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A self-signed certificate (CA:TRUE, as openssl req -x509 makes it) with subjectAltNames, and its key. */
export function certificate(dir: string, name: string, san: string): { key: string; cert: string } {
  const key = join(dir, `${name}.key`);
  const cert = join(dir, `${name}.crt`);
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      `/CN=${name}`,
    ].concat(san ? ["-addext", `subjectAltName=${san}`] : []),
    { stdio: "ignore" },
  );
  return { key, cert };
}

/** kubeadm's CA hash: sha256 of the CA certificate's public key (DER SubjectPublicKeyInfo). */
export function caCertHash(certFile: string): string {
  const der = execFileSync("sh", [
    "-c",
    'openssl x509 -in "$1" -noout -pubkey | openssl pkey -pubin -outform DER',
    "sh",
    certFile,
  ]);
  return `sha256:${execFileSync("openssl", ["dgst", "-sha256", "-hex"], { input: der, encoding: "utf8" }).trim().split(" ").pop()}`;
}
