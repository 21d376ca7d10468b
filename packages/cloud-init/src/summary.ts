// The PLAN.md sections: what burst nodes do when they boot, their packages and user-data size, and the provisioner contract.
import {
  type Artifact,
  AUTOSCALER_TIMINGS,
  type BurstPlan,
  type CloudPlan,
  mdTable,
  WIREGUARD_OVERHEAD,
} from "@clusterspec/core";
import { bootstrapTokenTtlSeconds, CONTRACT_PATH } from "./contract.js";
import {
  BOOTSTRAP_TOKEN_MIN_TTL_SECONDS,
  IDENTITY_HEADERS,
  JOIN_BOUNDS,
  PROVISIONER_RETRY,
  REQUIRED_BINARIES,
  RETRIED_STATUSES,
  TEMPLATE_LABELS,
  WG_ALLOWED_KEYS,
} from "./join-script.js";
import { shippedUserData, USER_DATA_LIMIT } from "./limit.js";
import { NODE_VERBS, PROVISIONER_SERVICE_ACCOUNT, RBAC_PATH } from "./rbac.js";

/** `artifacts`: those that ship, so the user-data sizes are those of the files written (after overlays). */
export function summarizeCloudInit(plan: BurstPlan, artifacts: readonly Artifact[]): string | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const byPath = new Map(artifacts.map((a) => [a.path, a]));
  const rows = cloud.pools.map((pool) => {
    const u = shippedUserData(pool, byPath);
    return [
      pool.name,
      `${u.bytes} of ${USER_DATA_LIMIT} bytes`,
      u.gzipBytes === undefined ? "no" : `yes, ${u.gzipBytes} bytes (user-data.gz.b64)`,
    ];
  });
  return [
    "## Cloud user data",
    "",
    `Burst nodes boot Fedora with cloud-init, fetch their WireGuard config and kubeadm discovery kubeconfig from ${cloud.provisioner.url} (\`/wireguard/config/<instance-id>\`, \`/kubeadm/kubeconfig/<instance-id>\`, each request signed with the instance identity document from IMDSv2), bring up \`${cloud.wireguard.interface}\` (tunnel ${cloud.wireguard.tunnelSubnet}${cloud.wireguard.tunnelSubnet6 === undefined ? "" : ` and ${cloud.wireguard.tunnelSubnet6}`}, MTU ${cloud.tunnelMtu}) and join ${cloud.apiServerEndpoint} as a Node named by their instance id, with \`node-ip\` = ${cloud.nodeIpFamilies.length > 1 ? `their tunnel addresses of both families (IPv${cloud.nodeIpFamilies.join(" then IPv")})` : "their tunnel address"} and \`provider-id\` = \`aws:///<az>/<instance-id>\`. No per-instance secret is in the user data.`,
    "",
    tunnelMtuText(cloud),
    "",
    `The served WireGuard config may set only ${WG_ALLOWED_KEYS.Interface.join(", ")} in [Interface] and ${WG_ALLOWED_KEYS.Peer.join(", ")} in [Peer] (keys compared without case, as \`wg setconf\` reads them): wg-quick runs \`PreUp\`, \`PostUp\`, \`PreDown\` and \`PostDown\` as root and \`Table\`/\`SaveConfig\` change the host, so a config with any other key or section is refused and the join fails. The served discovery kubeconfig must carry exactly one \`certificate-authority-data\` whose public key hashes (sha256 of the DER SubjectPublicKeyInfo, with openssl) to the cluster's \`caCertHash\`; otherwise the join fails before \`kubeadm join\`, which would trust whatever CA the file names.`,
    "",
    `Node labels at join, from IMDS: ${Object.keys(TEMPLATE_LABELS)
      .map((k) => `\`${k}\``)
      .join(
        ", ",
      )}, as Cluster Autoscaler's scale-from-zero template node has them (no cloud controller sets them on these nodes; NodeRestriction lets the kubelet set them), besides the pool's labels.`,
    "",
    `Bounds of a boot: every retry of the join script stops at ${JOIN_BOUNDS.deadlineSeconds} s of uptime (cloud-init's package install counts), ${JOIN_BOUNDS.marginSeconds} s before Cluster Autoscaler's max-node-provision-time of ${AUTOSCALER_TIMINGS.maxNodeProvisionSeconds} s. A failed join leaves the instance running, unjoined (it never powers off: the group would replace it at once and the failure would repeat forever); Cluster Autoscaler deletes it at ${AUTOSCALER_TIMINGS.maxNodeProvisionSeconds / 60} minutes and backs the group off (Cluster Autoscaler section). **Bootstrap tokens** for burst nodes must live at least ${BOOTSTRAP_TOKEN_MIN_TTL_SECONDS / 60} minutes (${BOOTSTRAP_TOKEN_MIN_TTL_SECONDS} s): the deadline plus ${JOIN_BOUNDS.marginSeconds} s for clock skew; a longer TTL buys nothing, since an instance not registered by then is deleted.`,
    "",
    `Resolvers after tunnel-up: only ${cloud.nameservers.join(", ")} (at most 2, because glibc reads 3 and the kubelet adds the cluster DNS). \`DNS=\` lines of the served WireGuard config are dropped, the AWS resolver is removed, and the join stops if any other nameserver remains.`,
    "",
    `> **Warning:** with the AWS resolver (the VPC's +2 address, 169.254.169.253${cloud.pools.some((p) => p.ipv6 === "only") ? "; fd00:ec2::253 on the IPv6-only pools' instances" : ""}) the VPC's private DNS goes too: Route 53 private hosted zones, the private names of interface VPC endpoints (e.g. ECR's or S3's endpoints in ${cloud.aws.vpcCidr}) and \`*.${cloud.aws.region}.compute.internal\` stop resolving on burst nodes; their public names still resolve through ${cloud.nameservers.join(", ")}. Where pods need such names, forward those zones from the on-prem nameservers to a Route 53 Resolver inbound endpoint of the VPC (split DNS), or use the endpoints' public names.\n`,
    mdTable(["pool", "user data", "gzipped"], rows),
    "",
    `Packages installed on every burst node (Fedora's \`kubernetes${plan.kubernetes.version.major}.${plan.kubernetes.version.minor}\` streams pin the minor; Fedora's updates repository offers only the newest patch of a stream, so the exact ${plan.kubernetes.versionText} is not pinned: the join script installs again with retries, checks ${REQUIRED_BINARIES.map((b) => `\`${b}\``).join(", ")}, accepts a newer patch of ${plan.kubernetes.version.major}.${plan.kubernetes.version.minor} (kubeadm's preflight compares minors) and stops the join on any other minor). The kubelet uses the systemd cgroup driver with cri-o, and local storage isolation is off on Fedora Cloud's btrfs root (on, for pools with a \`dataVolume\`, whose partitions hold /var/lib/kubelet and /var/lib/containers), through the kubeadm patch \`/etc/clusterspec/kubeadm-patches/kubeletconfiguration+strategic.yaml\` (kubelet flags below 1.25):`,
    "",
    mdTable(
      ["package", "why"],
      cloud.packages.map((p) => [p.name, p.reason]),
    ),
    "",
    summarizeContract(cloud),
  ].join("\n");
}

