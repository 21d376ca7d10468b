// The on-prem hub's wg-quick config and, with static peer keys, each burst slot's client config as the
// Kubernetes Secret the provisioner serves it from (the contract's layout).
import {
  type Artifact,
  type BurstGeneratorModule,
  type BurstPlan,
  type CloudPlan,
  generatedMarker,
  mdTable,
  type PlannedSlot,
  toYamlDocuments,
} from "@clusterspec/core";
import { type IniSection, renderWireguardConfig } from "./ini-file.js";

/** The Secrets of the slots' client configs (static peer keys only). */
export const PEER_SECRETS_PATH = "cloud/provisioner/peer-secrets.yaml";

/** Keeps NAT mappings and stateful firewalls open from the burst side. */
export const PERSISTENT_KEEPALIVE = 25;

/** The hub's config: [Interface] and one [Peer] per burst slot, each allowed exactly its slot address. */
export function hubConfig(plan: BurstPlan, cloud: CloudPlan): string | undefined {
  const hub = cloud.hub;
  if (!hub?.privateKey) return undefined;
  const iface: IniSection = {
    name: "Interface",
    comments: [
      `WireGuard hub of cluster ${plan.name}: ${cloud.slots.length} burst slots in ${cloud.wireguard.tunnelSubnet}`,
    ],
    values: { Address: hub.tunnelCidr, ListenPort: hub.listenPort, MTU: cloud.tunnelMtu, PrivateKey: hub.privateKey },
  };
  const wg = cloud.wireguard.interface;
  if (cloud.peerKeys === "static") {
    const peers = cloud.slots.map(
      (slot): IniSection => ({
        name: "Peer",
        comments: [`slot ${slot.id}`],
        values: { PublicKey: slot.publicKey ?? "", AllowedIPs: slot.cidr },
      }),
    );
    return renderWireguardConfig(generatedMarker(plan), [iface, ...peers]);
  }
  const closing = [
    "The provisioner adds each burst slot's peer when an instance takes the slot, and removes it on termination:",
    ...cloud.slots.map((slot) => `slot ${slot.id}: wg set ${wg} peer <public key> allowed-ips ${slot.cidr}`),
  ];
  return renderWireguardConfig(generatedMarker(plan), [iface], closing);
}

/** A burst slot's wg-quick config, as the provisioner serves it. */
export function clientConfig(plan: BurstPlan, cloud: CloudPlan, slot: PlannedSlot): string {
  const hub = cloud.hub;
  return renderWireguardConfig(generatedMarker(plan), [
    {
      name: "Interface",
      comments: [`burst slot ${slot.id} of cluster ${plan.name}`],
      values: { PrivateKey: slot.privateKey ?? "", Address: slot.cidr, MTU: cloud.tunnelMtu },
    },
    {
      name: "Peer",
      values: {
        PublicKey: hub?.publicKey ?? "",
        Endpoint: hub?.endpoint ?? "",
        AllowedIPs: cloud.routedNetworks.join(", "),
        PersistentKeepalive: PERSISTENT_KEEPALIVE,
      },
    },
  ]);
}

/** One Secret per slot, in the namespace, type, data key and labels of the contract. */
export function peerSecrets(plan: BurstPlan, cloud: CloudPlan): Record<string, unknown>[] {
  const s = cloud.peerSecret;
  return cloud.slots.map((slot) => ({
    apiVersion: "v1",
    kind: "Secret",
    metadata: {
      name: slot.secretName,
      namespace: s.namespace,
      labels: { [s.labels.cluster]: plan.name, [s.labels.pool]: slot.pool, [s.labels.slot]: String(slot.index) },
    },
    type: s.type,
    stringData: { [s.dataKey]: clientConfig(plan, cloud, slot) },
  }));
}

export function generateWireguard(plan: BurstPlan): Artifact[] {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub?.configPath) return [];
  const out: Artifact[] = [];
  const conf = hubConfig(plan, cloud);
  if (conf !== undefined) out.push({ path: hub.configPath, content: conf, secret: true });
  if (cloud.peerKeys === "static")
    out.push({
      path: PEER_SECRETS_PATH,
      content: `# ${generatedMarker(plan)}\n${toYamlDocuments(peerSecrets(plan, cloud))}`,
      secret: true,
    });
  return out;
}

export function summarizeWireguard(plan: BurstPlan): string | undefined {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub) return undefined;
  const where = hub.configPath
    ? `\`${hub.configPath}\` (0600)${hub.node === undefined ? "" : `, on node ${hub.node}`}`
    : "not written: reference the hub's key in `cloud.wireguard.privateKey` to generate it";
  const keys =
    cloud.peerKeys === "static"
      ? `Burst slots have static keys: the hub lists one [Peer] per slot (AllowedIPs exactly the slot's address) and \`${PEER_SECRETS_PATH}\` holds each slot's client config as the provisioner's Secret.`
      : "The provisioner mints each instance's keys and adds its peer to the hub with `wg set`; the hub's config lists the slots as comments.";
  return [
    "## WireGuard hub",
    "",
    `Hub ${hub.address}: tunnel address ${hub.tunnelCidr}, UDP ${hub.listenPort}${hub.endpoint ? `, reached by the burst nodes at ${hub.endpoint}` : ""}. Its config: ${where}. ${keys} Burst nodes route ${cloud.routedNetworks.join(", ")} through the tunnel. Slots take the tunnel addresses after the hub's, in pool order: appending a pool keeps every address, while growing an earlier pool's maxSize moves the later pools' slots (and their keys' lines).`,
    "",
    mdTable(
      ["slot", "address", "keys"],
      cloud.slots.map((s) => [
        s.id,
        s.cidr,
        cloud.peerKeys === "static" ? "static (peerKeys)" : "minted by the provisioner",
      ]),
    ),
  ].join("\n");
}

export const wireguardModule: BurstGeneratorModule = {
  name: "wireguard",
  burst: true,
  generate: generateWireguard,
  summarize: summarizeWireguard,
};
