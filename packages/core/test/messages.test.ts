// Issue 14: each message a person reads, as it prints (path, line:column of the key, a frame of that line).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { didYouMean, formatIssues, loadSpec } from "@clusterspec/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

import { editDistance } from "../src/spec/messages.js";
import { repoRoot } from "./helpers.js";

const exampleText = (name: string) => readFileSync(join(repoRoot, "examples", name, "cluster.yaml"), "utf8");
const bare = exampleText("bare-metal-ha");
const hybrid = exampleText("hybrid-cloud-burst");

/** Replaces the first occurrence of `from` (which must exist) and prints what loadSpec reports. */
function report(text: string, from?: string | RegExp, to = ""): string {
  if (from !== undefined) {
    const changed = text.replace(from, to);
    expect(changed, `${from} not found`).not.toBe(text);
    text = changed;
  }
  const r = loadSpec(text);
  return r.ok ? "(valid)" : formatIssues(r.errors, "cluster.yaml", { source: text });
}

describe("messages for the spec file", () => {
  it("an empty file", () => {
    expect(report("")).toMatchInlineSnapshot(`
      "✖ the spec is empty: expected a mapping that starts with apiVersion, kind, name
        → at (root) (cluster.yaml:1:1)"
    `);
  });

  it("a misspelt key: one message at the key, with the key it was meant to be", () => {
    expect(report(bare, "podSubnet:", "podSubnett:")).toMatchInlineSnapshot(`
      "✖ unknown key "podSubnett" (did you mean "podSubnet"?)
        → at kubernetes.podSubnett (cluster.yaml:8:3)
        8 |   podSubnett: 10.244.0.0/16
          |   ^^^^^^^^^^"
    `);
  });

  it("a missing key: at the mapping that lacks it", () => {
    expect(report(bare, "  podSubnet: 10.244.0.0/16\n")).toMatchInlineSnapshot(`
      "✖ missing required key "podSubnet"
        → at kubernetes.podSubnet (cluster.yaml:6:1)
        6 | kubernetes:
          | ^^^^^^^^^^"
    `);
  });

  it("an unknown key with nothing close to it gets no suggestion", () => {
    expect(report(bare, "  podSubnet:", "  flavour: vanilla\n  podSubnet:")).toMatchInlineSnapshot(`
      "✖ unknown key "flavour"
        → at kubernetes.flavour (cluster.yaml:8:3)
        8 |   flavour: vanilla
          |   ^^^^^^^"
    `);
  });

  it("a YAML syntax error is one message", () => {
    expect(report("name: [unclosed\nkind: Cluster\nnodes: [\n")).toMatchInlineSnapshot(`
      "✖ this list opened with [ is never closed: end it with ] (a list that goes on over several lines indents them deeper than its key)
        → at name (cluster.yaml:1:7)
        1 | name: [unclosed
          |       ^"
    `);
  });

  it("a duplicate key is named", () => {
    expect(report(bare, "  port: 6443\n", "  port: 6443\n  port: 6444\n")).toMatchInlineSnapshot(`
      "✖ duplicate key "port": a key appears once per mapping
        → at controlPlane.port (cluster.yaml:34:3)
        34 |   port: 6444
           |   ^^^^"
    `);
  });

  it("an AMI lookup without owners says owners is missing", () => {
    expect(report(hybrid, /\s+owners: .*\n/, "\n")).toMatchInlineSnapshot(`
      "✖ missing required key "owners"
        → at cloud.pools[0].ami.lookup.owners (cluster.yaml:92:9)
        92 |         lookup:
           |         ^^^^^^"
    `);
  });

  it("a VRID out of range states the range", () => {
    expect(report(bare, "vrid: 5", "vrid: 0")).toMatchInlineSnapshot(`
      "✖ 0 is out of range: expected a number in 1..255
        → at controlPlane.vrid (cluster.yaml:34:3)
        34 |   vrid: 0
           |   ^^^^"
    `);
  });

  it("an enum value: the options and the closest one", () => {
    expect(report(bare, "type: AH", "type: AHH")).toMatchInlineSnapshot(`
      "✖ "AHH" is not one of AH, PASS (did you mean "AH"?)
        → at vrrp.auth.type (cluster.yaml:36:11)
        36 |   auth: { type: AHH, password: { env: VRRP_AUTH_PASS } }
           |           ^^^^"
    `);
  });

  it("a value of the wrong type shows it", () => {
    expect(report(bare, "port: 6443", 'port: "https"')).toMatchInlineSnapshot(`
      "✖ expected a number, got "https"
        → at controlPlane.port (cluster.yaml:33:3)
        33 |   port: "https"
           |   ^^^^"
    `);
  });

  it("a multicast MAC is rejected", () => {
    expect(report(bare, '"52:54:00:12:34:56"', '"01:00:5e:00:00:01"')).toMatchInlineSnapshot(`
      "✖ a multicast MAC (odd first octet) never belongs to a NIC: use the interface's own unicast MAC, got "01:00:5e:00:00:01"
        → at nodes[0].interfaces.wan0.mac (cluster.yaml:49:15)
        49 |       wan0: { mac: "01:00:5e:00:00:01", address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |               ^^^"
    `);
  });

  it("a physical interface (MAC, no vlan) with a dotted name is rejected", () => {
    expect(report(bare, "      wan0: {", "      wan0.4000: {")).toMatchInlineSnapshot(`
      "✖ physical interface "wan0.4000" (named by MAC, no vlan) must not contain "." - netifrc reads a dotted name as a VLAN; rename it, or declare vlan: { parent, id } for a VLAN
        → at nodes[0].interfaces["wan0.4000"] (cluster.yaml:49:7)
        49 |       wan0.4000: { mac: "52:54:00:12:34:56", address: 10.118.10.20/24, gateway: 10.118.10.1 }
           |       ^^^^^^^^^"
    `);
  });
});

