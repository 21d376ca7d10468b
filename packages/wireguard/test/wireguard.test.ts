// The hub's wg-quick config and the slots' client configs: parsed by the real wg-quick (strip), keys of the
// real shape, one /32 per slot, Secrets in the contract's layout, placeholders in review trees.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cloudInitModule } from "@clusterspec/cloud-init";
import {
  cidrContains,
  InternalError,
  loadSpec,
  parseYamlDocuments,
  resolvePlan,
  type SecretValues,
  validateSpec,
  WIREGUARD_KEY,
} from "@clusterspec/core";
import {
  arbCloudBurstSpec,
  arbClusterSpec,
  mustValidateAny,
  testSecretsFor,
  testWireguardKey,
} from "@clusterspec/core/testing";
import {
  ajv2020,
  cloudSpecTexts,
  exampleInput,
  exampleText,
  fixtureText,
  formatAjvErrors,
  run,
  toolAvailable,
} from "@clusterspec/testkit";
import fc from "fast-check";
import ini from "ini";
import { describe, expect, it } from "vitest";
import { PEER_SECRETS_PATH } from "../src/config.js";
import { generateWireguard } from "../src/generate.js";
import { renderWireguardConfig } from "../src/ini-file.js";

/** The examples and the dual-stack fixtures whose hub config is written. */
const withHubTexts = cloudSpecTexts().filter(([, text]) => /^ {4}privateKey:/m.test(text));
const withHub = withHubTexts.map(([name]) => name);
const textOf = (name: string): string => withHubTexts.find(([n]) => n === name)?.[1] ?? exampleText(name);

/** A cloud spec from the arbitrary, with a hub on the first node and static keys for every slot. */
const arbHubSpec = () =>
  arbClusterSpec({ cloud: true, maxWorkers: 2, maxPool: 2 }).map((s: any) => {
    s.cloud.wireguard = {
      ...s.cloud.wireguard,
      hub: s.nodes[0].interfaces.wan1.address.split("/")[0],
      endpoint: "vpn.example.com:51820",
      privateKey: { env: "WG_HUB" },
      publicKey: testWireguardKey(7),
      peerKeys: { privateKeys: { file: "peers.key" }, publicKeys: { file: "peers.pub" } },
    };
    return mustValidateAny(s);
  });

interface Files {
  readonly hub: string;
  readonly clients: string[];
}

function filesOf(spec: ReturnType<typeof mustValidateAny>, secrets: SecretValues): Files {
  const plan = resolvePlan(spec, { secrets });
  const artifacts = generateWireguard(plan);
  const hub = artifacts.find((a) => a.path.endsWith(".conf"));
  const secretsFile = artifacts.find((a) => a.path === PEER_SECRETS_PATH);
  const clients = secretsFile
    ? (parseYamlDocuments(secretsFile.content) as { stringData: Record<string, string> }[]).map(
        (d) => d.stringData["wg-quick.conf"] ?? "",
      )
    : [];
  return { hub: hub?.content ?? "", clients };
}

/**
 * `wg-quick strip` (its own parser), then `wg setconf` on the stripped config: wg parses the whole file before it
 * talks to the kernel, so on this kernel (no wireguard link type) a config that parses ends in "Unable to modify
 * interface", and one that does not in "Configuration parsing error". No interface is created. wg resolves
 * Endpoint host names while parsing, and tests reach no network: the host is replaced by 127.0.0.1 for that step.
 */
