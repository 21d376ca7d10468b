// The cluster spec as the user writes it. Checks local to one value live here; checks that relate
// several sections live in rules.ts, one function each, so each can be tested and can warn.
import * as z from "zod";
import { ciliumContract, kubernetesContract, MIN_KUBERNETES_MINOR } from "../facts/contract.js";
import { isCidr, isIp, isNetworkCidr } from "../ip.js";
import {
  CiliumValuesSchema,
  DnsNameSchema,
  KubernetesKnobs,
  LABEL_KEY,
  LABEL_VALUE,
  NodeKnobs,
  OverlaysSchema,
} from "./knobs-schema.js";
import { parseKubernetesVersion, parseSemver } from "./version.js";

export { MIN_CILIUM, MIN_KUBERNETES_MINOR } from "../facts/contract.js";

const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Dot-separated lowercase RFC 1123 labels (search domains, the cluster's DNS domain).
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
// Safe as a bare token in keepalived.conf, a shell variable suffix (after shell_var), a udev rule and YAML.
const INTERFACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
// From a string, not a literal: the bundler escapes µ in strings but not in regular expression literals, and the
// command's bundle must be ASCII (packages/cli/tsup.config.ts); the JSON Schema keeps the readable µ.
// biome-ignore lint/complexity/useRegexLiterals: see above
const GO_DURATION = new RegExp("^(\\d+(\\.\\d+)?(ns|us|µs|ms|s|m|h))+$");
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
// A file reference: an absolute or relative path without control characters.
const FILE_PATH = /^[^\0\n\r]+$/;
const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E)?$/;
const ABS_PATH = /^\/[A-Za-z0-9._/-]+$/;

/**
 * keepalived reads its config with fgets into a 1,024-byte buffer (MAXBUF in keepalived's lib/parser.h), so a line of
 * 1,023 bytes or more is cut and its rest read as a new line: a new keyword. The longest keepalived line clusterspec
 * writes is `    notify_master <path>`; 1,000 bytes of path keep it at 1,022 with the newline.
 */
export const KEEPALIVED_VALUE_MAX = 1000;
const notifyScript = () =>
  z
    .string()
    .max(KEEPALIVED_VALUE_MAX, {
      message: `notify script paths are at most ${KEEPALIVED_VALUE_MAX} characters: keepalived reads a config line in 1,023-byte pieces, and the rest of a longer line would be read as a new keyword`,
      abort: true,
    })
    .regex(ABS_PATH, { message: "notify scripts are absolute paths" });

/** RFC 1123 host name: dot-separated LDH labels of 1-63 characters, at most 253 in all; not all digits and dots. */
export function isDnsName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  if (labels.every((l) => /^[0-9]+$/.test(l))) return false;
  return labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

/** glibc reads at most 6 search domains from resolv.conf (MAXDNSRCH in resolv.h); the rest are ignored. */
export const MAX_SEARCH_DOMAINS = 6;
/** 255 belongs to the address owner (RFC 5798 §5.1); a shared VIP has no owner, so 254 at most. */
export const MAX_BASE_PRIORITY = 254;
const searchDomains = (what: string) =>
  z
    .array(
      z
        .string()
        .max(253, { message: "a DNS name is at most 253 characters" })
        .regex(DNS_SUBDOMAIN, {
          message: "search domains are lowercase DNS names such as example.com",
        })
        .refine((d) => d.split(".").every((l) => l.length <= 63), { message: "a DNS label is at most 63 characters" }),
    )
    .max(MAX_SEARCH_DOMAINS, {
      message: `at most ${MAX_SEARCH_DOMAINS} search domains: glibc reads ${MAX_SEARCH_DOMAINS} from resolv.conf (MAXDNSRCH) and ignores the rest`,
    })
    .default([])
    .describe(what);

export const ipAddress = () =>
  z.string().refine(isIp, { message: "expected an IP address such as 10.0.0.1 or fd00::1" });
export const cidr = () =>
  z.string().refine(isCidr, { message: "expected an address with prefix length such as 10.0.0.20/24" });
export const networkCidr = () =>
  z
    .string()
    .refine(isCidr, { message: "expected a network such as 10.0.0.0/24", abort: true })
    .refine(isNetworkCidr, { message: "expected the network address, without host bits (e.g. 10.0.0.0/24)" });
/** The cluster's DNS domain (kubeadm networking.dnsDomain), the same for a cluster of ours and an existing one. */
const clusterDnsDomain = () =>
  z
    .string()
    .regex(DNS_SUBDOMAIN, {
      message: "DNS domain must be dot-separated RFC 1123 labels",
    })
    .default("cluster.local")
    .describe("Cluster DNS domain");
const duration = () => z.string().regex(GO_DURATION, { message: "expected a Go duration such as 4s, 500ms or 1m30s" });
const rfc1123Label = (what: string) =>
  z
    .string()
    .max(63, { message: `${what} must be at most 63 characters (RFC 1123 label)` })
    .regex(RFC1123_LABEL, {
      message: `${what} must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit`,
    });