/** The tunnel MTU and its arithmetic: 80 bytes of outer headers unless the hub's endpoint is an IPv4 literal. */
function tunnelMtuText(cloud: CloudPlan): string {
  const only = cloud.pools.filter((p) => p.ipv6 === "only").map((p) => p.name);
  const why =
    cloud.tunnelOverhead === WIREGUARD_OVERHEAD
      ? "the hub's endpoint is an IPv4 literal, so the outer header is IPv4 (20) + UDP (8) + WireGuard (32)"
      : only.length > 0
        ? `pool${only.length > 1 ? "s" : ""} ${only.join(", ")} ${only.length > 1 ? "are" : "is"} IPv6-only (\`ipv6: only\`), so the path is IPv6: outer IPv6 (40) + UDP (8) + WireGuard (32)`
        : `the hub's endpoint ${cloud.hub?.endpoint === undefined ? "is not in the spec" : "is not an IPv4 literal"}, so the path may be IPv6: outer IPv6 (40) + UDP (8) + WireGuard (32), as wg-quick assumes; give an IPv4 literal to get ${cloud.wireguard.underlayMtu - WIREGUARD_OVERHEAD}`;
  return `Tunnel MTU ${cloud.tunnelMtu} = underlay ${cloud.wireguard.underlayMtu} − ${cloud.tunnelOverhead}: ${why}. The join script writes it into the wg-quick config whatever the provisioner serves.`;
}

