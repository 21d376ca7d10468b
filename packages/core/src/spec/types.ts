// Generated from the zod schema by packages/core/test/spec-types.test.ts (`npx vitest run packages/core/test/spec-types.test.ts -u`).
// Plain interfaces, so declaration files never reach into zod's types and a consumer's tsc stays fast;
// the test also proves them equal to z.input / z.output of ClusterSpecSchema.

/** The spec as it is written (defaults may be left out). */
export interface ClusterSpecInput {
  /** Spec format version */
  apiVersion: "clusterspec/v1alpha1";
  /** Always Cluster */
  kind: "Cluster";
  /** Cluster name (kubeadm clusterName, AWS resource names) */
  name: string;
  /** Kubernetes version, networks and kubeadm settings */
  kubernetes: {
    /** Kubernetes version, e.g. v1.34.2 (1.22 and newer) */
    version: string;
    /** Pod network (kubeadm networking.podSubnet) */
    podSubnet: string;
    /** Service network (kubeadm networking.serviceSubnet) */
    serviceSubnet?: string | undefined;
    /** Prefix length of the pod CIDR each node gets (kube-controller-manager --node-cidr-mask-size) */
    nodeCidrMaskSize?: number | undefined;
    /** Cluster DNS domain */
    dnsDomain?: string | undefined;
    /** Let control-plane nodes run workloads (no control-plane taint) */
    schedulableControlPlanes?: boolean | undefined;
    /** CRI endpoint of the bare-metal nodes */
    criSocket?: string | undefined;
    /** kubelet cgroup driver; cgroupfs on OpenRC hosts */
    cgroupDriver?: "cgroupfs" | "systemd" | undefined;
    /** Node failure detection and eviction timing */
    nodeHealth?: {
      /** kubelet nodeStatusUpdateFrequency: how often the kubelet posts node status */
      statusUpdateFrequency?: string | undefined;
      /** kube-controller-manager --node-monitor-period: how often node status is checked */
      monitorPeriod?: string | undefined;
      /** kube-controller-manager --node-monitor-grace-period: how long a node may be silent before NotReady (default 40s, 50s from 1.32) */
      monitorGracePeriod?: string | undefined;
      /** How long pods stay on a NotReady/unreachable node before eviction (--pod-eviction-timeout below 1.27, default toleration seconds from 1.27) */
      evictionAfter?: string | undefined;
    } | undefined;
    /** Secrets kubeadm needs to join nodes; placeholders in golden files */
    secrets?: {
      /** kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}) */
      bootstrapToken: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
      /** kubeadm certificate key for control-plane joins (64 hex characters) */
      certificateKey: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
      /** discovery CA certificate hash (sha256:<64 hex>) */
      caCertHash: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
    } | undefined;
    /** kube-apiserver settings (kubeadm ClusterConfiguration.apiServer) */
    apiServer?: {
      /** Extra API server certificate SANs; the VIP, controlPlane.dnsName and every control-plane address are always included */
      certSANs?: string[] | undefined;
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs?: { [key: string]: string } | undefined;
      /** Host paths mounted into kube-apiserver */
      extraVolumes?: {
        /** Volume name */
        name: string;
        /** Path on the node */
        hostPath: string;
        /** Path inside the kube-apiserver container */
        mountPath: string;
        /** Mount read-only */
        readOnly?: boolean | undefined;
        /** Kubernetes hostPath type check */
        pathType?: "DirectoryOrCreate" | "Directory" | "FileOrCreate" | "File" | "Socket" | "CharDevice" | "BlockDevice" | undefined;
      }[] | undefined;
    } | undefined;
    /** kube-controller-manager settings */
    controllerManager?: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs?: { [key: string]: string } | undefined;
    } | undefined;
    /** kube-scheduler settings */
    scheduler?: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs?: { [key: string]: string } | undefined;
    } | undefined;
    /** local etcd settings */
    etcd?: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs?: { [key: string]: string } | undefined;
    } | undefined;
    /** KubeletConfiguration fields merged into the generated one (all nodes); checked against the kubelet schema */
    kubelet?: { [key: string]: unknown } | undefined;
  };
  /** Networks shared by the nodes */
  network: {
    /** L2 segments */
    segments: {
      /** Name of the L2 segment */
      name: string;
      /** Interface that attaches every node to this segment */
      interface: string;
      /** Address subnet of the segment */
      subnet: string;
      /** Further networks reachable on-link on this segment, without a node address in them */
      onLink?: string[] | undefined;
      /** Replies from external addresses leave through this gateway, in a table of their own */
      uplink?: {
        /** Gateway of the uplink, reachable on-link on this segment */
        gateway: string;
        /** Policy routing table */
        routingTable: {
          /** Routing table number (not 0, 252-255: reserved) */
          id: number;
          /** Routing table name, declared in /etc/iproute2/rt_tables.d/<name>.conf */
          name: string;
        };
        /** Source networks whose replies take the uplink table (default: the segment's on-link networks) */
        sources?: string[] | undefined;
      } | undefined;
      /** VRIDs used by others on this segment (other clusters): never allocated here */
      reservedVrids?: number[] | undefined;
    }[];
    /** Segment Kubernetes runs on (node InternalIP); default the first segment */
    kubernetesSegment?: string | undefined;
    /** DNS servers for the nodes (at most 2) */
    nameservers: string[];
    /** DNS search domains (at most 6) */
    searchDomains?: string[] | undefined;
  };
  /** The API server endpoint held by keepalived */
  controlPlane: {
    /** Control-plane virtual IP with prefix, e.g. 10.118.12.100/24 */
    vip: string;
    /** API server port */
    port?: number | undefined;
    /** Interface carrying the VIP; default the Kubernetes segment's */
    interface?: string | undefined;
    /** VRRP router id; allocated when absent */
    vrid?: number | undefined;
    /** DNS name of the API endpoint: controlPlaneEndpoint, certSANs and every node's /etc/hosts (to the VIP) */
    dnsName?: string | undefined;
  };
  /** keepalived/VRRP settings common to every VIP */
  vrrp?: {
    /** VRRP authentication */
    auth?: {
      /** VRRP authentication type */
      type: "AH" | "PASS";
      /** auth_pass (1-8 characters once resolved) */
      password: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
    } | undefined;
    /** advert_int in seconds */
    advertInterval?: number | undefined;
    /** Initial state of every instance */
    initialState?: "BACKUP" | "MASTER" | undefined;
    /** Do not take a VIP back from a lower-priority node (needs BACKUP) */
    nopreempt?: boolean | undefined;
    /** preempt_delay in seconds of the external VIPs' instances: a carrier waits this long after seeing a lower-priority master before it takes a VIP from it (needs BACKUP, not with nopreempt); default 120, 0 with nopreempt or initial state MASTER. The control-plane VIP never waits (its failover must beat the node-monitor grace period; init_fail guards it) */
    preemptDelay?: number | undefined;
    /** vrrp_garp_master_refresh: seconds between gratuitous ARPs a master repeats for its VIPs; 0 turns it off */
    garpRefresh?: number | undefined;
    /** Track the uplink gateway (ping) on every external VIP instance, so external VIPs leave a node that cannot route their replies */
    uplinkCheck?: boolean | undefined;
    /** Unicast to the other nodes instead of multicast (not with AH) */
    unicast?: boolean | undefined;
    /** Priority of a VIP's master */
    basePriority?: number | undefined;
    /** keepalived script_user: the unprivileged user the check (and notify) scripts run as */
    scriptUser?: string | undefined;
    /** vrrp_script checking the local kube-apiserver /readyz (it starts failed: init_fail) */
    healthCheck?: {
      /** Seconds between apiserver checks */
      interval?: number | undefined;
      /** Seconds before one check gives up */
      timeout?: number | undefined;
      /** Failed checks before the node gives up the VIP */
      fall?: number | undefined;
      /** Good checks before the node may take the VIP again */
      rise?: number | undefined;
      /** Priority change on failure; 0 puts the instance in FAULT; default: just enough to move the VIP */
      weight?: number | undefined;
    } | undefined;
    /** vrrp_script on the external VIP instances: the node serves external traffic only once Cilium answers http://127.0.0.1:<healthPort>/healthz (it starts failed: init_fail) */
    readinessCheck?: {
      /** Track the Cilium agent's local health endpoint on every external VIP instance */
      enabled?: boolean | undefined;
      /** Seconds between checks */
      interval?: number | undefined;
      /** Seconds before one check gives up */
      timeout?: number | undefined;
      /** Failed checks before the node gives up its external VIPs */
      fall?: number | undefined;
      /** Good checks before the node may take external VIPs again */
      rise?: number | undefined;
      /** Priority change on failure; 0 puts the instance in FAULT; default: just enough to move every external VIP */
      weight?: number | undefined;
    } | undefined;
    /** Scripts keepalived runs on state changes */
    notify?: {
      /** Script run when this node becomes master of a VIP */
      master?: string | undefined;
      /** Script run when this node becomes backup */
      backup?: string | undefined;
      /** Script run when an instance enters FAULT */
      fault?: string | undefined;
    } | undefined;
  } | undefined;
  /** A pool of external addresses, one VRRP instance each */
  externalVips?: {
    /** Interface carrying the pool; default the uplink segment's */
    interface?: string | undefined;
    /** Addresses spread over the nodes carrying external VIPs (at most 255) */
    addresses: (string | {
      /** External address (a /32 or /128 VIP) */
      address: string;
      /** Explicit VRID */
      vrid?: number | undefined;
    })[];
    /** VRIDs are allocated upwards from here */
    firstVrid?: number | undefined;
    /** How many carriers hold each address (master and backups); default every carrier. Fewer keeps keepalived.conf small on many carriers, and appending an address never moves an existing one */
    replicas?: number | undefined;
  } | undefined;
  /** Bare-metal servers (at most 1000) */
  nodes: {
    /** Host name and Kubernetes node name */
    name: string;
    /** control-plane, worker or both */
    roles: ("control-plane" | "worker")[];
    /** Whether this node takes part in the external VIP pool */
    carriesExternalVips?: boolean | undefined;
    /** Root filesystem */
    rootFilesystem?: "ext4" | "xfs" | "btrfs" | "zfs" | undefined;
    /** System disk, for the record in PLAN.md */
    disk?: string | undefined;
    /** Interfaces by name */
    interfaces: { [key: string]: {
      /** MAC address the interface is named by (udev); absent on VLAN interfaces */
      mac?: string | undefined;
      /** Makes this a VLAN sub-interface */
      vlan?: {
        /** Parent interface */
        parent: string;
        /** VLAN id */
        id: number;
      } | undefined;
      /** Address with prefix, e.g. 10.118.12.20/24 */
      address?: string | undefined;
      /** Default gateway (main table) through this interface */
      gateway?: string | undefined;
      /** Link MTU, written as netifrc's mtu_<interface> (default: the kernel's, 1500 on Ethernet); a VLAN's is at most its parent's */
      mtu?: number | undefined;
    } };
    /** Node labels, set by the kubelet when it registers (kubeadm nodeRegistration) */
    labels?: { [key: string]: string } | undefined;
    /** Node taints (kubeadm nodeRegistration.taints) */
    taints?: {
      /** Taint key (label-key syntax) */
      key: string;
      /** Taint value (label-value syntax) */
      value?: string | undefined;
      /** Taint effect */
      effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
    }[] | undefined;
  }[];
  /** Bare-metal host settings (Gentoo/OpenRC) */
  host?: {
    /** Write etc/portage/package.accept_keywords for sys-cluster/kubeadm, kubelet and kubectl */
    gentooPackages?: boolean | undefined;
    /** Extra sysctl settings */
    sysctl?: { [key: string]: string | number } | undefined;
    /** OpenRC rc_cgroup_mode: unified (cgroup v2, OpenRC's default: nothing is written) or hybrid/legacy (cgroup v1: rc.conf gets the mode and memory hierarchy) */
    cgroupMode?: "unified" | "hybrid" | "legacy" | undefined;
    /** Host firewall on the public interfaces: nftables table inet clusterspec_host drops every new inbound connection there except SSH from sshFrom, VRRP between the nodes and the VIPs' traffic where a VIP lives on such an interface; other interfaces are left alone */
    firewall?: {
      /** Interfaces filtered (nftables, input hook); default each node's interfaces that attach no network segment */
      publicInterfaces?: string[] | undefined;
      /** Networks allowed to reach SSH (TCP 22) on the public interfaces; empty: SSH closed there */
      sshFrom?: string[] | undefined;
    } | undefined;
  } | undefined;
  /** Cilium CNI, replacing kube-proxy */
  cilium: {
    /** Cilium chart version, e.g. 1.20.0 (1.14 and newer) */
    version: string;
    /** Cilium routingMode */
    routingMode?: "native" | "tunnel" | undefined;
    /** Overlay protocol in tunnel mode */
    tunnelProtocol?: "vxlan" | "geneve" | undefined;
    /** Install routes to other nodes' pod CIDRs (native routing, nodes on one L2 segment) */
    autoDirectNodeRoutes?: boolean | undefined;
    /** Cilium ipam.mode */
    ipamMode?: "kubernetes" | "cluster-pool" | undefined;
    /** Devices Cilium attaches to (default the Kubernetes interface) */
    devices?: string[] | undefined;
    /** eBPF masquerading */
    bpfMasquerade?: boolean | undefined;
    /** Service load balancer mode */
    loadBalancerMode?: "snat" | "dsr" | "hybrid" | undefined;
    /** Transparent pod traffic encryption */
    encryption?: "none" | "wireguard" | undefined;
    /** Device MTU Cilium assumes (default: derived) */
    mtu?: number | undefined;
    /** Networks whose node addresses serve NodePorts (Helm nodePort.addresses); default the Kubernetes segment's subnet (and the burst nodes' WireGuard tunnel subnet), so no other interface (a public one) serves them; [] restores Cilium's default (every device's primary address) */
    nodePortAddresses?: string[] | undefined;
    /** Helm values deep-merged over the generated ones; checked against the chart's values.schema.json, unknown keys refused */
    values?: { [key: string]: unknown } | undefined;
  };
  /** Cloud burst into AWS */
  cloud?: {
    /** AWS account settings */
    aws: {
      /** AWS region */
      region: string;
      /** CIDR of the VPC the pools run in */
      vpcCidr: string;
      /** hashicorp/aws version constraint */
      providerVersion?: string | undefined;
    };
    /** The service that hands out per-instance WireGuard configs and kubeadm discovery kubeconfigs */
    provisioner: {
      /** Base URL of the provisioner service */
      url: string;
      /** Kubernetes namespace of the provisioner's peer-config Secrets */
      namespace?: string | undefined;
      /** Path under the provisioner URL where it receives the SNS notifications (the subscription's endpoint) */
      notifyPath?: string | undefined;
    };
    /** WireGuard tunnel between on-prem and burst nodes */
    wireguard: {
      /** Addresses of the WireGuard tunnel */
      tunnelSubnet: string;
      /** wg-quick interface name */
      interface?: string | undefined;
      /** On-prem WireGuard endpoint on the Kubernetes segment: the other on-prem nodes route the tunnel subnet through it */
      hub?: string | undefined;
      /** MTU of the network the tunnel runs over */
      underlayMtu?: number | undefined;
      /** UDP port the hub listens on */
      listenPort?: number | undefined;
      /** host:port the burst nodes dial to reach the hub (its public address); needed for the client configs */
      endpoint?: string | undefined;
      /** The hub's private key; with hub set, the hub's wg-quick config is generated (0600, placeholder in review trees) */
      privateKey?: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      } | undefined;
      /** The hub's public key (wg pubkey), written into the burst nodes' client configs */
      publicKey?: string | undefined;
      /** Static keys for the burst slots; without them the provisioner mints a key pair per instance and adds the peer with wg set */
      peerKeys?: {
        /** One private key per line, one line per burst slot in slot order */
        privateKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
        /** The matching public keys, one per line in the same order */
        publicKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
      } | undefined;
    };
    /** Node pools */
    pools: {
      /** Node pool name; also the Auto Scaling Group suffix */
      name: string;
      /** EC2 instance type */
      instanceType: string;
      /** CPU architecture of the instance type and AMI */
      architecture: "x86_64" | "arm64";
      /** AMI id or lookup */
      ami: {
        /** Fixed AMI id */
        id: string;
      } | {
        /** Newest AMI matching a name filter, looked up by Terraform */
        lookup: {
          /** AMI owners (required by AWS) */
          owners: string[];
          /** AMI name filter, wildcards allowed */
          name: string;
        };
      };
      /** Minimum instances (0: scale from zero) */
      minSize?: number | undefined;
      /** Maximum instances */
      maxSize: number;
      /** VPC subnet ids */
      subnets: string[];
      /** Security group ids */
      securityGroups: string[];
      /** IAM instance profile name */
      instanceProfile?: string | undefined;
      /** Root volume size */
      rootVolumeGiB?: number | undefined;
      /** Taints registered with the node and advertised to Cluster Autoscaler */
      taints?: {
        /** Taint key */
        key: string;
        /** Taint value */
        value?: string | undefined;
        /** Taint effect */
        effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
      }[] | undefined;
      /** Node labels */
      labels?: { [key: string]: string } | undefined;
      /** Extended resources a node of this pool offers, for scale-from-zero */
      resources?: { [key: string]: string } | undefined;
      /** Instance metadata service (IMDSv2 is always required) */
      imds?: {
        /** Let pods reach the instance metadata service (hop limit 2) and so the instance role's credentials; default hop limit 1 */
        podAccess?: boolean | undefined;
      } | undefined;
    }[];
  } | undefined;
  /** Patches over generated files */
  overlays?: {
    /** Glob over generated artifact paths (* within a folder, ** across folders) */
    target: string;
    /** The kind of the document to patch in a multi-document YAML file */
    document?: string | undefined;
    /** RFC 7386 JSON merge patch: null deletes, mappings merge, anything else replaces */
    patch: { [key: string]: unknown };
  }[] | undefined;
}

