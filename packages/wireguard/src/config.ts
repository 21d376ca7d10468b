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

/** The hub's config: [Interface] and one [Peer] per burst slot, each allowed exactly its slot address. */
export function hubConfig(plan: BurstPlan, cloud: CloudPlan): string | undefined {
  const hub = cloud.hub;
  if (!hub?.privateKey) return undefined;
  const iface: IniSection = {
    name: "Interface",
    comments: [
      `WireGuard hub of cluster ${plan.name}: ${cloud.slots.length} burst slots in ${cloud.wireguard.tunnelSubnet}`,
    ],
    values: {
      Address: hub.tunnelCidr,
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
