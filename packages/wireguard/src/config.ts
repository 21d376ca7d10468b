// The on-prem hub's wg-quick config and, with static peer keys, each burst slot's client config as the
// Kubernetes Secret the provisioner serves it from (the contract's layout).
import {
  type BurstPlan,
  type CloudPlan,
  generatedMarker,
  HUB_FIREWALL_FILE,
  type PlannedSlot,
} from "@clusterspec/core";
import { type IniSection, renderWireguardConfig } from "./ini-file.js";

/** The Secrets of the slots' client configs (static peer keys only). */
export const PEER_SECRETS_PATH = "cloud/provisioner/peer-secrets.yaml";

/** Keeps NAT mappings and stateful firewalls open from the burst side. */
export const PERSISTENT_KEEPALIVE = 25;

/** The tunnel's networks: tunnelSubnet, then tunnelSubnet6 (dual stack). */
export const tunnelSubnets = (cloud: CloudPlan): readonly string[] =>
  cloud.wireguard.tunnelSubnet6 === undefined
    ? [cloud.wireguard.tunnelSubnet]
    : [cloud.wireguard.tunnelSubnet, cloud.wireguard.tunnelSubnet6];

/** A slot's tunnel addresses, each exactly the slot (/32, /128): what the hub's peer for it allows. */
export const slotCidrs = (slot: PlannedSlot): readonly string[] =>
  slot.cidr6 === undefined ? [slot.cidr] : [slot.cidr, slot.cidr6];

/** The hub's config: [Interface] and one [Peer] per burst slot, each allowed exactly its slot address. */
export function hubConfig(plan: BurstPlan, cloud: CloudPlan): string | undefined {
  const hub = cloud.hub;
  if (!hub?.privateKey) return undefined;
  const iface: IniSection = {
    name: "Interface",
    comments: [
      `WireGuard hub of cluster ${plan.name}: ${cloud.slots.length} burst slots in ${tunnelSubnets(cloud).join(" and ")}`,
    ],
    values: {
      // both families' tunnel addresses (wg-quick adds each: `ip -4|-6 address add`)
      Address: [hub.tunnelCidr, ...(hub.tunnelCidr6 === undefined ? [] : [hub.tunnelCidr6])].join(", "),
      ListenPort: hub.listenPort,
      MTU: cloud.tunnelMtu,
      PrivateKey: hub.privateKey,
      // the forward filter of the tunnel (host package), in place before the interface carries a packet
      PreUp: `nft -f /${HUB_FIREWALL_FILE}`,
    },
  };
  const wg = cloud.wireguard.interface;
  if (cloud.peerKeys === "static") {
    const peers = cloud.slots.map(
      (slot): IniSection => ({
        name: "Peer",
        comments: [`slot ${slot.id}`],
        values: { PublicKey: slot.publicKey ?? "", AllowedIPs: slotCidrs(slot).join(", ") },
      }),
    );
    return renderWireguardConfig(generatedMarker(plan), [iface, ...peers]);
  }
  const closing = [
    "The provisioner adds each burst slot's peer when an instance takes the slot, and removes it on termination:",
    ...cloud.slots.map(
      (slot) => `slot ${slot.id}: wg set ${wg} peer <public key> allowed-ips ${slotCidrs(slot).join(",")}`,
    ),
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
      values: { PrivateKey: slot.privateKey ?? "", Address: slotCidrs(slot).join(", "), MTU: cloud.tunnelMtu },
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
