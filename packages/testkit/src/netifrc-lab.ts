// One node's netifrc (iproute2 module) under OpenRC, emulated in a network namespace: enough to run a change plan's
// netifrc commands (`rc-service net.<if> start|stop|restart`, `ip rule del …`) against a node that runs the old
// conf.d/net, and to compare the kernel's routes and rules with the new conf.d/net applied from scratch.
// As netifrc does: start sets the MTU, adds the addresses, appends the routes (`ip route append … dev <if>`) and adds
// the rules (`ip -4 rule add`, `ip -6 rule add`); a parent's start creates its VLANs (vlans_<if>); stop deletes the
// rules of the file installed at that moment, flushes the addresses and takes the link down (the kernel drops the
// routes through it), after the VLANs on it stopped (OpenRC stops what needs a service first) and were deleted.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { shellVar } from "@clusterspec/core";
import { ipWithTables, type Netns, withNetns } from "./netns.js";
import { run } from "./tools.js";

export interface NetifrcNode {
  readonly ns: Netns;
  /** Installs the node's /etc/conf.d/net and /etc/iproute2/rt_tables.d/* (name → content). */
  install(confdNet: string, rtTables: Readonly<Record<string, string>>): void;
  /** Starts every interface netifrc would start at boot, in this order (parents before VLANs). */
  boot(interfaces: readonly string[]): void;
  /** Runs one command of a change plan's netifrc step, as OpenRC and netifrc would. */
  command(line: string): void;
  /** `ip route show table all` and `ip rule show` (both families), each sorted: the state to compare. */
  routing(): string;
}

const lines = (value: string | undefined): string[] =>
  (value ?? "")
    .split("\n")
    .map((l) => l.trim().replace(/\s+/g, " "))
    .filter(Boolean);

