// The provisioner's logic end to end in-process: real openssl identity checks, real SNS signatures, stand-ins for
// Kubernetes, AWS and the hub (support.ts).

import { bootstrapTokenTtlSeconds } from "@clusterspec/cloud-init";
import { parseYamlDocuments } from "@clusterspec/core";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { privateKeyOfConfig, publicKeyOf } from "../src/keys.js";
import { ANNOTATIONS, type Kind } from "../src/service.js";
import { type World, world } from "./support.js";

const ID = "i-0123456789abcdef0";
const IP = "172.24.1.10";
let w: World;
afterEach(() => w.cleanup());

function get(kind: Kind, id = ID, source = IP, identity = w.identity(id)) {
  return w.provisioner.get({ kind, instanceId: id, sourceAddress: source, ...identity });
}
async function event(id: string, state: string) {
  return w.provisioner.sns(JSON.stringify(w.sns.event(id, state)), "Notification");
}
const warnings = () => w.logs.filter((l) => l.level === "warn").map((l) => String(l.fields.reason ?? l.event));

describe("serving a burst instance", () => {
  it("serves an instance of an IPv6-only pool, which has no IPv4 address, at its IPv6 address only (any spelling)", async () => {
    w = world("fixture:ipv6-only-cloud-burst-only");
    const v6 = "2a05:d014:0:1::10";
    w.aws.instances.set(ID, {
      id: ID,
      state: "running",
      privateIp: undefined,
      publicIp: undefined,
      ipv6: [v6],
      group: "home6-ci-arm64",
    });
    expect((await event(ID, "running")).status).toBe(200);
    const slot = [...w.kube.slots.values()].find((s) => s.instanceId === ID);
    expect(slot?.annotations[ANNOTATIONS.ipv6]).toBe(v6);
    const elsewhere = await get("wireguard", ID, "2a05:d014:0:1::11");
    expect(elsewhere.status).toBe(403);
    expect(warnings()).toContain(`request from 2a05:d014:0:1::11, not from the instance's address (${v6})`);
    const wg = await get("wireguard", ID, "2A05:D014:0:1:0:0:0:10");
    expect(wg.status).toBe(200);
    expect(wg.body).toBe(slot?.config);
    expect((await get("kubeconfig", ID, v6)).status).toBe(200);
  });

  it("serves the slot's config and a kubeconfig with a fresh token, each once, to the instance's address only", async () => {
    w = world("cloud-burst-only");
    w.aws.launch(ID, "home-ci-arm64", IP);
    expect((await get("wireguard")).status).toBe(404); // not seen running yet: the script retries
    expect((await event(ID, "running")).status).toBe(200);
    const slot = [...w.kube.slots.values()].find((s) => s.instanceId === ID);
    expect(slot?.name).toBe("home-wg-ci-arm64-0");
    expect(slot?.annotations[ANNOTATIONS.privateIp]).toBe(IP);

    // replayed identity from elsewhere: refused and logged, nothing served
    const elsewhere = await get("wireguard", ID, "198.51.100.7");
    expect(elsewhere.status).toBe(403);
    expect(warnings()).toContain("request from 198.51.100.7, not from the instance's address (172.24.1.10)");

    const wg = await get("wireguard");
    expect(wg.status).toBe(200);
    expect(wg.body).toBe(slot?.config);
    const again = await get("wireguard");
    expect(again.status).toBe(403);
    expect(warnings().some((r) => r.startsWith("already served at 2026-12-02T14:00:00.000Z"))).toBe(true);

    expect(w.kube.tokens.size).toBe(0); // minted at the kubeconfig's fetch, not before
    const kc = await get("kubeconfig");
    expect(kc.status).toBe(200);
    const [token] = [...w.kube.tokens.values()];
    expect(token?.instanceId).toBe(ID);
    expect(Date.parse(token?.expiration ?? "") - w.now.getTime()).toBe(bootstrapTokenTtlSeconds() * 1000);
    const config = parseYamlDocuments(kc.body)[0] as {
      clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
      users: { user: { token: string } }[];
    };
    expect(config.clusters[0]?.cluster.server).toBe("https://10.118.12.100:6443");
    expect(Buffer.from(config.clusters[0]?.cluster["certificate-authority-data"] ?? "", "base64").toString()).toBe(
      w.kube.ca,
    );
    expect(config.users[0]?.user.token).toBe(`${token?.id}.${token?.secret}`);
    expect(config.users[0]?.user.token).toMatch(/^[a-z0-9]{6}\.[a-z0-9]{16}$/);
    expect((await get("kubeconfig")).status).toBe(403);
    expect(w.kube.tokens.size).toBe(1);
    // the hub has the slot's peer, under the public key of the config's private key
    const key = publicKeyOf(privateKeyOfConfig(slot?.config ?? "") ?? "");
    expect(w.hub.peerMap.get(key)).toBe("172.30.99.2/32");
    // no secret in any log line
    const logged = JSON.stringify(w.logs);
    expect(logged).not.toContain(token?.secret);
    expect(logged).not.toContain(privateKeyOfConfig(slot?.config ?? ""));
  });

  it("refuses a forged identity, another instance's document and another account's, serving nothing", async () => {
    w = world("cloud-burst-only");
    w.aws.launch(ID, "home-ci-arm64", IP);
    await event(ID, "running");
    const forger = (await import("./support.js")).makeCertificate(w.dir, "forger");
    expect((await get("wireguard", ID, IP, w.identity(ID, forger))).status).toBe(403);
    expect((await get("kubeconfig", ID, IP, w.identity(ID, forger))).status).toBe(403);
    expect(warnings()).toContain("identity signature does not verify against the region's AWS certificate");
    const other = w.identity("i-0fedcba9876543210");
    expect((await get("wireguard", ID, IP, other)).status).toBe(403);
    expect(warnings()).toContain("identity document is of another instance");
    expect((await get("wireguard", ID, IP, w.identity(ID, undefined, "210987654321"))).status).toBe(403);
    expect(warnings()).toContain("identity document is of another account");
    expect((await get("wireguard", ID, IP, { document: "", signature: "" })).status).toBe(403);
    expect(w.kube.tokens.size).toBe(0);
    expect([...w.kube.slots.values()].some((s) => s.annotations[ANNOTATIONS.servedWireguard])).toBe(false);
    // the real instance still gets its config afterwards
    expect((await get("wireguard")).status).toBe(200);
  });

  it("on terminated: revokes the token, deletes the Node, removes the peer, frees the slot; a late fetch gets 404", async () => {
    w = world("cloud-burst-only");
    w.aws.launch(ID, "home-ci-arm64", IP);
    await event(ID, "running");
    await get("kubeconfig");
    w.kube.nodes.set(ID, { name: ID, providerID: `aws:///eu-central-1a/${ID}` });
    w.kube.nodes.set("onprem-1", { name: "onprem-1", providerID: undefined });
    w.aws.setState(ID, "terminated");
    expect((await event(ID, "terminated")).status).toBe(200);
    expect(w.kube.tokens.size).toBe(0);
    expect([...w.kube.nodes.keys()]).toEqual(["onprem-1"]);
    expect(w.hub.peerMap.size).toBe(0);
    expect(Object.values(w.kube.holders()).filter(Boolean)).toEqual([]);
    expect((await get("wireguard")).status).toBe(404);
    // a late `running` changes nothing: EC2 says terminated
    expect((await event(ID, "running")).status).toBe(200);
    expect(Object.values(w.kube.holders()).filter(Boolean)).toEqual([]);
    // a duplicate delivery is answered 200 and changes nothing
    const m = w.sns.event(ID, "terminated");
    expect((await w.provisioner.sns(JSON.stringify(m), "Notification")).status).toBe(200);
    expect((await w.provisioner.sns(JSON.stringify(m), "Notification")).body).toBe("duplicate\n");
  });

  it("ignores instances of no pool, and asks SNS to retry while EC2 still says pending", async () => {
    w = world("cloud-burst-only");
    w.aws.launch("i-00000000000000001", "someone-elses-group", "172.24.9.9");
    expect((await event("i-00000000000000001", "running")).body).toBe("ignored\n");
    w.aws.launch(ID, "home-ci-arm64", IP, "pending");
    expect((await event(ID, "running")).status).toBe(503);
    w.aws.setState(ID, "running");
    expect((await event(ID, "running")).status).toBe(200);
    expect(Object.values(w.kube.holders()).filter(Boolean)).toEqual([ID]);
  });

  it("mints each instance's key pair with provisioner-minted keys and serves a config for the hub's endpoint", async () => {
    w = world("hybrid-cloud-burst");
    const pool = w.settings.cloud.pools[0];
    w.aws.launch(ID, pool?.groupName ?? "", IP);
    await event(ID, "running");
    const slot = [...w.kube.slots.values()].find((s) => s.instanceId === ID);
    const wg = await get("wireguard");
    expect(wg.status).toBe(200);
    expect(wg.body).toContain("Endpoint = vpn.example.com:51820");
    expect(wg.body).toContain(`Address = ${w.settings.cloud.slots.find((s) => s.secretName === slot?.name)?.cidr}`);
    const pub = publicKeyOf(privateKeyOfConfig(wg.body) ?? "");
    expect(slot?.annotations[ANNOTATIONS.publicKey]).toBe(pub);
    expect([...w.hub.peerMap.keys()]).toEqual([pub]);
    w.aws.setState(ID, "terminated");
    await event(ID, "terminated");
    const freed = w.kube.slots.get(slot?.name ?? "");
    expect(freed?.config).toBeUndefined(); // the minted key is gone with the instance
    expect(w.hub.peerMap.size).toBe(0);
  });
});

