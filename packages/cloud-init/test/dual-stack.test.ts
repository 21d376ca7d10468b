// Issue 30 item 6: a dual-stack cluster's burst nodes register a tunnel address of each family (kubelet node-ip,
// the cluster's primary family first). The join script's tunnel_address, as it ships in the user data, runs with the
// real `ip` in a network namespace against an interface holding both addresses; the single-stack script is unchanged.

import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSpec, parseYamlDocuments, resolvePlan } from "@clusterspec/core";
import { exampleText, fixtureText, hasTool, run, toolAvailable, withNetns } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateCloudInit } from "../src/generate.js";
import { JOIN_SCRIPT_PATH, joinScript } from "../src/join-script.js";

function userData(name: string): { path: string; doc: { write_files: { path: string; content: string }[] } }[] {
  const loaded = loadSpec(fixtureText(name));
  if (!loaded.ok) throw new Error(`fixture ${name} is invalid`);
  return generateCloudInit(resolvePlan(loaded.value))
    .filter((a) => a.path.endsWith("/user-data.yaml"))
    .map((a) => ({ path: a.path, doc: parseYamlDocuments(a.content)[0] as any }));
}

const fileOf = (doc: { write_files: { path: string; content: string }[] }, path: string): string =>
  doc.write_files.find((f) => f.path === path)?.content ?? "";

/** The shell function `name` of a script, as it ships. */
function shellFunction(script: string, name: string): string {
  const m = new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, "m").exec(script);
  if (!m) throw new Error(`no ${name} in the script`);
  return m[0];
}

describe("dual-stack burst nodes", () => {
  it.each([
    ["dual-stack-cloud", "4 6"],
    ["dual-stack-cloud-burst-only", "6 4"],
  ])("%s: join.env lists the tunnel families primary first (%s), the script parses", (name, families) => {
    const all = userData(name);
    expect(all.length).toBeGreaterThan(0);
    for (const { doc } of all) {
      expect(fileOf(doc, "/etc/clusterspec/join.env")).toContain(`TUNNEL_FAMILY='${families}'`);
      const script = fileOf(doc, JOIN_SCRIPT_PATH);
      expect(script).toContain("for family in $TUNNEL_FAMILY; do");
      expect(script).toContain("[[ $NODE_IP =~ ^[0-9a-f.:]+,[0-9a-f.:]+$ ]]");
      expect(run("bash", ["-n", "-c", script]).status).toBe(0);
      // the kubelet's node-ip is the placeholder the script fills with both addresses
      expect(fileOf(doc, "/etc/clusterspec/kubeadm-join.yaml.in")).toMatch(/name: node-ip\n\s+value: __NODE_IP__/);
    }
  });

  it.for([
    ["dual-stack-cloud", true],
    ["ipv6-only-cloud-burst-only", true],
    ["hybrid-cloud-burst", false],
  ] as const)(
    "%s: the sysctl file, applied by the real sysctl, sets IPv6 forwarding (kubeadm's join preflight reads it): %s",
    async ([name, ipv6], ctx) => {
      if (!toolAvailable("ip") || !hasTool("sysctl") || process.getuid?.() !== 0)
        return ctx.skip("needs root, iproute2 and procps (installed by .ci/run)");
      const text = name === "hybrid-cloud-burst" ? exampleText(name) : fixtureText(name);
      const loaded = loadSpec(text);
      if (!loaded.ok) throw new Error(`${name} is invalid`);
      const docs = generateCloudInit(resolvePlan(loaded.value)).filter((a) => a.path.endsWith("/user-data.yaml"));
      expect(docs.length).toBeGreaterThan(0);
      for (const a of docs) {
        const sysctl = fileOf(parseYamlDocuments(a.content)[0] as any, "/etc/sysctl.d/90-clusterspec.conf");
        expect(sysctl).toContain("net.ipv4.ip_forward = 1");
        await withNetns([], (ns) => {
          const dir = ns.must("mktemp", ["-d"]).trim();
          writeFileSync(join(dir, "90-clusterspec.conf"), sysctl);
          // the kubeadm preflight's file, from a known start (a namespace may inherit the host's value)
          ns.must("sysctl", ["-q", "-w", "net.ipv6.conf.default.forwarding=0", "net.ipv6.conf.all.forwarding=0"]);
          // -e: the bridge keys need br_netfilter, which a namespace of this host may not see
          ns.exec("sysctl", ["-e", "-q", "-p", join(dir, "90-clusterspec.conf")]);
          expect(ns.must("cat", ["/proc/sys/net/ipv6/conf/default/forwarding"]).trim(), a.path).toBe(ipv6 ? "1" : "0");
          expect(ns.must("cat", ["/proc/sys/net/ipv4/ip_forward"]).trim(), a.path).toBe("1");
          rmSync(dir, { recursive: true, force: true });
        });
      }
    },
  );

  it("keeps the single-stack script as it was: only a dual-stack cluster's differs", () => {
    const single = joinScript("m");
    expect(joinScript("m", [4])).toBe(single);
    expect(joinScript("m", [6])).toBe(single);
    const dual = joinScript("m", [4, 6]);
    expect(dual).not.toBe(single);
    // exactly the function, the node IP check and its message differ
    const changed = dual.split("\n").filter((l) => !single.split("\n").includes(l));
    expect(
      changed.every((l) => /tunnel_address|family|address|NODE_IP|TUNNEL_FAMILY|^\s*#|^\s*done$|awk/.test(l)),
    ).toBe(true);
  });

  it.for([
    ["4 6", "172.30.99.2,fd00:30:99::2"],
    ["6 4", "fd00:30:99::2,172.30.99.2"],
    ["4", "172.30.99.2"],
  ] as const)(
    "tunnel_address with TUNNEL_FAMILY=%s prints %s from a real interface",
    async ([families, expected], ctx) => {
      if (!toolAvailable("ip") || !hasTool("unshare") || process.getuid?.() !== 0)
        return ctx.skip("needs root and iproute2 (installed by .ci/run)");
      const doc = userData("dual-stack-cloud")[0]?.doc;
      if (!doc) throw new Error("no user data");
      const fn = shellFunction(fileOf(doc, JOIN_SCRIPT_PATH), "tunnel_address");
      // a veth stands for wg0 (no wireguard link type here); nodad: WireGuard links skip DAD too (IFF_NOARP)
      await withNetns(["wg0"], (ns) => {
        ns.must("ip", ["-4", "address", "add", "172.30.99.2/32", "dev", "wg0"]);
        ns.must("ip", ["-6", "address", "add", "fd00:30:99::2/128", "dev", "wg0", "nodad"]);
        const out = ns.must("bash", [
          "-c",
          `set -euo pipefail; WG_INTERFACE=wg0; TUNNEL_FAMILY='${families}'\n${fn}\ntunnel_address`,
        ]);
        expect(out.trim()).toBe(expected);
        // without the IPv6 address the function fails, and the script's retry then dies
        ns.must("ip", ["-6", "address", "del", "fd00:30:99::2/128", "dev", "wg0"]);
        const r = ns.exec("bash", [
          "-c",
          `set -euo pipefail; WG_INTERFACE=wg0; TUNNEL_FAMILY='${families}'\n${fn}\ntunnel_address`,
        ]);
        expect(r.status === 0).toBe(families === "4");
      });
    },
  );
});
