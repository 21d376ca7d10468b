// The VRRP lab: the real keepalived of every node of a generated tree, each in its own network namespace, their
// interfaces joined by one Linux bridge per interface name in a namespace of the lab's own. Nothing leaves these
// namespaces: every address lives inside them, and the bridges have no uplink.
//
// Per node: a veth per interface of the plan (a VLAN name such as `wan0.4000` is a veth of that name), with the
// addresses of its /etc/conf.d/net; keepalived in the foreground (-n), VRRP only (-P), in a private mount
// namespace where the node's generated /etc/keepalived and a lab folder as /run are bind-mounted; the apiserver
// check script replaced by a stub that fails while the test says so. `ip -ts -o monitor address` in each node
// namespace reports VIPs coming and going with the kernel's timing; `ip -n <ns> addr` confirms each settled state.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterPlan, instanceAddresses, type PlannedVip, shellVar } from "@clusterspec/core";
import { canonicalIp } from "@clusterspec/core/testing";

/** Every lab namespace starts with this, then the pid of the process that made it: stale ones can be reaped. */
const PREFIX = "cslab";
const STUB_FLAG = "clusterspec-lab-unhealthy";
/** What keepalived logs as it sets each instance's first state at start-up. */
const INIT_LINE = /\) Entering (?:BACKUP|FAULT) STATE \(init\)$/;
const READY_FLAG = "clusterspec-lab-notready";
/** A check script that fails while /run/<flag> exists (run by keepalived as its script_user, directly). */
const stub = (what: string, flag: string): string =>
  `#!/bin/sh\n# clusterspec VRRP lab: stands in for the ${what}; fails while /run/${flag} exists.\n[ ! -e /run/${flag} ]\n`;
/** Every check script the keepalived generator writes, and the flag that fails its stub. */
const STUBS: Readonly<Record<string, { readonly text: string; readonly flag: string }>> = {
  "check-apiserver.sh": { text: stub("apiserver check", STUB_FLAG), flag: STUB_FLAG },
  // A dual-stack control-plane VIP's IPv6 check: the node's apiserver fails on both its addresses at once.
  "check-apiserver6.sh": { text: stub("apiserver check (IPv6)", STUB_FLAG), flag: STUB_FLAG },
  "check-cilium.sh": { text: stub("Cilium readiness check", READY_FLAG), flag: READY_FLAG },
  "check-uplink.sh": { text: stub("uplink check", READY_FLAG), flag: READY_FLAG },
};

export interface LabNodeInterface {
  readonly name: string;
  readonly cidrs: readonly string[];
}

interface LabNode {
  readonly name: string;
  readonly ns: string;
  readonly dir: string;
  readonly interfaces: readonly LabNodeInterface[];
  /** Bridge-side veth ends. */
  readonly ports: readonly string[];
  hasCheck: boolean;
  hasReadiness: boolean;
  keepalived: ChildProcess | undefined;
  monitor: ChildProcess | undefined;
  up: boolean;
  /** Addresses (canonical, no prefix) on the node's interfaces, and when each last appeared (epoch ms). */
  readonly addresses: Map<string, number>;
  /** Every appearance of each address (epoch ms), never cleared. */
  readonly history: Map<string, number[]>;
  /**
   * When keepalived's latest start logged its last `Entering BACKUP|FAULT STATE (init)` (epoch ms, on arrival):
   * the moment its instances' timers began (keepalived 2.2.7 vrrp_scheduler.c vrrp_init_state, ~line 275).
   */
  initialisedAt: number | undefined;
}

/** VIP address → nodes (that are up) holding it. */
export type Observation = ReadonlyMap<string, readonly string[]>;

export interface WaitResult {
  readonly ok: boolean;
  /** Epoch ms when the expected state was first reached (and then held); undefined if never. */
  readonly reachedAt: number | undefined;
  readonly observed: Observation;
  /** Human-readable differences from the expectation at the end. */
  readonly diff: readonly string[];
}

export interface WaitOptions {
  readonly deadlineMs: number;
  readonly holdMs: number;
}

/**
 * Each VIP address not held by exactly its expected node (`expected`: VIP key → holder, undefined for nobody), both
 * halves of a dual-stack pair where the pair's one holder is. `alternatives` lets a VIP (by key) be on any one of
 * several nodes instead, the pair's halves still together: the contenders of a nopreempt race (failover.ts).
 */
