// The WireGuard hub's host (issue 29 items 4 and 12): forwarding, the return route and the forward filter, tried
// with the real tools: three network namespaces (a burst node, the hub, an on-prem host), routes set with ip, the
// generated sysctls applied with sysctl, the generated table loaded with nft, TCP probes from the burst node.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type BurstPlan,
  type ClusterPlan,
  cidrContains,
  HUB_FIREWALL_FILE,
  HUB_SYSCTL_FILE,
  loadSpec,
  resolvePlan,
} from "@clusterspec/core";
import { arbCloudBurstSpec, mustValidateAny } from "@clusterspec/core/testing";
import { exampleText, fixtureText, run, toolAvailable, withNetns } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { generateHub } from "../src/generate.js";
import { hubHostModule } from "../src/module.js";

function planOf(example: string, edit: (text: string) => string = (t) => t): BurstPlan {
  const r = loadSpec(edit(exampleText(example)));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return resolvePlan(r.value);
}

const hubFiles = (plan: BurstPlan): Record<string, string> =>
  Object.fromEntries(generateHub(plan).map((a) => [a.path, a.content]));

describe("the WireGuard hub's host files", () => {
  it("are written beside the hub's wg-quick config in both layouts, and name what the burst nodes need", () => {
    const burst = planOf("cloud-burst-only");
    expect(Object.keys(hubFiles(burst))).toEqual([`cloud/hub/${HUB_SYSCTL_FILE}`, `cloud/hub/${HUB_FIREWALL_FILE}`]);
    const rules = hubFiles(burst)[`cloud/hub/${HUB_FIREWALL_FILE}`] ?? "";
    // the existing cluster's nodes are unknown: its on-prem network stands for them; its on-prem nameserver only
    expect(rules).toContain("ip daddr { 10.118.12.100, 10.118.12.0/24 } tcp dport 6443 accept");
    expect(rules).toContain("ip daddr { 10.118.12.0/24, 172.30.99.0/24 } udp dport 8472 accept");
    expect(rules).toContain("ip daddr 10.118.12.53 udp dport 53 accept");
    expect(rules).not.toContain("1.1.1.1");
    // the hybrid example: the nodes' own addresses, its nameservers are outside the tunnel (no DNS rule)
    const hybrid = planOf("hybrid-cloud-burst");
    const hybridRules = hubFiles(hybrid)[`cloud/hub/${HUB_FIREWALL_FILE}`] ?? "";
    expect(hybridRules).toContain(
      "ip daddr { 10.118.12.20, 10.118.12.21, 10.118.12.22, 172.30.99.0/24 } tcp dport 10250",
    );
    expect(hybridRules).not.toContain("dport 53");
    // the generated nodes already route the tunnel subnet through the hub, as PLAN.md tells other hosts to
    const route = hybrid.cloud?.hub?.host.returnRoutes[0];
    expect(route).toEqual({ network: "10.118.12.0/24", tunnelSubnet: "172.30.99.0/24", via: "10.118.12.10" });
    for (const node of resolvePlanOf(hybrid).nodes)
      expect(node.tunnelRoute).toEqual({ subnet: route?.tunnelSubnet, via: route?.via, interface: "wan1" });
    const summary = hubHostModule.summarize?.(burst, hubHostModule.generate(burst)) ?? "";
    expect(summary).toContain("`ip route add 172.30.99.0/24 via 10.118.12.10`");
    expect(summary).toContain("Hubble's peer service 4244/tcp");
  });

  it("a hub that is a generated node gets them in its node folder; a Geneve tunnel opens 6081/udp, native routing none", () => {
    const plan = planOf("hybrid-cloud-burst", (t) =>
      t
        .replace("hub: 10.118.12.10", "hub: 10.118.12.21")
        .replace("routingMode: tunnel", "routingMode: tunnel\n  tunnelProtocol: geneve"),
    );
    const rules = hubFiles(plan)[`nodes/k8s-2/${HUB_FIREWALL_FILE}`] ?? "";
    expect(rules).toContain("udp dport 6081 accept");
    expect(rules).not.toContain("8472");
  });
});