describe("reconciliation", () => {
  it("repairs a lost terminated, a lost running, a stray token and Node, and restores the hub's peers", async () => {
    w = world("cloud-burst-only");
    const a = "i-0000000000000000a";
    const b = "i-0000000000000000b";
    w.aws.launch(a, "home-ci-arm64", "172.24.1.11");
    await event(a, "running");
    await w.provisioner.get({ kind: "kubeconfig", instanceId: a, sourceAddress: "172.24.1.11", ...w.identity(a) });
    w.kube.nodes.set(a, { name: a, providerID: `aws:///eu-central-1a/${a}` });
    // a's `terminated` is lost; b's `running` is lost; the hub restarts (no peers)
    w.aws.setState(a, "terminated");
    w.aws.launch(b, "home-build-amd64", "172.24.1.12");
    w.hub.peerMap.clear();
    w.kube.nodes.set("i-0000000000000000c", {
      name: "i-0000000000000000c",
      providerID: "aws:///eu-central-1a/i-0000000000000000c",
    });
    const report = await w.provisioner.reconcile();
    expect(report.released.sort()).toEqual([a, "i-0000000000000000c"]);
    expect(report.assigned).toEqual([b]);
    expect(report.nodesDeleted.sort()).toEqual([a, "i-0000000000000000c"]);
    expect(w.kube.tokens.size).toBe(0);
    expect(Object.values(w.kube.holders()).filter(Boolean)).toEqual([b]);
    expect([...w.hub.peerMap.values()]).toEqual(["172.30.99.4/32"]);
    // a second pass finds nothing to do
    const again = await w.provisioner.reconcile();
    expect(again).toEqual({
      assigned: [],
      released: [],
      tokensRevoked: [],
      nodesDeleted: [],
      peersAdded: [],
      peersRemoved: [],
    });
  });

  // Found by the property below in CI (seed 1718108084): reconciliation assigned waiting instances before it freed the
  // slots of instances gone, so a full pool's freed slot stayed free until the next pass.
  it("gives a slot freed by a lost terminated to an instance whose running was lost, in the same pass", async () => {
    w = world("cloud-burst-only");
    const [gone, waitingA, waitingB] = ["i-00000000000000a01", "i-00000000000000a02", "i-00000000000000a03"];
    // ci-arm64 has 2 slots: gone holds one; the others' `running` and gone's `terminated` never arrive
    w.aws.launch(waitingA, "home-ci-arm64", "172.24.1.21");
    w.aws.launch(waitingB, "home-ci-arm64", "172.24.1.22");
    w.aws.launch(gone, "home-ci-arm64", "172.24.1.20");
    await event(gone, "running");
    w.aws.setState(gone, "terminated");
    const report = await w.provisioner.reconcile();
    expect(report.released).toEqual([gone]);
    expect(report.assigned.sort()).toEqual([waitingA, waitingB]);
    expect(Object.values(w.kube.holders()).filter(Boolean).sort()).toEqual([waitingA, waitingB]);
    expect(w.hub.peerMap.size).toBe(2);
  });

  it("keeps its invariants through any order of events, losses and reconciliation", async () => {
    const ids = ["i-00000000000000a01", "i-00000000000000a02", "i-00000000000000a03"];
    const step = fc.oneof(
      fc.record({ op: fc.constant("launch" as const), i: fc.nat(2) }),
      fc.record({ op: fc.constant("terminate" as const), i: fc.nat(2) }),
      fc.record({ op: fc.constant("fetch" as const), i: fc.nat(2) }),
      fc.record({ op: fc.constant("hubRestart" as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(step, fc.boolean()), { maxLength: 8 }), async (steps) => {
        w = world("cloud-burst-only");
        try {
          for (const [s, delivered] of steps) {
            if (s.op === "hubRestart") {
              w.hub.peerMap.clear();
              continue;
            }
            const id = ids[s.i] as string;
            if (s.op === "launch") w.aws.launch(id, "home-ci-arm64", `172.24.1.${20 + s.i}`);
            if (s.op === "terminate") w.aws.setState(id, "terminated");
            if (s.op === "fetch") {
              await w.provisioner.get({
                kind: "kubeconfig",
                instanceId: id,
                sourceAddress: `172.24.1.${20 + s.i}`,
                ...w.identity(id),
              });
              continue;
            }
            if (delivered) await event(id, s.op === "launch" ? "running" : "terminated");
          }
          await w.provisioner.reconcile();
          const running = ids.filter((id) => w.aws.instances.get(id)?.state === "running");
          const holders = Object.values(w.kube.holders()).filter((h): h is string => h !== undefined);
          // ci-arm64 has 2 slots: every running instance holds one while slots last, never two
          expect(new Set(holders).size).toBe(holders.length);
          expect(holders.every((h) => running.includes(h))).toBe(true);
          expect(holders.length).toBe(Math.min(2, running.length));
          // every token belongs to a holder; the hub has exactly the holders' peers
          for (const t of w.kube.tokens.values()) expect(holders).toContain(t.instanceId);
          expect(w.hub.peerMap.size).toBe(holders.length);
        } finally {
          w.cleanup();
        }
      }),
      { numRuns: 15 },
    );
    w = world("cloud-burst-only"); // for afterEach
  });
});