export const InterfaceNameSchema = z
  .string()
  .refine((s) => new TextEncoder().encode(s).length <= 15, {
    message: "interface names are at most 15 bytes (Linux IFNAMSIZ)",
  })
  .regex(INTERFACE_NAME, {
    message: "interface names use letters, digits, '_', '.', '-' only (no whitespace, '/', ':' or quotes)",
  })
  .describe("Linux interface name, at most 15 bytes");

// ---- secrets ----

const EnvRef = z
  .strictObject({
    env: z
      .string()
      .regex(ENV_NAME, { message: "expected an environment variable name" })
      .describe("Environment variable that holds the secret"),
  })
  .describe("Secret read from an environment variable when the CLI runs");
const FileRef = z
  .strictObject({
    file: z
      .string()
      .regex(FILE_PATH, { message: "expected a file path" })
      .describe("File that holds the secret (trailing newline ignored); relative to the spec file"),
  })
  .describe("Secret read from a file when the CLI runs");

export const SecretRefSchema = z
  .union([EnvRef, FileRef], {
    error: (issue) =>
      typeof issue.input === "string" || typeof issue.input === "number"
        ? "secrets are never written in the spec: reference one with { env: NAME } or { file: path }"
        : "expected a secret reference { env: NAME } or { file: path }",
  })
  .describe("A secret is referenced, never written inline: { env: NAME } or { file: path }");

// ---- kubernetes ----

const NodeHealthSchema = z
  .strictObject({
    statusUpdateFrequency: duration()
      .default("10s")
      .describe("kubelet nodeStatusUpdateFrequency: how often the kubelet posts node status"),
    monitorPeriod: duration()
      .default("5s")
      .describe("kube-controller-manager --node-monitor-period: how often node status is checked"),
    monitorGracePeriod: duration()
      .optional()
      .describe(
        "kube-controller-manager --node-monitor-grace-period: how long a node may be silent before NotReady (default 40s, 50s from 1.32)",
      ),
    evictionAfter: duration()
      .default("300s")
      .describe(
        "How long pods stay on a NotReady/unreachable node before eviction (--pod-eviction-timeout below 1.27, default toleration seconds from 1.27)",
      ),
  })
  .describe("Node failure detection and eviction timing");

const kubernetesVersion = () =>
  z.string().superRefine((v, ctx) => {
    const parsed = parseKubernetesVersion(v);
    if (!parsed) ctx.addIssue({ code: "custom", message: `Kubernetes version ${v} is not of the form v1.MINOR.PATCH` });
    else if (!kubernetesContract(parsed).isSupported())
      ctx.addIssue({
        code: "custom",
        message: `Kubernetes ${v} is not supported: clusterspec supports 1.${MIN_KUBERNETES_MINOR} and newer`,
      });
  });

const KubeadmSecretsSchema = z
  .strictObject({
    bootstrapToken: SecretRefSchema.describe("kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16})"),
    certificateKey: SecretRefSchema.describe("kubeadm certificate key for control-plane joins (64 hex characters)"),
    caCertHash: SecretRefSchema.describe("discovery CA certificate hash (sha256:<64 hex>)"),
  })
  .describe("Secrets kubeadm needs to join nodes; placeholders in golden files");

const KubernetesSchema = z
  .strictObject({
    version: kubernetesVersion().describe("Kubernetes version, e.g. v1.34.2 (1.22 and newer)"),
    podSubnet: networkCidr().describe("Pod network (kubeadm networking.podSubnet)"),
    serviceSubnet: networkCidr().default("10.96.0.0/12").describe("Service network (kubeadm networking.serviceSubnet)"),
    nodeCidrMaskSize: z
      .number()
      .int()
      .min(8)
      .max(30)
      .default(24)
      .describe("Prefix length of the pod CIDR each node gets (kube-controller-manager --node-cidr-mask-size)"),
    dnsDomain: clusterDnsDomain(),
    schedulableControlPlanes: z
      .boolean()
      .default(false)
      .describe("Let control-plane nodes run workloads (no control-plane taint)"),
    criSocket: z
      .string()
      .regex(/^unix:\/\/\/[A-Za-z0-9._/-]+$/, { message: "CRI socket must be a unix:/// URL" })
      .default("unix:///run/containerd/containerd.sock")
      .describe("CRI endpoint of the bare-metal nodes"),
    cgroupDriver: z
      .enum(["cgroupfs", "systemd"])
      .default("cgroupfs")
      .describe("kubelet cgroup driver; cgroupfs on OpenRC hosts"),
    nodeHealth: NodeHealthSchema.prefault({}),
    secrets: KubeadmSecretsSchema.optional(),
    ...KubernetesKnobs,
  })
  .describe("Kubernetes version, networks and kubeadm settings");

// ---- network ----

const RoutingTableSchema = z
  .strictObject({
    id: z.number().int().min(0).max(4294967295).describe("Routing table number (not 0, 252-255: reserved)"),
    name: z
      .string()
      .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, {
        message: "routing table names use letters, digits, '_' and '-', starting with a letter",
      })
      .describe("Routing table name, declared in /etc/iproute2/rt_tables.d/<name>.conf"),
  })
  .describe("Policy routing table");

const UplinkSchema = z
  .strictObject({
    gateway: ipAddress().describe("Gateway of the uplink, reachable on-link on this segment"),
    routingTable: RoutingTableSchema,
    sources: z
      .array(networkCidr())
      .optional()
      .describe("Source networks whose replies take the uplink table (default: the segment's on-link networks)"),
  })
  .describe("Replies from external addresses leave through this gateway, in a table of their own");