export function holderDifferences(
  plan: ClusterPlan,
  expected: ReadonlyMap<string, string | undefined>,
  observed: Observation,
  alternatives: ReadonlyMap<string, readonly string[]> = new Map(),
): string[] {
  return (plan.vips as readonly PlannedVip[]).flatMap((v) => {
    const want = expected.get(v.key);
    const allowed = alternatives.get(v.key) ?? (want === undefined ? [] : [want]);
    const primary = observed.get(canonicalIp(v.address)) ?? [];
    return instanceAddresses(v).flatMap(({ address }) => {
      const got = observed.get(canonicalIp(address)) ?? [];
      const ok =
        allowed.length === 0
          ? got.length === 0
          : got.length === 1 && allowed.includes(got[0] as string) && (allowed.length === 1 || got[0] === primary[0]);
      return ok
        ? []
        : [
            `${address} (${v.key}): expected ${allowed.join(" or ") || "nobody"}, observed ${got.join(" + ") || "nobody"}`,
          ];
    });
  });
}

export interface VrrpLab {
  readonly nodes: readonly string[];
  /** VIP addresses in plan order (canonical). */
  readonly vipAddresses: readonly string[];
  observe(): Observation;
  /** Holders read with `ip -n <ns> addr` in every live node namespace. */
  snapshot(): Promise<Observation>;
  /** When `address` last appeared on `node` (epoch ms), per the kernel's event timestamp. */
  appearedAt(node: string, address: string): number | undefined;
  /** Whether the nodes started alone and wait for `connect()`. */
  readonly isolatedStart: boolean;
  /** Un-isolates the bridge ports: the nodes, each master of everything so far, now hear each other. */
  connect(): Promise<void>;
  /**
   * A partition with every link up: nft in the bridges' namespace drops VRRP and AH (IP protocols 112 and 51)
   * between the ports of `isolated` and every other port; everything else still passes. Needs nft.
   */
  partition(isolated: readonly string[]): Promise<void>;
  /** Ends the partition: the filter is deleted. */
  heal(): Promise<void>;
  /** Node death: SIGKILL to keepalived (no goodbye advert), links down, its VIPs gone. Returns the epoch ms of the kill. */
  kill(node: string): Promise<number>;
  /** The node comes back as after a reboot: no VIPs, links up, keepalived started. Returns the epoch ms of the start. */
  revive(node: string): Promise<number>;
  /** Makes the node's apiserver check stub fail (false) or pass (true). Returns the epoch ms of the switch. */
  setHealthy(node: string, healthy: boolean): number;
  /** Makes the node's external-VIP checks (readiness, uplink) fail (false) or pass (true); also while it is down. */
  setReady(node: string, ready: boolean): number;
  /** Epoch ms of every appearance of `address` on `node` since the lab started (the kernel's timestamps). */
  appearances(node: string, address: string): readonly number[];
  /** Waits until, for every VIP, exactly the expected node (or nobody) holds it, and that lasts `holdMs`. */
  waitFor(expected: ReadonlyMap<string, string | undefined>, options: WaitOptions): Promise<WaitResult>;
  /** Waits until `differences` of the observation is empty, and stays so for `holdMs`. */
  waitUntil(differences: (observed: Observation) => readonly string[], options: WaitOptions): Promise<WaitResult>;
  /**
   * Installs a tree's files on a node as a rollout step does: each `nodes/<node>/etc/keepalived/<file>` path of
   * `tree` goes to the node's /etc/keepalived (check scripts replaced by the lab's stubs). keepalived reads them
   * only when it starts or reloads.
   */
  installFiles(node: string, tree: string, paths: readonly string[]): void;
  /** `rc-service keepalived reload`: SIGHUP to the node's keepalived. Returns the epoch ms of the signal. */
  reload(node: string): number;
  /** `rc-service keepalived stop`: SIGTERM (keepalived says goodbye, priority 0, and removes its VIPs); waits for it. */
  stopKeepalived(node: string): Promise<number>;
  /** `rc-service keepalived start` on a node whose links are up (a node that never ran, or was stopped). */
  startKeepalived(node: string): number;
  /** Whether keepalived runs on the node. */
  running(node: string): boolean;
  /**
   * Seconds from `since` until the node's running keepalived had set every instance's first state (its timers
   * start then; with hundreds of instances that takes seconds on a busy host); undefined if it has not yet.
   */
  startupSeconds(node: string, since: number): number | undefined;
  /** Resolves true once every running keepalived has set its instances' first states; false after `timeoutMs`. */
  whenInitialised(timeoutMs: number): Promise<boolean>;
  /** Calls `listener` after every address change the monitors report; returns the unsubscribe function. */
  onChange(listener: () => void): () => void;
  /** Holders of every VIP the lab knows, over every node (running or not): for checks between events. */
  observeAll(): Observation;
  /** Last lines of each node's keepalived log, for failure messages. */
  logs(lines?: number): string;
  /**
   * The most any keepalived of the lab ran a timer late, in seconds, from its "A thread timer expired N seconds
   * ago" lines (0 if none): a daemon starved of CPU that long cannot keep VRRP's timing, whatever its config says.
   */
  lateTimerSeconds(): number;
  /**
   * Adverts the kernel dropped because a running keepalived did not read its socket in time (the drops column of
   * the namespaces' raw sockets; a restarted daemon's count starts again): a daemon that loses adverts this way
   * sees its peers' down timers run out, whatever its config says.
   */
  droppedAdverts(): number;
  stop(): Promise<void>;
}