function wgQuickStrip(text: string): { status: number; out: string; wg: string } {
  const dir = mkdtempSync(join(tmpdir(), "cs-wg-"));
  try {
    writeFileSync(join(dir, "wg0.conf"), text, { mode: 0o600 });
    const r = run("wg-quick", ["strip", join(dir, "wg0.conf")]);
    const offline = r.stdout.replace(/^Endpoint = .*:(\d+)$/m, "Endpoint = 127.0.0.1:$1");
    writeFileSync(join(dir, "stripped.conf"), offline, { mode: 0o600 });
    const w = run("wg", ["setconf", "cs-parse-only", join(dir, "stripped.conf")]);
    return { status: r.status, out: r.stdout + r.stderr, wg: w.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const keysOf = (text: string): string[] =>
  [...text.matchAll(/^(?:PrivateKey|PublicKey) = (.*)$/gm)].map((m) => m[1] ?? "");

describe("wg-quick configs", () => {
  it.skipIf(!toolAvailable("wg-quick")).each(withHub)(
    "%s: the hub's config and every client config pass wg-quick strip, with test keys of 32 bytes",
    (name) => {
      const loaded = loadSpec(textOf(name));
      if (!loaded.ok) throw new Error(`${name} is invalid`);
      for (const secrets of [{}, testSecretsFor(loaded.value)]) {
        const f = filesOf(loaded.value, secrets);
        for (const text of [f.hub, ...f.clients]) {
          const r = wgQuickStrip(text);
          expect(r.status, r.out).toBe(0);
          // wg-quick took its own keys (Address, MTU) out: what is left is for wg setconf
          expect(r.out).not.toMatch(/^(Address|MTU|DNS) =/m);
          if (Object.keys(secrets).length > 0) {
            expect(r.wg).toContain("Unable to modify interface");
            expect(r.wg).not.toContain("parsing error");
            for (const key of keysOf(text)) {
              expect(key).toMatch(WIREGUARD_KEY);
              expect(atob(key)).toHaveLength(32);
            }
          } else {
            // a review tree cannot be deployed by mistake: wg refuses its placeholder keys
            expect(r.wg).toContain("Key is not the correct length or format: `UNSET-resolve-with-secrets'");
          }
        }
      }
    },
  );

  it.skipIf(!toolAvailable("wg-quick"))("passes wg-quick strip for any cloud spec with a hub", () => {
    fc.assert(
      fc.property(arbHubSpec(), (spec) => {
        const f = filesOf(spec, testSecretsFor(spec));
        for (const text of [f.hub, ...f.clients]) {
          const r = wgQuickStrip(text);
          expect(r.status).toBe(0);
          expect(r.wg).not.toContain("parsing error");
        }
      }),
      { numRuns: 8 },
    );
  });

  it("passes wg-quick strip for any cloud burst with a hub (IPv4, IPv6 or dual-stack tunnel; hub endpoint by address or name)", (ctx) => {
    if (!toolAvailable("wg-quick")) return ctx.skip("needs the real tool (installed by .ci/run)");
    fc.assert(
      fc.property(
        arbCloudBurstSpec().filter((s) => s.cloud.wireguard.hub !== undefined),
        (input) => {
          const spec = mustValidateAny(input);
          const f = filesOf(spec, testSecretsFor(spec));
          expect(f.hub).toContain("[Interface]");
          // with static keys, one client config per burst slot; without, the provisioner writes them
          const slots = input.cloud.pools.reduce((n, p) => n + p.maxSize, 0);
          expect(f.clients).toHaveLength(input.cloud.wireguard.peerKeys ? slots : 0);
          for (const text of [f.hub, ...f.clients]) {
            const r = wgQuickStrip(text);
            expect(r.status, r.out).toBe(0);
            expect(r.wg).not.toContain("parsing error");
          }
        },
      ),
      { numRuns: 8 },
    );
  });

  it("gives each slot exactly its own /32 (or /128), inside the tunnel subnet, never the hub's address", () => {
    fc.assert(
      fc.property(arbHubSpec(), (spec) => {
        const plan = resolvePlan(spec, { secrets: testSecretsFor(spec) });
        const cloud = plan.cloud;
        if (!cloud?.hub) throw new Error("no hub");
        const sections = filesOf(spec, testSecretsFor(spec)).hub.split(/\n\n/).slice(1);
        expect(sections).toHaveLength(cloud.slots.length);
        const seen = new Set<string>([cloud.hub.tunnelAddress]);
        // an IPv6-only cluster's tunnel subnet is IPv6 (/128 per slot); a dual-stack one adds the slot's IPv6 address
        const bits = cloud.wireguard.tunnelSubnet.includes(":") ? 128 : 32;
        cloud.slots.forEach((slot, i) => {
          expect(ini.parse(sections[i] ?? "").Peer).toEqual({
            PublicKey: slot.publicKey,
            AllowedIPs: [slot.cidr, ...(slot.cidr6 === undefined ? [] : [slot.cidr6])].join(", "),
          });
          expect(slot.cidr).toBe(`${slot.address}/${bits}`);
          expect(slot.cidr6 === undefined).toBe(cloud.wireguard.tunnelSubnet6 === undefined);
          expect(cidrContains(cloud.wireguard.tunnelSubnet, slot.address)).toBe(true);
          expect(seen.has(slot.address)).toBe(false);
          seen.add(slot.address);
        });
        const prefix = Number(cloud.wireguard.tunnelSubnet.split("/")[1]);
        expect(BigInt(seen.size)).toBeLessThan(2n ** BigInt(bits - prefix));
      }),
      { numRuns: 20 },
    );
  });

  it("carries every family of a cloud burst: each slot's own address per tunnel network, the on-prem networks, the MTU of the underlay's family", () => {
    const hostCount = (net: string): bigint => {
      const [ip, prefix] = net.split("/");
      return 2n ** BigInt((ip?.includes(":") ? 128 : 32) - Number(prefix));
    };
    fc.assert(
      fc.property(
        arbCloudBurstSpec().filter((s) => s.cloud.wireguard.peerKeys !== undefined),
        (input) => {
          const spec = mustValidateAny(input);
          const wg = input.cloud.wireguard;
          const tunnels = [wg.tunnelSubnet, ...(wg.tunnelSubnet6 === undefined ? [] : [wg.tunnelSubnet6])];
          const width = (net: string) => (net.includes(":") ? 128 : 32);
          const f = filesOf(spec, testSecretsFor(spec));
          const hub = ini.parse(f.hub.split(/\n\n/)[0] ?? "").Interface;
          // the underlay is IPv4 for sure only towards an IPv4 literal (20 + 8 + 32 bytes); otherwise IPv6's 80
          const mtu = (wg.underlayMtu ?? 1500) - (/^\d+\.\d+\.\d+\.\d+:/.test(wg.endpoint ?? "") ? 60 : 80);
          expect(hub.MTU).toBe(String(mtu));
          expect(hub.Address).toBe(tunnels.map((t) => t.replace(/\.0\//, ".1/").replace(/::\//, "::1/")).join(", "));
          const peers = f.hub
            .split(/\n\n/)
            .slice(1)
            .map((sec) => ini.parse(sec).Peer);
          const slots = input.cloud.pools.reduce((n, p) => n + p.maxSize, 0);
          expect(peers).toHaveLength(slots);
          expect(f.clients).toHaveLength(slots);
          const seen = new Set<string>();
          f.clients.forEach((text, i) => {
            const client = ini.parse(text);
            const addresses = String(client.Interface.Address).split(", ");
            // one address of each tunnel network, a host route each, in the tunnel networks' order
            expect(addresses).toHaveLength(tunnels.length);
            addresses.forEach((a, j) => {
              const t = tunnels[j] as string;
              const [ip, prefix] = a.split("/") as [string, string];
              expect(Number(prefix)).toBe(width(t));
              expect(cidrContains(t, ip)).toBe(true);
              expect(seen.has(ip)).toBe(false);
              seen.add(ip);
            });
            // the hub routes exactly the slot's addresses to it
            expect(peers[i]?.AllowedIPs).toBe(addresses.join(", "));
            expect(client.Interface.MTU).toBe(String(mtu));
            expect(client.Peer.Endpoint).toBe(wg.endpoint);
            const allowed = String(client.Peer.AllowedIPs).split(", ");
            for (const net of [...tunnels, ...input.existingCluster.onPremNetworks]) expect(allowed).toContain(net);
          });
          for (const t of tunnels) expect(BigInt(slots) + 2n).toBeLessThanOrEqual(hostCount(t));
        },
      ),
      { numRuns: 25 },
    );
  });

  it("writes the hub's config into the node that is the hub, 0600, or under cloud/hub/ when no node is", () => {
    fc.assert(
      fc.property(arbHubSpec(), (spec) => {
        const plan = resolvePlan(spec);
        const node = (spec as { nodes: { name: string }[] }).nodes[0]?.name;
        const [hub] = generateWireguard(plan);
        expect(hub?.path).toBe(`nodes/${node}/etc/wireguard/wg0.conf`);
        expect(hub?.secret).toBe(true);
      }),
      { numRuns: 5 },
    );
    const loaded = loadSpec(exampleText("cloud-burst-only"));
    if (!loaded.ok) throw new Error("invalid example");
    expect(generateWireguard(resolvePlan(loaded.value)).map((a) => a.path)).toEqual([
      "cloud/hub/etc/wireguard/wg0.conf",
      PEER_SECRETS_PATH,
    ]);
  });

  it("writes Secrets in the contract's layout, and the review tree holds only placeholders", () => {
    for (const name of withHub) {
      const loaded = loadSpec(textOf(name));
      if (!loaded.ok) throw new Error(`${name} is invalid`);
      const plan = resolvePlan(loaded.value);
      const artifacts = generateWireguard(plan);
      for (const a of artifacts) {
        expect(a.secret, a.path).toBe(true);
        expect(a.content).toContain("UNSET-resolve-with-secrets");
        // only the hub's public key, which the spec states, has the shape of a key
        for (const key of keysOf(a.content))
          expect(key === plan.cloud?.hub?.publicKey || !WIREGUARD_KEY.test(key)).toBe(true);
      }
      const secretsFile = artifacts.find((a) => a.path === PEER_SECRETS_PATH);
      if (!secretsFile) continue;
      // the contract as cloud-init ships it
      const shipped = cloudInitModule.generate(plan).find((a) => a.path === "cloud/provisioner/openapi.yaml");
      const contract = parseYamlDocuments(shipped?.content ?? "")[0] as {
        components: { schemas: { PeerSecret: object } };
      };
      const validate = ajv2020().compile(contract.components.schemas.PeerSecret);
      for (const doc of parseYamlDocuments(secretsFile.content) as { stringData: Record<string, string> }[]) {
        // the API server stores stringData in data, base64
        const { stringData, ...rest } = doc;
        const stored = {
          ...rest,
          data: Object.fromEntries(Object.entries(stringData).map(([k, v]) => [k, btoa(v)])),
        };
        expect(validate(stored), formatAjvErrors(validate.errors)).toBe(true);
      }
    }
  });

  it("rejects or round-trips hostile endpoint strings: the client config reads back exactly the spec's value", () => {
    const base = exampleInput("cloud-burst-only");
    const hostile = fc.oneof(
      fc.string(),
      fc.constantFrom(
        "a.example:1#x",
        "a;b:1",
        'a"b:1',
        "a b:1",
        "a.example:51820\nDNS = 1.1.1.1",
        "[::1]:1",
        "x:65535",
      ),
    );
    fc.assert(
      fc.property(hostile, (endpoint) => {
        const input = structuredClone(base);
        input.cloud.wireguard.endpoint = endpoint;
        const r = validateSpec(input);
        if (!r.ok) return;
        const f = filesOf(r.value, testSecretsFor(r.value));
        for (const text of f.clients) expect(ini.parse(text.split("\n\n")[1] ?? "").Peer?.Endpoint).toBe(endpoint);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses values that WireGuard would read differently", () => {
    for (const bad of ["a # b", "a\nb", '"quoted"', " x", "a;b", ""])
      expect(() => renderWireguardConfig("h", [{ name: "Interface", values: { PrivateKey: bad } }])).toThrow(
        InternalError,
      );
    expect(() => renderWireguardConfig("two\nlines", [])).toThrow(InternalError);
  });
});

describe("dual stack (issue 30 item 6)", () => {
  const load = (name: string) => {
    const loaded = loadSpec(fixtureText(name));
    if (!loaded.ok) throw new Error(`fixture ${name} is invalid`);
    return loaded.value;
  };

  it("gives the hub and every slot an address of each family, each slot's peer exactly its /32 and /128", () => {
    const spec = load("dual-stack-cloud");
    const plan = resolvePlan(spec, { secrets: testSecretsFor(spec) });
    const cloud = plan.cloud;
    if (!cloud?.hub) throw new Error("no hub");
    const f = filesOf(spec, testSecretsFor(spec));
    const [iface, ...peers] = f.hub.split(/\n\n/);
    expect(ini.parse(iface ?? "").Interface.Address).toBe("172.30.99.1/24, fd00:30:99::1/64");
    expect(peers).toHaveLength(cloud.slots.length);
    cloud.slots.forEach((slot, i) => {
      expect(slot.cidr6).toBe(`fd00:30:99::${i + 2}/128`);
      expect(ini.parse(peers[i] ?? "").Peer.AllowedIPs).toBe(`172.30.99.${i + 2}/32, fd00:30:99::${i + 2}/128`);
      const client = ini.parse(f.clients[i] ?? "");
      expect(client.Interface.Address).toBe(`${slot.cidr}, ${slot.cidr6}`);
      // both tunnel networks and both on-prem networks of the Kubernetes segment
      expect(client.Peer.AllowedIPs).toBe("172.30.99.0/24, fd00:30:99::/64, 10.118.12.0/24, fd00:118:12::/64");
      // the hub's endpoint is an IPv6 literal: 80 bytes of outer headers
      expect(client.Interface.MTU).toBe("1420");
    });
  });

  it("leaves an IPv4 hub endpoint 60 bytes, and any other 80", () => {
    const spec = structuredClone(load("dual-stack-cloud")) as any;
    const mtu = (endpoint: string) => {
      spec.cloud.wireguard.endpoint = endpoint;
      return resolvePlan(mustValidateAny(spec)).cloud?.tunnelMtu;
    };
    expect(mtu("203.0.113.10:51820")).toBe(1440);
    expect(mtu("[2001:db8::10]:51820")).toBe(1420);
    expect(mtu("vpn.example.com:51820")).toBe(1420);
  });

  it.for(["dual-stack-cloud", "dual-stack-cloud-burst-only"])(
    "%s: every config passes wg-quick strip and wg's parser with both families",
    (name, ctx) => {
      if (!toolAvailable("wg-quick")) return ctx.skip("needs wireguard-tools (installed by .ci/run)");
      const spec = load(name);
      const f = filesOf(spec, testSecretsFor(spec));
      expect(f.clients.length).toBeGreaterThan(0);
      for (const text of [f.hub, ...f.clients]) {
        expect(text).toMatch(/^Address = .*, fd00:30:99::/m);
        const r = wgQuickStrip(text);
        expect(r.status, r.out).toBe(0);
        expect(r.wg).toContain("Unable to modify interface");
        expect(r.wg).not.toContain("parsing error");
        // wg kept the IPv6 allowed IPs (wg-quick only takes Address, MTU and DNS out)
        expect(r.out).toMatch(/^AllowedIPs = .*fd00:30:99:/m);
      }
    },
  );
});
