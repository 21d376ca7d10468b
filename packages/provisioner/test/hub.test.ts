// The hub client against a real WireGuard interface: wireguard-go (userspace; this kernel has no wireguard module)
// in a throwaway network namespace, driven by the real `wg`. After a "restart" (the interface deleted and made
// again, as a hub reboot leaves it), reconciliation puts the held slots' peers back.
import { toolAvailable, withNetns } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { WgHub } from "../src/hub.js";
import { generateKeyPair } from "../src/keys.js";
import { world } from "./support.js";

describe("hub peers through wg", () => {
  it("adds, lists and removes peers, and reconciliation restores them after the interface is recreated", async (ctx) => {
    if (!toolAvailable("wireguard-go", { root: true }) || !toolAvailable("wg"))
      return ctx.skip("needs wireguard-go and wg as root (installed by .ci/run)");
    await withNetns([], async (ns) => {
      const up = () => ns.must("wireguard-go", ["wg0"]);
      up();
      try {
        const hub = new WgHub("wg0", ["ip", "netns", "exec", ns.name]);
        const { publicKey } = generateKeyPair();
        await hub.setPeer(publicKey, "172.30.99.2/32");
        expect(await hub.peers()).toEqual([{ publicKey, allowedIps: ["172.30.99.2/32"] }]);
        await hub.removePeer(publicKey);
        expect(await hub.peers()).toEqual([]);

        const w = world("cloud-burst-only", hub);
        try {
          const p = w.provisioner;
          w.aws.launch("i-0123456789abcdef0", "home-ci-arm64", "172.24.1.10");
          await p.syncInstance("i-0123456789abcdef0");
          expect((await hub.peers()).map((x) => x.allowedIps)).toEqual([["172.30.99.2/32"]]);
          // the hub restarts: the interface comes back without the peers `wg set` added
          ns.must("ip", ["link", "del", "wg0"]);
          up();
          expect(await hub.peers()).toEqual([]);
          const report = await p.reconcile();
          expect(report.peersAdded).toHaveLength(1);
          expect((await hub.peers()).map((x) => x.allowedIps)).toEqual([["172.30.99.2/32"]]);
        } finally {
          w.cleanup();
        }
      } finally {
        ns.exec("ip", ["link", "del", "wg0"]);
      }
    });
  });

  it("gives a dual-stack slot's peer its /32 and /128, and reconciliation leaves it alone (issue 30 item 6)", async (ctx) => {
    if (!toolAvailable("wireguard-go", { root: true }) || !toolAvailable("wg"))
      return ctx.skip("needs wireguard-go and wg as root (installed by .ci/run)");
    await withNetns([], async (ns) => {
      ns.must("wireguard-go", ["wg0"]);
      try {
        const hub = new WgHub("wg0", ["ip", "netns", "exec", ns.name]);
        const w = world("fixture:dual-stack-cloud-burst-only", hub);
        try {
          w.aws.launch("i-0123456789abcdef0", "home-ci-arm64", "172.24.1.10");
          await w.provisioner.syncInstance("i-0123456789abcdef0");
          const [peer] = await hub.peers();
          expect([...(peer?.allowedIps ?? [])].sort()).toEqual(["172.30.99.2/32", "fd00:30:99::2/128"]);
          const report = await w.provisioner.reconcile();
          expect(report.peersAdded).toEqual([]);
          expect(report.peersRemoved).toEqual([]);
          expect((await hub.peers()).map((p) => p.publicKey)).toEqual([peer?.publicKey]);
        } finally {
          w.cleanup();
        }
      } finally {
        ns.exec("ip", ["link", "del", "wg0"]);
      }
    });
  });
});