const SegmentSchema = z
  .strictObject({
    name: rfc1123Label("segment name").describe("Name of the L2 segment"),
    interface: InterfaceNameSchema.describe("Interface that attaches every node to this segment"),
    subnet: networkCidr().describe("Address subnet of the segment"),
    onLink: z
      .array(networkCidr())
      .default([])
      .describe("Further networks reachable on-link on this segment, without a node address in them"),
    uplink: UplinkSchema.optional(),
    reservedVrids: z
      .array(z.number().int().min(1).max(255))
      .default([])
      .describe("VRIDs used by others on this segment (other clusters): never allocated here"),
  })
  .describe("An L2 segment the nodes share");

const NetworkSchema = z
  .strictObject({
    segments: z.array(SegmentSchema).min(1).describe("L2 segments"),
    kubernetesSegment: z
      .string()
      .optional()
      .describe("Segment Kubernetes runs on (node InternalIP); default the first segment"),
    nameservers: z.array(ipAddress()).min(1).describe("DNS servers for the nodes (at most 2)"),
    searchDomains: searchDomains("DNS search domains (at most 6)"),
  })
  .describe("Networks shared by the nodes");

// ---- VRRP ----

const HealthCheckSchema = z
  .strictObject({
    interval: z.number().int().min(1).max(60).default(2).describe("Seconds between apiserver checks"),
    timeout: z.number().int().min(1).max(30).default(2).describe("Seconds before one check gives up"),
    fall: z.number().int().min(1).max(10).default(2).describe("Failed checks before the node gives up the VIP"),
    rise: z.number().int().min(1).max(10).default(2).describe("Good checks before the node may take the VIP again"),
    weight: z
      .number()
      .int()
      .min(-253)
      .max(0)
      .optional()
      .describe("Priority change on failure; 0 puts the instance in FAULT; default: just enough to move the VIP"),
  })
  .describe("vrrp_script checking the local kube-apiserver /readyz (it starts failed: init_fail)");

const ReadinessCheckSchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(true)
      .describe("Track the Cilium agent's local health endpoint on every external VIP instance"),
    interval: z.number().int().min(1).max(60).default(2).describe("Seconds between checks"),
    timeout: z.number().int().min(1).max(30).default(2).describe("Seconds before one check gives up"),
    fall: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("Failed checks before the node gives up its external VIPs"),
    rise: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("Good checks before the node may take external VIPs again"),
    weight: z
      .number()
      .int()
      .min(-253)
      .max(0)
      .optional()
      .describe(
        "Priority change on failure; 0 puts the instance in FAULT; default: just enough to move every external VIP",
      ),
  })
  .describe(
    "vrrp_script on the external VIP instances: the node serves external traffic only once Cilium answers http://127.0.0.1:<healthPort>/healthz (it starts failed: init_fail)",
  );

const NotifySchema = z
  .strictObject({
    master: notifyScript().optional().describe("Script run when this node becomes master of a VIP"),
    backup: notifyScript().optional().describe("Script run when this node becomes backup"),
    fault: notifyScript().optional().describe("Script run when an instance enters FAULT"),
  })
  .describe("Scripts keepalived runs on state changes");

const VrrpSchema = z
  .strictObject({
    auth: z
      .strictObject({
        type: z.enum(["AH", "PASS"]).describe("VRRP authentication type"),
        password: SecretRefSchema.describe("auth_pass (1-8 characters once resolved)"),
      })
      .optional()
      .describe("VRRP authentication"),
    advertInterval: z.number().int().min(1).max(255).default(1).describe("advert_int in seconds"),
    initialState: z.enum(["BACKUP", "MASTER"]).default("BACKUP").describe("Initial state of every instance"),
    nopreempt: z.boolean().default(false).describe("Do not take a VIP back from a lower-priority node (needs BACKUP)"),
    preemptDelay: z
      .number()
      .int()
      .min(0)
      .max(1000)
      .optional()
      .describe(
        "preempt_delay in seconds of the external VIPs' instances: a carrier waits this long after seeing a lower-priority master before it takes a VIP from it (needs BACKUP, not with nopreempt); default 120, 0 with nopreempt or initial state MASTER. The control-plane VIP never waits (its failover must beat the node-monitor grace period; init_fail guards it)",
      ),
    garpRefresh: z
      .number()
      .int()
      .min(0)
      .max(3600)
      .default(60)
      .describe(
        "vrrp_garp_master_refresh: seconds between gratuitous ARPs a master repeats for its VIPs; 0 turns it off",
      ),
    uplinkCheck: z
      .boolean()
      .default(false)
      .describe(
        "Track the uplink gateway (ping) on every external VIP instance, so external VIPs leave a node that cannot route their replies",
      ),
    unicast: z.boolean().default(false).describe("Unicast to the other nodes instead of multicast (not with AH)"),
    basePriority: z.number().int().min(2).max(MAX_BASE_PRIORITY).default(100).describe("Priority of a VIP's master"),
    scriptUser: z
      .string()
      .regex(/^[a-z_][a-z0-9_-]{0,31}$/)
      .default("nobody")
      .describe("keepalived script_user: the unprivileged user the check (and notify) scripts run as"),
    healthCheck: HealthCheckSchema.prefault({}),
    readinessCheck: ReadinessCheckSchema.prefault({}),
    notify: NotifySchema.optional(),
  })
  .describe("keepalived/VRRP settings common to every VIP");

