// Rules added with the kubeadm and Cilium generators: join secrets, kubeadm's node-mask limit, node-health tunables, Cilium MTU and DSR.
import { describe, expect, it } from "vitest";
import { errorsAfter, warningsOf } from "./helpers.js";

describe("kubeadm rules", () => {
  it("requires join secrets when more than one node joins", () => {
    expect(
      errorsAfter((s) => {
        delete s.kubernetes.secrets;
      }),
    ).toMatchInlineSnapshot(`
      "✖ 3 nodes join the cluster with kubeadm: reference bootstrapToken, certificateKey and caCertHash in kubernetes.secrets
        → at kubernetes.secrets"
    `);
    expect(
      errorsAfter((s) => {
        delete s.kubernetes.secrets;
        s.nodes = s.nodes.slice(0, 1);
      }),
    ).toBe("(valid)");
  });

  it("rejects a pod subnet more than 16 bits larger than the node CIDRs, as kubeadm does", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.podSubnet = "100.64.0.0/10";
        s.kubernetes.nodeCidrMaskSize = 27;
      }),
    ).toMatchInlineSnapshot(`
      "✖ node CIDR /27 is 17 bits smaller than the pod subnet 100.64.0.0/10; kubeadm allows at most 16
        → at kubernetes.nodeCidrMaskSize"
    `);
    expect(
      errorsAfter((s) => {
        s.kubernetes.podSubnet = "100.64.0.0/10";
        s.kubernetes.nodeCidrMaskSize = 26;
      }),
    ).toBe("(valid)");
  });
});

describe("node-health rules", () => {
  it("rejects a grace period shorter than two status updates and warns below four", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.nodeHealth.monitorGracePeriod = "7s";
      }),
    ).toMatchInlineSnapshot(`
      "✖ monitorGracePeriod 7s is less than 2 x statusUpdateFrequency 4s: one late status update would mark a healthy node NotReady
        → at kubernetes.nodeHealth.monitorGracePeriod"
    `);
    expect(
      warningsOf((s) => {
        s.kubernetes.nodeHealth.monitorGracePeriod = "12s";
      }),
    ).toMatchInlineSnapshot(`
      "⚠ monitorGracePeriod 12s allows fewer than 4 status updates of 4s (the upstream defaults allow 4-5)
        → at kubernetes.nodeHealth.monitorGracePeriod"
    `);
    expect(warningsOf(() => {})).not.toContain("monitorGracePeriod");
    // Go's micro sign (U+00B5) is a unit too, and counts: 7,000,000µs is the same 7s
    expect(
      errorsAfter((s) => {
        s.kubernetes.nodeHealth.monitorGracePeriod = "7000000\u00b5s";
      }),
    ).toContain("monitorGracePeriod 7000000\u00b5s is less than 2 x statusUpdateFrequency 4s");
  });

  it("checks the default grace period of the version (50s from 1.32) against the update frequency", () => {
    expect(
      errorsAfter((s) => {
        delete s.kubernetes.nodeHealth.monitorGracePeriod;
        s.kubernetes.nodeHealth.statusUpdateFrequency = "30s";
      }),
    ).toMatchInlineSnapshot(`
      "✖ monitorGracePeriod 50s is less than 2 x statusUpdateFrequency 30s: one late status update would mark a healthy node NotReady
        → at kubernetes.nodeHealth.monitorGracePeriod"
    `);
    expect(
      errorsAfter((s) => {
        delete s.kubernetes.nodeHealth.monitorGracePeriod;
        s.kubernetes.nodeHealth.statusUpdateFrequency = "25s";
      }),
    ).toBe("(valid)");
  });

  it("rejects a monitor period not shorter than the grace period and eviction in fractions of a second", () => {
    expect(
      errorsAfter((s) => {
        s.kubernetes.nodeHealth.monitorPeriod = "16s";
        s.kubernetes.nodeHealth.evictionAfter = "1500ms";
      }),
    ).toMatchInlineSnapshot(`
      "✖ monitorPeriod 16s must be shorter than monitorGracePeriod 16s
        → at kubernetes.nodeHealth.monitorPeriod
      ✖ evictionAfter 1500ms must be whole seconds (kube-apiserver --default-not-ready-toleration-seconds takes an integer)
        → at kubernetes.nodeHealth.evictionAfter"
    `);
  });
});

describe("Cilium rules", () => {
  it("keeps Cilium's MTU inside the WireGuard tunnel when burst nodes exist", () => {
    const cloud = {
      aws: { region: "eu-central-1", vpcCidr: "172.24.0.0/16" },
      provisioner: { url: "https://provisioner.example.com" },
      wireguard: { tunnelSubnet: "172.30.99.0/24", underlayMtu: 1500 },
      pools: [
        {
          name: "ci",
          instanceType: "t4g.xlarge",
          architecture: "arm64",
          ami: { id: "ami-0123456789abcdef0" },
          maxSize: 2,
          subnets: ["subnet-0123456789abcdef0"],
          securityGroups: ["sg-0123456789abcdef0"],
        },
      ],
    };
    expect(
      errorsAfter((s) => {
        s.cloud = cloud;
        s.cilium.routingMode = "tunnel";
        s.cilium.autoDirectNodeRoutes = false;
        s.cilium.mtu = 1450;
      }),
    ).toMatchInlineSnapshot(`
      "✖ Cilium MTU 1450 exceeds 1420, the MTU inside WireGuard (underlay 1500 - 80)
        → at cilium.mtu"
    `);
    expect(
      errorsAfter((s) => {
        s.cloud = cloud;
        s.cilium.routingMode = "tunnel";
        s.cilium.autoDirectNodeRoutes = false;
        s.cilium.mtu = 1420;
      }),
    ).toBe("(valid)");
    // 1440 fits only when the hub's endpoint is an IPv4 literal (60 bytes of outer headers, not 80)
    const v4 = { ...cloud, wireguard: { ...cloud.wireguard, endpoint: "203.0.113.7:51820" } };
    expect(
      errorsAfter((s) => {
        s.cloud = v4;
        s.cilium.routingMode = "tunnel";
        s.cilium.autoDirectNodeRoutes = false;
        s.cilium.mtu = 1440;
      }),
    ).toBe("(valid)");
    expect(
      errorsAfter((s) => {
        s.cloud = { ...cloud, wireguard: { ...cloud.wireguard, endpoint: "vpn.example.com:51820" } };
        s.cilium.routingMode = "tunnel";
        s.cilium.autoDirectNodeRoutes = false;
        s.cilium.mtu = 1440;
      }),
    ).toContain("✖ Cilium MTU 1440 exceeds 1420, the MTU inside WireGuard (underlay 1500 - 80)");
  });

  it("allows DSR in tunnel mode only over Geneve", () => {
    expect(
      errorsAfter((s) => {
        s.cilium.routingMode = "tunnel";
        s.cilium.loadBalancerMode = "dsr";
      }),
    ).toMatchInlineSnapshot(`
      "✖ loadBalancerMode dsr in tunnel mode needs tunnelProtocol geneve (DSR is dispatched in a Geneve option), or use routingMode native
        → at cilium.loadBalancerMode"
    `);
    expect(
      errorsAfter((s) => {
        s.cilium.routingMode = "tunnel";
        s.cilium.tunnelProtocol = "geneve";
        s.cilium.loadBalancerMode = "hybrid";
      }),
    ).toBe("(valid)");
  });
});
