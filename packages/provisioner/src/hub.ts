// The hub's WireGuard interface through `wg` (wireguard-tools): `wg show <if> dump` to read the peers, `wg set` to
// add or remove one. The provisioner runs where it can do this: on the hub itself, as root or with CAP_NET_ADMIN.
import { spawn } from "node:child_process";
import type { HubApi, HubPeer } from "./ports.js";

/** Runs `wg ARGS`, after PREFIX when given (e.g. `ip netns exec <ns>`). */
function wg(args: readonly string[], prefix: readonly string[]): Promise<string> {
  const [cmd, ...rest] = [...prefix, "wg", ...args] as [string, ...string[]];
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, rest, { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      out += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      err += c;
    });
    child.on("error", reject);
    child.on("close", (status) =>
      status === 0 ? resolve(out) : reject(new Error(`wg ${args.join(" ")}: exit ${status}: ${err.trim()}`)),
    );
  });
}

const KEY = /^[A-Za-z0-9+/]{43}=$/;

/** `wg show <if> dump`: the first line is the interface, then one tab-separated line per peer (allowed IPs 4th). */
export function parseDump(dump: string): HubPeer[] {
  return dump
    .split("\n")
    .slice(1)
    .filter((l) => l.trim() !== "")
    .map((l) => l.split("\t"))
    .map((f) => ({
      publicKey: f[0] ?? "",
      allowedIps: f[3] === undefined || f[3] === "(none)" ? [] : f[3].split(","),
    }));
}

export class WgHub implements HubApi {
  constructor(
    private readonly iface: string,
    private readonly prefix: readonly string[] = [],
  ) {}
  async peers(): Promise<HubPeer[]> {
    return parseDump(await wg(["show", this.iface, "dump"], this.prefix));
  }
  async setPeer(publicKey: string, allowedIp: string): Promise<void> {
    if (!KEY.test(publicKey)) throw new Error("not a WireGuard public key");
    await wg(["set", this.iface, "peer", publicKey, "allowed-ips", allowedIp], this.prefix);
  }
  async removePeer(publicKey: string): Promise<void> {
    if (!KEY.test(publicKey)) throw new Error("not a WireGuard public key");
    await wg(["set", this.iface, "peer", publicKey, "remove"], this.prefix);
  }
}
