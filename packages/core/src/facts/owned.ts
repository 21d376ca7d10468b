// What clusterspec derives itself, and from which spec field: free-form knobs may not set these. One table per
// target, read by the rules (refusals point at the owning field) and by the overlay warnings.

export type ControlPlaneComponent = "apiServer" | "controllerManager" | "scheduler" | "etcd";

/** Flags clusterspec or kubeadm derives from typed fields, per component: flag → owning spec field. */
export const OWNED_FLAGS: Readonly<Record<ControlPlaneComponent, Readonly<Record<string, string>>>> = {
  apiServer: {
    "advertise-address": "nodes[].interfaces (each control plane's internal address)",
    "secure-port": "controlPlane.port",
    "service-cluster-ip-range": "kubernetes.serviceSubnet",
    "default-not-ready-toleration-seconds": "kubernetes.nodeHealth.evictionAfter",
    "default-unreachable-toleration-seconds": "kubernetes.nodeHealth.evictionAfter",
    "etcd-servers": "nodes[] (local etcd on each control plane)",
    "authentication-config":
      "kubernetes.apiServer.anonymousAuth (healthEndpoints writes /etc/kubernetes/authentication-config.yaml)",
    "shutdown-delay-duration":
      "vrrp.healthCheck (its fall × interval plus keepalived's takeover of the control-plane VIP)",
  },
  controllerManager: {
    "allocate-node-cidrs": "kubernetes.podSubnet",
    "cluster-cidr": "kubernetes.podSubnet",
    "cluster-name": "name",
    "node-cidr-mask-size": "kubernetes.nodeCidrMaskSize",
    "node-cidr-mask-size-ipv4": "kubernetes.nodeCidrMaskSize",
    "node-cidr-mask-size-ipv6": "kubernetes.nodeCidrMaskSize6",
    "node-monitor-period": "kubernetes.nodeHealth.monitorPeriod",
    "node-monitor-grace-period": "kubernetes.nodeHealth.monitorGracePeriod",
    "pod-eviction-timeout": "kubernetes.nodeHealth.evictionAfter",
    "service-cluster-ip-range": "kubernetes.serviceSubnet",
  },
  scheduler: {},
  etcd: {
    name: "nodes[].name",
    "data-dir": "(fixed: /var/lib/etcd)",
    "advertise-client-urls": "nodes[].interfaces (each control plane's internal address)",
    "initial-advertise-peer-urls": "nodes[].interfaces (each control plane's internal address)",
    "listen-client-urls": "nodes[].interfaces (each control plane's internal address)",
    "listen-peer-urls": "nodes[].interfaces (each control plane's internal address)",
    "initial-cluster": "nodes[] (the control-plane nodes)",
  },
};

/** KubeletConfiguration fields clusterspec writes or kubeadm fills from typed fields: field → owning spec field. */
export const OWNED_KUBELET_FIELDS: Readonly<Record<string, string>> = {
  apiVersion: "(fixed: kubelet.config.k8s.io/v1beta1)",
  kind: "(fixed: KubeletConfiguration)",
  cgroupDriver: "kubernetes.cgroupDriver",
  containerRuntimeEndpoint: "kubernetes.criSocket",
  nodeStatusUpdateFrequency: "kubernetes.nodeHealth.statusUpdateFrequency",
  nodeStatusReportFrequency: "kubernetes.nodeHealth.statusUpdateFrequency",
  localStorageCapacityIsolation: "nodes[].rootFilesystem (switched off on btrfs)",
  clusterDomain: "kubernetes.dnsDomain",
  clusterDNS: "kubernetes.serviceSubnet",
};

/** Cilium Helm values clusterspec writes from typed fields: dotted key → owning spec field. */
export const OWNED_CILIUM_KEYS: Readonly<Record<string, string>> = {
  kubeProxyReplacement: "(always true: kubeadm installs no kube-proxy)",
  k8sServiceHost: "controlPlane.vip",
  k8sServicePort: "controlPlane.port",
  routingMode: "cilium.routingMode",
  tunnelProtocol: "cilium.tunnelProtocol",
  autoDirectNodeRoutes: "cilium.autoDirectNodeRoutes",
  ipv4NativeRoutingCIDR: "kubernetes.podSubnet",
  ipv6NativeRoutingCIDR: "kubernetes.podSubnet",
  "ipv4.enabled": "kubernetes.podSubnet (its address family)",
  "ipv6.enabled": "kubernetes.podSubnet (its address family)",
  "ipam.mode": "cilium.ipamMode",
  "ipam.operator.clusterPoolIPv4PodCIDRList": "kubernetes.podSubnet",
  "ipam.operator.clusterPoolIPv6PodCIDRList": "kubernetes.podSubnet",
  "ipam.operator.clusterPoolIPv4MaskSize": "kubernetes.nodeCidrMaskSize",
  "ipam.operator.clusterPoolIPv6MaskSize": "kubernetes.nodeCidrMaskSize",
  devices: "cilium.devices",
  "bpf.masquerade": "cilium.bpfMasquerade",
  "bpf.hostLegacyRouting": "network.segments[].uplink (policy routing needs legacy host routing)",
  "loadBalancer.mode": "cilium.loadBalancerMode",
  "loadBalancer.dsrDispatch": "cilium.loadBalancerMode and cilium.routingMode",
  "encryption.enabled": "cilium.encryption",
  "encryption.type": "cilium.encryption",
  MTU: "cilium.mtu",
  "nodePort.addresses": "cilium.nodePortAddresses",
};