const ControlPlaneSchema = z
  .strictObject({
    vip: cidr().describe("Control-plane virtual IP with prefix, e.g. 10.118.12.100/24"),
    port: z.number().int().min(1).max(65535).default(6443).describe("API server port"),
    interface: InterfaceNameSchema.optional().describe("Interface carrying the VIP; default the Kubernetes segment's"),
    vrid: z.number().int().min(1).max(255).optional().describe("VRRP router id; allocated when absent"),
    dnsName: DnsNameSchema.optional(),
  })
  .describe("The API server endpoint held by keepalived");

const ExternalVipEntry = z.union([
  ipAddress(),
  z.strictObject({
    address: ipAddress().describe("External address (a /32 or /128 VIP)"),
    vrid: z.number().int().min(1).max(255).optional().describe("Explicit VRID"),
  }),
]);

/**
 * Bounds that keep generation within memory and time: the output grows with nodes² (a host file per node lists
 * every node); 1,000 nodes generate in seconds in about 300 MB, 5,000 ran out of a 4 GB heap. One VRID per
 * external VIP, and VRIDs are 1-255.
 */
export const MAX_NODES = 1000;
export const MAX_EXTERNAL_VIPS = 255;

const ExternalVipsSchema = z
  .strictObject({
    interface: InterfaceNameSchema.optional().describe("Interface carrying the pool; default the uplink segment's"),
    addresses: z
      .array(ExternalVipEntry)
      .min(1)
      .max(MAX_EXTERNAL_VIPS, {
        error: (iss) =>
          `at most ${MAX_EXTERNAL_VIPS} external VIPs, got ${(iss.input as unknown[]).length.toLocaleString("en-US")}: each one is a VRRP instance with its own VRID, and VRIDs are 1-255 per interface`,
      })
      .describe(`Addresses spread over the nodes carrying external VIPs (at most ${MAX_EXTERNAL_VIPS})`),
    firstVrid: z.number().int().min(1).max(255).optional().describe("VRIDs are allocated upwards from here"),
    replicas: z
      .number()
      .int()
      .min(2)
      .optional()
      .describe(
        "How many carriers hold each address (master and backups); default every carrier. Fewer keeps keepalived.conf small on many carriers, and appending an address never moves an existing one",
      ),
  })
  .describe("A pool of external addresses, one VRRP instance each");

// ---- nodes ----

const InterfaceSchema = z
  .strictObject({
    mac: z
      .string()
      .regex(/^[0-9A-Fa-f]{2}(:[0-9A-Fa-f]{2}){5}$/, {
        message: "expected a MAC address such as 52:54:00:12:34:56",
        abort: true,
      })
      // The group bit (lowest bit of the first octet) marks multicast: no NIC has such an address, so udev would never match.
      .refine((m) => (Number.parseInt(m.slice(0, 2), 16) & 1) === 0, {
        message: "a multicast MAC (odd first octet) never belongs to a NIC: use the interface's own unicast MAC",
      })
      .optional()
      .describe("MAC address the interface is named by (udev); absent on VLAN interfaces"),
    vlan: z
      .strictObject({
        parent: InterfaceNameSchema.describe("Parent interface"),
        id: z.number().int().min(1).max(4094).describe("VLAN id"),
      })
      .optional()
      .describe("Makes this a VLAN sub-interface"),
    address: cidr().optional().describe("Address with prefix, e.g. 10.118.12.20/24"),
    gateway: ipAddress().optional().describe("Default gateway (main table) through this interface"),
    mtu: z
      .number()
      .int()
      .min(1280)
      .max(9216)
      .optional()
      .describe(
        "Link MTU, written as netifrc's mtu_<interface> (default: the kernel's, 1500 on Ethernet); a VLAN's is at most its parent's",
      ),
  })
  .superRefine((v, ctx) => {
    if (v.vlan && v.mac)
      ctx.addIssue({ code: "custom", path: ["mac"], message: "a VLAN interface has no MAC of its own" });
    if (!v.vlan && !v.mac)
      ctx.addIssue({
        code: "custom",
        path: ["mac"],
        message: "a physical interface needs its MAC (interfaces are named by MAC)",
      });
    if (v.gateway && !v.address)
      ctx.addIssue({ code: "custom", path: ["gateway"], message: "a gateway needs an address on the same interface" });
  })
  .describe("A network interface of the node");