describe("didYouMean", () => {
  it("a VLAN whose MTU is above its parent's names the parent's default", () => {
    expect(
      report(
        bare,
        '      wan1: { mac: "52:54:00:12:35:56", address: 10.118.12.20/24 }',
        '      wan1: { mac: "52:54:00:12:35:56", address: 10.118.12.20/24 }\n      wan0.40: { vlan: { parent: wan0, id: 40 }, mtu: 9000 }',
      ),
    ).toMatchInlineSnapshot(`
      "✖ VLAN wan0.40 has MTU 9000, above its parent wan0's 1500 (the default: set nodes[0].interfaces.wan0.mtu); a VLAN's MTU is at most its parent's
        → at nodes[0].interfaces["wan0.40"].mtu (cluster.yaml:51:50)
        51 |       wan0.40: { vlan: { parent: wan0, id: 40 }, mtu: 9000 }
           |                                                  ^^^"
    `);
  });

  it("a Cilium MTU above a device's link MTU", () => {
    expect(
      report(
        bare.replace("  routingMode: native\n", "  routingMode: native\n  mtu: 1500\n"),
        '      wan1: { mac: "52:54:00:12:35:57", address: 10.118.12.21/24 }',
        '      wan1: { mac: "52:54:00:12:35:57", address: 10.118.12.21/24, mtu: 1400 }',
      ),
    ).toMatchInlineSnapshot(`
      "✖ Cilium MTU 1500 exceeds the MTU 1400 of wan1 on k8s-2 (nodes[1].interfaces.wan1.mtu): packets that size would be dropped
        → at cilium.mtu (cluster.yaml:70:3)
        70 |   mtu: 1500
           |   ^^^"
    `);
  });

  it("rp_filter keys clusterspec pins are refused in host.sysctl", () => {
    expect(
      report(
        bare,
        "  gentooPackages: true\n",
        "  gentooPackages: true\n  sysctl: { net.ipv4.conf.wan1.rp_filter: 1 }\n",
      ),
    ).toMatchInlineSnapshot(`
      "✖ net.ipv4.conf.wan1.rp_filter is set by clusterspec (all: 0, as Cilium requires; default and the VIP and policy-routed interfaces: 2, loose): strict reverse-path filtering drops policy-routed and DSR replies
        → at host.sysctl["net.ipv4.conf.wan1.rp_filter"] (cluster.yaml:67:13)
        67 |   sysctl: { net.ipv4.conf.wan1.rp_filter: 1 }
           |             ^^^^^^^^^^^^^^^^^^^^^^^^^^^^"
    `);
  });

  it("the Kubernetes interface cannot be a public interface of the host firewall", () => {
    expect(
      report(
        bare,
        "  gentooPackages: true\n",
        "  gentooPackages: true\n  firewall: { publicInterfaces: [wan1], sshFrom: [192.0.2.0/24] }\n",
      ),
    ).toMatchInlineSnapshot(`
      "✖ wan1 carries the Kubernetes segment (API server, kubelet, etcd, Cilium between the nodes): it cannot be a public interface
        → at host.firewall.publicInterfaces[0] (cluster.yaml:67:34)
        67 |   firewall: { publicInterfaces: [wan1], sshFrom: [192.0.2.0/24] }
           |                                  ^^^^"
    `);
    expect(
      report(bare, "  gentooPackages: true\n", "  gentooPackages: true\n  firewall: { publicInterfaces: [eth9] }\n"),
    ).toMatchInlineSnapshot(`
      "✖ public interface eth9 is not an interface of any node
        → at host.firewall.publicInterfaces[0] (cluster.yaml:67:34)
        67 |   firewall: { publicInterfaces: [eth9] }
           |                                  ^^^^"
    `);
  });

  it("warns when the host firewall would filter nothing, and about cgroup v1", () => {
    const r = loadSpec(
      bare
        .replace(
          "  gentooPackages: true\n",
          "  gentooPackages: true\n  cgroupMode: hybrid\n  firewall: { publicInterfaces: [wan0] }\n",
        )
        .replace(
          '      wan0: { mac: "52:54:00:12:34:58", address: 10.118.10.22/24, gateway: 10.118.10.1 }\n',
          '      wan2: { mac: "52:54:00:12:34:58", address: 10.118.10.22/24, gateway: 10.118.10.1 }\n',
        )
        .replace(/ {2}devices: \[wan1, wan0\].*\n/, "  devices: [wan1]\n  bpfMasquerade: false\n"),
    );
    expect(r.ok).toBe(true);
    if (r.ok)
      expect(formatIssues(r.warnings, "cluster.yaml")).toMatchInlineSnapshot(`
        "⚠ cgroupMode hybrid runs the kubelet on cgroup v1, in maintenance mode since Kubernetes 1.31; OpenRC's default unified (cgroup v2) needs nothing written
          → at host.cgroupMode (cluster.yaml:67:3)
        ⚠ the host firewall filters nothing on k8s-3: none of host.firewall.publicInterfaces is an interface there; list the public ones in host.firewall.publicInterfaces
          → at host.firewall (cluster.yaml:68:3)"
      `);
  });

  it("suggests the key one slip away, and nothing for an unrelated word", () => {
    expect(didYouMean("podSubnett", ["podSubnet", "serviceSubnet"])).toBe("podSubnet");
    expect(didYouMean("ah", ["AH", "PASS"])).toBe("AH");
    expect(didYouMean("flavour", ["podSubnet", "serviceSubnet", "version"])).toBeUndefined();
  });

  it("edit distance is a metric: zero only for equal words, symmetric, one per inserted character", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 12 }),
        fc.string({ maxLength: 1, minLength: 1 }),
        (a, b, c) => {
          expect(editDistance(a, b)).toBe(editDistance(b, a));
          expect(editDistance(a, b) === 0).toBe(a === b);
          expect(editDistance(a, a + c)).toBe(1);
          expect(editDistance(a, b)).toBeLessThanOrEqual(Math.max(a.length, b.length));
        },
      ),
    );
  });

  it("finds a key of at least four characters again after any one-character deletion", () => {
    const keys = ["podSubnet", "serviceSubnet", "nodeCidrMaskSize", "schedulableControlPlanes", "version", "dnsDomain"];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.nat(), (key, n) => {
        const i = n % key.length;
        const typo = key.slice(0, i) + key.slice(i + 1);
        expect(didYouMean(typo, keys)).toBe(key);
      }),
    );
  });
});