/** A validated spec: defaults filled in. */
export interface ClusterSpec {
  /** Spec format version */
  apiVersion: "clusterspec/v1alpha1";
  /** Always Cluster */
  kind: "Cluster";
  /** Cluster name (kubeadm clusterName, AWS resource names) */
  name: string;
  /** Kubernetes version, networks and kubeadm settings */
  kubernetes: {
    /** Kubernetes version, e.g. v1.34.2 (1.22 and newer) */
    version: string;
    /** Pod network (kubeadm networking.podSubnet) */
    podSubnet: string;
    /** Service network (kubeadm networking.serviceSubnet) */
    serviceSubnet: string;
    /** Prefix length of the pod CIDR each node gets (kube-controller-manager --node-cidr-mask-size) */
    nodeCidrMaskSize: number;
    /** Cluster DNS domain */
    dnsDomain: string;
    /** Let control-plane nodes run workloads (no control-plane taint) */
    schedulableControlPlanes: boolean;
    /** CRI endpoint of the bare-metal nodes */
    criSocket: string;
    /** kubelet cgroup driver; cgroupfs on OpenRC hosts */
    cgroupDriver: "cgroupfs" | "systemd";
    /** Node failure detection and eviction timing */
    nodeHealth: {
      /** kubelet nodeStatusUpdateFrequency: how often the kubelet posts node status */
      statusUpdateFrequency: string;
      /** kube-controller-manager --node-monitor-period: how often node status is checked */
      monitorPeriod: string;
      /** kube-controller-manager --node-monitor-grace-period: how long a node may be silent before NotReady (default 40s, 50s from 1.32) */
      monitorGracePeriod?: string | undefined;
      /** How long pods stay on a NotReady/unreachable node before eviction (--pod-eviction-timeout below 1.27, default toleration seconds from 1.27) */
      evictionAfter: string;
    };
    /** Secrets kubeadm needs to join nodes; placeholders in golden files */
    secrets?: {
      /** kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16}) */
      bootstrapToken: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
      /** kubeadm certificate key for control-plane joins (64 hex characters) */
      certificateKey: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
      /** discovery CA certificate hash (sha256:<64 hex>) */
      caCertHash: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
    } | undefined;
    /** kube-apiserver settings (kubeadm ClusterConfiguration.apiServer) */
    apiServer: {
      /** Extra API server certificate SANs; the VIP, controlPlane.dnsName and every control-plane address are always included */
      certSANs: string[];
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs: { [key: string]: string };
      /** Host paths mounted into kube-apiserver */
      extraVolumes: {
        /** Volume name */
        name: string;
        /** Path on the node */
        hostPath: string;
        /** Path inside the kube-apiserver container */
        mountPath: string;
        /** Mount read-only */
        readOnly: boolean;
        /** Kubernetes hostPath type check */
        pathType?: "DirectoryOrCreate" | "Directory" | "FileOrCreate" | "File" | "Socket" | "CharDevice" | "BlockDevice" | undefined;
      }[];
    };
    /** kube-controller-manager settings */
    controllerManager: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs: { [key: string]: string };
    };
    /** kube-scheduler settings */
    scheduler: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs: { [key: string]: string };
    };
    /** local etcd settings */
    etcd: {
      /** Extra command-line flags: flag name without -- to a string value */
      extraArgs: { [key: string]: string };
    };
    /** KubeletConfiguration fields merged into the generated one (all nodes); checked against the kubelet schema */
    kubelet: { [key: string]: unknown };
  };
  /** Networks shared by the nodes */
  network: {
    /** L2 segments */
    segments: {
      /** Name of the L2 segment */
      name: string;
      /** Interface that attaches every node to this segment */
      interface: string;
      /** Address subnet of the segment */
      subnet: string;
      /** Further networks reachable on-link on this segment, without a node address in them */
      onLink: string[];
      /** Replies from external addresses leave through this gateway, in a table of their own */
      uplink?: {
        /** Gateway of the uplink, reachable on-link on this segment */
        gateway: string;
        /** Policy routing table */
        routingTable: {
          /** Routing table number (not 0, 252-255: reserved) */
          id: number;
          /** Routing table name, declared in /etc/iproute2/rt_tables.d/<name>.conf */
          name: string;
        };
        /** Source networks whose replies take the uplink table (default: the segment's on-link networks) */
        sources?: string[] | undefined;
      } | undefined;
      /** VRIDs used by others on this segment (other clusters): never allocated here */
      reservedVrids: number[];
    }[];
    /** Segment Kubernetes runs on (node InternalIP); default the first segment */
    kubernetesSegment?: string | undefined;
    /** DNS servers for the nodes (at most 2) */
    nameservers: string[];
    /** DNS search domains (at most 6) */
    searchDomains: string[];
  };
  /** The API server endpoint held by keepalived */
  controlPlane: {
    /** Control-plane virtual IP with prefix, e.g. 10.118.12.100/24 */
    vip: string;
    /** API server port */
    port: number;
    /** Interface carrying the VIP; default the Kubernetes segment's */
    interface?: string | undefined;
    /** VRRP router id; allocated when absent */
    vrid?: number | undefined;
    /** DNS name of the API endpoint: controlPlaneEndpoint, certSANs and every node's /etc/hosts (to the VIP) */
    dnsName?: string | undefined;
  };
  /** keepalived/VRRP settings common to every VIP */
  vrrp: {
    /** VRRP authentication */
    auth?: {
      /** VRRP authentication type */
      type: "AH" | "PASS";
      /** auth_pass (1-8 characters once resolved) */
      password: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      };
    } | undefined;
    /** advert_int in seconds */
    advertInterval: number;
    /** Initial state of every instance */
    initialState: "BACKUP" | "MASTER";
    /** Do not take a VIP back from a lower-priority node (needs BACKUP) */
    nopreempt: boolean;
    /** preempt_delay in seconds of the external VIPs' instances: a carrier waits this long after seeing a lower-priority master before it takes a VIP from it (needs BACKUP, not with nopreempt); default 120, 0 with nopreempt or initial state MASTER. The control-plane VIP never waits (its failover must beat the node-monitor grace period; init_fail guards it) */
    preemptDelay?: number | undefined;
    /** vrrp_garp_master_refresh: seconds between gratuitous ARPs a master repeats for its VIPs; 0 turns it off */
    garpRefresh: number;
    /** Track the uplink gateway (ping) on every external VIP instance, so external VIPs leave a node that cannot route their replies */
    uplinkCheck: boolean;
    /** Unicast to the other nodes instead of multicast (not with AH) */
    unicast: boolean;
    /** Priority of a VIP's master */
    basePriority: number;
    /** keepalived script_user: the unprivileged user the check (and notify) scripts run as */
    scriptUser: string;
    /** vrrp_script checking the local kube-apiserver /readyz (it starts failed: init_fail) */
    healthCheck: {
      /** Seconds between apiserver checks */
      interval: number;
      /** Seconds before one check gives up */
      timeout: number;
      /** Failed checks before the node gives up the VIP */
      fall: number;
      /** Good checks before the node may take the VIP again */
      rise: number;
      /** Priority change on failure; 0 puts the instance in FAULT; default: just enough to move the VIP */
      weight?: number | undefined;
    };
    /** vrrp_script on the external VIP instances: the node serves external traffic only once Cilium answers http://127.0.0.1:<healthPort>/healthz (it starts failed: init_fail) */
    readinessCheck: {
      /** Track the Cilium agent's local health endpoint on every external VIP instance */
      enabled: boolean;
      /** Seconds between checks */
      interval: number;
      /** Seconds before one check gives up */
      timeout: number;
      /** Failed checks before the node gives up its external VIPs */
      fall: number;
      /** Good checks before the node may take external VIPs again */
      rise: number;
      /** Priority change on failure; 0 puts the instance in FAULT; default: just enough to move every external VIP */
      weight?: number | undefined;
    };
    /** Scripts keepalived runs on state changes */
    notify?: {
      /** Script run when this node becomes master of a VIP */
      master?: string | undefined;
      /** Script run when this node becomes backup */
      backup?: string | undefined;
      /** Script run when an instance enters FAULT */
      fault?: string | undefined;
    } | undefined;
  };
  /** A pool of external addresses, one VRRP instance each */
  externalVips?: {
    /** Interface carrying the pool; default the uplink segment's */
    interface?: string | undefined;
    /** Addresses spread over the nodes carrying external VIPs (at most 255) */
    addresses: (string | {
      /** External address (a /32 or /128 VIP) */
      address: string;
      /** Explicit VRID */
      vrid?: number | undefined;
    })[];
    /** VRIDs are allocated upwards from here */
    firstVrid?: number | undefined;
    /** How many carriers hold each address (master and backups); default every carrier. Fewer keeps keepalived.conf small on many carriers, and appending an address never moves an existing one */
    replicas?: number | undefined;
  } | undefined;
  /** Bare-metal servers (at most 1000) */
  nodes: {
    /** Host name and Kubernetes node name */
    name: string;
    /** control-plane, worker or both */
    roles: ("control-plane" | "worker")[];
    /** Whether this node takes part in the external VIP pool */
    carriesExternalVips: boolean;
    /** Root filesystem */
    rootFilesystem: "ext4" | "xfs" | "btrfs" | "zfs";
    /** System disk, for the record in PLAN.md */
    disk?: string | undefined;
    /** Interfaces by name */
    interfaces: { [key: string]: {
      /** MAC address the interface is named by (udev); absent on VLAN interfaces */
      mac?: string | undefined;
      /** Makes this a VLAN sub-interface */
      vlan?: {
        /** Parent interface */
        parent: string;
        /** VLAN id */
        id: number;
      } | undefined;
      /** Address with prefix, e.g. 10.118.12.20/24 */
      address?: string | undefined;
      /** Default gateway (main table) through this interface */
      gateway?: string | undefined;
      /** Link MTU, written as netifrc's mtu_<interface> (default: the kernel's, 1500 on Ethernet); a VLAN's is at most its parent's */
      mtu?: number | undefined;
    } };
    /** Node labels, set by the kubelet when it registers (kubeadm nodeRegistration) */
    labels: { [key: string]: string };
    /** Node taints (kubeadm nodeRegistration.taints) */
    taints: {
      /** Taint key (label-key syntax) */
      key: string;
      /** Taint value (label-value syntax) */
      value: string;
      /** Taint effect */
      effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
    }[];
  }[];
  /** Bare-metal host settings (Gentoo/OpenRC) */
  host: {
    /** Write etc/portage/package.accept_keywords for sys-cluster/kubeadm, kubelet and kubectl */
    gentooPackages: boolean;
    /** Extra sysctl settings */
    sysctl: { [key: string]: string | number };
    /** OpenRC rc_cgroup_mode: unified (cgroup v2, OpenRC's default: nothing is written) or hybrid/legacy (cgroup v1: rc.conf gets the mode and memory hierarchy) */
    cgroupMode: "unified" | "hybrid" | "legacy";
    /** Host firewall on the public interfaces: nftables table inet clusterspec_host drops every new inbound connection there except SSH from sshFrom, VRRP between the nodes and the VIPs' traffic where a VIP lives on such an interface; other interfaces are left alone */
    firewall?: {
      /** Interfaces filtered (nftables, input hook); default each node's interfaces that attach no network segment */
      publicInterfaces?: string[] | undefined;
      /** Networks allowed to reach SSH (TCP 22) on the public interfaces; empty: SSH closed there */
      sshFrom: string[];
    } | undefined;
  };
  /** Cilium CNI, replacing kube-proxy */
  cilium: {
    /** Cilium chart version, e.g. 1.20.0 (1.14 and newer) */
    version: string;
    /** Cilium routingMode */
    routingMode: "native" | "tunnel";
    /** Overlay protocol in tunnel mode */
    tunnelProtocol: "vxlan" | "geneve";
    /** Install routes to other nodes' pod CIDRs (native routing, nodes on one L2 segment) */
    autoDirectNodeRoutes: boolean;
    /** Cilium ipam.mode */
    ipamMode: "kubernetes" | "cluster-pool";
    /** Devices Cilium attaches to (default the Kubernetes interface) */
    devices?: string[] | undefined;
    /** eBPF masquerading */
    bpfMasquerade: boolean;
    /** Service load balancer mode */
    loadBalancerMode: "snat" | "dsr" | "hybrid";
    /** Transparent pod traffic encryption */
    encryption: "none" | "wireguard";
    /** Device MTU Cilium assumes (default: derived) */
    mtu?: number | undefined;
    /** Networks whose node addresses serve NodePorts (Helm nodePort.addresses); default the Kubernetes segment's subnet (and the burst nodes' WireGuard tunnel subnet), so no other interface (a public one) serves them; [] restores Cilium's default (every device's primary address) */
    nodePortAddresses?: string[] | undefined;
    /** Helm values deep-merged over the generated ones; checked against the chart's values.schema.json, unknown keys refused */
    values: { [key: string]: unknown };
  };
  /** Cloud burst into AWS */
  cloud?: {
    /** AWS account settings */
    aws: {
      /** AWS region */
      region: string;
      /** CIDR of the VPC the pools run in */
      vpcCidr: string;
      /** hashicorp/aws version constraint */
      providerVersion: string;
    };
    /** The service that hands out per-instance WireGuard configs and kubeadm discovery kubeconfigs */
    provisioner: {
      /** Base URL of the provisioner service */
      url: string;
      /** Kubernetes namespace of the provisioner's peer-config Secrets */
      namespace: string;
      /** Path under the provisioner URL where it receives the SNS notifications (the subscription's endpoint) */
      notifyPath: string;
    };
    /** WireGuard tunnel between on-prem and burst nodes */
    wireguard: {
      /** Addresses of the WireGuard tunnel */
      tunnelSubnet: string;
      /** wg-quick interface name */
      interface: string;
      /** On-prem WireGuard endpoint on the Kubernetes segment: the other on-prem nodes route the tunnel subnet through it */
      hub?: string | undefined;
      /** MTU of the network the tunnel runs over */
      underlayMtu: number;
      /** UDP port the hub listens on */
      listenPort: number;
      /** host:port the burst nodes dial to reach the hub (its public address); needed for the client configs */
      endpoint?: string | undefined;
      /** The hub's private key; with hub set, the hub's wg-quick config is generated (0600, placeholder in review trees) */
      privateKey?: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      } | undefined;
      /** The hub's public key (wg pubkey), written into the burst nodes' client configs */
      publicKey?: string | undefined;
      /** Static keys for the burst slots; without them the provisioner mints a key pair per instance and adds the peer with wg set */
      peerKeys?: {
        /** One private key per line, one line per burst slot in slot order */
        privateKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
        /** The matching public keys, one per line in the same order */
        publicKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
      } | undefined;
    };
    /** Node pools */
    pools: {
      /** Node pool name; also the Auto Scaling Group suffix */
      name: string;
      /** EC2 instance type */
      instanceType: string;
      /** CPU architecture of the instance type and AMI */
      architecture: "x86_64" | "arm64";
      /** AMI id or lookup */
      ami: {
        /** Fixed AMI id */
        id: string;
      } | {
        /** Newest AMI matching a name filter, looked up by Terraform */
        lookup: {
          /** AMI owners (required by AWS) */
          owners: string[];
          /** AMI name filter, wildcards allowed */
          name: string;
        };
      };
      /** Minimum instances (0: scale from zero) */
      minSize: number;
      /** Maximum instances */
      maxSize: number;
      /** VPC subnet ids */
      subnets: string[];
      /** Security group ids */
      securityGroups: string[];
      /** IAM instance profile name */
      instanceProfile?: string | undefined;
      /** Root volume size */
      rootVolumeGiB: number;
      /** Taints registered with the node and advertised to Cluster Autoscaler */
      taints: {
        /** Taint key */
        key: string;
        /** Taint value */
        value: string;
        /** Taint effect */
        effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
      }[];
      /** Node labels */
      labels: { [key: string]: string };
      /** Extended resources a node of this pool offers, for scale-from-zero */
      resources: { [key: string]: string };
      /** Instance metadata service (IMDSv2 is always required) */
      imds: {
        /** Let pods reach the instance metadata service (hop limit 2) and so the instance role's credentials; default hop limit 1 */
        podAccess: boolean;
      };
    }[];
  } | undefined;
  /** Patches over generated files */
  overlays: {
    /** Glob over generated artifact paths (* within a folder, ** across folders) */
    target: string;
    /** The kind of the document to patch in a multi-document YAML file */
    document?: string | undefined;
    /** RFC 7386 JSON merge patch: null deletes, mappings merge, anything else replaces */
    patch: { [key: string]: unknown };
  }[];
}