const NodeSchema = z
  .strictObject({
    name: rfc1123Label("node name").describe("Host name and Kubernetes node name"),
    roles: z
      .array(z.enum(["control-plane", "worker"]))
      .min(1)
      .refine((r) => new Set(r).size === r.length, { message: "roles are listed once each" })
      .describe("control-plane, worker or both"),
    carriesExternalVips: z.boolean().default(false).describe("Whether this node takes part in the external VIP pool"),
    rootFilesystem: z.enum(["ext4", "xfs", "btrfs", "zfs"]).default("ext4").describe("Root filesystem"),
    disk: z
      .string()
      .regex(/^\/dev\/[A-Za-z0-9/_-]+$/)
      .optional()
      .describe("System disk, for the record in PLAN.md"),
    interfaces: z
      .record(InterfaceNameSchema, InterfaceSchema)
      .superRefine((interfaces, ctx) => {
        // netifrc reads NAME.ID as VLAN ID on NAME: a physical NIC renamed so would be configured as a VLAN.
        for (const [name, i] of Object.entries(interfaces))
          if (i.mac && !i.vlan && name.includes("."))
            ctx.addIssue({
              code: "custom",
              path: [name],
              message: `physical interface ${JSON.stringify(name)} (named by MAC, no vlan) must not contain "." - netifrc reads a dotted name as a VLAN; rename it, or declare vlan: { parent, id } for a VLAN`,
            });
      })
      .describe("Interfaces by name"),
    ...NodeKnobs,
  })
  .describe("A bare-metal server");

// ---- host ----

export const SYSCTL_KEY_MAX = 255;
export const SYSCTL_VALUE_MAX = 1024;
const SYSCTL_VALUE = /^[A-Za-z0-9._:-]+( [A-Za-z0-9._:-]+)*$/;

const HostFirewallSchema = z
  .strictObject({
    publicInterfaces: z
      .array(InterfaceNameSchema)
      .min(1)
      .optional()
      .describe(
        "Interfaces filtered (nftables, input hook); default each node's interfaces that attach no network segment",
      ),
    sshFrom: z
      .array(networkCidr())
      .default([])
      .describe("Networks allowed to reach SSH (TCP 22) on the public interfaces; empty: SSH closed there"),
  })
  .describe(
    "Host firewall on the public interfaces: nftables table inet clusterspec_host drops every new inbound connection there except SSH from sshFrom, VRRP between the nodes and the VIPs' traffic where a VIP lives on such an interface; other interfaces are left alone",
  );

const HostSchema = z
  .strictObject({
    gentooPackages: z
      .boolean()
      .default(false)
      .describe("Write etc/portage/package.accept_keywords for sys-cluster/kubeadm, kubelet and kubectl"),
    sysctl: z
      .record(
        z
          .string()
          .max(SYSCTL_KEY_MAX, { message: `sysctl keys are at most ${SYSCTL_KEY_MAX} characters` })
          .regex(/^[a-z0-9_]+(\.[a-z0-9_-]+)+$/, { message: "expected a sysctl key such as vm.swappiness" }),
        z.union([
          z
            .string()
            .max(SYSCTL_VALUE_MAX, {
              message: `sysctl values are at most ${SYSCTL_VALUE_MAX} characters (the kernel takes one page per write; sysctl.conf lines stay below procps' 4,096)`,
            })
            .regex(SYSCTL_VALUE, {
              message:
                "sysctl values are written as given: words of letters, digits, '.', '_', ':', '-' separated by single spaces, not empty, no leading or trailing space (sysctl would trim it silently)",
            }),
          z.number(),
        ]),
      )
      .default({})
      .describe("Extra sysctl settings"),
    cgroupMode: z
      .enum(["unified", "hybrid", "legacy"])
      .default("unified")
      .describe(
        "OpenRC rc_cgroup_mode: unified (cgroup v2, OpenRC's default: nothing is written) or hybrid/legacy (cgroup v1: rc.conf gets the mode and memory hierarchy)",
      ),
    firewall: HostFirewallSchema.optional(),
  })
  .describe("Bare-metal host settings (Gentoo/OpenRC)");

// ---- cilium ----

const CiliumSchema = z
  .strictObject({
    version: z
      .string()
      .superRefine((v, ctx) => {
        const s = parseSemver(v);
        if (!s) ctx.addIssue({ code: "custom", message: `Cilium version ${v} is not of the form 1.MINOR.PATCH` });
        else if (!ciliumContract(s).isSupported())
          ctx.addIssue({
            code: "custom",
            message: `Cilium ${v} is not supported: clusterspec supports 1.14 and newer`,
          });
      })
      .describe("Cilium chart version, e.g. 1.20.0 (1.14 and newer)"),
    routingMode: z.enum(["native", "tunnel"]).default("native").describe("Cilium routingMode"),
    tunnelProtocol: z.enum(["vxlan", "geneve"]).default("vxlan").describe("Overlay protocol in tunnel mode"),
    autoDirectNodeRoutes: z
      .boolean()
      .default(true)
      .describe("Install routes to other nodes' pod CIDRs (native routing, nodes on one L2 segment)"),
    ipamMode: z.enum(["kubernetes", "cluster-pool"]).default("kubernetes").describe("Cilium ipam.mode"),
    devices: z
      .array(InterfaceNameSchema)
      .optional()
      .describe("Devices Cilium attaches to (default the Kubernetes interface)"),
    bpfMasquerade: z.boolean().default(true).describe("eBPF masquerading"),
    loadBalancerMode: z.enum(["snat", "dsr", "hybrid"]).default("snat").describe("Service load balancer mode"),
    encryption: z.enum(["none", "wireguard"]).default("none").describe("Transparent pod traffic encryption"),
    mtu: z.number().int().min(1280).max(9216).optional().describe("Device MTU Cilium assumes (default: derived)"),
    nodePortAddresses: z
      .array(networkCidr())
      .optional()
      .describe(
        "Networks whose node addresses serve NodePorts (Helm nodePort.addresses); default the Kubernetes segment's subnet (and the burst nodes' WireGuard tunnel subnet), so no other interface (a public one) serves them; [] restores Cilium's default (every device's primary address)",
      ),
    values: CiliumValuesSchema,
  })
  .describe("Cilium CNI, replacing kube-proxy");

