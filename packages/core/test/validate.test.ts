import { formatIssues, loadSpec, validateSpec } from "@clusterspec/core";
import { arbClusterSpec, asClusterSpec, buildSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  addressAt,
  addressCount,
  cidrContains,
  cidrsOverlap,
  hostPart,
  ipFamily,
  lastAddress,
  networkAddress,
  networkOf,
  parseCidr,
} from "../src/ip.js";
import { planVips } from "../src/plan/vrrp.js";
import { errorsAfter, referenceSpec, warningsOf } from "./helpers.js";

describe("schema", () => {
  it("accepts the reference cluster", () => {
    const result = validateSpec(referenceSpec());
    expect(result.ok).toBe(true);
  });

  it("rejects a literal secret and says how to reference one", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.auth.password = "hunter2";
      }),
    ).toMatchInlineSnapshot(`
      "✖ secrets are never written in the spec: reference one with { env: NAME } or { file: path }
        → at vrrp.auth.password"
    `);
  });

  it("rejects unknown keys", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].rootFs = "btrfs";
      }),
    ).toMatchInlineSnapshot(`
      "✖ unknown key "rootFs"
        → at nodes[0].rootFs"
    `);
  });

  it("rejects Kubernetes older than 1.22 and malformed versions", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.version = "v1.21.14";
      }),
    ).toMatchInlineSnapshot(`
      "✖ Kubernetes v1.21.14 is not supported: clusterspec supports 1.22 and newer
        → at kubernetes.version"
    `);
    expect(
      errorsAfter((s) => {
        s.kubernetes.version = "1.30";
      }),
    ).toMatchInlineSnapshot(`
      "✖ Kubernetes version 1.30 is not of the form v1.MINOR.PATCH
        → at kubernetes.version"
    `);
  });

  it("rejects Cilium older than 1.14", () => {
    expect(
      errorsAfter((s) => {
        s.cilium.version = "1.13.9";
      }),
    ).toMatchInlineSnapshot(`
      "✖ Cilium 1.13.9 is not supported: clusterspec supports 1.14 and newer
        → at cilium.version"
    `);
  });

  it("rejects interface names that are unsafe in any output format", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces["wan 1"] = { mac: "52:54:00:00:00:01" };
        s.nodes[0].interfaces.averyveryverylongname = { mac: "52:54:00:00:00:02" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ invalid key: interface names use letters, digits, '_', '.', '-' only (no whitespace, '/', ':' or quotes)
        → at nodes[0].interfaces["wan 1"]
      ✖ invalid key: interface names are at most 15 bytes (Linux IFNAMSIZ)
        → at nodes[0].interfaces.averyveryverylongname"
    `);
  });

  it("rejects node names that are not RFC 1123 labels", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].name = "K8s_1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ node name must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, got "K8s_1"
        → at nodes[0].name"
    `);
  });

  it("requires a MAC on physical interfaces and none on VLANs", () => {
    expect(
      errorsAfter((s) => {
        delete s.nodes[0].interfaces.wan0.mac;
        s.nodes[0].interfaces["wan0.7"] = { mac: "52:54:00:00:00:07", vlan: { parent: "wan0", id: 7 } };
      }),
    ).toMatchInlineSnapshot(`
      "✖ a physical interface needs its MAC (interfaces are named by MAC)
        → at nodes[0].interfaces.wan0.mac
      ✖ a VLAN interface has no MAC of its own
        → at nodes[0].interfaces["wan0.7"].mac"
    `);
  });

  it("rejects an http provisioner URL", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cloud.provisioner.url = "http://provisioner.example.com";
    const r = validateSpec(spec);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ the provisioner URL must be https:// (SNS delivers only to HTTPS here), got "http://provisioner.example.com"
        → at cloud.provisioner.url"
    `);
  });
});

describe("cross-field rules", () => {
  it("uniqueNodeNames", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[2].name = "k8s-1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ duplicate node name k8s-1 (also used by nodes[0].name)
        → at nodes[2].name"
    `);
  });

  it("uniqueNodeAddresses", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[2].interfaces.wan0.address = "10.118.10.20/24";
      }),
    ).toMatchInlineSnapshot(`
      "✖ duplicate address 10.118.10.20 (also used by nodes[0].interfaces.wan0.address)
        → at nodes[2].interfaces.wan0.address"
    `);
  });

  it("uniqueMacs", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[1].interfaces.wan0.mac = "52:54:00:12:34:56";
      }),
    ).toMatchInlineSnapshot(`
      "✖ duplicate MAC 52:54:00:12:34:56 (also used by nodes[0].interfaces.wan0.mac)
        → at nodes[1].interfaces.wan0.mac"
    `);
  });

  it("netifrcVariableNamesDistinct", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces["wan0.4000"] = { vlan: { parent: "wan0", id: 4000 }, address: "192.0.2.10/24" };
        s.nodes[0].interfaces.wan0_4000 = { mac: "52:54:00:00:40:00" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ interface wan0_4000 and wan0.4000 both become config_wan0_4000 in /etc/conf.d/net; rename one
        → at nodes[0].interfaces.wan0_4000"
    `);
  });

  it("vlanParentsExist", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces["eth9.7"] = { vlan: { parent: "eth9", id: 7 } };
      }),
    ).toMatchInlineSnapshot(`
      "✖ VLAN parent eth9 is not an interface of node k8s-1
        → at nodes[0].interfaces["eth9.7"].vlan.parent"
    `);
  });

  it("segmentsWellFormed", () => {
    expect(
      errorsAfter((s) => {
        s.network.segments[0].onLink.push("10.118.12.128/25");
        s.network.segments[0].uplink.gateway = "10.1.1.1";
        s.network.kubernetesSegment = "nope";
      }),
    ).toMatchInlineSnapshot(`
      "✖ segment nope is not declared in network.segments
        → at network.kubernetesSegment
      ✖ VIP 10.118.12.100 is on interface (none), which attaches no segment in network.segments
        → at controlPlane.vip
      ✖ uplink gateway 10.1.1.1 is neither in 10.118.12.0/24 nor in an on-link network of segment internal
        → at network.segments[0].uplink.gateway
      ✖ on-link network of internal 10.118.12.128/25 overlaps the segment internal 10.118.12.0/24 (network.segments[0].subnet)
        → at network.segments[0].onLink[1]"
    `);
  });

  it("nodeAddressesMatchSegments", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[1].interfaces.wan1.address = "10.118.12.21/25";
        delete s.nodes[2].interfaces.wan1.address;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node k8s-3 has no address on wan1, the interface of Kubernetes segment internal
        → at nodes[2].interfaces
      ✖ address 10.118.12.21/25 has prefix /25 but segment internal is 10.118.12.0/24
        → at nodes[1].interfaces.wan1.address"
    `);
  });

  it("gatewaysOnLink", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces.wan0.gateway = "10.118.9.1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ gateway 10.118.9.1 is outside 10.118.10.0/24, the network of wan0
        → at nodes[0].interfaces.wan0.gateway"
    `);
  });

  it("vipsPlacedSafely", () => {
    expect(
      errorsAfter((s) => {
        s.controlPlane.vip = "10.118.12.20/24";
        s.externalVips.addresses = [
          "10.118.11.0",
          "10.118.11.255",
          "10.118.13.7",
          "10.118.11.1",
          "10.118.11.30",
          "10.118.11.30",
        ];
      }),
    ).toMatchInlineSnapshot(`
      "✖ VIP 10.118.12.20 is already the address of k8s-1 (nodes[0].interfaces.wan1.address)
        → at controlPlane.vip
      ✖ VIP 10.118.11.0 is the network address of 10.118.11.0/24
        → at externalVips.addresses[0]
      ✖ VIP 10.118.11.255 is the broadcast address of 10.118.11.0/24
        → at externalVips.addresses[1]
      ✖ VIP 10.118.13.7 is outside 10.118.12.0/24 and 10.118.11.0/24, the networks of wan1 (segment internal)
        → at externalVips.addresses[2]
      ✖ VIP 10.118.11.1 is already the uplink gateway (network.segments[0].uplink.gateway)
        → at externalVips.addresses[3]
      ✖ VIP 10.118.11.30 is listed twice (also at externalVips.addresses[4])
        → at externalVips.addresses[5]
      ✖ VIP 10.118.11.0 ends in 0 (its last 8 bits), which is not a VRID: give it an explicit vrid (1-255)
        → at externalVips.addresses[0]"
    `);
  });

  it("vipsPlacedSafely: the VIP carries its segment's prefix", () => {
    expect(
      errorsAfter((s) => {
        s.controlPlane.vip = "10.118.12.100/32";
      }),
    ).toMatchInlineSnapshot(`
      "✖ VIP 10.118.12.100/32 must carry the prefix of its segment 10.118.12.0/24 (/24)
        → at controlPlane.vip"
    `);
  });

  it("networksDisjoint", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.podSubnet = "10.118.0.0/16";
      }),
    ).toMatchInlineSnapshot(`
      "✖ segment internal 10.118.12.0/24 overlaps the pod subnet 10.118.0.0/16 (kubernetes.podSubnet)
        → at network.segments[0].subnet
      ✖ on-link network of internal 10.118.11.0/24 overlaps the pod subnet 10.118.0.0/16 (kubernetes.podSubnet)
        → at network.segments[0].onLink[0]
      ✖ network of k8s-1 wan0 10.118.10.0/24 overlaps the pod subnet 10.118.0.0/16 (kubernetes.podSubnet)
        → at nodes[0].interfaces.wan0.address"
    `);
  });

  it("serviceSubnetSized", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.serviceSubnet = "10.0.0.0/8";
      }),
    ).toMatchInlineSnapshot(`
      "✖ service subnet 10.0.0.0/8 overlaps the pod subnet 10.244.0.0/16 (kubernetes.podSubnet)
        → at kubernetes.serviceSubnet
      ✖ service subnet 10.0.0.0/8 is larger than kubeadm allows (/12 or smaller for IPv4)
        → at kubernetes.serviceSubnet
      ✖ segment internal 10.118.12.0/24 overlaps the service subnet 10.0.0.0/8 (kubernetes.serviceSubnet)
        → at network.segments[0].subnet
      ✖ on-link network of internal 10.118.11.0/24 overlaps the service subnet 10.0.0.0/8 (kubernetes.serviceSubnet)
        → at network.segments[0].onLink[0]
      ✖ network of k8s-1 wan0 10.118.10.0/24 overlaps the service subnet 10.0.0.0/8 (kubernetes.serviceSubnet)
        → at nodes[0].interfaces.wan0.address"
    `);
    expect(
      errorsAfter((s) => {
        s.kubernetes.serviceSubnet = "10.96.0.0/29";
      }),
    ).toMatchInlineSnapshot(`
      "✖ service subnet 10.96.0.0/29 has fewer than 10 addresses
        → at kubernetes.serviceSubnet"
    `);
  });

  it("podSubnetFitsNodes", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.podSubnet = "10.244.0.0/23";
      }),
    ).toMatchInlineSnapshot(`
      "✖ pod subnet 10.244.0.0/23 holds 2 node CIDRs of /24, but the cluster can have 3 nodes
        → at kubernetes.podSubnet"
    `);
    expect(
      errorsAfter((s) => {
        s.kubernetes.nodeCidrMaskSize = 12;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node CIDR /12 is larger than the pod subnet 10.244.0.0/16
        → at kubernetes.nodeCidrMaskSize"
    `);
  });

  it("controlPlaneQuorum", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[2].roles = ["worker"];
      }),
    ).toMatchInlineSnapshot(`
      "✖ 2 control-plane nodes survive no more failures than 1: etcd needs a majority (2 of 2), so use 3 or 5
        → at nodes"
    `);
    expect(
      warningsOf((s) => {
        s.nodes[1].roles = ["worker"];
        s.nodes[2].roles = ["worker"];
      }),
    ).toMatchInlineSnapshot(`
      "⚠ a single control-plane node has no failover: use it for tests only
        → at nodes"
    `);
    const six = buildSpec({ controlPlanes: 5, workers: 1, poolSize: 0, cloud: false }) as any;
    six.nodes[5].roles = ["control-plane"];
    const r = validateSpec(six);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ 6 control-plane nodes slow etcd down for no gain: use 3 or 5
        → at nodes"
    `);
  });

  it("atMostTwoNameservers", () => {
    expect(
      errorsAfter((s) => {
        s.network.nameservers.push("9.9.9.9");
      }),
    ).toMatchInlineSnapshot(`
      "✖ 3 nameservers given; at most 2, because glibc reads 3 and the kubelet adds the cluster DNS
        → at network.nameservers[2]"
    `);
  });

  it("routingTablesValid", () => {
    expect(
      errorsAfter((s) => {
        s.network.segments[0].uplink.routingTable = { id: 254, name: "main" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ routing table id 254 is reserved (0 unspec, 252 compat, 253 default, 254 main, 255 local)
        → at network.segments[0].uplink.routingTable.id
      ✖ routing table name main is reserved by iproute2
        → at network.segments[0].uplink.routingTable.name"
    `);
  });

  it("vrrpOptionsConsistent", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.unicast = true;
        s.vrrp.nopreempt = true;
        s.vrrp.initialState = "MASTER";
      }),
    ).toMatchInlineSnapshot(`
      "✖ initial state MASTER is incompatible with AH authentication in keepalived (it clears the state); use BACKUP
        → at vrrp.initialState
      ✖ nopreempt requires initialState BACKUP
        → at vrrp.nopreempt
      ✖ AH authentication does not work with unicast peers in keepalived; use PASS or multicast
        → at vrrp.auth.type"
    `);
  });

  it("vridsAllocatable", () => {
    expect(
      errorsAfter((s) => {
        s.externalVips.addresses[2] = { address: "10.118.11.22", vrid: 5 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ externalVips.addresses[2].vrid gets VRID 5 (given explicitly), which controlPlane.vrid already has on wan1 (given explicitly): give one of them an explicit, unused vrid
        → at externalVips.addresses[2].vrid"
    `);
    expect(
      errorsAfter((s) => {
        s.network.segments[0].reservedVrids = [5];
      }),
    ).toMatchInlineSnapshot(`
      "✖ controlPlane.vrid gets VRID 5 (given explicitly), which network.segments[0].reservedVrids reserves on wan1: give the control-plane VIP an explicit, unreserved vrid
        → at controlPlane.vrid"
    `);
  });

  it("healthCheckMovesVip", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.healthCheck = { weight: -2 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ weight -2 cannot move the control-plane VIP: a failed master must drop below every healthy node (|weight| >= 3), or use 0 for FAULT
        → at vrrp.healthCheck.weight"
    `);
    expect(
      warningsOf((s) => {
        s.vrrp.nopreempt = true;
      }),
    ).toMatchInlineSnapshot(`
      "⚠ with nopreempt a failing apiserver check does not move the control-plane VIP (no backup takes a VIP from a live master, whatever its priority); set vrrp.healthCheck.weight to 0 so a failing master goes to FAULT and lets it go
        → at vrrp.nopreempt
      ⚠ with nopreempt a failing readiness or uplink check does not move an external VIP (no backup takes a VIP from a live master); set vrrp.readinessCheck.weight to 0 so a failing master goes to FAULT and lets it go
        → at vrrp.nopreempt"
    `);
    expect(
      warningsOf((s) => {
        s.vrrp.nopreempt = true;
        s.vrrp.healthCheck = { weight: 0 };
        s.vrrp.readinessCheck = { weight: 0 };
      }),
    ).not.toContain("nopreempt");
  });

  it("vrrpTrackingConsistent", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.nopreempt = true;
        s.vrrp.preemptDelay = 30;
      }),
    ).toMatchInlineSnapshot(`
      "✖ preemptDelay 30 does nothing with nopreempt (keepalived resets preempt_delay); drop one of them
        → at vrrp.preemptDelay"
    `);
    expect(
      errorsAfter((s) => {
        delete s.vrrp.auth;
        s.vrrp.initialState = "MASTER";
        s.vrrp.preemptDelay = 30;
      }),
    ).toMatchInlineSnapshot(`
      "✖ preemptDelay 30 needs initialState BACKUP (keepalived clears preempt_delay for an instance that starts as MASTER)
        → at vrrp.preemptDelay"
    `);
    expect(
      errorsAfter((s) => {
        s.vrrp.readinessCheck = { weight: -2 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ weight -2 cannot move an external VIP: a failed master must drop below every other of its 3 carriers (|weight| >= 3), or use 0 for FAULT
        → at vrrp.readinessCheck.weight"
    `);
    expect(
      errorsAfter((s) => {
        delete s.network.segments[0].uplink;
        s.vrrp.uplinkCheck = true;
      }),
    ).toMatchInlineSnapshot(`
      "✖ uplinkCheck pings the uplink gateway of the external VIPs' segment, and the segment on wan1 has no uplink (network.segments[].uplink)
        → at vrrp.uplinkCheck"
    `);
    expect(
      warningsOf((s) => {
        delete s.externalVips;
        for (const n of s.nodes) n.carriesExternalVips = false;
        s.vrrp.uplinkCheck = true;
      }),
    ).toMatchInlineSnapshot(`
      "⚠ uplinkCheck tracks the external VIPs, and no externalVips pool is declared
        → at vrrp.uplinkCheck"
    `);
    expect(
      warningsOf((s) => {
        s.vrrp.healthCheck = { weight: 0 };
      }),
    ).toMatchInlineSnapshot(`
      "⚠ with weight 0 a node whose apiserver check fails is in FAULT (and keepalived keeps it in INIT until the check's first result), so no node holds the control-plane VIP while no apiserver answers and \`kubeadm init\` cannot reach its endpoint; bring the cluster up with a negative weight and set 0 afterwards
        → at vrrp.healthCheck.weight"
    `);
    // nopreempt and MASTER without an explicit delay resolve to none: nothing to refuse
    expect(
      errorsAfter((s) => {
        s.vrrp.nopreempt = true;
        s.vrrp.preemptDelay = 0;
      }),
    ).toBe("(valid)");
  });

  it("hostSysctlAllowed", () => {
    expect(
      errorsAfter((s) => {
        s.host.sysctl = { "net.ipv4.ip_local_port_range": "1024 65000", "net.ipv4.ip_forward": 0 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ net.ipv4.ip_local_port_range stays at its default: NodePorts (30000-32767) must stay outside the ephemeral port range
        → at host.sysctl["net.ipv4.ip_local_port_range"]
      ✖ net.ipv4.ip_forward is set by clusterspec itself (Kubernetes needs it on)
        → at host.sysctl["net.ipv4.ip_forward"]"
    `);
  });

  it("cloudPoolsValid and networksDisjoint for the cloud", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cloud.pools[0].minSize = 5;
    spec.cloud.wireguard.tunnelSubnet = "10.244.99.0/24";
    const r = validateSpec(spec);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ WireGuard tunnel subnet 10.244.99.0/24 overlaps the pod subnet 10.244.0.0/16 (kubernetes.podSubnet)
        → at cloud.wireguard.tunnelSubnet
      ✖ minSize 5 is larger than maxSize 3
        → at cloud.pools[0].minSize"
    `);
  });

  it("ciliumDevicesExist", () => {
    expect(
      errorsAfter((s) => {
        s.cilium.devices = ["wan1", "bond0"];
      }),
    ).toMatchInlineSnapshot(`
      "✖ k8s-1, k8s-2, k8s-3 route to the internet through wan0, which is not a Cilium device: with bpfMasquerade their pods' traffic would leave unmasqueraded; add wan0
        → at cilium.devices
      ✖ Cilium device bond0 is missing on k8s-1, k8s-2, k8s-3
        → at cilium.devices[1]"
    `);
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cilium.routingMode = "native";
    spec.cilium.autoDirectNodeRoutes = true;
    const r = validateSpec(spec);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toMatchInlineSnapshot(`
      "✖ burst nodes reach on-prem pods only through WireGuard, with pod CIDRs assigned at run time: use routingMode tunnel with cloud pools
        → at cilium.routingMode"
    `);
  });
});

describe("validateSpec properties", () => {
  it("never throws, and every error has a path array and a message", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const r = validateSpec(value);
        if (!r.ok) for (const e of r.errors) expect(Array.isArray(e.path) && e.message.length > 0).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it("never throws on mutated valid specs", () => {
    const arbPath = fc.array(
      fc.oneof(fc.nat(5), fc.constantFrom("nodes", "interfaces", "wan1", "address", "vrid", "network", "segments")),
      {
        maxLength: 5,
      },
    );
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2, maxPool: 5 }), arbPath, fc.jsonValue(), (spec, path, value) => {
        let node: any = spec;
        for (const seg of path.slice(0, -1)) if (node && typeof node === "object" && seg in node) node = node[seg];
        const last = path.at(-1);
        if (node && typeof node === "object" && last !== undefined) node[last] = value;
        const r = validateSpec(spec);
        if (!r.ok) for (const e of r.errors) expect(e.path).toBeInstanceOf(Array);
      }),
      { numRuns: 200 },
    );
  });

  it("accepts every spec from the arbitraries", () => {
    fc.assert(
      fc.property(arbClusterSpec(), (spec) => {
        expect(validateSpec(spec).ok).toBe(true);
      }),
      { numRuns: 100 },
    );
  });

  it("reports a duplicate node address at the path of the second node, whatever the cluster", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 4 }), fc.nat(), (spec, k) => {
        const s = spec as any;
        if (s.nodes.length < 2) return;
        const j = 1 + (k % (s.nodes.length - 1));
        s.nodes[j].interfaces.wan1.address = s.nodes[0].interfaces.wan1.address;
        const r = validateSpec(s);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain(`nodes.${j}.interfaces.wan1.address`);
      }),
      { numRuns: 50 },
    );
  });

  it("reports a pod subnet moved onto the node network, naming the pod subnet", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 2 }), (spec) => {
        const s = spec as any;
        s.kubernetes.podSubnet = s.network.segments[0].subnet;
        const r = validateSpec(s);
        expect(r.ok).toBe(false);
        // networksDisjoint reports at the later of the two networks and names the other one.
        if (!r.ok) expect(r.errors.some((e) => /overlaps the pod subnet/.test(e.message))).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it("reports a reused external VRID at the path of the later VIP", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxPool: 10 }), (spec) => {
        const s = spec as any;
        const pool = s.externalVips?.addresses;
        if (!pool || pool.length < 2) return;
        // an entry is an address, or a dual-stack pair; VRIDs clash within a family only (RFC 5798 §5.2.3)
        const families = (e: any): number[] =>
          typeof e === "string" ? [ipFamily(e)] : [ipFamily(e.address), ...(e.address6 ? [6] : [])];
        if (!families(pool[0]).some((f) => families(pool[1]).includes(f))) return;
        const withVrid = (e: any) => (typeof e === "string" ? { address: e, vrid: 200 } : { ...e, vrid: 200 });
        pool[0] = withVrid(pool[0]);
        pool[1] = withVrid(pool[1]);
        const r = validateSpec(s);
        expect(r.ok).toBe(false);
        if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain("externalVips.addresses.1.vrid");
      }),
      { numRuns: 50 },
    );
  });
});

describe("loadSpec", () => {
  it("points errors at the YAML line and column", () => {
    const text = `apiVersion: clusterspec/v1alpha1
kind: Cluster
name: k8s-test
kubernetes:
  version: v1.20.0
  podSubnet: 10.244.0.0/16
`;
    const r = loadSpec(text);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatIssues(r.errors, "cluster.yaml")).toMatchInlineSnapshot(`
        "✖ missing required key "network"
          → at network (cluster.yaml:1:1)
        ✖ missing required key "controlPlane"
          → at controlPlane (cluster.yaml:1:1)
        ✖ missing required key "nodes"
          → at nodes (cluster.yaml:1:1)
        ✖ missing required key "cilium"
          → at cilium (cluster.yaml:1:1)
        ✖ Kubernetes v1.20.0 is not supported: clusterspec supports 1.22 and newer
          → at kubernetes.version (cluster.yaml:5:3)"
      `);
  });

  it("reports invalid YAML with its position", () => {
    const r = loadSpec("name: [unclosed\nkind: Cluster\n");
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatIssues(r.errors, "cluster.yaml")).toMatchInlineSnapshot(`
        "✖ this list opened with [ is never closed: end it with ] (a list that goes on over several lines indents them deeper than its key)
          → at name (cluster.yaml:1:7)"
      `);
  });

  it("rejects duplicate keys", () => {
    const r = loadSpec("name: a\nname: b\n");
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatIssues(r.errors, "cluster.yaml")).toMatchInlineSnapshot(`
        "✖ duplicate key "name": a key appears once per mapping
          → at name (cluster.yaml:2:1)"
      `);
  });

  it("locates an error inside a node's interface map", () => {
    const text = `${"x: 1\n".repeat(0)}apiVersion: clusterspec/v1alpha1
kind: Cluster
name: t
kubernetes: { version: v1.34.0, podSubnet: 10.244.0.0/16 }
network:
  segments: [{ name: lan, interface: wan1, subnet: 10.0.0.0/24 }]
  nameservers: [1.1.1.1]
controlPlane: { vip: 10.0.0.5/24 }
nodes:
  - name: a
    roles: [control-plane, worker]
    interfaces:
      wan1:
        mac: "52:54:00:00:00:01"
        address: 10.0.0.300/24
cilium: { version: 1.20.0 }
`;
    const r = loadSpec(text);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(formatIssues(r.errors, "cluster.yaml")).toMatchInlineSnapshot(`
        "✖ expected an address with prefix length such as 10.0.0.20/24, got "10.0.0.300/24"
          → at nodes[0].interfaces.wan1.address (cluster.yaml:15:9)"
      `);
  });
});

describe("invariants hold for every spec validateSpec accepts", () => {
  const arbNet = fc
    .tuple(fc.nat(255), fc.nat(255), fc.integer({ min: 8, max: 30 }))
    .map(([a, b, p]) => networkOf(`10.${a}.${b}.0/${p}`));

  it("pod, service and node networks are disjoint; the service subnet fits kubeadm; the pod subnet fits every node", () => {
    fc.assert(
      fc.property(
        arbClusterSpec({ maxWorkers: 6, cloud: false }),
        arbNet,
        arbNet,
        fc.integer({ min: 8, max: 30 }),
        (spec, pod, svc, mask) => {
          const s = spec as any;
          s.kubernetes.podSubnet = pod;
          s.kubernetes.serviceSubnet = svc;
          s.kubernetes.nodeCidrMaskSize = mask;
          const r = validateSpec(s);
          if (!r.ok) return;
          const nodeNets = [
            s.network.segments[0].subnet,
            ...s.network.segments[0].onLink,
            networkOf(s.nodes[0].interfaces.wan0.address),
          ];
          const pairs: [string, string][] = [
            [pod, svc],
            ...nodeNets.flatMap((n: string): [string, string][] => [
              [pod, n],
              [svc, n],
            ]),
          ];
          for (const [x, y] of pairs) expect(cidrsOverlap(x, y)).toBe(false);
          expect(parseCidr(svc).prefixLength).toBeGreaterThanOrEqual(12);
          expect(addressCount(svc) >= 10n).toBe(true);
          expect(mask).toBeGreaterThanOrEqual(parseCidr(pod).prefixLength);
          expect(2 ** (mask - parseCidr(pod).prefixLength)).toBeGreaterThanOrEqual(s.nodes.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("every VIP lies in its segment's subnet or an on-link network and is no node address, gateway, network or broadcast address", () => {
    const arbHost = fc.tuple(fc.constantFrom("seg", "onlink", "other"), fc.nat(255));
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 3, maxPool: 4 }), arbHost, arbHost, (spec, cp, ext) => {
        const s = spec as any;
        const seg = s.network.segments[0];
        const at = ([where, n]: [string, number]) =>
          where === "seg"
            ? addressAt(seg.subnet, n)
            : where === "onlink"
              ? addressAt(seg.onLink[0], n)
              : `203.0.113.${n}`;
        s.controlPlane.vip = `${at(cp)}/24`;
        if (s.externalVips) s.externalVips.addresses[0] = at(ext);
        const r = validateSpec(s);
        if (!r.ok) return;
        const taken = new Set<string>();
        for (const node of s.nodes)
          for (const f of Object.values(node.interfaces) as any[]) {
            if (f.address) taken.add(hostPart(f.address));
            if (f.address6) taken.add(hostPart(f.address6));
            if (f.gateway) taken.add(f.gateway);
          }
        taken.add(seg.uplink.gateway);
        if (seg.uplink.gateway6) taken.add(seg.uplink.gateway6);
        // both halves of a dual-stack pair (controlPlane.vip6, an entry's address6)
        const vips = [
          hostPart(s.controlPlane.vip),
          ...(s.controlPlane.vip6 ? [hostPart(s.controlPlane.vip6)] : []),
          ...(s.externalVips?.addresses ?? []).flatMap((e: any) =>
            typeof e === "string" ? [e] : [e.address, ...(e.address6 ? [e.address6] : [])],
          ),
        ];
        expect(new Set(vips).size).toBe(vips.length);
        for (const vip of vips) {
          const net = [seg.subnet, ...(seg.subnet6 ? [seg.subnet6] : []), ...seg.onLink].find((n: string) =>
            cidrContains(n, vip),
          );
          expect(net, vip).toBeDefined();
          expect(taken.has(vip), vip).toBe(false);
          expect(vip).not.toBe(networkAddress(net));
          // IPv4's broadcast address; IPv6 has none (its all-zero host, above, is the Subnet-Router anycast address)
          if (ipFamily(vip) === 4) expect(vip).not.toBe(lastAddress(net));
        }
      }),
      { numRuns: 300 },
    );
  });

  it("VRIDs are in 1..255 and unique per interface, and explicit collisions are rejected", () => {
    fc.assert(
      fc.property(
        arbClusterSpec({ maxPool: 20 }),
        fc.array(fc.integer({ min: 1, max: 255 }), { maxLength: 20 }),
        (spec, explicit) => {
          const s = spec as any;
          (s.externalVips?.addresses ?? []).forEach((a: any, i: number) => {
            if (explicit[i] !== undefined)
              s.externalVips.addresses[i] =
                typeof a === "string" ? { address: a, vrid: explicit[i] } : { ...a, vrid: explicit[i] };
          });
          const r = validateSpec(s);
          if (!r.ok) return;
          const vips = planVips(asClusterSpec(r.value));
          // unique per interface and family (RFC 5798 §5.2.3): a dual-stack pair's IPv6 half shares its VRID
          const ids = vips.flatMap((v) => [
            `${v.interface}/${ipFamily(v.address)}/${v.vrid}`,
            ...(v.pair6 ? [`${v.interface}/6/${v.vrid}`] : []),
          ]);
          expect(new Set(ids).size).toBe(ids.length);
          for (const v of vips) expect(v.vrid >= 1 && v.vrid <= 255).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe("further rule messages", () => {
  const cloudErrors = (mutate: (s: any) => void): string => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    mutate(spec);
    const r = validateSpec(spec);
    return r.ok ? "(valid)" : formatIssues(r.errors);
  };

  it("segments: duplicate name, shared interface, duplicate routing table name", () => {
    expect(
      errorsAfter((s) => {
        s.network.segments.push({
          name: "internal",
          interface: "wan1",
          subnet: "192.0.2.0/24",
          uplink: { gateway: "192.0.2.1", routingTable: { id: 2, name: "vswitch" } },
        });
      }),
    ).toMatchInlineSnapshot(`
      "✖ duplicate segment name internal (also used by network.segments[0].name)
        → at network.segments[1].name
      ✖ interface wan1 already attaches segment network.segments[0].interface; one segment per interface
        → at network.segments[1].interface
      ✖ the uplink of segment internal routes nothing: it has no uplink.sources, no onLink networks and no external VIPs inside 192.0.2.0/24, so no rule uses table vswitch and replies leave by the main table's default route; list the networks whose replies must leave through 192.0.2.1 in uplink.sources (e.g. [192.0.2.0/24]), or remove the uplink
        → at network.segments[1].uplink.gateway
      ✖ routing table name vswitch is already used by network.segments[0].uplink.routingTable.name
        → at network.segments[1].uplink.routingTable.name"
    `);
  });

  it("cloud pools: duplicate name, a node's name, a tunnel too small", () => {
    expect(
      cloudErrors((s) => {
        s.cloud.pools.push({ ...s.cloud.pools[0] }, { ...s.cloud.pools[0], name: "node-1" });
        s.cloud.pools[0].maxSize = 300;
        s.cloud.wireguard.tunnelSubnet = "172.30.99.0/26";
        s.kubernetes.podSubnet = "10.240.0.0/12";
      }),
    ).toMatchInlineSnapshot(`
      "✖ tunnel subnet 172.30.99.0/26 has room for fewer than 311 peers
        → at cloud.wireguard.tunnelSubnet
      ✖ duplicate pool name ci-arm64 (also used by cloud.pools[0].name)
        → at cloud.pools[1].name
      ✖ pool name node-1 is also a node name
        → at cloud.pools[2].name"
    `);
  });

  it("no control-plane node, and a zero duration", () => {
    expect(
      errorsAfter((s) => {
        for (const n of s.nodes) n.roles = ["worker"];
        s.kubernetes.nodeHealth.statusUpdateFrequency = "0s";
      }),
    ).toMatchInlineSnapshot(`
      "✖ no node has the control-plane role
        → at nodes
      ✖ statusUpdateFrequency must be positive
        → at kubernetes.nodeHealth.statusUpdateFrequency"
    `);
  });

  it("an address outside its segment", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[1].interfaces.wan1.address = "10.118.13.21/24";
      }),
    ).toMatchInlineSnapshot(`
      "✖ address 10.118.13.21/24 of wan1 is outside segment internal (10.118.12.0/24)
        → at nodes[1].interfaces.wan1.address"
    `);
  });

  it("VIP interfaces missing on the nodes that hold them", () => {
    expect(
      errorsAfter((s) => {
        s.network.segments.push({ name: "ext", interface: "wan2", subnet: "192.0.2.0/24" });
        s.externalVips = { interface: "wan2", addresses: ["192.0.2.10"] };
        s.controlPlane = { vip: "192.0.2.100/24", interface: "wan2" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ the external VIPs live on wan2, which is not a Cilium device: with kube-proxy replacement Cilium's load balancer serves Services only on its devices, so traffic to the VIPs there would not reach a backend; add wan2 to cilium.devices (or leave cilium.devices out: clusterspec then adds it)
        → at cilium.devices
      ✖ control-plane node k8s-1 has no interface wan2 for the control-plane VIP
        → at nodes[0].interfaces
      ✖ node k8s-1 carries external VIPs but has no interface wan2
        → at nodes[0].interfaces
      ✖ control-plane node k8s-2 has no interface wan2 for the control-plane VIP
        → at nodes[1].interfaces
      ✖ node k8s-2 carries external VIPs but has no interface wan2
        → at nodes[1].interfaces
      ✖ control-plane node k8s-3 has no interface wan2 for the control-plane VIP
        → at nodes[2].interfaces
      ✖ node k8s-3 carries external VIPs but has no interface wan2
        → at nodes[2].interfaces"
    `);
  });

  it("a pool nobody carries, and carriers without a pool", () => {
    expect(
      errorsAfter((s) => {
        for (const n of s.nodes) n.carriesExternalVips = false;
      }),
    ).toMatchInlineSnapshot(`
      "✖ no node has carriesExternalVips: true, so nothing would hold the external VIPs
        → at externalVips"
    `);
    expect(
      warningsOf((s) => {
        delete s.externalVips;
      }),
    ).toMatchInlineSnapshot(`
      "⚠ node k8s-1 carries external VIPs but no externalVips pool is declared
        → at nodes[0].carriesExternalVips
      ⚠ node k8s-2 carries external VIPs but no externalVips pool is declared
        → at nodes[1].carriesExternalVips
      ⚠ node k8s-3 carries external VIPs but no externalVips pool is declared
        → at nodes[2].carriesExternalVips"
    `);
  });

  it("a base priority too low for the nodes", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.basePriority = 2;
      }),
    ).toMatchInlineSnapshot(`
      "✖ basePriority 2 leaves no distinct priority for 3 nodes
        → at vrrp.basePriority
      ✖ basePriority 2 is too low for the apiserver health check: a failed master is clamped to priority 1, which the lowest of 3 control-plane nodes also has; use at least 4 or weight 0 for FAULT
        → at vrrp.basePriority"
    `);
  });

  it("a VLAN on a VLAN, and two default gateways", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces["wan0.7"] = { vlan: { parent: "wan0", id: 7 } };
        s.nodes[0].interfaces["wan0.8"] = { vlan: { parent: "wan0.7", id: 8 } };
        s.nodes[0].interfaces.wan1.gateway = "10.118.12.1";
      }),
    ).toMatchInlineSnapshot(`
      "✖ node k8s-1 has more than one default gateway (wan0, wan1)
        → at nodes[0].interfaces.wan1.gateway
      ✖ VLAN parent wan0.7 is itself a VLAN; nest VLANs on a physical interface
        → at nodes[0].interfaces["wan0.8"].vlan.parent"
    `);
  });
});