describe("messages for the bootstrap (controlPlane.initNode, controlPlane.bootstrapped)", () => {
  const customised = exampleText("customised");

  it("an initNode that is not a node names the control planes", () => {
    expect(report(bare, "  port: 6443\n", "  port: 6443\n  initNode: k8s-9\n")).toMatchInlineSnapshot(`
      "✖ initNode k8s-9 is not a node in nodes: it must name the control-plane node that runs \`kubeadm init\`; the control-plane nodes are k8s-1, k8s-2, k8s-3
        → at controlPlane.initNode (cluster.yaml:34:3)
        34 |   initNode: k8s-9
           |   ^^^^^^^^"
    `);
  });

  it("an initNode that is a worker names the control planes", () => {
    expect(report(customised, "  vrid: 5\n", "  vrid: 5\n  initNode: gpu-1\n")).toMatchInlineSnapshot(`
      "✖ initNode gpu-1 does not have the control-plane role, and only a control-plane node can run \`kubeadm init\`; the control-plane nodes are k8s-1, k8s-2, k8s-3
        → at controlPlane.initNode (cluster.yaml:52:3)
        52 |   initNode: gpu-1
           |   ^^^^^^^^"
    `);
  });

  it("a bootstrapped lone node needs the join secrets", () => {
    // The example with k8s-1 alone and no kubernetes.secrets: valid until it says bootstrapped.
    const lone = bare.replace(/ {2}secrets:\n( {4}.*\n)+/, "").replace(/ {2}- name: k8s-2\n[\s\S]*?(?=host:)/, "");
    expect(report(lone)).toBe("(valid)");
    expect(report(lone, "  port: 6443\n", "  port: 6443\n  bootstrapped: true\n")).toMatchInlineSnapshot(`
      "✖ controlPlane.bootstrapped is true, so every node joins the cluster with kubeadm: reference bootstrapToken, certificateKey and caCertHash in kubernetes.secrets
        → at kubernetes.secrets (cluster.yaml:6:1)
        6 | kubernetes:
          | ^^^^^^^^^^"
    `);
  });
});