// ---- cloud burst: hardening, the hub's WireGuard keys, the provisioner contract ----

// 32 bytes in base64: 43 characters whose last carries 4 bits, then one '='.
export const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;
// host:port, the host an IPv4 address, a bracketed IPv6 address or a DNS name; nothing a shell, YAML or INI reader would interpret.
const HOST_PORT = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?):([1-9][0-9]{0,4})$/;
const endpointHost = (v: string): string =>
  v.startsWith("[") ? v.slice(1, v.lastIndexOf("]")) : v.slice(0, v.lastIndexOf(":"));
export const hostPort = () =>
  z
    .string()
    .regex(HOST_PORT, {
      message: "expected host:port, the host an IP address ([fd00::1] for IPv6) or a DNS name",
      abort: true,
    })
    .refine((v) => Number(v.slice(v.lastIndexOf(":") + 1)) <= 65535, { message: "port must be 1-65535" })
    .refine(
      (v) =>
        v.startsWith("[")
          ? isIp(endpointHost(v))
          : /^[0-9.]+$/.test(endpointHost(v))
            ? isIp(endpointHost(v))
            : isDnsName(endpointHost(v)),
      {
        message: "expected a valid IP address or DNS name before the port",
      },
    );

/** The authority of a URL as written (the URL parser would map or drop some characters): host[:port]. */
function urlHostOk(url: string): boolean {
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(url)?.[1];
  if (authority === undefined) return false;
  const m = /^([^:]+)(:([1-9][0-9]{0,4}))?$/.exec(authority);
  if (!m?.[1] || Number(m[3] ?? 443) > 65535) return false;
  return isDnsName(m[1]) || (/^[0-9.]+$/.test(m[1]) && isIp(m[1]));
}