describe("schema messages", () => {
  const cloudSpec = (): any => buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true });
  const errorsOf = (spec: any): string => {
    const r = validateSpec(spec);
    return r.ok ? "(valid)" : formatIssues(r.errors);
  };

  it("addresses, networks and durations", () => {
    expect(
      errorsAfter((s) => {
        s.network.nameservers = ["1.1.1"];
        s.nodes[0].interfaces.wan1.address = "10.118.12.20";
        s.kubernetes.podSubnet = "10.244.0.0";
        s.kubernetes.serviceSubnet = "10.96.0.1/12";
        s.kubernetes.nodeHealth.monitorPeriod = "2 seconds";
      }),
    ).toMatchInlineSnapshot(`
      "✖ expected a network such as 10.0.0.0/24, got "10.244.0.0"
        → at kubernetes.podSubnet
      ✖ expected the network address, without host bits (e.g. 10.0.0.0/24), got "10.96.0.1/12"
        → at kubernetes.serviceSubnet
      ✖ expected a Go duration such as 4s, 500ms or 1m30s, got "2 seconds"
        → at kubernetes.nodeHealth.monitorPeriod
      ✖ expected an IP address such as 10.0.0.1 or fd00::1, got "1.1.1"
        → at network.nameservers[0]
      ✖ expected an address with prefix length such as 10.0.0.20/24, got "10.118.12.20"
        → at nodes[0].interfaces.wan1.address"
    `);
  });

  it("names, sockets, tables, paths and MACs", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.auth.password = { env: "1BAD" };
        s.kubernetes.secrets.bootstrapToken = { file: "a\nb" };
        s.kubernetes.dnsDomain = "Cluster.Local";
        s.kubernetes.criSocket = "/run/containerd/containerd.sock";
        s.network.segments[0].uplink.routingTable.name = "1table";
        s.vrrp.notify = { master: "notify.sh" };
        s.nodes[1].interfaces.wan0.mac = "52-54-00-12-34-57";
        s.nodes[1].roles = ["worker", "worker"];
        s.nodes[2].interfaces.wan2 = { mac: "52:54:00:00:00:09", gateway: "10.118.12.1" };
        s.host.sysctl = { swappiness: 1 };
      }),
    ).toMatchInlineSnapshot(`
      "✖ DNS domain must be dot-separated RFC 1123 labels, got "Cluster.Local"
        → at kubernetes.dnsDomain
      ✖ CRI socket must be a unix:/// URL, got "/run/containerd/containerd.sock"
        → at kubernetes.criSocket
      ✖ notify scripts are absolute paths, got "notify.sh"
        → at vrrp.notify.master
      ✖ roles are listed once each
        → at nodes[1].roles
      ✖ invalid key: expected a sysctl key such as vm.swappiness
        → at host.sysctl.swappiness
      ✖ the value contains a line break (U+000A): spec values are printable text on one line (written "a\\nb")
        → at kubernetes.secrets.bootstrapToken.file
      ✖ expected an environment variable name, got "1BAD"
        → at vrrp.auth.password.env
      ✖ expected a MAC address such as 52:54:00:12:34:56, got "52-54-00-12-34-57"
        → at nodes[1].interfaces.wan0.mac
      ✖ a gateway needs an address on the same interface
        → at nodes[2].interfaces.wan2.gateway
      ✖ routing table names use letters, digits, '_' and '-', starting with a letter, got "1table"
        → at network.segments[0].uplink.routingTable.name"
    `);
  });

  it("cloud fields", () => {
    const s = cloudSpec();
    s.cloud.aws.region = "eu-central";
    s.cloud.provisioner.url = "https://provisioner.example.com/$x";
    const pool = s.cloud.pools[0];
    pool.instanceType = "large";
    pool.ami = { id: "ami-xyz" };
    pool.taints = [{ key: "-bad", value: "no good", effect: "NoSchedule" }];
    pool.labels = { "-bad": "ok", ok: "not ok" };
    pool.resources = { "-fuse": "1", "github.com/fuse": "one" };
    expect(errorsOf(s)).toMatchInlineSnapshot(`
      "✖ expected an AWS region such as eu-central-1
        → at cloud.aws.region
      ✖ the provisioner URL may not contain quotes, spaces, '$', '\\', braces or brackets, got "https://provisioner.example.com/$x"
        → at cloud.provisioner.url
      ✖ expected an EC2 instance type such as t4g.xlarge
        → at cloud.pools[0].instanceType
      ✖ expected an AMI id such as ami-0123456789abcdef0, got "ami-xyz"
        → at cloud.pools[0].ami.id
      ✖ invalid key: label key "-bad" is not a Kubernetes qualified name ([prefix/]name: name of letters, digits, '-', '_', '.', starting and ending with a letter or digit; prefix a lowercase DNS subdomain)
        → at cloud.pools[0].labels["-bad"]
      ✖ label values are empty or letters, digits, '-', '_', '.', starting and ending with a letter or digit, got "not ok"
        → at cloud.pools[0].labels.ok
      ✖ invalid key: expected an extended resource name such as github.com/fuse
        → at cloud.pools[0].resources["-fuse"]
      ✖ expected a quantity such as 1 or 500m, got "one"
        → at cloud.pools[0].resources["github.com/fuse"]
      ✖ label key "-bad" is not a Kubernetes qualified name ([prefix/]name: name of letters, digits, '-', '_', '.', starting and ending with a letter or digit; prefix a lowercase DNS subdomain)
        → at cloud.pools[0].taints[0].key
      ✖ label values are empty or letters, digits, '-', '_', '.', starting and ending with a letter or digit, got "no good"
        → at cloud.pools[0].taints[0].value"
    `);
  });

  it("one rule, one message: labels and taints of nodes and cloud pools, RFC 1123 names of every kind", () => {
    const s = cloudSpec();
    const long = `example.com/${"x".repeat(64)}`;
    s.nodes[0].labels = { [long]: "a b", ok: 8 };
    s.nodes[0].taints = [{ key: long, value: "x".repeat(64), effect: "NoSchedule" }];
    s.cloud.pools[0].labels = { [long]: "a b", ok: 8 };
    s.cloud.pools[0].taints = [{ key: long, value: "x".repeat(64), effect: "NoSchedule" }];
    s.kubernetes.apiServer = { extraVolumes: [{ name: "Audit", hostPath: "/a", mountPath: "/a" }] };
    s.cloud.pools[0].name = "Burst";
    const lines = errorsOf(s).split("\n");
    const messages = (prefix: string) =>
      lines.flatMap((l, i) => (lines[i + 1]?.includes(`at ${prefix}`) ? [l] : [])).sort();
    expect(messages("nodes[0].")).toMatchInlineSnapshot(`
      [
        "✖ invalid key: label key "example.com/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": the name after the prefix is at most 63 characters",
        "✖ label key "example.com/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx": the name after the prefix is at most 63 characters",
        "✖ label values are at most 63 characters, got "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx..."",
        "✖ label values are strings: quote it",
      ]
    `);
    expect(messages("cloud.pools[0].").filter((m) => !m.includes("pool name"))).toEqual(messages("nodes[0]."));
    expect(lines.filter((l) => l.includes("RFC 1123 label")).sort()).toMatchInlineSnapshot(`
      [
        "✖ pool name must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, got "Burst"",
        "✖ volume name must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, got "Audit"",
      ]
    `);
  });
});
