// What docs/spec-reference.md says beyond the schema: a short example for each spec shape and each section (every one
// validates: examples/spec-reference.test.ts), and the fields a cross-field rule makes required in some specs.

/** A field optional in the schema that a rule requires in some specs, with when (the test removes it then). */
export interface ConditionallyRequired {
  readonly path: string;
  readonly when: string;
}

export const CONDITIONALLY_REQUIRED: readonly ConditionallyRequired[] = [
  {
    path: "kubernetes.secrets",
    when: "the cluster has more than one node, or `controlPlane.bootstrapped` is true (every other node joins with kubeadm)",
  },
  { path: "cloud.wireguard.hub", when: "`cloud.wireguard.privateKey` or `cloud.wireguard.peerKeys` is set" },
  { path: "cloud.wireguard.publicKey", when: "`cloud.wireguard.peerKeys` is set" },
  { path: "cloud.wireguard.endpoint", when: "`cloud.wireguard.peerKeys` is set" },
];

export interface ShapeReference {
  /** The heading and the sentence under it. */
  readonly title: string;
  readonly intro: string;
  /** The top-level key that tells this shape apart, or undefined for the default one. */
  readonly marker?: string;
  /** A whole spec of this shape, as short as it can be. */
  readonly example: string;
  /** Per top-level section: a snippet that, put in place of that section of `example` (or added), still validates. */
  readonly sections: Readonly<Record<string, string>>;
}

const header = `apiVersion: clusterspec/v1alpha1
kind: Cluster
name: lab
`;

const cloudSnippet = `cloud:
  aws: { region: eu-central-1, vpcCidr: 172.24.0.0/16 }
  provisioner: { url: https://provisioner.example.com }
  wireguard:
    tunnelSubnet: 172.30.99.0/24
    hub: 10.0.0.11 # an on-prem node's address: the hub's config is generated under nodes/
    endpoint: vpn.example.com:51820
    privateKey: { env: WG_HUB_PRIVATE_KEY }
    publicKey: 5kp+X0mWWue+fzBMJqdI9eFSRAdR4P8D48ANZlNkGkA=
  pools:
    - name: ci
      instanceType: t4g.xlarge
      architecture: arm64
      ami: { lookup: { owners: ["125523088429"], name: Fedora-Cloud-Base-AmazonEC2.aarch64-43-* } }
      maxSize: 3
      subnets: [subnet-0a1b2c3d4e5f60718]
      securityGroups: [sg-0a1b2c3d4e5f60718]
`;