describe("loadSpec on damaged text", () => {
  it("never throws, and places every error on a line of the text", () => {
    const lines = bare.split("\n");
    fc.assert(
      fc.property(fc.nat(lines.length - 1), fc.constantFrom("", "  x: 1", "- a", ": :", "\t"), (i, junk) => {
        const text = [...lines.slice(0, i), junk, ...lines.slice(i + 1)].join("\n");
        const r = loadSpec(text);
        if (r.ok) return;
        for (const e of r.errors) {
          expect(e.line, e.message).toBeGreaterThanOrEqual(1);
          expect(e.line, e.message).toBeLessThanOrEqual(lines.length);
          expect(e.code, e.message).toBeTypeOf("string");
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("formatIssues colours", () => {
  it("colours the mark, location and caret only when asked", () => {
    const r = loadSpec(bare.replace("vrid: 5", "vrid: 0"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    const plain = formatIssues(r.errors, "cluster.yaml", { source: bare });
    const coloured = formatIssues(r.errors, "cluster.yaml", { source: bare, color: true });
    expect(plain).not.toContain("\x1b[");
    expect(coloured).toContain("\x1b[31m✖\x1b[0m");
    expect(coloured.replaceAll(new RegExp(`${"\x1b"}\\[\\d+m`, "g"), "")).toBe(plain);
  });
});

describe("messages for the provisioner's SNS path", () => {
  it("a notifyPath that is not a plain URL path names the field and its line", () => {
    const text = report(
      hybrid,
      "    url: https://provisioner.example.com\n",
      "    url: https://provisioner.example.com\n    notifyPath: sns?x=1\n",
    );
    expect(text).toContain("expected a URL path such as /sns");
    expect(text).toContain("→ at cloud.provisioner.notifyPath (cluster.yaml:79:");
    expect(
      report(
        hybrid,
        "    url: https://provisioner.example.com\n",
        "    url: https://provisioner.example.com\n    notifyPath: /hooks/sns\n",
      ),
    ).toBe("(valid)");
  });
});
