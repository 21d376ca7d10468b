// Real-tool checks of conf.d/net: bash reads it back, iproute2 applies it inside a throwaway namespace.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterPlan, instanceAddresses, type PlannedNode } from "@clusterspec/core";
import { ipWithTables, type Netns, run, withNetns } from "@clusterspec/testkit";
import { variableLines } from "../src/template.js";
import type { NetifrcView } from "../src/view.js";

// IPv6 addresses skip duplicate address detection so `ip route get` can use them at once.
const nodad = (address: string): string => (address.includes(":") ? " nodad" : "");
const hostBits = (ip: string): number => (ip.includes(":") ? 128 : 32);

export async function withTempDirAsync<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "cs-netifrc-"));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export function withTempDir<T>(fn: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), "cs-netifrc-"));
  try {
    return fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Sources the file with `set -u` in a clean bash and returns the value of each named variable (unset: undefined). */
export function sourceValues(content: string, names: readonly string[]): Map<string, string | undefined> {
  return withTempDir((dir) => {
    const file = join(dir, "net");
    writeFileSync(file, content);
    const syntax = run("bash", ["-n", file]);
    if (syntax.status !== 0) throw new Error(`bash -n failed: ${syntax.stderr}`);
    const script = `set -u; . "$1"; shift; for n in "$@"; do if [ -n "\${!n+x}" ]; then printf '%s=%s\\0' "$n" "\${!n}"; fi; done`;
    const r = run("env", ["-i", "bash", "--norc", "--noprofile", "-c", script, "bash", file, ...names]);
    if (r.status !== 0 || r.stderr !== "") throw new Error(`sourcing failed (${r.status}): ${r.stderr}`);
    const out = new Map<string, string | undefined>(names.map((n) => [n, undefined]));
    for (const entry of r.stdout.split("\0").slice(0, -1)) {
      const eq = entry.indexOf("=");
      out.set(entry.slice(0, eq), entry.slice(eq + 1));
    }
    return out;
  });
}

/** netifrc's _get_array: one entry per non-empty line, trimmed, inner whitespace squeezed. */
export function netifrcArray(value: string | undefined): string[] {
  return (value ?? "")
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "))
    .filter((l) => l !== "");
}

/**
 * The `ip` arguments netifrc's start() and iproute2.sh `_add_route` build from one routes_ line:
 * a family prefix is taken off, three words get `via` inserted, `metric` is appended unless given,
 * and `dev <iface>` always follows. netifrc uses `route append`; we use `add`, so a duplicate fails.
 */
export function netifrcRouteCommand(entry: string, iface: string, metric: number): IpCommand {
  let words = entry.split(" ");
  let family: IpCommand["family"] = "";
  if (words[0] === "-4" || words[0] === "-6") {
    family = words[0];
    words = words.slice(1);
  }
  let args = ["-net", ...words];
  if (args.length === 3) args = [args[0] ?? "", args[1] ?? "", "via", args[2] ?? ""];
  else if (args[2] === "gw") args = [args[0] ?? "", args[1] ?? "", "via", ...args.slice(3)];
  const cmd: string[] = [];
  let haveMetric = false;
  for (let i = 0; i < args.length; i++) {
    const w = args[i] ?? "";
    if (w === "metric") {
      cmd.push("metric", args[++i] ?? "");
      haveMetric = true;
    } else if (w === "netmask") throw new Error("netmask routes are not generated");
    else if (w !== "-host" && w !== "-net") cmd.push(w);
  }
  if (!haveMetric && !cmd.includes("nexthop")) cmd.push("metric", String(metric));
  return { family, line: ["route", "add", ...cmd, "dev", iface].join(" ") };
}

/** One `ip` command line and the family option it runs with (`ip -6 …` for netifrc's `-6` routes and rules6_). */
export interface IpCommand {
  readonly family: "" | "-4" | "-6";
  readonly line: string;
}

export interface AppliedNode {
  readonly ns: Netns;
  /**
   * Runs `ip -n <ns> <args>` in a private mount namespace whose /etc/iproute2 holds only the node's
   * `rt_tables.d/*.conf`: a table name resolves only if the generated drop-in declares it.
   */
  ip(args: readonly string[]): { status: number; stdout: string; stderr: string };
}

/**
 * Creates the node's interfaces in a fresh namespace (VLANs as VLANs), adds its addresses and the VIPs it may hold,
 * then applies every routes_ and rules_ entry as netifrc does. Throws on any error.
 */
export async function withAppliedNode<T>(
  plan: ClusterPlan,
  node: PlannedNode,
  files: { confdNet: string; rtTablesD: Readonly<Record<string, string>> },
  fn: (applied: AppliedNode) => T | Promise<T>,
): Promise<T> {
  const physical = node.interfaces.filter((f) => !f.vlan).map((f) => f.name);
  return withTempDirAsync(async (dir) => {
    const etc = join(dir, "iproute2");
    mkdirSync(join(etc, "rt_tables.d"), { recursive: true });
    for (const [name, content] of Object.entries(files.rtTablesD))
      writeFileSync(join(etc, "rt_tables.d", name), content);
    return withNetns(physical, async (ns) => {
      const ipIn = (args: readonly string[]) => ipWithTables(etc, ns.name, args);
      for (const f of node.interfaces) {
        if (!f.vlan) continue;
        const vlan = ns.exec("ip", [
          "link",
          "add",
          "link",
          f.vlan.parent,
          "name",
          f.name,
          "type",
          "vlan",
          "id",
          String(f.vlan.id),
        ]);
        // Some container kernels lack 8021q ("Unknown device type"); routes do not depend on the link type.
        if (vlan.status !== 0 && /Unknown device type/.test(vlan.stderr))
          ns.must("ip", ["link", "add", f.name, "type", "veth", "peer", "name", `v${f.vlan.id}-${ns.name.slice(3)}`]);
        else if (vlan.status !== 0) throw new Error(`VLAN ${f.name}: ${vlan.stderr}`);
      }
      // veth peers stay in the namespace; bring everything up so routes are not linkdown.
      const up = ns
        .must("ip", ["-o", "link", "show"])
        .split("\n")
        .map((l) => /^\d+: ([^:@]+)/.exec(l)?.[1])
        .filter((n): n is string => n !== undefined && n !== "lo");
      const upFile = join(dir, "up");
      writeFileSync(upFile, up.map((n) => `link set dev ${n} up\n`).join(""));
      ns.must("ip", ["-batch", upFile]);
      const values = sourceValues(
        files.confdNet,
        node.interfaces.flatMap((f) => {
          const v = f.name.replace(/[^A-Za-z0-9_]/g, "_");
          return [`config_${v}`, `mtu_${v}`, `routes_${v}`, `rules_${v}`, `rules6_${v}`];
        }),
      );
      const batch: IpCommand[] = [];
      const plain = (line: string) => batch.push({ family: "", line });
      // iproute2.sh's pre-start: `ip link set dev <if> mtu <mtu_if>` before any address (parents come first).
      for (const f of [...node.interfaces].sort(
        (a, b) => Number(a.vlan !== undefined) - Number(b.vlan !== undefined),
      )) {
        const v = f.name.replace(/[^A-Za-z0-9_]/g, "_");
        const mtu = values.get(`mtu_${v}`);
        if (mtu !== undefined) plain(`link set dev ${f.name} mtu ${mtu}`);
      }
      for (const f of node.interfaces) {
        const v = f.name.replace(/[^A-Za-z0-9_]/g, "_");
        for (const c of netifrcArray(values.get(`config_${v}`)))
          if (c !== "null") plain(`address add ${c} dev ${f.name}${nodad(c)}`);
      }
      // keepalived would add these; here they only give `ip route get` a local source.
      for (const vip of plan.vips)
        if (node.interfaces.some((f) => f.name === vip.interface))
          for (const a of instanceAddresses(vip))
            plain(
              `address add ${a.address}/${vip.kind === "control-plane" ? a.prefixLength : hostBits(a.address)} dev ${vip.interface}${nodad(a.address)}`,
            );
      node.interfaces.forEach((f, i) => {
        const v = f.name.replace(/[^A-Za-z0-9_]/g, "_");
        for (const r of netifrcArray(values.get(`routes_${v}`))) batch.push(netifrcRouteCommand(r, f.name, i + 2));
      });
      // iproute2.sh: `ip -4 rule add <entry>` for rules_, `ip -6 rule add <entry>` for rules6_.
      for (const f of node.interfaces) {
        const v = f.name.replace(/[^A-Za-z0-9_]/g, "_");
        for (const r of netifrcArray(values.get(`rules_${v}`))) batch.push({ family: "-4", line: `rule add ${r}` });
        for (const r of netifrcArray(values.get(`rules6_${v}`))) batch.push({ family: "-6", line: `rule add ${r}` });
      }
      // Consecutive commands of one family run as one `ip [-4|-6] -batch`, in order; the first error stops the test.
      for (let start = 0; start < batch.length; ) {
        const family = batch[start]?.family ?? "";
        let end = start;
        while (end < batch.length && batch[end]?.family === family) end++;
        const lines = batch.slice(start, end).map((c) => c.line);
        const cmds = join(dir, `batch-${start}`);
        writeFileSync(cmds, `${lines.join("\n")}\n`);
        const r = ipIn([...(family ? [family] : []), "-batch", cmds]);
        if (r.status !== 0)
          throw new Error(`ip ${family} -batch failed for ${node.name}:\n${r.stderr}\n${lines.join("\n")}`);
        start = end;
      }
      return fn({ ns, ip: ipIn });
    });
  });
}

/** Every variable of a view, by name, with the value the shell sees after sourcing the file (the test oracle). */
export function expectedValues(view: NetifrcView): Map<string, string> {
  const out = new Map<string, string>();
  for (const x of [...view.globals, ...view.interfaces.flatMap((i) => i.variables)]) {
    const lines = variableLines(x);
    out.set(x.name, lines.length === 1 ? (lines[0] ?? "") : `\n${lines.join("\n")}\n`);
  }
  return out;
}
