// Issue 30 item 6, with the real tools: a fixture's hub config and a burst slot's client config, both with test keys,
// brought up by the real `wg-quick up` (wireguard-go: this kernel has no wireguard module) in two network namespaces
// joined by a veth over IPv6 only (the hub at its endpoint's address). The dual-stack fixture's two inner families, and
// the IPv6-only cluster's one (its pool ipv6: only: the node has no IPv4 address at all), cross the tunnel with the
// plan's MTU (1420: 80 bytes for the IPv6 underlay) and no more, DF set.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HUB_FIREWALL_FILE, loadSpec, parseYamlDocuments, resolvePlan } from "@clusterspec/core";
import { testSecretsFor } from "@clusterspec/core/testing";
import { fixtureText, LabNamespace, labPrefix, toolAvailable } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { PEER_SECRETS_PATH } from "../src/config.js";
import { generateWireguard } from "../src/generate.js";

/** The two fixtures: the hub's underlay address (its endpoint's), whether the tunnel is dual-stack. */
const CASES = [
  { fixture: "dual-stack-cloud", hubUnderlay: "2001:db8::10", dual: true },
  { fixture: "ipv6-only-cloud-burst-only", hubUnderlay: "2001:db8:118::10", dual: false },
] as const;

describe("a tunnel over an IPv6 underlay", () => {
  it.for(CASES)(
    "$fixture: carries the cluster's families between the hub and a burst slot, at the plan's MTU",
    {
      timeout: 60_000,
    },
    async ({ fixture, hubUnderlay, dual }, ctx) => {
      for (const tool of ["wireguard-go", "wg-quick", "ping", "nsenter"])
        if (!toolAvailable(tool, { root: true })) return ctx.skip(`needs ${tool} as root (installed by .ci/run)`);
      const loaded = loadSpec(fixtureText(fixture));
      if (!loaded.ok) throw new Error("invalid fixture");
      const secrets = testSecretsFor(loaded.value);
      const plan = resolvePlan(loaded.value, { secrets });
      const cloud = plan.cloud;
      const slot = cloud?.slots[0];
      if (!cloud?.hub || !slot) throw new Error("no slot");
      if (dual !== (slot.address6 !== undefined && cloud.hub.tunnelAddress6 !== undefined))
        throw new Error(`${fixture}: expected a ${dual ? "dual-stack" : "single-family"} slot`);
      expect(cloud.tunnelMtu).toBe(1420);
      expect(cloud.tunnelOverhead).toBe(80);
      const artifacts = generateWireguard(plan);
      const hubConf = artifacts.find((a) => a.path.endsWith(".conf"))?.content ?? "";
      const secretsFile = artifacts.find((a) => a.path === PEER_SECRETS_PATH)?.content ?? "";
      const client = (parseYamlDocuments(secretsFile)[0] as { stringData: Record<string, string> }).stringData[
        "wg-quick.conf"
      ];
      const dir = mkdtempSync(join(tmpdir(), "cs-wg6-"));
      const prefix = labPrefix();
      const hub = new LabNamespace(`${prefix}-hub`);
      const node = new LabNamespace(`${prefix}-node`);
      try {
        hub.ready();
        node.ready();
        // the underlay: IPv6 only, the hub at its endpoint's address
        hub.must("ip", ["link", "add", "u0", "type", "veth", "peer", "name", "u1"]);
        hub.must("ip", ["link", "set", "u1", "netns", String(node.pid)]);
        hub.must("ip", ["-6", "address", "add", `${hubUnderlay}/64`, "dev", "u0", "nodad"]);
        node.must("ip", ["-6", "address", "add", `${hubUnderlay.replace(/::10$/, "::2")}/64`, "dev", "u1", "nodad"]);
        // the burst node has no IPv4 address at all (an IPv6-only pool's instance): not even loopback's
        node.must("ip", ["-4", "address", "flush", "dev", "lo"]);
        for (const [ns, dev] of [
          [hub, "u0"],
          [node, "u1"],
          [hub, "lo"],
          [node, "lo"],
        ] as const)
          ns.must("ip", ["link", "set", dev, "up"]);
        // the hub's PreUp loads the forward filter (the host package's, tried in its hub test): dropped here
        expect(hubConf).toContain(`PreUp = nft -f /${HUB_FIREWALL_FILE}`);
        // the test secrets' slot keys are not pairs: the hub's peer for the slot takes the client key's public half
        const clientKey = /^PrivateKey = (.*)$/m.exec(client ?? "")?.[1] ?? "";
        const clientPub = node.exec("wg", ["pubkey"], undefined, `${clientKey}\n`).stdout.trim();
        expect(hubConf).toContain(`PublicKey = ${slot.publicKey}`);
        writeFileSync(
          join(dir, "wgh.conf"),
          hubConf.replace(/^PreUp = .*\n/m, "").replace(`PublicKey = ${slot.publicKey}`, `PublicKey = ${clientPub}`),
          { mode: 0o600 },
        );
        const env = { ...process.env, WG_QUICK_USERSPACE_IMPLEMENTATION: "wireguard-go" };
        hub.must("wg-quick", ["up", join(dir, "wgh.conf")], env);
        // the spec names the hub's public key; the test secrets hold another hub key pair: the client takes its key
        const hubPub = hub.must("wg", ["show", "wgh", "public-key"]).trim();
        writeFileSync(join(dir, "wgn.conf"), (client ?? "").replace(/^PublicKey = .*$/m, `PublicKey = ${hubPub}`), {
          mode: 0o600,
        });
        node.must("wg-quick", ["up", join(dir, "wgn.conf")], env);
        const ping = (ns: LabNamespace, to: string, size: number) =>
          ns.exec("ping", ["-M", "do", "-c", "1", "-W", "3", "-s", String(size), to]).status;
        // IPv4 inside: 20 + 8 bytes of headers; IPv6 inside: 40 + 8
        const headers = (a: string) => (a.includes(":") ? 48 : 28);
        const pairs = [
          [cloud.hub.tunnelAddress, slot.address],
          ...(dual ? [[cloud.hub.tunnelAddress6 ?? "", slot.address6 ?? ""]] : []),
        ];
        for (const [hubAddress = "", slotAddress = ""] of pairs) {
          expect(ping(node, hubAddress, 1420 - headers(hubAddress)), hubAddress).toBe(0);
          expect(ping(hub, slotAddress, 1420 - headers(slotAddress)), slotAddress).toBe(0);
        }
        // one byte more does not fit the tunnel's MTU
        const six = dual ? (cloud.hub.tunnelAddress6 ?? "") : cloud.hub.tunnelAddress;
        expect(six).toContain(":");
        expect(ping(node, six, 1420 - 47)).not.toBe(0);
        // the hub's peer is exactly the slot's addresses, and the handshake went over IPv6
        const dump = hub.must("wg", ["show", "wgh", "dump"]).trim().split("\n").slice(1);
        const peer = dump.find((l) => l.includes(`[${hubUnderlay.replace(/::10$/, "::2")}]`));
        expect(peer?.split("\t")[3]?.split(",").sort()).toEqual([slot.cidr, ...(dual ? [slot.cidr6] : [])].sort());
      } finally {
        node.destroy();
        hub.destroy();
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
