// The cloud section: burst pools in an AWS Auto Scaling Group, the WireGuard tunnel to them and the provisioner that
// hands out their configs. Rules: ./rules.ts; the existingCluster section of a cloud-only spec: ../cloud-burst/.
import * as z from "zod";
import { isIp } from "../../../ip.js";
import { hostPort, InterfaceNameSchema, ipAddress, networkCidr, SecretRefSchema } from "../../fields.js";
import {
  isDnsName,
  LABEL_KEY,
  LabelValueSchema,
  PatternedLabelKeySchema,
  rfc1123Label,
  taintFields,
} from "../../kubernetes-names.js";

const QUANTITY = /^[0-9]+(\.[0-9]+)?(m|k|Ki|Mi|Gi|Ti|Pi|Ei|M|G|T|P|E)?$/;

// ---- hardening, the hub's WireGuard keys, the provisioner contract ----

// 32 bytes in base64: 43 characters whose last carries 4 bits, then one '='.
export const WIREGUARD_KEY = /^[A-Za-z0-9+/]{42}[AEIMQUYcgkosw048]=$/;

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
function buildCloudSchema() {
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

  const TaintSchema = z.strictObject(taintFields({ key: "Taint key", value: "Taint value" }, PatternedLabelKeySchema));

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
      dataVolume: z
        .strictObject({
          sizeGiB: z
            .number()
            .int()
            .min(8)
            .max(16384)
            .describe("Size of the second EBS volume (gp3, encrypted): half for the kubelet, half for cri-o"),
          filesystem: z
            .enum(["xfs", "ext4"])
            .default("xfs")
            .describe(
              "Filesystem of its two partitions (the kubelet measures either, unlike Fedora Cloud's btrfs root)",
            ),
        })
        .optional()
        .describe(
          "A second EBS volume for /var/lib/kubelet and /var/lib/containers: local storage capacity isolation stays on and scale from zero promises its ephemeral storage",
        ),
      taints: z
        .array(TaintSchema)
        .default([])
        .describe("Taints registered with the node and advertised to Cluster Autoscaler"),
      labels: z.record(PatternedLabelKeySchema, LabelValueSchema).default({}).describe("Node labels"),
      resources: z
        .record(
          z.string().regex(LABEL_KEY, { message: "expected an extended resource name such as github.com/fuse" }),
          z.string().regex(QUANTITY, { message: "expected a quantity such as 1 or 500m" }),
        )
        .default({})
        .describe("Extended resources a node of this pool offers, for scale-from-zero"),
      imds: ImdsSchema.prefault({}),
      ipv6: z
        .enum(["off", "dual-stack", "only"])
        .default("off")
        .describe(
          "dual-stack: each instance gets an IPv6 address from its subnets (which need an IPv6 CIDR: terraform plan checks) and IMDS answers on IPv6 where the instance type is Nitro; the VPC's egress-only internet gateway and ::/0 route are yours (PLAN.md). only: IPv6-only subnets (ipv6_native, with DNS64: terraform plan checks) and instances without any IPv4 address (Nitro types only), which reach IMDS, the provisioner and the hub over IPv6; the tunnel still carries the cluster's families",
        ),
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
          tunnelSubnet6: networkCidr()
            .optional()
            .describe(
              "IPv6 addresses of the WireGuard tunnel beside an IPv4 tunnelSubnet: required when the cluster runs IPv6 (dual stack or IPv6 only), so that each burst node registers an address of every cluster family",
            ),
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
  return CloudSchema;
}

let cloudSchema: ReturnType<typeof buildCloudSchema> | undefined;
/** Whether this process has built the cloud section's schema. */
export const cloudSchemaBuilt = (): boolean => cloudSchema !== undefined;
export const CloudSchema = z.lazy(() => (cloudSchema ??= buildCloudSchema()));
