// Specs with existingCluster: only the cloud burst of a cluster managed by other means. Every message comes
// with its path and the line of the spec it points at.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  checkSecretValues,
  formatIssues,
  isCloudBurstPlan,
  loadSpec,
  resolvePlan,
  secretReferences,
  validateSpec,
} from "../src/index.js";
import { buildSpec, mustValidateAny, testSecretsFor, testWireguardKey } from "../src/testing.js";
import { repoRoot } from "./helpers.js";

const burstYaml = readFileSync(join(repoRoot, "examples", "cloud-burst-only", "cluster.yaml"), "utf8");

/** Errors of the example after replacing `from` with `to` in its text, with lines. */
function errorsAfterEdit(from: string, to: string): string {
  if (!burstYaml.includes(from)) throw new Error(`not in the example: ${from}`);
  const r = loadSpec(burstYaml.replace(from, to));
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml");
}

const burstInput = (): any => parse(burstYaml);

describe("cloud burst specs", () => {
  it("validates the example and resolves a plan with only the burst side", () => {
    const r = loadSpec(burstYaml);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const plan = resolvePlan(r.value);
    expect(isCloudBurstPlan(plan)).toBe(true);
    expect(plan.cloud?.apiServerEndpoint).toBe("10.118.12.100:6443");
    expect(plan.cloud?.nameservers).toEqual(["10.118.12.53", "1.1.1.1"]);
    expect(plan.cloud?.routedNetworks).toEqual(["172.30.99.0/24", "10.118.12.0/24"]);
    expect(plan.cloud?.pools.map((p) => p.imdsHopLimit)).toEqual([1, 2]);
    expect(plan.cloud?.slots.map((s) => `${s.id} ${s.cidr}`)).toEqual([
      "ci-arm64-0 172.30.99.2/32",
      "ci-arm64-1 172.30.99.3/32",
      "build-amd64-0 172.30.99.4/32",
      "build-amd64-1 172.30.99.5/32",
      "build-amd64-2 172.30.99.6/32",
      "build-amd64-3 172.30.99.7/32",
    ]);
    expect(plan.cloud?.hub?.configPath).toBe("cloud/hub/etc/wireguard/wg0.conf");
  });

  it("rejects a section of a generated cluster beside existingCluster, naming both", () => {
    expect(
      errorsAfterEdit("existingCluster:\n", "nodes: []\ncilium: { version: 1.20.0 }\nexistingCluster:\n"),
    ).toMatchInlineSnapshot(`
      "✖ nodes cannot be combined with existingCluster: a spec either generates a cluster (nodes, …) or bursts an existing one (existingCluster)
        → at nodes (cluster.yaml:8:1)
      ✖ cilium cannot be combined with existingCluster: a spec either generates a cluster (cilium, …) or bursts an existing one (existingCluster)
        → at cilium (cluster.yaml:9:1)"
    `);
  });

  it("reports schema errors of existingCluster at their line", () => {
    expect(errorsAfterEdit("endpoint: 10.118.12.100:6443", "endpoint: 10.118.12.100")).toMatchInlineSnapshot(`
      "✖ expected host:port, the host an IP address ([fd00::1] for IPv6) or a DNS name, got "10.118.12.100"
        → at existingCluster.endpoint (cluster.yaml:9:3)"
    `);
    expect(errorsAfterEdit("endpoint: 10.118.12.100:6443", "endpoint: 10.118.12.100:70000")).toMatchInlineSnapshot(`
      "✖ port must be 1-65535, got "10.118.12.100:70000"
        → at existingCluster.endpoint (cluster.yaml:9:3)"
    `);
    expect(errorsAfterEdit("endpoint: 10.118.12.100:6443", "endpoint: 10.118.12.300:6443")).toMatchInlineSnapshot(`
      "✖ expected a valid IP address or DNS name before the port, got "10.118.12.300:6443"
        → at existingCluster.endpoint (cluster.yaml:9:3)"
    `);
    expect(errorsAfterEdit("    publicKey: ", "    publicKey: x")).toMatchInlineSnapshot(`
      "✖ expected a WireGuard key: 32 bytes in base64 (44 characters ending in '='), got "x5kp+X0mWWue+fzBMJqdI9eFSRAdR4P8D48ANZlNkGkA="
        → at cloud.wireguard.publicKey (cluster.yaml:32:5)"
    `);
    expect(errorsAfterEdit("caCertHash: { env: KUBEADM_CA_HASH }", 'caCertHash: "sha256:00"')).toMatchInlineSnapshot(`
      "✖ secrets are never written in the spec: reference one with { env: NAME } or { file: path }
        → at existingCluster.caCertHash (cluster.yaml:10:3)"
    `);
  });

  it("keeps pod, service, on-prem, tunnel and VPC networks apart", () => {
    expect(
      errorsAfterEdit("onPremNetworks: [10.118.12.0/24]", "onPremNetworks: [10.118.12.0/24, 10.244.0.0/24]"),
    ).toMatchInlineSnapshot(`
        "✖ on-prem network 10.244.0.0/24 overlaps the pod subnet 10.244.0.0/16 (existingCluster.podSubnet)
          → at existingCluster.onPremNetworks[1] (cluster.yaml:16:36)"
      `);
    expect(errorsAfterEdit("vpcCidr: 172.24.0.0/16", "vpcCidr: 172.30.0.0/16")).toMatchInlineSnapshot(`
      "✖ AWS VPC 172.30.0.0/16 overlaps the WireGuard tunnel subnet 172.30.99.0/24 (cloud.wireguard.tunnelSubnet)
        → at cloud.aws.vpcCidr (cluster.yaml:21:5)"
    `);
    expect(errorsAfterEdit("serviceSubnet: 10.96.0.0/12", "serviceSubnet: 10.64.0.0/10")).toMatchInlineSnapshot(`
      "✖ service subnet 10.64.0.0/10 is larger than kubeadm allows (/12 or smaller for IPv4)
        → at existingCluster.serviceSubnet (cluster.yaml:13:3)
      ✖ on-prem network 10.118.12.0/24 overlaps the service subnet 10.64.0.0/10 (existingCluster.serviceSubnet)
        → at existingCluster.onPremNetworks[0] (cluster.yaml:16:20)"
    `);
  });

  it("keeps at most 2 nameservers and reaches the endpoint and hub through the tunnel", () => {
    expect(
      errorsAfterEdit("nameservers: [10.118.12.53, 1.1.1.1]", "nameservers: [10.118.12.53, 1.1.1.1, 9.9.9.9]"),
    ).toMatchInlineSnapshot(`
        "✖ 3 nameservers given; a burst node keeps at most 2 after tunnel-up, because glibc reads 3 and the kubelet adds the cluster DNS
          → at existingCluster.nameservers[2] (cluster.yaml:17:40)"
      `);
    expect(errorsAfterEdit("endpoint: 10.118.12.100:6443", "endpoint: 10.118.13.100:6443")).toMatchInlineSnapshot(`
      "✖ API endpoint 10.118.13.100:6443 is outside existingCluster.onPremNetworks: burst nodes reach the cluster only through the tunnel
        → at existingCluster.endpoint (cluster.yaml:9:3)"
    `);
    expect(errorsAfterEdit("hub: 10.118.12.10", "hub: 192.168.1.10")).toMatchInlineSnapshot(`
      "✖ WireGuard hub 192.168.1.10 is outside existingCluster.onPremNetworks, where the on-prem nodes route the tunnel through it
        → at cloud.wireguard.hub (cluster.yaml:28:5)"
    `);
    expect(errorsAfterEdit("endpoint: 10.118.12.100:6443", "endpoint: api.home.example:6443")).toBe("(valid)");
  });

  it("refuses a hub endpoint by name when every nameserver is reached only through the tunnel (issue 29 item 3)", () => {
    expect(
      errorsAfterEdit("nameservers: [10.118.12.53, 1.1.1.1]", "nameservers: [10.118.12.53, 10.118.12.54]"),
    ).toMatchInlineSnapshot(`
      "✖ hub endpoint vpn.example.com:51820 is a DNS name, but every nameserver (10.118.12.53, 10.118.12.54) is reached through the tunnel: after a reboot a burst node cannot resolve it to bring the tunnel up; give the endpoint as an IP address, or a nameserver outside existingCluster.onPremNetworks
        → at cloud.wireguard.endpoint (cluster.yaml:29:5)"
    `);
    // an IPv4 literal needs no resolver (and the example's 1.1.1.1, outside the tunnel, resolves the name)
    const burst = burstYaml
      .replace("nameservers: [10.118.12.53, 1.1.1.1]", "nameservers: [10.118.12.53, 10.118.12.54]")
      .replace("endpoint: vpn.example.com:51820", "endpoint: 203.0.113.7:51820");
    expect(validateSpec(parse(burst)).ok).toBe(true);
  });

  it("checks pools and the tunnel's room for the hub and every slot", () => {
    expect(errorsAfterEdit("name: build-amd64", "name: ci-arm64")).toMatchInlineSnapshot(`
      "✖ duplicate pool name ci-arm64 (also used by cloud.pools[0].name)
        → at cloud.pools[1].name (cluster.yaml:55:7)"
    `);
    expect(errorsAfterEdit("minSize: 0\n      maxSize: 2", "minSize: 3\n      maxSize: 2")).toMatchInlineSnapshot(`
      "✖ minSize 3 is larger than maxSize 2
        → at cloud.pools[0].minSize (cluster.yaml:44:7)"
    `);
    expect(errorsAfterEdit("tunnelSubnet: 172.30.99.0/24", "tunnelSubnet: 172.30.99.0/29")).toMatchInlineSnapshot(`
      "✖ tunnel subnet 172.30.99.0/29 has room for fewer than 9 addresses (hub and 6 burst slots)
        → at cloud.wireguard.tunnelSubnet (cluster.yaml:26:5)"
    `);
  });

  it("needs a hub for its keys, and the hub's public key and endpoint for static peer keys", () => {
    expect(errorsAfterEdit("    hub: 10.118.12.10", "")).toMatchInlineSnapshot(`
      "✖ a hub private key needs cloud.wireguard.hub: the hub's config is written for that address
        → at cloud.wireguard.privateKey (cluster.yaml:31:5)
      ✖ static peer keys need cloud.wireguard.hub, whose config lists the peers
        → at cloud.wireguard.peerKeys (cluster.yaml:33:5)"
    `);
    expect(errorsAfterEdit("    publicKey: ", "    # publicKey: ")).toMatchInlineSnapshot(`
      "✖ static peer keys need the hub's public key: the burst slots' client configs name it as their peer
        → at cloud.wireguard.publicKey (cluster.yaml:25:3)"
    `);
    expect(errorsAfterEdit("    endpoint: vpn", "    # endpoint: vpn")).toMatchInlineSnapshot(`
      "✖ static peer keys need the hub's endpoint (host:port): the burst slots' client configs dial it
        → at cloud.wireguard.endpoint (cluster.yaml:25:3)"
    `);
    // the same rule guards a generated cluster's cloud section
    const full = buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: true }) as any;
    full.cloud.wireguard.privateKey = { env: "WG" };
    const r = validateSpec(full);
    expect(r.ok ? "" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ a hub private key needs cloud.wireguard.hub: the hub's config is written for that address
        → at cloud.wireguard.privateKey"
    `);
  });

  it("checks resolved WireGuard keys: their shape, and one per burst slot", () => {
    const spec = mustValidateAny(burstInput());
    expect(secretReferences(spec).map((r) => `${r.id} ${r.path.join(".")}`)).toEqual([
      "caCertHash existingCluster.caCertHash",
      "wireguardHubPrivateKey cloud.wireguard.privateKey",
      "wireguardPeerPrivateKeys cloud.wireguard.peerKeys.privateKeys",
      "wireguardPeerPublicKeys cloud.wireguard.peerKeys.publicKeys",
    ]);
    expect(checkSecretValues(testSecretsFor(spec), spec)).toEqual([]);
    const issues = checkSecretValues(
      {
        wireguardHubPrivateKey: "not-a-key",
        wireguardPeerPrivateKeys: `${testWireguardKey(1)}\n`,
        wireguardPeerPublicKeys: `${testWireguardKey(1)}\nbad\n`,
      },
      spec,
    );
    expect(
      formatIssues(issues.map((i) => ({ ...i, severity: "error" as const, code: "secret" as const }))),
    ).toMatchInlineSnapshot(`
      "✖ resolved WireGuard hub private key is invalid: a WireGuard key is 32 bytes in base64 (44 characters ending in '='), as wg genkey and wg pubkey print it
        → at cloud.wireguard.privateKey
      ✖ resolved WireGuard peer private keys hold 1 keys; the pools have 6 burst slots (the sum of their maxSize), one key each
        → at cloud.wireguard.peerKeys.privateKeys
      ✖ resolved WireGuard peer public keys is invalid: line 2: a WireGuard key is 32 bytes in base64 (44 characters ending in '='), as wg genkey and wg pubkey print it
        → at cloud.wireguard.peerKeys.publicKeys"
    `);
  });

  it("validateSpec is total on mutated cloud burst specs: it never throws, and every error has a path", () => {
    const keys = ["existingCluster", "cloud", "name", "nodes", "network"];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.jsonValue(), (key, value) => {
        const spec = burstInput();
        spec[key] = value;
        const r = validateSpec(spec);
        if (!r.ok) for (const e of r.errors) expect(e.path.length + (e.message ? 0 : 1)).toBeGreaterThan(0);
      }),
      { numRuns: 200 },
    );
  });
});