// The cloud sections (`cloud:`, and `existingCluster:` of a cloud-burst spec) are built on first use, not at import:
// most specs have neither, and they are 300 of the spec schema's 1,070 zod objects. ClusterSpecSchema and
// CloudBurstSpecSchema reach them through z.lazy; validateSpec checks a spec without `cloud:` against
// OnPremSpecSchema, which has no cloud field, as zod builds a lazy field when it parses the object, present or not.
function buildCloudSchemas() {
  const ImdsSchema = z
    .strictObject({
      podAccess: z
        .boolean()
        .default(false)
        .describe(
          "Let pods reach the instance metadata service (hop limit 2) and so the instance role's credentials; default hop limit 1",
        ),
    })
    .describe("Instance metadata service (IMDSv2 is always required)");

  const WireguardHubFields = {
    listenPort: z.number().int().min(1).max(65535).default(51820).describe("UDP port the hub listens on"),
    endpoint: hostPort()
      .optional()
      .describe("host:port the burst nodes dial to reach the hub (its public address); needed for the client configs"),
    privateKey: SecretRefSchema.optional().describe(
      "The hub's private key; with hub set, the hub's wg-quick config is generated (0600, placeholder in review trees)",
    ),
    publicKey: z
      .string()
      .regex(WIREGUARD_KEY, { message: "expected a WireGuard key: 32 bytes in base64 (44 characters ending in '=')" })
      .optional()
      .describe("The hub's public key (wg pubkey), written into the burst nodes' client configs"),
    peerKeys: z
      .strictObject({
        privateKeys: SecretRefSchema.describe("One private key per line, one line per burst slot in slot order"),
        publicKeys: SecretRefSchema.describe("The matching public keys, one per line in the same order"),
      })
      .optional()
      .describe(
        "Static keys for the burst slots; without them the provisioner mints a key pair per instance and adds the peer with wg set",
      ),
  };

  const ProvisionerFields = {
    namespace: rfc1123Label("namespace")
      .default("clusterspec")
      .describe("Kubernetes namespace of the provisioner's peer-config Secrets"),
    notifyPath: z
      .string()
      .max(256)
      .regex(/^(\/[A-Za-z0-9._~-]+)+$/, {
        message: "expected a URL path such as /sns: segments of letters, digits, '.', '_', '~' and '-' after each '/'",
      })
      .default("/sns")
      .describe("Path under the provisioner URL where it receives the SNS notifications (the subscription's endpoint)"),
  };

  // ---- cloud ----

  const TaintSchema = z.strictObject({
    key: z.string().regex(LABEL_KEY, { message: "taint keys follow label-key syntax" }).describe("Taint key"),
    value: z
      .string()
      .max(63)
      .regex(LABEL_VALUE, { message: "taint values follow label-value syntax" })
      .default("")
      .describe("Taint value"),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).describe("Taint effect"),
  });

  const AmiSchema = z.union([
    z.strictObject({
      id: z
        .string()
        .regex(/^ami-[0-9a-f]{8,17}$/, { message: "expected an AMI id such as ami-0123456789abcdef0" })
        .describe("Fixed AMI id"),
    }),
    z.strictObject({
      lookup: z
        .strictObject({
          owners: z
            .array(z.string().regex(/^(\d{12}|amazon|aws-marketplace|self)$/))
            .min(1)
            .describe("AMI owners (required by AWS)"),
          name: z
            .string()
            .min(1)
            .max(128)
            .regex(/^[A-Za-z0-9 ()[\]./_*?,-]+$/)
            .describe("AMI name filter, wildcards allowed"),
        })
        .describe("Newest AMI matching a name filter, looked up by Terraform"),
    }),
  ]);

  const PoolSchema = z
    .strictObject({
      name: rfc1123Label("pool name").describe("Node pool name; also the Auto Scaling Group suffix"),
      instanceType: z
        .string()
        .regex(/^[a-z0-9-]+\.[a-z0-9]+$/, { message: "expected an EC2 instance type such as t4g.xlarge" })
        .describe("EC2 instance type"),
      architecture: z.enum(["x86_64", "arm64"]).describe("CPU architecture of the instance type and AMI"),
      ami: AmiSchema.describe("AMI id or lookup"),
      minSize: z.number().int().min(0).default(0).describe("Minimum instances (0: scale from zero)"),
      maxSize: z.number().int().min(1).describe("Maximum instances"),
      subnets: z
        .array(z.string().regex(/^subnet-[0-9a-f]{8,17}$/))
        .min(1)
        .describe("VPC subnet ids"),
      securityGroups: z
        .array(z.string().regex(/^sg-[0-9a-f]{8,17}$/))
        .min(1)
        .describe("Security group ids"),
      instanceProfile: z
        .string()
        .regex(/^[A-Za-z0-9+=,.@_-]{1,128}$/)
        .optional()
        .describe("IAM instance profile name"),
      rootVolumeGiB: z.number().int().min(8).max(16384).default(30).describe("Root volume size"),
      taints: z
        .array(TaintSchema)
        .default([])
        .describe("Taints registered with the node and advertised to Cluster Autoscaler"),
      labels: z
        .record(
          z.string().regex(LABEL_KEY, { message: "expected a Kubernetes label key" }),
          z.string().max(63).regex(LABEL_VALUE, { message: "expected a Kubernetes label value" }),
        )
        .default({})
        .describe("Node labels"),
      resources: z
        .record(
          z.string().regex(LABEL_KEY, { message: "expected an extended resource name such as github.com/fuse" }),
          z.string().regex(QUANTITY, { message: "expected a quantity such as 1 or 500m" }),
        )
        .default({})
        .describe("Extended resources a node of this pool offers, for scale-from-zero"),
      imds: ImdsSchema.prefault({}),
    })
    .describe("An EC2 Auto Scaling Group of burst workers");

  const CloudSchema = z
    .strictObject({
      aws: z
        .strictObject({
          region: z
            .string()
            .regex(/^[a-z]{2}(-[a-z]+)+-\d$/, { message: "expected an AWS region such as eu-central-1" })
            .describe("AWS region"),
          vpcCidr: networkCidr().describe("CIDR of the VPC the pools run in"),
          providerVersion: z
            .string()
            .regex(/^[~>=<!, 0-9.]+$/)
            .default("~> 6.0")
            .describe("hashicorp/aws version constraint"),
        })
        .describe("AWS account settings"),
      provisioner: z
        .strictObject({
          url: z
            .url({
              protocol: /^https$/,
              message: "the provisioner URL must be https:// (SNS delivers only to HTTPS here)",
            })
            // curl reads {} and [] as globs; quotes, '$' and '\' have no place in a URL handed to a shell script
            .refine((u) => !/[\s"'`$\\{}[\]]/.test(u), {
              message: "the provisioner URL may not contain quotes, spaces, '$', '\\', braces or brackets",
              abort: true,
            })
            .refine(urlHostOk, {
              message:
                "the provisioner URL's host must be a DNS name (letters, digits and '-' in dot-separated labels) or an IP address, with an optional :port and no user:password@",
            })
            .describe("Base URL of the provisioner service"),
          ...ProvisionerFields,
        })
        .describe("The service that hands out per-instance WireGuard configs and kubeadm discovery kubeconfigs"),
      wireguard: z
        .strictObject({
          tunnelSubnet: networkCidr().describe("Addresses of the WireGuard tunnel"),
          interface: InterfaceNameSchema.default("wg0").describe("wg-quick interface name"),
          hub: ipAddress()
            .optional()
            .describe(
              "On-prem WireGuard endpoint on the Kubernetes segment: the other on-prem nodes route the tunnel subnet through it",
            ),
          underlayMtu: z
            .number()
            .int()
            .min(1280)
            .max(9001)
            .default(1500)
            .describe("MTU of the network the tunnel runs over"),
          ...WireguardHubFields,
        })
        .describe("WireGuard tunnel between on-prem and burst nodes"),
      pools: z.array(PoolSchema).min(1).describe("Node pools"),
    })
    .describe("Cloud burst into AWS");

  const ExistingClusterSchema = z
    .strictObject({
      endpoint: hostPort().describe("API server endpoint the burst nodes join (host:port, IP or DNS name)"),
      caCertHash: SecretRefSchema.describe("discovery CA certificate hash (sha256:<64 hex>) of the cluster"),
      kubernetesVersion: kubernetesVersion().describe(
        "Kubernetes version the cluster runs, e.g. v1.34.2 (1.22 and newer)",
      ),
      podSubnet: networkCidr().describe("The cluster's pod network"),
      serviceSubnet: networkCidr().default("10.96.0.0/12").describe("The cluster's service network"),
      dnsDomain: clusterDnsDomain(),
      cgroupDriver: z
        .enum(["cgroupfs", "systemd"])
        .default("systemd")
        .describe("The cgroup driver of the cluster's KubeletConfiguration; cri-o on the burst nodes follows it"),
      onPremNetworks: z
        .array(networkCidr())
        .min(1)
        .describe("On-prem networks the burst nodes reach through the tunnel (nodes, API endpoint, hub)"),
      nameservers: z.array(ipAddress()).min(1).describe("DNS servers of the burst nodes after tunnel-up (at most 2)"),
      searchDomains: searchDomains("DNS search domains of the burst nodes (at most 6)"),
    })
    .describe("A cluster that exists already, managed by other means: only its cloud burst is generated");
  return { CloudSchema, ExistingClusterSchema };
}