// ---- processes and cleanup ----

const labs = new Set<{ destroy: () => void }>();
let handlersInstalled = false;

function installExitHandlers(): void {
  if (handlersInstalled) return;
  handlersInstalled = true;
  const cleanAll = () => {
    for (const l of [...labs]) l.destroy();
  };
  process.once("exit", cleanAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const)
    process.once(signal, () => {
      cleanAll();
      process.kill(process.pid, signal);
    });
}

function runSync(
  cmd: string,
  args: readonly string[],
  input?: string,
): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { encoding: "utf8", input, timeout: 60_000 });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function mustSync(cmd: string, args: readonly string[], input?: string): string {
  const r = runSync(cmd, args, input);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/** Runs a command without blocking the event loop (other labs' timing must not wait on it). */
function exec(
  cmd: string,
  args: readonly string[],
  input?: string,
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: [input === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.setEncoding("utf8").on("data", (d: string) => (stdout += d));
    child.stderr?.setEncoding("utf8").on("data", (d: string) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ status: code ?? -1, stdout, stderr }));
    child.stdin?.on("error", () => undefined).end(input);
  });
}

async function must(cmd: string, args: readonly string[], input?: string): Promise<string> {
  const r = await exec(cmd, args, input);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

const pidAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** Kills every process inside the namespace (all of them were started by a lab) and deletes it. */
function deleteNamespace(ns: string): void {
  const pids = runSync("ip", ["netns", "pids", ns]).stdout.split(/\s+/).filter(Boolean).map(Number);
  for (const pid of pids)
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  runSync("ip", ["netns", "del", ns]);
}

/** Namespaces left by a lab whose process is gone (a killed test worker): their keepalived and monitors too. */
export function reapStaleLabs(): string[] {
  const names = runSync("ip", ["netns", "list"])
    .stdout.split("\n")
    .map((l) => l.split(" ")[0] ?? "")
    .filter((n) => n.startsWith(`${PREFIX}-`));
  const stale = names.filter((n) => {
    const pid = Number(n.split("-")[1]);
    return Number.isInteger(pid) && pid !== process.pid && !pidAlive(pid);
  });
  for (const ns of stale) deleteNamespace(ns);
  return stale;
}

// ---- reading the tree ----

/** Variables of a conf.d/net as the shell sees them after sourcing it (netifrc sources it too). */
function netifrcVariables(file: string): Map<string, string> {
  const out = mustSync("env", ["-i", "bash", "-c", 'set -a; . "$1"; env -0', "bash", file]);
  const vars = new Map<string, string>();
  for (const entry of out.split("\0")) {
    const eq = entry.indexOf("=");
    if (eq > 0) vars.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return vars;
}

function nodeInterfaces(plan: ClusterPlan, tree: string, node: string): LabNodeInterface[] {
  const planned = plan.nodes.find((n) => n.name === node);
  if (!planned) throw new Error(`node ${node} is not in the plan`);
  const net = join(tree, "nodes", node, "etc", "conf.d", "net");
  const vars = existsSync(net) ? netifrcVariables(net) : new Map<string, string>();
  return planned.interfaces.map((f) => ({
    name: f.name,
    cidrs: (vars.get(`config_${shellVar(f.name)}`) ?? "").split(/\s+/).filter((t) => t.includes("/")),
  }));
}

// ---- the lab ----

export interface VrrpLabOptions {
  readonly plan: ClusterPlan;
  /** A tree written by `clusterspec generate --with-secrets -o <dir>`. */
  readonly tree: string;
  /**
   * Other trees of the same cluster (a change's new tree): their keepalived nodes get a namespace too (addresses
   * from their conf.d/net) without starting, and their VIPs are observed. Nodes start only on `tree`.
   */
  readonly others?: readonly { readonly plan: ClusterPlan; readonly tree: string }[];
  /**
   * Start every node alone (bridge ports isolated) until `connect()`. Needed with nopreempt, where whoever
   * happens to start first would keep a VIP; default: only with nopreempt.
   */
  readonly isolatedStart?: boolean;
}

/**
 * Builds the lab and starts every keepalived. With `isolatedStart` the bridge ports are isolated first, so each
 * node becomes master of every VIP it has an instance for, alone; `connect()` then lets them meet and the masters
 * resolve by priority, which gives the plan's state at rest even with nopreempt (a backup that merely started
 * later would otherwise keep a lower-priority master). Without it, the nodes meet from the start.
 */
export async function startVrrpLab(options: VrrpLabOptions): Promise<VrrpLab> {
  installExitHandlers();
  reapStaleLabs();
  const { plan, tree } = options;
  const isolatedStart = options.isolatedStart ?? plan.vrrp.nopreempt;
  const id = `${PREFIX}-${process.pid}-${randomBytes(3).toString("hex")}`;
  const bridgeNs = `${id}-br`;
  const root = mkdtempSync(join(tmpdir(), `${id}-`));
  chmodSync(root, 0o755);
  const sides = [{ plan, tree }, ...(options.others ?? [])];
  const allVips = sides.flatMap((side) => side.plan.vips);
  // Every instance's address: a dual-stack pair's IPv6 half is observed as its own VIP.
  const vipAddresses = [...new Set(allVips.flatMap((v) => instanceAddresses(v).map((a) => canonicalIp(a.address))))];
  const vipSet = new Set(vipAddresses);
  const hasKeepalived = (t: string, n: string) =>
    existsSync(join(t, "nodes", n, "etc", "keepalived", "keepalived.conf"));
  /** Each node with the first tree that runs keepalived on it (its interfaces and addresses come from there). */
  const sideOf = new Map<string, { plan: ClusterPlan; tree: string }>();
  for (const side of sides)
    for (const n of side.plan.nodes)
      if (!sideOf.has(n.name) && hasKeepalived(side.tree, n.name)) sideOf.set(n.name, side);
  const nodeNames = [...sideOf.keys()];
  const interfacesOf = (n: string) => {
    const side = sideOf.get(n) ?? { plan, tree };
    return nodeInterfaces(side.plan, side.tree, n);
  };
  const ifaceNames = [...new Set(nodeNames.flatMap((n) => interfacesOf(n).map((f) => f.name)))];
  const bridgeOf = (iface: string) => `b${ifaceNames.indexOf(iface)}`;
  const created: string[] = [];
  let destroyed = false;

  const nodes: LabNode[] = nodeNames.map((name, i) => {
    const interfaces = interfacesOf(name);
    const dir = join(root, `n${i}`);
    for (const sub of ["etc", "run"]) mkdirSync(join(dir, sub), { recursive: true, mode: 0o755 });
    chmodSync(dir, 0o755);
    const src = join(tree, "nodes", name, "etc", "keepalived");
    const { hasCheck, hasReadiness } = copyKeepalivedFiles(
      src,
      join(dir, "etc"),
      ["keepalived.conf", "auth.conf", ...Object.keys(STUBS)].filter((f) => existsSync(join(src, f))),
    );
    return {
      name,
      ns: `${id}-${i}`,
      dir,
      interfaces,
      ports: interfaces.map((_, j) => `p${i}x${j}`),
      hasCheck,
      hasReadiness,
      keepalived: undefined,
      monitor: undefined,
      up: false,
      addresses: new Map(),
      history: new Map(),
      initialisedAt: undefined,
    };
  });
  const byName = (name: string): LabNode => {
    const n = nodes.find((x) => x.name === name);
    if (!n) throw new Error(`no lab node ${name} (lab nodes: ${nodeNames.join(", ")})`);
    return n;
  };

  const listeners = new Set<() => void>();
  const notify = () => {
    for (const l of [...listeners]) l();
  };

  const destroy = () => {
    if (destroyed) return;
    destroyed = true;
    labs.delete(entry);
    for (const n of nodes)
      for (const child of [n.keepalived, n.monitor])
        if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null)
          try {
            process.kill(-child.pid, "SIGKILL");
          } catch {
            // already gone
          }
    for (const ns of created) deleteNamespace(ns);
    rmSync(root, { recursive: true, force: true });
  };
  const entry = { destroy };
  labs.add(entry);

  const keepLog = (n: LabNode) => join(n.dir, "keepalived.log");

  const startKeepalived = (n: LabNode) => {
    for (const f of ["keepalived.pid", "vrrp.pid"]) rmSync(join(n.dir, "run", f), { force: true });
    const fd = openSync(keepLog(n), "a", 0o600);
    n.initialisedAt = undefined;
    // ip netns exec gives a mount namespace of its own; unshare makes ours private on top, so the binds never
    // reach the host: /etc/keepalived is the node's generated folder, /run the lab's (pid files, the stub's flag).
    const child = spawn(
      "ip",
      [
        "netns",
        "exec",
        n.ns,
        "unshare",
        "-m",
        "--propagation",
        "private",
        "sh",
        "-c",
        'mount --bind "$1/etc" /etc/keepalived && mount --bind "$1/run" /run && exec keepalived -n -P -l -f /etc/keepalived/keepalived.conf -p /run/keepalived.pid -r /run/vrrp.pid',
        "sh",
        n.dir,
      ],
      { detached: true, stdio: ["ignore", "pipe", "pipe"] },
    );
    // keepalived -l stamps its lines to the second only: each line is stamped on arrival here (an upper bound of
    // when it was written) and kept in the node's log file.
    let rest = "";
    const onData = (chunk: Buffer) => {
      const at = Date.now();
      const text = rest + chunk.toString("utf8");
      const lines = text.split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (INIT_LINE.test(line)) n.initialisedAt = at;
      if (lines.length > 0) writeSync(fd, `${lines.join("\n")}\n`);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.on("close", () => {
      if (rest) writeSync(fd, `${rest}\n`);
      closeSync(fd);
    });
    child.on("error", () => undefined);
    n.keepalived = child;
    n.up = true;
  };

  /**
   * Waits (at most `timeoutMs`) until every interface of the node is operationally up with its IPv6 link-local
   * address, as on a booted node whose networking is up before keepalived starts. `ip link set up` returns before
   * the kernel's link watch reports the carrier: a keepalived started in between puts its instances in FAULT
   * ("interface wan1 down", "no IPv6 address for interface") without the "(init)" line whenInitialised waits for
   * (seen: 60 s lost at rest on a busy host, seed 7 of the IPv6 labs). Gives up quietly: keepalived copes either way.
   */
  const linksReady = async (n: LabNode, timeoutMs = 10_000): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const [links, local] = await Promise.all([
        must("ip", ["-n", n.ns, "-o", "link", "show"]),
        must("ip", ["-n", n.ns, "-o", "-6", "addr", "show", "scope", "link"]),
      ]);
      const ready = n.interfaces.every(({ name }) => {
        const own = (text: string) =>
          text.split("\n").filter((l) => l.split(/\s+/)[1]?.split("@")[0]?.replace(/:$/, "") === name);
        return (
          own(links).some((l) => / state UP /.test(l)) &&
          own(local).some((l) => /\sinet6 fe80:/.test(l) && !/ tentative/.test(l))
        );
      });
      if (ready || Date.now() >= deadline) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  const startMonitor = (n: LabNode): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = spawn("ip", ["-n", n.ns, "-ts", "-o", "monitor", "address"], {
        detached: true,
        stdio: ["ignore", "pipe", "pipe"],
      });
      n.monitor = child;
      let buffer = "";
      child.on("error", reject);
      child.stdout?.setEncoding("utf8").on("data", (d: string) => {
        buffer += d;
        let nl = buffer.indexOf("\n");
        while (nl >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          applyMonitorLine(n, line);
          nl = buffer.indexOf("\n");
        }
        notify();
      });
      // Ready once an address we add on lo shows up: the monitor is subscribed from then on.
      const probe = "127.0.0.99/32";
      const ready = () => {
        if (!n.addresses.has("127.0.0.99")) return;
        listeners.delete(ready);
        must("ip", ["-n", n.ns, "addr", "del", probe, "dev", "lo"]).then(() => resolve(), reject);
      };
      listeners.add(ready);
      const tryProbe = (attempt: number) => {
        if (n.addresses.has("127.0.0.99")) return;
        exec("ip", ["-n", n.ns, "addr", "replace", probe, "dev", "lo"]).then(() => {
          // The monitor may not have subscribed before this add: retry by removing and adding again.
          setTimeout(() => {
            if (n.addresses.has("127.0.0.99")) return;
            if (attempt > 50) reject(new Error(`ip monitor in ${n.ns} never reported the probe address`));
            else exec("ip", ["-n", n.ns, "addr", "del", probe, "dev", "lo"]).then(() => tryProbe(attempt + 1));
          }, 20);
        }, reject);
      };
      tryProbe(0);
    });

  try {
    // Namespaces, then every veth pair with one end in the node's namespace and one in the bridge namespace.
    const hostBatch = [`netns add ${bridgeNs}`, ...nodes.map((n) => `netns add ${n.ns}`)];
    mustSync("ip", ["-batch", "-"], `${hostBatch.join("\n")}\n`);
    created.push(bridgeNs, ...nodes.map((n) => n.ns));
    // No IPv6 duplicate-address detection on the lab's links (set before they exist, so every veth inherits it):
    // a tentative address (a node's, its link-local one VRRPv3 sends from, or a VIP) would hold an instance in
    // FAULT for a second or more, which is a property of the lab's timing, not of the plan.
    for (const ns of [bridgeNs, ...nodes.map((n) => n.ns)])
      for (const scope of ["all", "default"])
        mustSync("ip", ["netns", "exec", ns, "sysctl", "-qw", `net.ipv6.conf.${scope}.accept_dad=0`]);
    const links = nodes.flatMap((n) =>
      n.interfaces.map(
        (f, j) => `link add ${f.name} netns ${n.ns} type veth peer name ${n.ports[j]} netns ${bridgeNs}`,
      ),
    );
    mustSync("ip", ["-batch", "-"], `${links.join("\n")}\n`);
    const brBatch = [
      ...ifaceNames.flatMap((f) => [
        `link add ${bridgeOf(f)} type bridge mcast_snooping 0`,
        `link set ${bridgeOf(f)} up`,
      ]),
      ...nodes.flatMap((n) =>
        n.interfaces.flatMap((f, j) => [
          `link set ${n.ports[j]} master ${bridgeOf(f.name)}`,
          `link set ${n.ports[j]} up`,
        ]),
      ),
    ];
    mustSync("ip", ["-n", bridgeNs, "-batch", "-"], `${brBatch.join("\n")}\n`);
    // Isolated ports talk to no other isolated port: every node starts alone.
    if (isolatedStart) {
      const isolate = nodes.flatMap((n) => n.ports.map((p) => `link set dev ${p} isolated on`));
      mustSync("bridge", ["-n", bridgeNs, "-batch", "-"], `${isolate.join("\n")}\n`);
    }
    await Promise.all(nodes.map(startMonitor));
    await Promise.all(
      nodes.map((n) => {
        const batch = [
          "link set lo up",
          ...n.interfaces.flatMap((f) => [
            ...f.cidrs.map((c) => `addr add ${c} dev ${f.name}`),
            `link set ${f.name} up`,
          ]),
        ];
        return must("ip", ["-n", n.ns, "-batch", "-"], `${batch.join("\n")}\n`);
      }),
    );
    await Promise.all(nodes.map((n) => linksReady(n)));
    for (const n of nodes) if (hasKeepalived(tree, n.name)) startKeepalived(n);
  } catch (e) {
    destroy();
    throw e;
  }

  function applyMonitorLine(n: LabNode, line: string): void {
    // [2026-11-30T20:39:26.962327] Deleted 2: wan1    inet 10.118.11.20/32 scope global wan1\ ...
    const m = /^\[([0-9T:.-]+)\]\s+(Deleted\s+)?\d+:\s+\S+\s+inet6?\s+([0-9a-fA-F.:]+)\//.exec(line);
    if (!m) return;
    const [, ts = "", deleted, addr = ""] = m;
    const at = parseMonitorTime(ts);
    const a = canonicalIp(addr);
    if (deleted) n.addresses.delete(a);
    else {
      n.addresses.set(a, at);
      const seen = n.history.get(a);
      if (seen) seen.push(at);
      else n.history.set(a, [at]);
    }
  }

  const observe = (): Observation => {
    const out = new Map<string, string[]>();
    for (const a of vipAddresses) out.set(a, []);
    for (const n of nodes) {
      if (!n.up) continue;
      for (const a of n.addresses.keys()) if (vipSet.has(a)) out.get(a)?.push(n.name);
    }
    return out;
  };

  const observeAll = (): Observation => {
    const out = new Map<string, string[]>();
    for (const a of vipAddresses) out.set(a, []);
    for (const n of nodes) for (const a of n.addresses.keys()) if (vipSet.has(a)) out.get(a)?.push(n.name);
    return out;
  };

  const keepalivedPid = (n: LabNode): number => {
    const pid = Number(readFileSync(join(n.dir, "run", "keepalived.pid"), "utf8").trim());
    if (!Number.isInteger(pid) || pid <= 0) throw new Error(`${n.name}: no keepalived pid`);
    return pid;
  };

  const lab: VrrpLab = {
    nodes: nodeNames,
    vipAddresses,
    observe,
    async snapshot() {
      const out = new Map<string, string[]>();
      for (const a of vipAddresses) out.set(a, []);
      const shown = await Promise.all(
        nodes.filter((n) => n.up).map(async (n) => ({ n, text: await must("ip", ["-n", n.ns, "-o", "addr", "show"]) })),
      );
      for (const { n, text } of shown)
        for (const m of text.matchAll(/\sinet6?\s+([0-9a-fA-F.:]+)\//g)) {
          const a = canonicalIp(m[1] ?? "");
          if (vipSet.has(a)) out.get(a)?.push(n.name);
        }
      return out;
    },
    appearedAt: (node, address) => byName(node).addresses.get(canonicalIp(address)),
    isolatedStart,
    async connect() {
      if (!isolatedStart) return;
      const open = nodes.flatMap((n) => n.ports.map((p) => `link set dev ${p} isolated off`));
      await must("bridge", ["-n", bridgeNs, "-batch", "-"], `${open.join("\n")}\n`);
    },
    async partition(isolated) {
      const ports = isolated.flatMap((name) => byName(name).ports);
      const set = `{ ${ports.map((p) => `"${p}"`).join(", ")} }`;
      const rules = [
        `add table bridge ${PREFIX}`,
        `add chain bridge ${PREFIX} forward { type filter hook forward priority 0; policy accept; }`,
        `add rule bridge ${PREFIX} forward iifname ${set} oifname != ${set} meta l4proto { 51, 112 } drop`,
        `add rule bridge ${PREFIX} forward iifname != ${set} oifname ${set} meta l4proto { 51, 112 } drop`,
      ];
      await must("ip", ["netns", "exec", bridgeNs, "nft", "-f", "-"], `${rules.join("\n")}\n`);
    },
    async heal() {
      await must("ip", ["netns", "exec", bridgeNs, "nft", "delete", "table", "bridge", PREFIX]);
    },
    async kill(node) {
      const n = byName(node);
      const child = n.keepalived;
      if (!n.up || child?.pid === undefined) throw new Error(`${node} is not running`);
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once("exit", () => resolve());
      });
      const at = Date.now();
      // The whole process group: keepalived's parent and its VRRP child die together, neither says goodbye.
      process.kill(-child.pid, "SIGKILL");
      await exited;
      n.up = false;
      n.keepalived = undefined;
      const down = n.ports.map((p) => `link set ${p} down`);
      await must("ip", ["-n", bridgeNs, "-batch", "-"], `${down.join("\n")}\n`);
      const leftovers = [...n.addresses.keys()].filter((a) => vipSet.has(a));
      if (leftovers.length > 0) {
        const ifaceOf = new Map(allVips.map((v) => [canonicalIp(v.address), v]));
        const del = leftovers.map((a) => {
          const v = ifaceOf.get(a);
          return `addr del ${v?.address}/${v?.prefixLength} dev ${v?.interface}`;
        });
        await exec("ip", ["-n", n.ns, "-force", "-batch", "-"], `${del.join("\n")}\n`);
      }
      notify();
      return at;
    },
    async revive(node) {
      const n = byName(node);
      if (n.up) throw new Error(`${node} is already up`);
      const up = n.ports.map((p) => `link set ${p} up`);
      await must("ip", ["-n", bridgeNs, "-batch", "-"], `${up.join("\n")}\n`);
      await linksReady(n);
      const at = Date.now();
      startKeepalived(n);
      notify();
      return at;
    },
    setHealthy(node, healthy) {
      const n = byName(node);
      if (!n.hasCheck) throw new Error(`${node} has no apiserver check`);
      const flag = join(n.dir, "run", STUB_FLAG);
      const at = Date.now();
      if (healthy) rmSync(flag, { force: true });
      else writeFileSync(flag, "");
      return at;
    },
    setReady(node, ready) {
      const n = byName(node);
      if (!n.hasReadiness) throw new Error(`${node} has no readiness or uplink check`);
      const flag = join(n.dir, "run", READY_FLAG);
      const at = Date.now();
      if (ready) rmSync(flag, { force: true });
      else writeFileSync(flag, "");
      return at;
    },
    appearances: (node, address) => byName(node).history.get(canonicalIp(address)) ?? [],
    installFiles(node, from, paths) {
      const n = byName(node);
      const prefix = `nodes/${node}/etc/keepalived/`;
      const files = paths.map((p) => {
        if (!p.startsWith(prefix) || p.slice(prefix.length).includes("/"))
          throw new Error(`${p} is not a file of ${node}'s /etc/keepalived`);
        return p.slice(prefix.length);
      });
      const result = copyKeepalivedFiles(join(from, "nodes", node, "etc", "keepalived"), join(n.dir, "etc"), files);
      Object.assign(n, result);
    },
    reload(node) {
      const n = byName(node);
      if (!n.up) throw new Error(`${node}: keepalived is not running`);
      const at = Date.now();
      process.kill(keepalivedPid(n), "SIGHUP");
      return at;
    },
    async stopKeepalived(node) {
      const n = byName(node);
      const child = n.keepalived;
      if (!n.up || child === undefined) throw new Error(`${node}: keepalived is not running`);
      const exited = new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) resolve();
        else child.once("exit", () => resolve());
      });
      const at = Date.now();
      process.kill(keepalivedPid(n), "SIGTERM");
      await exited;
      n.up = false;
      n.keepalived = undefined;
      notify();
      return at;
    },
    startKeepalived(node) {
      const n = byName(node);
      if (n.up) throw new Error(`${node}: keepalived already runs`);
      const at = Date.now();
      startKeepalived(n);
      notify();
      return at;
    },
    running: (node) => byName(node).up,
    whenInitialised(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const done = () => nodes.every((n) => !n.up || n.keepalived === undefined || n.initialisedAt !== undefined);
      return new Promise((resolve) => {
        const poll = () => {
          if (done()) resolve(true);
          else if (Date.now() >= deadline) resolve(false);
          else setTimeout(poll, 50);
        };
        poll();
      });
    },
    startupSeconds(node, since) {
      const at = byName(node).initialisedAt;
      return at === undefined ? undefined : Math.max(0, (at - since) / 1000);
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    observeAll,
    waitFor(expected, options) {
      return lab.waitUntil((observed) => holderDifferences(plan, expected, observed), options);
    },
    waitUntil(differences, { deadlineMs, holdMs }) {
      return new Promise((resolve) => {
        let matchedSince: number | undefined;
        let holdTimer: NodeJS.Timeout | undefined;
        const finish = (ok: boolean) => {
          listeners.delete(check);
          clearTimeout(deadline);
          clearTimeout(holdTimer);
          const observed = observe();
          resolve({ ok, reachedAt: ok ? matchedSince : undefined, observed, diff: differences(observed) });
        };
        const check = () => {
          const matches = differences(observe()).length === 0;
          if (matches && matchedSince === undefined) {
            matchedSince = Date.now();
            holdTimer = setTimeout(() => finish(true), holdMs);
          } else if (!matches && matchedSince !== undefined) {
            matchedSince = undefined;
            clearTimeout(holdTimer);
            if (late) finish(false);
          }
        };
        // The deadline is for reaching the state; a hold under way when it passes may still complete.
        let late = false;
        const deadline = setTimeout(() => {
          late = true;
          if (matchedSince === undefined) finish(false);
        }, deadlineMs);
        listeners.add(check);
        check();
      });
    },
    logs(lines = 15) {
      return nodes
        .map((n) => {
          const text = existsSync(keepLog(n)) ? readFileSync(keepLog(n), "utf8") : "";
          return `--- ${n.name} (${n.ns}) keepalived log, last ${lines} lines\n${text.trimEnd().split("\n").slice(-lines).join("\n")}`;
        })
        .join("\n");
    },
    lateTimerSeconds() {
      let late = 0;
      for (const n of nodes) {
        const text = existsSync(keepLog(n)) ? readFileSync(keepLog(n), "utf8") : "";
        for (const m of text.matchAll(/A thread timer expired (\d+(?:\.\d+)?) seconds ago/g))
          late = Math.max(late, Number(m[1]));
      }
      return late;
    },
    droppedAdverts() {
      let dropped = 0;
      for (const n of nodes) {
        const pid = n.keepalived?.pid;
        if (pid === undefined || !n.up) continue;
        for (const table of ["raw", "raw6"])
          try {
            // /proc/<pid>/net is the process's namespace; each socket's line ends with its drops
            for (const line of readFileSync(`/proc/${pid}/net/${table}`, "utf8").trim().split("\n").slice(1))
              dropped += Number(line.trim().split(/\s+/).at(-1)) || 0;
          } catch {
            // the daemon is gone
          }
      }
      return dropped;
    },
    async stop() {
      destroy();
    },
  };
  return lab;
}

/** Copies a node's keepalived files into its lab /etc/keepalived, the check scripts replaced by the stubs. */
function copyKeepalivedFiles(
  src: string,
  dest: string,
  files: readonly string[],
): { hasCheck: boolean; hasReadiness: boolean } {
  for (const file of files) {
    const from = join(src, file);
    const to = join(dest, file);
    const replacement = STUBS[file];
    if (replacement) {
      writeFileSync(to, replacement.text);
      chmodSync(to, 0o755);
    } else {
      writeFileSync(to, readFileSync(from));
      chmodSync(to, statSync(from).mode & 0o777);
    }
  }
  return {
    hasCheck: existsSync(join(dest, "check-apiserver.sh")),
    hasReadiness: existsSync(join(dest, "check-cilium.sh")) || existsSync(join(dest, "check-uplink.sh")),
  };
}

/** `ip -ts` prints local time with microseconds and no zone: Date reads that as local time too. */
function parseMonitorTime(ts: string): number {
  const [whole = "", frac = "0"] = ts.split(".");
  return new Date(whole).getTime() + Number(`0.${frac}`) * 1000;
}