export const SPEC_SHAPES: readonly ShapeReference[] = [
  {
    title: "A cluster: bare-metal nodes, optionally bursting into AWS",
    intro:
      "clusterspec generates every node's files, the cluster-wide ones and, with `cloud:`, the AWS side. A small spec: three control-plane nodes that share the API server's VIP and a pool of external VIPs.",
    example: `${header}kubernetes:
  version: v1.34.2
  podSubnet: 10.244.0.0/16
  secrets: # required: more than one node joins with kubeadm
    bootstrapToken: { env: KUBEADM_TOKEN }
    certificateKey: { env: KUBEADM_CERT_KEY }
    caCertHash: { env: KUBEADM_CA_HASH }
network:
  segments:
    - { name: lan, interface: eth0, subnet: 10.0.0.0/24 }
  nameservers: [1.1.1.1]
controlPlane:
  vip: 10.0.0.10/24
externalVips:
  addresses: [10.0.0.20, 10.0.0.21, 10.0.0.22]
nodes:
  - name: cp-1
    roles: [control-plane, worker]
    carriesExternalVips: true
    interfaces: { eth0: { mac: "52:54:00:00:00:01", address: 10.0.0.11/24, gateway: 10.0.0.1 } }
  - name: cp-2
    roles: [control-plane, worker]
    carriesExternalVips: true
    interfaces: { eth0: { mac: "52:54:00:00:00:02", address: 10.0.0.12/24, gateway: 10.0.0.1 } }
  - name: cp-3
    roles: [control-plane, worker]
    carriesExternalVips: true
    interfaces: { eth0: { mac: "52:54:00:00:00:03", address: 10.0.0.13/24, gateway: 10.0.0.1 } }
cilium:
  version: 1.20.0
  routingMode: tunnel # the routing mode cloud pools need (see cloud)
`,
    sections: {
      kubernetes: `kubernetes:
  version: v1.34.2
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  nodeHealth: { statusUpdateFrequency: 4s, monitorGracePeriod: 16s, evictionAfter: 30s }
  secrets:
    bootstrapToken: { env: KUBEADM_TOKEN }
    certificateKey: { file: secrets/certificate-key }
    caCertHash: { env: KUBEADM_CA_HASH }
  apiServer: { certSANs: [api.lab.example.com] }
  kubelet: { maxPods: 200 }
`,
      network: `network:
  segments:
    - name: lan
      interface: eth0
      subnet: 10.0.0.0/24
      uplink: { gateway: 10.0.0.1, routingTable: { id: 100, name: uplink } }
  nameservers: [1.1.1.1, 8.8.8.8]
`,
      controlPlane: `controlPlane:
  vip: 10.0.0.10/24
  port: 6443
  dnsName: api.lab.example.com
  initNode: cp-1
`,
      vrrp: `vrrp:
  auth: { type: PASS, password: { env: VRRP_AUTH_PASS } }
  advertInterval: 1
`,
      externalVips: `externalVips:
  addresses: [10.0.0.20, { address: 10.0.0.21, vrid: 30 }]
`,
      nodes: `nodes:
  - name: cp-1
    roles: [control-plane, worker]
    carriesExternalVips: true
    interfaces:
      eth0: { mac: "52:54:00:00:00:01", address: 10.0.0.11/24, gateway: 10.0.0.1 }
    labels: { topology.kubernetes.io/zone: rack-1 }
  - name: cp-2
    roles: [control-plane, worker]
    carriesExternalVips: true
    interfaces: { eth0: { mac: "52:54:00:00:00:02", address: 10.0.0.12/24, gateway: 10.0.0.1 } }
    taints: [{ key: example.com/dedicated, value: ingress, effect: NoSchedule }]
  - name: cp-3
    roles: [control-plane, worker]
    interfaces: { eth0: { mac: "52:54:00:00:00:03", address: 10.0.0.13/24, gateway: 10.0.0.1 } }
`,
      host: `host:
  gentooPackages: true
  sysctl: { vm.swappiness: "10" }
`,
      cilium: `cilium:
  version: 1.20.0
  routingMode: tunnel
  values: { hubble: { enabled: true } }
`,
      cloud: cloudSnippet,
      overlays: `overlays:
  - target: cluster/cilium-values.yaml
    patch: { operator: { replicas: 1 } }
`,
    },
  },
  {
    title: "The cloud burst of an existing cluster (`existingCluster:`)",
    marker: "existingCluster",
    intro:
      "For a cluster that exists already and is managed by other means: `existingCluster:` takes the place of `kubernetes`, `network`, `controlPlane`, `vrrp`, `externalVips`, `nodes`, `host`, `cilium` and `overlays`, and only `cloud/**` and PLAN.md are generated.",
    example: `${header}existingCluster:
  endpoint: 10.0.0.10:6443
  caCertHash: { env: KUBEADM_CA_HASH }
  kubernetesVersion: v1.34.2
  podSubnet: 10.244.0.0/16
  onPremNetworks: [10.0.0.0/24]
  nameservers: [10.0.0.53, 1.1.1.1]
cloud:
  aws: { region: eu-central-1, vpcCidr: 172.24.0.0/16 }
  provisioner: { url: https://provisioner.example.com }
  wireguard: { tunnelSubnet: 172.30.99.0/24, hub: 10.0.0.5, endpoint: vpn.example.com:51820 }
  pools:
    - name: ci
      instanceType: t4g.xlarge
      architecture: arm64
      ami: { id: ami-0a1b2c3d4e5f60718 }
      maxSize: 3
      subnets: [subnet-0a1b2c3d4e5f60718]
      securityGroups: [sg-0a1b2c3d4e5f60718]
`,
    sections: {
      existingCluster: `existingCluster:
  endpoint: api.home.example.com:6443
  caCertHash: { file: secrets/ca-cert-hash }
  kubernetesVersion: v1.34.2
  podSubnet: 10.244.0.0/16
  serviceSubnet: 10.96.0.0/12
  cgroupDriver: systemd
  onPremNetworks: [10.0.0.0/24]
  nameservers: [10.0.0.53, 1.1.1.1]
  searchDomains: [home.example.com]
`,
      cloud: `cloud:
  aws: { region: eu-central-1, vpcCidr: 172.24.0.0/16 }
  provisioner: { url: https://provisioner.example.com, namespace: clusterspec }
  wireguard:
    tunnelSubnet: 172.30.99.0/24
    hub: 10.0.0.5
    endpoint: vpn.example.com:51820
    privateKey: { env: WG_HUB_PRIVATE_KEY }
    publicKey: 5kp+X0mWWue+fzBMJqdI9eFSRAdR4P8D48ANZlNkGkA=
    peerKeys: # static keys for the burst slots: need hub, publicKey and endpoint
      privateKeys: { file: wireguard/peers.key }
      publicKeys: { file: wireguard/peers.pub }
  pools:
    - name: build
      instanceType: c7i.2xlarge
      architecture: x86_64
      ami: { lookup: { owners: ["125523088429"], name: Fedora-Cloud-Base-AmazonEC2.x86_64-43-* } }
      maxSize: 4
      subnets: [subnet-0a1b2c3d4e5f60718]
      securityGroups: [sg-0a1b2c3d4e5f60718]
      taints: [{ key: ci.example.com/dedicated, value: build, effect: NoSchedule }]
`,
    },
  },
];