let cloudSchemas: ReturnType<typeof buildCloudSchemas> | undefined;
const builtCloudSchemas = () => (cloudSchemas ??= buildCloudSchemas());
/** Whether this process has built the cloud sections' schemas (tests: a spec without cloud never does). */
export const cloudSchemasBuilt = (): boolean => cloudSchemas !== undefined;
const CloudSchema = z.lazy(() => builtCloudSchemas().CloudSchema);
const ExistingClusterSchema = z.lazy(() => builtCloudSchemas().ExistingClusterSchema);

// ---- root ----

/** The fields of a cluster spec before `cloud`, in the order the JSON Schema lists them. */
const onPremFields = {
  apiVersion: z.literal("clusterspec/v1alpha1").describe("Spec format version"),
  kind: z.literal("Cluster").describe("Always Cluster"),
  name: rfc1123Label("cluster name").describe("Cluster name (kubeadm clusterName, AWS resource names)"),
  kubernetes: KubernetesSchema,
  network: NetworkSchema,
  controlPlane: ControlPlaneSchema,
  vrrp: VrrpSchema.prefault({}),
  externalVips: ExternalVipsSchema.optional(),
  nodes: z
    .array(NodeSchema)
    .min(1)
    .max(MAX_NODES, {
      error: (iss) =>
        `at most ${MAX_NODES.toLocaleString("en-US")} nodes, got ${(iss.input as unknown[]).length.toLocaleString("en-US")}: every node's host file lists every node, so the output grows with the square of the node count (1,000 nodes: about 100 MB); split a larger fleet into several clusters`,
    })
    .describe(`Bare-metal servers (at most ${MAX_NODES})`),
  host: HostSchema.prefault({}),
  cilium: CiliumSchema,
};
const CLUSTER_SPEC = "clusterspec cluster: one spec, every config file";

export const ClusterSpecSchema = z
  .strictObject({ ...onPremFields, cloud: CloudSchema.optional(), overlays: OverlaysSchema })
  .describe(CLUSTER_SPEC);

/** ClusterSpecSchema without `cloud`: the same parse for a spec that has none, without building the cloud schemas. */
export const OnPremSpecSchema = z.strictObject({ ...onPremFields, overlays: OverlaysSchema }).describe(CLUSTER_SPEC);

/** Sections that describe a cluster to generate; a spec with existingCluster has none of them. */
export const ON_PREM_SECTIONS = ["nodes", "controlPlane", "network", "vrrp", "externalVips", "cilium", "host"] as const;

export const CloudBurstSpecSchema = z
  .strictObject({
    apiVersion: z.literal("clusterspec/v1alpha1").describe("Spec format version"),
    kind: z.literal("Cluster").describe("Always Cluster"),
    name: rfc1123Label("cluster name").describe("Cluster name (AWS resource names, node labels)"),
    existingCluster: ExistingClusterSchema,
    cloud: CloudSchema,
  })
  .describe("clusterspec cloud burst for an existing cluster: cloud/** and PLAN.md only");

/** What `clusterspec schema` describes: a cluster to generate, or the cloud burst of an existing one. */
export const AnySpecSchema = z.union([ClusterSpecSchema, CloudBurstSpecSchema]);

export const isCloudBurstSpec = (spec: AnySpec): spec is CloudBurstSpec => "existingCluster" in spec;

// The spec's types are plain interfaces rendered from this schema (and proven equal to z.input/z.output
// by test/spec-types.test.ts): declaration files then never reach into zod's types.
export type {
  AnySpec,
  CloudBurstSpec,
  CloudBurstSpecInput,
  CloudSpec,
  ClusterSpec,
  ClusterSpecInput,
  InterfaceSpec,
  NodeSpec,
  PoolSpec,
  SecretRef,
  SegmentSpec,
} from "./types.js";

import type { AnySpec, CloudBurstSpec } from "./types.js";