export type NodeSpec = ClusterSpec["nodes"][number];
export type InterfaceSpec = NodeSpec["interfaces"][string];
export type SegmentSpec = ClusterSpec["network"]["segments"][number];
export type PoolSpec = NonNullable<ClusterSpec["cloud"]>["pools"][number];
export type SecretRef = NonNullable<ClusterSpec["vrrp"]["auth"]>["password"];

/** The cloud burst of an existing cluster, as it is written. */
export interface CloudBurstSpecInput {
  /** Spec format version */
  apiVersion: "clusterspec/v1alpha1";
  /** Always Cluster */
  kind: "Cluster";
  /** Cluster name (AWS resource names, node labels) */
  name: string;
  /** A cluster that exists already, managed by other means: only its cloud burst is generated */
  existingCluster: {
    /** API server endpoint the burst nodes join (host:port, IP or DNS name) */
    endpoint: string;
    /** discovery CA certificate hash (sha256:<64 hex>) of the cluster */
    caCertHash: {
      /** Environment variable that holds the secret */
      env: string;
    } | {
      /** File that holds the secret (trailing newline ignored); relative to the spec file */
      file: string;
    };
    /** Kubernetes version the cluster runs, e.g. v1.34.2 (1.22 and newer) */
    kubernetesVersion: string;
    /** The cluster's pod network */
    podSubnet: string;
    /** The cluster's service network */
    serviceSubnet?: string | undefined;
    /** Cluster DNS domain */
    dnsDomain?: string | undefined;
    /** The cgroup driver of the cluster's KubeletConfiguration; cri-o on the burst nodes follows it */
    cgroupDriver?: "cgroupfs" | "systemd" | undefined;
    /** On-prem networks the burst nodes reach through the tunnel (nodes, API endpoint, hub) */
    onPremNetworks: string[];
    /** DNS servers of the burst nodes after tunnel-up (at most 2) */
    nameservers: string[];
    /** DNS search domains of the burst nodes (at most 6) */
    searchDomains?: string[] | undefined;
  };
  /** Cloud burst into AWS */
  cloud: {
    /** AWS account settings */
    aws: {
      /** AWS region */
      region: string;
      /** CIDR of the VPC the pools run in */
      vpcCidr: string;
      /** hashicorp/aws version constraint */
      providerVersion?: string | undefined;
    };
    /** The service that hands out per-instance WireGuard configs and kubeadm discovery kubeconfigs */
    provisioner: {
      /** Base URL of the provisioner service */
      url: string;
      /** Kubernetes namespace of the provisioner's peer-config Secrets */
      namespace?: string | undefined;
      /** Path under the provisioner URL where it receives the SNS notifications (the subscription's endpoint) */
      notifyPath?: string | undefined;
    };
    /** WireGuard tunnel between on-prem and burst nodes */
    wireguard: {
      /** Addresses of the WireGuard tunnel */
      tunnelSubnet: string;
      /** wg-quick interface name */
      interface?: string | undefined;
      /** On-prem WireGuard endpoint on the Kubernetes segment: the other on-prem nodes route the tunnel subnet through it */
      hub?: string | undefined;
      /** MTU of the network the tunnel runs over */
      underlayMtu?: number | undefined;
      /** UDP port the hub listens on */
      listenPort?: number | undefined;
      /** host:port the burst nodes dial to reach the hub (its public address); needed for the client configs */
      endpoint?: string | undefined;
      /** The hub's private key; with hub set, the hub's wg-quick config is generated (0600, placeholder in review trees) */
      privateKey?: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      } | undefined;
      /** The hub's public key (wg pubkey), written into the burst nodes' client configs */
      publicKey?: string | undefined;
      /** Static keys for the burst slots; without them the provisioner mints a key pair per instance and adds the peer with wg set */
      peerKeys?: {
        /** One private key per line, one line per burst slot in slot order */
        privateKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
        /** The matching public keys, one per line in the same order */
        publicKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
      } | undefined;
    };
    /** Node pools */
    pools: {
      /** Node pool name; also the Auto Scaling Group suffix */
      name: string;
      /** EC2 instance type */
      instanceType: string;
      /** CPU architecture of the instance type and AMI */
      architecture: "x86_64" | "arm64";
      /** AMI id or lookup */
      ami: {
        /** Fixed AMI id */
        id: string;
      } | {
        /** Newest AMI matching a name filter, looked up by Terraform */
        lookup: {
          /** AMI owners (required by AWS) */
          owners: string[];
          /** AMI name filter, wildcards allowed */
          name: string;
        };
      };
      /** Minimum instances (0: scale from zero) */
      minSize?: number | undefined;
      /** Maximum instances */
      maxSize: number;
      /** VPC subnet ids */
      subnets: string[];
      /** Security group ids */
      securityGroups: string[];
      /** IAM instance profile name */
      instanceProfile?: string | undefined;
      /** Root volume size */
      rootVolumeGiB?: number | undefined;
      /** Taints registered with the node and advertised to Cluster Autoscaler */
      taints?: {
        /** Taint key */
        key: string;
        /** Taint value */
        value?: string | undefined;
        /** Taint effect */
        effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
      }[] | undefined;
      /** Node labels */
      labels?: { [key: string]: string } | undefined;
      /** Extended resources a node of this pool offers, for scale-from-zero */
      resources?: { [key: string]: string } | undefined;
      /** Instance metadata service (IMDSv2 is always required) */
      imds?: {
        /** Let pods reach the instance metadata service (hop limit 2) and so the instance role's credentials; default hop limit 1 */
        podAccess?: boolean | undefined;
      } | undefined;
    }[];
  };
}