/** A namespace with the given physical interfaces (veths), then `fn` with the emulated netifrc of the node. */
export async function withNetifrcNode<T>(
  physical: readonly string[],
  fn: (node: NetifrcNode) => T | Promise<T>,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "cs-netifrc-lab-"));
  const etc = join(dir, "iproute2");
  mkdirSync(join(etc, "rt_tables.d"), { recursive: true });
  const net = join(dir, "net");
  writeFileSync(net, "");
  try {
    return await withNetns(physical, async (ns) => {
      const started = new Set<string>();
      // iproute2 resolves table names from the node's rt_tables.d only: /etc/iproute2 is ours in a private mount.
      const ip = (args: readonly string[]) => ipWithTables(etc, ns.name, args);
      const must = (args: readonly string[]) => {
        const r = ip(args);
        if (r.status !== 0) throw new Error(`ip ${args.join(" ")} failed: ${r.stderr}`);
        return r.stdout;
      };
      const vars = (): Map<string, string> => {
        const r = run("env", ["-i", "bash", "-c", 'set -a; . "$1"; env -0', "bash", net]);
        if (r.status !== 0) throw new Error(`sourcing conf.d/net failed: ${r.stderr}`);
        const out = new Map<string, string>();
        for (const entry of r.stdout.split("\0")) {
          const eq = entry.indexOf("=");
          if (eq > 0) out.set(entry.slice(0, eq), entry.slice(eq + 1));
        }
        return out;
      };
      const exists = (iface: string) => ip(["link", "show", "dev", iface]).status === 0;
      const createVlan = (parent: string, id: string) => {
        const name = `${parent}.${id}`;
        if (exists(name)) return;
        const r = ip(["link", "add", "link", parent, "name", name, "type", "vlan", "id", id]);
        // Some container kernels lack 8021q: a veth of that name stands in (routes do not depend on the link type).
        if (r.status !== 0 && /Unknown device type/.test(r.stderr))
          must(["link", "add", name, "type", "veth", "peer", "name", `v${id}-${ns.name.slice(3)}`]);
        else if (r.status !== 0) throw new Error(`VLAN ${name}: ${r.stderr}`);
      };
      const children = (iface: string) => [...started].filter((x) => x.startsWith(`${iface}.`));
      const start = (iface: string) => {
        const v = vars();
        const sv = shellVar(iface);
        const vlan = /^(.+)\.(\d+)$/.exec(iface);
        if (!exists(iface) && vlan?.[1] && vlan[2]) createVlan(vlan[1], vlan[2]);
        const mtu = v.get(`mtu_${sv}`);
        if (mtu) must(["link", "set", "dev", iface, "mtu", mtu]);
        must(["link", "set", "dev", iface, "up"]);
        for (const c of lines(v.get(`config_${sv}`))) if (c !== "null") must(["address", "add", c, "dev", iface]);
        for (const r of lines(v.get(`routes_${sv}`))) must(["route", "append", ...r.split(" "), "dev", iface]);
        for (const r of lines(v.get(`rules_${sv}`))) must(["-4", "rule", "add", ...r.split(" ")]);
        for (const r of lines(v.get(`rules6_${sv}`))) must(["-6", "rule", "add", ...r.split(" ")]);
        for (const id of (v.get(`vlans_${sv}`) ?? "").split(/\s+/).filter(Boolean)) createVlan(iface, id);
        started.add(iface);
      };
      const stop = (iface: string) => {
        for (const child of children(iface)) stop(child);
        const v = vars();
        const sv = shellVar(iface);
        // netifrc deletes the rules its file lists now; a failure (rule not there) is ignored, as netifrc does.
        for (const r of lines(v.get(`rules_${sv}`))) ip(["-4", "rule", "del", ...r.split(" ")]);
        for (const r of lines(v.get(`rules6_${sv}`))) ip(["-6", "rule", "del", ...r.split(" ")]);
        must(["address", "flush", "dev", iface]);
        must(["link", "set", "dev", iface, "down"]);
        for (const x of [...started]) if (x.startsWith(`${iface}.`) && exists(x)) must(["link", "del", "dev", x]);
        started.delete(iface);
      };
      const node: NetifrcNode = {
        ns,
        install(confdNet, rtTables) {
          writeFileSync(net, confdNet);
          rmSync(join(etc, "rt_tables.d"), { recursive: true, force: true });
          mkdirSync(join(etc, "rt_tables.d"));
          for (const [name, content] of Object.entries(rtTables))
            writeFileSync(join(etc, "rt_tables.d", name), content);
        },
        boot(interfaces) {
          for (const f of interfaces) start(f);
        },
        command(line) {
          const words = line.split(" ");
          const service = /^net\.(.+)$/.exec(words[1] ?? "")?.[1];
          if (words[0] === "rc-service" && service) {
            const action = words[2];
            if (action === "start") start(service);
            else if (action === "stop") stop(service);
            else if (action === "restart") {
              const again = children(service);
              stop(service);
              start(service);
              for (const c of again) if (!started.has(c)) start(c);
            } else throw new Error(`the netifrc lab cannot run "${line}"`);
          } else if (words[0] === "rc-update" || (words[0] === "ln" && words[1] === "-s") || words[0] === "rm") {
            // Boot runlevel and init script links: nothing to emulate.
          } else if (words[0] === "ip" && (words[1] === "-4" || words[1] === "-6") && words[2] === "rule") {
            must(words.slice(1));
          } else throw new Error(`the netifrc lab cannot run "${line}"`);
        },
        routing() {
          const sorted = (text: string) =>
            text
              .split("\n")
              .map((l) => l.trim())
              .filter(Boolean)
              .sort();
          return [
            ...sorted(must(["-4", "route", "show", "table", "all"])),
            ...sorted(must(["-6", "route", "show", "table", "all"])),
            ...sorted(must(["-4", "rule", "show"])),
            ...sorted(must(["-6", "rule", "show"])),
          ].join("\n");
        },
      };
      return await fn(node);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
