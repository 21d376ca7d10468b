// The PLAN.md section: the hub, its slots and where their keys come from.
import { type BurstPlan, mdTable } from "@clusterspec/core";
import { PEER_SECRETS_PATH } from "./config.js";

export function summarizeWireguard(plan: BurstPlan): string | undefined {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub) return undefined;
  const where = hub.configPath
    ? `\`${hub.configPath}\` (0600)${hub.node === undefined ? "" : `, on node ${hub.node}`}`
    : "not written: reference the hub's key in `cloud.wireguard.privateKey` to generate it";
  const keys =
    cloud.peerKeys === "static"
      ? `Burst slots have static keys: the hub lists one [Peer] per slot (AllowedIPs exactly the slot's address${cloud.wireguard.tunnelSubnet6 === undefined ? "" : "es, one per family"}) and \`${PEER_SECRETS_PATH}\` holds each slot's client config as the provisioner's Secret.`
      : "The provisioner mints each instance's keys and adds its peer to the hub with `wg set`; the hub's config lists the slots as comments.";
  return [
    "## WireGuard hub",
    "",
    `Hub ${hub.address}: tunnel address ${hub.tunnelCidr}${hub.tunnelCidr6 === undefined ? "" : ` and ${hub.tunnelCidr6}`}, UDP ${hub.listenPort}${hub.endpoint ? `, reached by the burst nodes at ${hub.endpoint}` : ""}. Its config: ${where}. ${keys} Burst nodes route ${cloud.routedNetworks.join(", ")} through the tunnel. Slots take the tunnel addresses after the hub's, in pool order: appending a pool keeps every address, while growing an earlier pool's maxSize moves the later pools' slots (and their keys' lines).`,
    "",
    mdTable(
      ["slot", "address", "keys"],
      cloud.slots.map((s) => [
        s.id,
        s.cidr6 === undefined ? s.cidr : `${s.cidr}, ${s.cidr6}`,
        cloud.peerKeys === "static" ? "static (peerKeys)" : "minted by the provisioner",
      ]),
    ),
  ].join("\n");
}
