// Throwaway network namespaces with veth interfaces named as a node's; no packet is sent.
import { randomBytes } from "node:crypto";
import { run } from "./tools.js";

export interface Netns {
  readonly name: string;
  /** Runs a command inside the namespace. */
  exec(cmd: string, args: readonly string[]): { status: number; stdout: string; stderr: string };
  /** Like exec, but throws with the command's stderr on a non-zero exit. */
  must(cmd: string, args: readonly string[]): string;
}

function must(r: { status: number; stdout: string; stderr: string }, what: string): string {
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
  return r.stdout;
}

/**
 * Creates a namespace with one veth interface per name (peers get short random names),
 * runs `fn`, and deletes the namespace whatever happens. VLAN names (`parent.id`) are created as VLANs.
 */
export async function withNetns<T>(interfaces: readonly string[], fn: (ns: Netns) => T | Promise<T>): Promise<T> {
  const name = `cs-${randomBytes(4).toString("hex")}`;
  must(run("ip", ["netns", "add", name]), "ip netns add");
  const ns: Netns = {
    name,
    exec: (cmd, args) => run("ip", ["netns", "exec", name, cmd, ...args]),
    must: (cmd, args) => must(run("ip", ["netns", "exec", name, cmd, ...args]), `${cmd} ${args.join(" ")}`),
  };
  try {
    ns.must("ip", ["link", "set", "lo", "up"]);
    const plain = interfaces.filter((i) => !/\.\d+$/.test(i) || !interfaces.includes(i.replace(/\.\d+$/, "")));
    const vlans = interfaces.filter((i) => !plain.includes(i));
    plain.forEach((iface, n) => {
      ns.must("ip", ["link", "add", iface, "type", "veth", "peer", "name", `p${n}-${name.slice(3)}`]);
      ns.must("ip", ["link", "set", iface, "up"]);
    });
    for (const v of vlans) {
      const dot = v.lastIndexOf(".");
      ns.must("ip", ["link", "add", "link", v.slice(0, dot), "name", v, "type", "vlan", "id", v.slice(dot + 1)]);
      ns.must("ip", ["link", "set", v, "up"]);
    }
    return await fn(ns);
  } finally {
    run("ip", ["netns", "del", name]);
  }
}

/**
 * Runs `ip -n <ns> …` with `etc` bind-mounted over /etc/iproute2 in a private mount namespace, so iproute2 resolves
 * table names from a node's generated rt_tables.d only (iproute2 6.5+ also reads /usr/share/iproute2's stock
 * files, which name no table of ours).
 */
export function ipWithTables(
  etc: string,
  ns: string,
  args: readonly string[],
): { status: number; stdout: string; stderr: string } {
  return run("unshare", [
    "--mount",
    "--propagation",
    "private",
    "--",
    "sh",
    "-c",
    'etc="$1"; ns="$2"; shift 2; mount --bind "$etc" /etc/iproute2 && exec ip -n "$ns" "$@"',
    "sh",
    etc,
    ns,
    ...args,
  ]);
}