/** A validated cloud-burst spec: defaults filled in. */
export interface CloudBurstSpec {
  /** Spec format version */
  apiVersion: "clusterspec/v1alpha1";
  /** Always Cluster */
  kind: "Cluster";
  /** Cluster name (AWS resource names, node labels) */
  name: string;
  /** A cluster that exists already, managed by other means: only its cloud burst is generated */
  existingCluster: {
    /** API server endpoint the burst nodes join (host:port, IP or DNS name) */
    endpoint: string;
    /** discovery CA certificate hash (sha256:<64 hex>) of the cluster */
    caCertHash: {
      /** Environment variable that holds the secret */
      env: string;
    } | {
      /** File that holds the secret (trailing newline ignored); relative to the spec file */
      file: string;
    };
    /** Kubernetes version the cluster runs, e.g. v1.34.2 (1.22 and newer) */
    kubernetesVersion: string;
    /** The cluster's pod network */
    podSubnet: string;
    /** The cluster's service network */
    serviceSubnet: string;
    /** Cluster DNS domain */
    dnsDomain: string;
    /** The cgroup driver of the cluster's KubeletConfiguration; cri-o on the burst nodes follows it */
    cgroupDriver: "cgroupfs" | "systemd";
    /** On-prem networks the burst nodes reach through the tunnel (nodes, API endpoint, hub) */
    onPremNetworks: string[];
    /** DNS servers of the burst nodes after tunnel-up (at most 2) */
    nameservers: string[];
    /** DNS search domains of the burst nodes (at most 6) */
    searchDomains: string[];
  };
  /** Cloud burst into AWS */
  cloud: {
    /** AWS account settings */
    aws: {
      /** AWS region */
      region: string;
      /** CIDR of the VPC the pools run in */
      vpcCidr: string;
      /** hashicorp/aws version constraint */
      providerVersion: string;
    };
    /** The service that hands out per-instance WireGuard configs and kubeadm discovery kubeconfigs */
    provisioner: {
      /** Base URL of the provisioner service */
      url: string;
      /** Kubernetes namespace of the provisioner's peer-config Secrets */
      namespace: string;
      /** Path under the provisioner URL where it receives the SNS notifications (the subscription's endpoint) */
      notifyPath: string;
    };
    /** WireGuard tunnel between on-prem and burst nodes */
    wireguard: {
      /** Addresses of the WireGuard tunnel */
      tunnelSubnet: string;
      /** wg-quick interface name */
      interface: string;
      /** On-prem WireGuard endpoint on the Kubernetes segment: the other on-prem nodes route the tunnel subnet through it */
      hub?: string | undefined;
      /** MTU of the network the tunnel runs over */
      underlayMtu: number;
      /** UDP port the hub listens on */
      listenPort: number;
      /** host:port the burst nodes dial to reach the hub (its public address); needed for the client configs */
      endpoint?: string | undefined;
      /** The hub's private key; with hub set, the hub's wg-quick config is generated (0600, placeholder in review trees) */
      privateKey?: {
        /** Environment variable that holds the secret */
        env: string;
      } | {
        /** File that holds the secret (trailing newline ignored); relative to the spec file */
        file: string;
      } | undefined;
      /** The hub's public key (wg pubkey), written into the burst nodes' client configs */
      publicKey?: string | undefined;
      /** Static keys for the burst slots; without them the provisioner mints a key pair per instance and adds the peer with wg set */
      peerKeys?: {
        /** One private key per line, one line per burst slot in slot order */
        privateKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
        /** The matching public keys, one per line in the same order */
        publicKeys: {
          /** Environment variable that holds the secret */
          env: string;
        } | {
          /** File that holds the secret (trailing newline ignored); relative to the spec file */
          file: string;
        };
      } | undefined;
    };
    /** Node pools */
    pools: {
      /** Node pool name; also the Auto Scaling Group suffix */
      name: string;
      /** EC2 instance type */
      instanceType: string;
      /** CPU architecture of the instance type and AMI */
      architecture: "x86_64" | "arm64";
      /** AMI id or lookup */
      ami: {
        /** Fixed AMI id */
        id: string;
      } | {
        /** Newest AMI matching a name filter, looked up by Terraform */
        lookup: {
          /** AMI owners (required by AWS) */
          owners: string[];
          /** AMI name filter, wildcards allowed */
          name: string;
        };
      };
      /** Minimum instances (0: scale from zero) */
      minSize: number;
      /** Maximum instances */
      maxSize: number;
      /** VPC subnet ids */
      subnets: string[];
      /** Security group ids */
      securityGroups: string[];
      /** IAM instance profile name */
      instanceProfile?: string | undefined;
      /** Root volume size */
      rootVolumeGiB: number;
      /** Taints registered with the node and advertised to Cluster Autoscaler */
      taints: {
        /** Taint key */
        key: string;
        /** Taint value */
        value: string;
        /** Taint effect */
        effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
      }[];
      /** Node labels */
      labels: { [key: string]: string };
      /** Extended resources a node of this pool offers, for scale-from-zero */
      resources: { [key: string]: string };
      /** Instance metadata service (IMDSv2 is always required) */
      imds: {
        /** Let pods reach the instance metadata service (hop limit 2) and so the instance role's credentials; default hop limit 1 */
        podAccess: boolean;
      };
    }[];
  };
}

/** Either kind of spec. */
export type AnySpec = ClusterSpec | CloudBurstSpec;
export type CloudSpec = NonNullable<ClusterSpec["cloud"]>;
