// The control-plane endpoint and the keepalived sections around it: controlPlane (the API server VIP), vrrp (settings
// common to every VIP, the health and readiness checks) and externalVips (the pool). Rules: ./rules.ts.
import * as z from "zod";
import { cidr, InterfaceNameSchema, ipAddress, SecretRefSchema } from "../../fields.js";
import { dnsName, rfc1123Label } from "../../kubernetes-names.js";

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

/** 255 belongs to the address owner (RFC 5798 §5.1); a shared VIP has no owner, so 254 at most. */
export const MAX_BASE_PRIORITY = 254;

const DnsNameSchema = dnsName().describe(
  "DNS name of the API endpoint: controlPlaneEndpoint, certSANs and every node's /etc/hosts (to the VIP)",
);

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
      .describe(
        "Priority change on failure; 0 puts the instance in FAULT; default -253: a failing node runs at priority 1 (keepalived's floor), below every healthy one whatever the node count",
      ),
  })
  .describe(
    "vrrp_script checking the local kube-apiserver /readyz (keepalived runs it at start; a timeout below 3 × advertInterval ends the first run before a restarted node could take the VIP)",
  );

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
        "Priority change on failure; 0 puts the instance in FAULT; default -253: a failing carrier runs at priority 1 (keepalived's floor), below every healthy one whatever the node count",
      ),
  })
  .describe(
    "vrrp_script on the external VIP instances: the node serves external traffic only once Cilium answers http://127.0.0.1:<healthPort>/healthz (keepalived runs it at start; a timeout below 3 × advertInterval ends the first run before a restarted node could take a VIP)",
  );

const NotifySchema = z
  .strictObject({
    master: notifyScript().optional().describe("Script run when this node becomes master of a VIP"),
    backup: notifyScript().optional().describe("Script run when this node becomes backup"),
    fault: notifyScript().optional().describe("Script run when an instance enters FAULT"),
  })
  .describe("Scripts keepalived runs on state changes");

export const VrrpSchema = z
  .strictObject({
    auth: z
      .strictObject({
        type: z
          .enum(["AH", "PASS"])
          .describe(
            "VRRP authentication type; AH also writes vrrp_lower_prio_no_advert, so a healed split ends at the higher master's next advert (PLAN.md, partition)",
          ),
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
        "preempt_delay in seconds of the external VIPs' instances: a carrier waits this long after seeing a lower-priority master before it takes a VIP from it (needs BACKUP, not with nopreempt); default 120, 0 with nopreempt or initial state MASTER. The control-plane VIP never waits (its failover must beat the node-monitor grace period; the apiserver check's first run at start guards it)",
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
        "Track the uplink gateway (ping) on every external VIP instance, so external VIPs leave a node that cannot route their replies; it takes the readiness check's interval, timeout, fall, rise and weight (vrrp.readinessCheck.weight 0: FAULT, which also takes an isolated node off its external VIPs on a partition that cuts it from the gateway)",
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

/** An explicit VRRP router id (1..255); without one, a VIP's VRID is the last 8 bits of its address. */
const vridField = (description: string) => z.number().int().min(1).max(255).optional().describe(description);

export const ControlPlaneSchema = z
  .strictObject({
    vip: cidr().describe("Control-plane virtual IP with prefix, e.g. 10.118.12.100/24"),
    vip6: cidr()
      .optional()
      .describe(
        "The IPv6 control-plane VIP beside an IPv4 vip (a dual-stack pair), e.g. fd00:118:12::100/64: its own VRRPv3 instance with the same VRID and priority order, kept with the IPv4 one by a vrrp_sync_group",
      ),
    port: z.number().int().min(1).max(65535).default(6443).describe("API server port"),
    interface: InterfaceNameSchema.optional().describe("Interface carrying the VIP; default the Kubernetes segment's"),
    vrid: vridField("VRRP router id; default the last 8 bits of the VIP's address (10.118.12.100/24: 100)"),
    dnsName: DnsNameSchema.optional(),
    initNode: rfc1123Label("node name")
      .optional()
      .describe(
        "The control-plane node that runs `kubeadm init` while the cluster is not bootstrapped; default the first control-plane node in nodes",
      ),
    bootstrapped: z
      .boolean()
      .default(false)
      .describe(
        "Set true once `kubeadm init` has succeeded: from then on every node's kubeadm.yaml is a JoinConfiguration, so a rebuilt or re-added init node joins instead of starting a second cluster",
      ),
  })
  .describe("The API server endpoint held by keepalived, and how the cluster is bootstrapped");

const ExternalVipEntry = z.union([
  ipAddress(),
  z.strictObject({
    address: ipAddress().describe("External address (a /32 or /128 VIP)"),
    address6: ipAddress()
      .optional()
      .describe(
        "The IPv6 address beside an IPv4 address (a dual-stack pair): its own VRRPv3 instance with the same VRID and carriers, kept with the IPv4 one by a vrrp_sync_group",
      ),
    vrid: vridField(
      "VRRP router id; default the last 8 bits of the address (10.118.11.20: 20); a dual-stack pair's two instances share it",
    ),
  }),
]);

/** One VRID per external VIP, and VRIDs are 1-255. */
export const MAX_EXTERNAL_VIPS = 255;

export const ExternalVipsSchema = z
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