// The hybrid example resolves to a ClusterPlan, whose nodes carry the tunnel route netifrc writes.
const resolvePlanOf = (plan: BurstPlan): ClusterPlan => plan as ClusterPlan;

describe("the hub forwards, on-prem answers through it, and the filter lets in only what burst nodes need", () => {
  const available = () =>
    toolAvailable("nft", { root: true }) && toolAvailable("ip", { root: true }) && toolAvailable("python3");

  it("in network namespaces, with the generated sysctls, return route and table", async (ctx) => {
    if (!available()) return ctx.skip("needs the real tools (installed by .ci/run)");
    const plan = planOf("cloud-burst-only");
    const hub = plan.cloud?.hub;
    if (!hub) throw new Error("no hub");
    const files = hubFiles(plan);
    const dir = mkdtempSync(join(tmpdir(), "cs-hub-"));
    const rulesPath = join(dir, "hub.nft");
    writeFileSync(rulesPath, files[`cloud/hub/${HUB_FIREWALL_FILE}`] ?? "");
    const suffix = Math.random().toString(16).slice(2, 8);
    const burst = `cs-b${suffix}`;
    const onPrem = `cs-o${suffix}`;
    const inNs = (ns: string, args: string[]) => run("ip", ["netns", "exec", ns, ...args]);
    const must = (ns: string, args: string[]) => {
      const r = inNs(ns, args);
      if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
    };
    run("ip", ["netns", "add", burst]);
    run("ip", ["netns", "add", onPrem]);
    try {
      await withNetns([], (h) => {
        // the tunnel (a veth named as the WireGuard interface: the filter matches its name) and the on-prem segment
        h.must("ip", ["link", "add", "wg0", "type", "veth", "peer", "name", "b0", "netns", burst]);
        h.must("ip", ["link", "add", "wan1", "type", "veth", "peer", "name", "o0", "netns", onPrem]);
        h.must("ip", ["address", "add", hub.tunnelCidr, "dev", "wg0"]);
        h.must("ip", ["address", "add", `${hub.address}/24`, "dev", "wan1"]);
        h.must("ip", ["link", "set", "wg0", "up"]);
        h.must("ip", ["link", "set", "wan1", "up"]);
        // a burst node routes the on-prem network through the tunnel (its AllowedIPs)
        for (const a of [
          ["address", "add", "172.30.99.2/24", "dev", "b0"],
          ["link", "set", "b0", "up"],
          ["link", "set", "lo", "up"],
          ["route", "add", "10.118.12.0/24", "via", hub.tunnelAddress],
        ])
          must(burst, ["ip", ...a]);
        // an on-prem host holding a node address, the API endpoint and the on-prem nameserver
        for (const a of [
          ["address", "add", "10.118.12.20/24", "dev", "o0"],
          ["address", "add", "10.118.12.100/32", "dev", "o0"],
          ["address", "add", "10.118.12.53/32", "dev", "o0"],
          ["link", "set", "o0", "up"],
          ["link", "set", "lo", "up"],
        ])
          must(onPrem, ["ip", ...a]);
        // No listener runs on-prem: a port that is let through answers with a reset, a dropped one stays silent.
        const probe = (to: string, port: number): string => {
          const py = `import socket,sys
s=socket.socket()
s.settimeout(1.5)
try:
  s.connect((sys.argv[1],int(sys.argv[2]))); print("open")
except ConnectionRefusedError: print("refused")
except (socket.timeout, TimeoutError, OSError): print("dropped")`;
          const r = inNs(burst, ["python3", "-c", py, to, String(port)]);
          return r.stdout.trim() || r.stderr;
        };
        h.must("sysctl", ["-w", "net.ipv4.ip_forward=0"]);
        expect(probe("10.118.12.20", 10250)).toBe("dropped"); // the hub does not forward yet
        for (const line of (files[`cloud/hub/${HUB_SYSCTL_FILE}`] ?? "").split("\n"))
          if (/^[a-z]/.test(line)) h.must("sysctl", ["-w", line.replace(/ = /, "=")]);
        expect(probe("10.118.12.20", 10250)).toBe("dropped"); // forwarded, but the reply has no way back
        for (const r of hub.host.returnRoutes)
          if (r.via !== undefined) must(onPrem, ["ip", "route", "add", r.tunnelSubnet, "via", r.via]);
        expect(probe("10.118.12.20", 10250)).toBe("refused"); // the return route through the hub
        expect(probe("10.118.12.20", 22)).toBe("refused"); // nothing filters yet
        h.must("nft", ["-f", rulesPath]);
        h.must("nft", ["-f", rulesPath]); // replaces only its own table
        expect(h.must("nft", ["list", "tables"])).toBe("table inet clusterspec_hub\n");
        expect(probe("10.118.12.100", 6443)).toBe("refused"); // the API endpoint
        expect(probe("10.118.12.20", 6443)).toBe("refused"); // the control plane behind it (Services)
        expect(probe("10.118.12.20", 10250)).toBe("refused"); // kubelet
        expect(probe("10.118.12.20", 4240)).toBe("refused"); // Cilium health
        expect(probe("10.118.12.53", 53)).toBe("refused"); // DNS over TCP to the on-prem nameserver
        expect(probe("10.118.12.20", 22)).toBe("dropped"); // SSH: not for burst nodes
        expect(probe("10.118.12.20", 2379)).toBe("dropped"); // etcd
        expect(probe("10.118.12.53", 80)).toBe("dropped");
      });
    } finally {
      run("ip", ["netns", "del", burst]);
      run("ip", ["netns", "del", onPrem]);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("a dual-stack hub (issue 30 item 6)", () => {
  const dual = (name: string): BurstPlan => {
    const r = loadSpec(fixtureText(name));
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    return resolvePlan(r.value);
  };

  it.for(["dual-stack-cloud", "dual-stack-cloud-burst-only"])(
    "%s: nft loads the filter with IPv6 rules, sysctl turns on forwarding of both families, PLAN.md routes each family",
    async (name, ctx) => {
      const plan = dual(name);
      const files = hubFiles(plan);
      const dir = plan.cloud?.hub?.host.dir ?? "";
      const rules = files[`${dir}/${HUB_FIREWALL_FILE}`] ?? "";
      expect(rules).toMatch(/^\t\tip6 daddr \{ .*fd00:30:99::\/64 \} tcp dport 10250 accept/m);
      const summary = hubHostModule.summarize?.(plan, hubHostModule.generate(plan)) ?? "";
      expect(summary).toContain("172.30.99.0/24 and fd00:30:99::/64");
      expect(summary).toMatch(/fd00:118:12::\/64 \| .*fd00:30:99::\/64/);
      if (!toolAvailable("nft", { root: true }) || !toolAvailable("sysctl", { root: true }))
        return ctx.skip("needs nft and sysctl as root (installed by .ci/run)");
      const tmp = mkdtempSync(join(tmpdir(), "cs-hub6-"));
      try {
        writeFileSync(join(tmp, "hub.nft"), rules);
        writeFileSync(join(tmp, "hub.conf"), files[`${dir}/${HUB_SYSCTL_FILE}`] ?? "");
        await withNetns([], (ns) => {
          ns.must("nft", ["-f", join(tmp, "hub.nft")]);
          expect(ns.must("nft", ["list", "chain", "inet", "clusterspec_hub", "from_tunnel"])).toContain("ip6 daddr");
          ns.must("sysctl", ["-p", join(tmp, "hub.conf")]);
          expect(ns.must("sysctl", ["-n", "net.ipv4.ip_forward", "net.ipv6.conf.all.forwarding"])).toBe("1\n1\n");
        });
      } finally {
        rmSync(tmp, { recursive: true, force: true });
      }
    },
  );
});

describe("the hub of any cloud burst (IPv4, IPv6, dual-stack; its endpoint by IPv4, IPv6 or name)", () => {
  const arbHubPlan = () =>
    arbCloudBurstSpec()
      .filter((s) => s.cloud.wireguard.hub !== undefined)
      .map((input) => ({ input, plan: resolvePlan(mustValidateAny(input)) as BurstPlan }));

  it("forwards each family the tunnel or the on-prem networks run, and lets the burst nodes reach the API and each on-prem nameserver", () => {
    fc.assert(
      fc.property(arbHubPlan(), ({ input, plan }) => {
        const files = hubFiles(plan);
        const dir = plan.cloud?.hub?.host.dir ?? "";
        const rules = files[`${dir}/${HUB_FIREWALL_FILE}`] ?? "";
        const sysctl = files[`${dir}/${HUB_SYSCTL_FILE}`] ?? "";
        const e = input.existingCluster;
        const wg = input.cloud.wireguard;
        const nets = [
          wg.tunnelSubnet,
          ...(wg.tunnelSubnet6 === undefined ? [] : [wg.tunnelSubnet6]),
          ...e.onPremNetworks,
        ];
        expect(sysctl.includes("net.ipv4.ip_forward = 1")).toBe(nets.some((n) => !n.includes(":")));
        expect(sysctl.includes("net.ipv6.conf.all.forwarding = 1")).toBe(nets.some((n) => n.includes(":")));
        const onPrem = (ip: string) => e.onPremNetworks.some((n) => cidrContains(n, ip));
        for (const ns of e.nameservers) {
          const rule = new RegExp(
            `^\\t\\t${ns.includes(":") ? "ip6" : "ip"} daddr ${ns.replace(/\./g, "\\.")} udp dport 53 accept`,
            "m",
          );
          expect(rule.test(rules), `${ns}\n${rules}`).toBe(onPrem(ns));
        }
        const api = e.endpoint.startsWith("[")
          ? e.endpoint.slice(1, e.endpoint.indexOf("]"))
          : e.endpoint.split(":")[0];
        if (/^[0-9.]+$|:/.test(api ?? ""))
          expect(rules).toMatch(new RegExp(`daddr \\{ ${(api ?? "").replace(/\./g, "\\.")}, .* tcp dport 6443 accept`));
      }),
      { numRuns: 40 },
    );
  });

  it("has a filter nft loads and sysctls sysctl applies, in a network namespace", async (ctx) => {
    if (!toolAvailable("nft", { root: true }) || !toolAvailable("sysctl", { root: true }))
      return ctx.skip("needs nft and sysctl as root (installed by .ci/run)");
    const samples = fc.sample(arbHubPlan(), 12);
    const tmp = mkdtempSync(join(tmpdir(), "cs-hub-any-"));
    try {
      await withNetns([], (ns) => {
        samples.forEach(({ plan }, i) => {
          const files = hubFiles(plan);
          const dir = plan.cloud?.hub?.host.dir ?? "";
          writeFileSync(join(tmp, `hub${i}.nft`), files[`${dir}/${HUB_FIREWALL_FILE}`] ?? "");
          writeFileSync(join(tmp, `hub${i}.conf`), files[`${dir}/${HUB_SYSCTL_FILE}`] ?? "");
          ns.must("nft", ["-f", join(tmp, `hub${i}.nft`)]);
          expect(ns.must("nft", ["list", "tables"])).toBe("table inet clusterspec_hub\n");
          ns.must("sysctl", ["-p", join(tmp, `hub${i}.conf`)]);
        });
      });
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