function summarizeContract(cloud: CloudPlan): string {
  const s = cloud.peerSecret;
  const keys =
    cloud.peerKeys === "static"
      ? "static keys from `cloud.wireguard.peerKeys`; the hub lists their peers and the provisioner adds or removes each with `wg set` as instances come and go"
      : "minted by the provisioner for each instance and added to the hub with `wg set`";
  return [
    "## Provisioner contract",
    "",
    `\`${CONTRACT_PATH}\` (OpenAPI 3.1) is what the provisioner at ${cloud.provisioner.url} must implement:`,
    "",
    `- \`GET /wireguard/config/{instanceId}\` and \`GET /kubeadm/kubeconfig/{instanceId}\`: 200 with the instance's wg-quick config or discovery kubeconfig, each served once; 403 when the identity does not verify, the request does not come from the instance's address, or the answer was served already (not retried); 404 before the instance's \`running\` event is handled and after it terminated; ${RETRIED_STATUSES.join(", ")} and no answer are retried, ${PROVISIONER_RETRY.attempts} attempts ${PROVISIONER_RETRY.delaySeconds} s apart.`,
    `- Every request carries \`${IDENTITY_HEADERS.document}\` (the IMDSv2 instance identity document, base64) and \`${IDENTITY_HEADERS.signature}\` (its PKCS7 signature); the provisioner verifies them against AWS's published certificate of ${cloud.aws.region}, pinned in the provisioner (\`openssl smime -verify … -nointern\`: never a certificate the request carries), and the instance id in the path.`,
    `- \`POST ${cloud.provisioner.notifyPath}\`: SNS messages (SignatureVersion 2, verified); the provisioner confirms the subscription and, per instance, on \`running\` assigns a WireGuard peer slot, on \`terminated\` revokes its bootstrap token (minted when the kubeconfig is served, TTL ${bootstrapTokenTtlSeconds()} s) and frees the slot; it reconciles on start and periodically, so lost events are repaired. \`@clusterspec/provisioner\` (\`clusterspec-provisioner\`) implements this contract.`,
    `- Nodes: a burst node registers under its EC2 instance id (\`nodeRegistration.name\`), never its recyclable host name. **The provisioner removes nodes**: on \`terminated\` it deletes the instance's Node (after checking its providerID), as ServiceAccount ${cloud.provisioner.namespace}/${PROVISIONER_SERVICE_ACCOUNT} with the ClusterRole of \`${RBAC_PATH}\` (${NODE_VERBS.join(", ")} on nodes; an admission policy limits its deletes to providerID \`aws:///…\`). No cloud controller manager runs, so without it a terminated instance's Node would stay, with its taints and providerID.`,
    `- Peer configs live in Secrets of type \`${s.type}\` in namespace ${s.namespace}, data key \`${s.dataKey}\`, labelled \`${s.labels.cluster}\`, \`${s.labels.pool}\`, \`${s.labels.slot}\` and, while an instance holds the slot, \`${s.labels.instanceId}\`. Keys: ${keys}.`,
    "",
    `Peer-slot budget: a pool needs at least one slot per instance that holds one at a time, i.e. \`maxSize\` plus the instances still terminating (an instance keeps its slot until its \`terminated\` event is handled, while Auto Scaling may already run its replacement). The plan gives each pool exactly \`maxSize\` slots (${cloud.pools.map((p) => `${p.name}: ${p.slots.length}`).join(", ")}), so a replacement that starts while its predecessor terminates finds no free slot and gets 404 until the \`terminated\` event frees one; the join script waits ${PROVISIONER_RETRY.attempts * PROVISIONER_RETRY.delaySeconds} s for that. Slots go only to instances of the pools' groups (the contract), so unrelated instances never take one.`,
    "",
    mdTable(
      ["slot", "tunnel address", "Secret"],
      cloud.slots.map((slot) => [slot.id, slot.cidr, `${s.namespace}/${slot.secretName}`]),
    ),
  ].join("\n");
}
