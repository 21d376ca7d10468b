// The PLAN.md section of the WireGuard hub's host: forwarding, the return routes every on-prem host needs, the
// forward filter and what it leaves closed (issue 29 items 4 and 12).
import { type BurstPlan, HUB_FIREWALL_FILE, HUB_SYSCTL_FILE, mdTable } from "@clusterspec/core";
import { HUB_FIREWALL_TABLE } from "./hub.js";

export function summarizeHub(plan: BurstPlan): string | undefined {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub) return undefined;
  const h = hub.host;
  const t = cloud.wireguard.tunnelSubnet;
  const t6 = cloud.wireguard.tunnelSubnet6;
  const tunnels = t6 === undefined ? t : `${t} and ${t6}`;
  // an IPv6 network's hosts route the IPv6 tunnel subnet, through the hub's IPv6 address
  const hubFor = (tunnel: string) => (tunnel === t6 ? "the hub's IPv6 address" : hub.address);
  const generated = !("existingCluster" in plan);
  const routes = h.returnRoutes.map(({ network, tunnelSubnet: rt, via }) =>
    via === undefined
      ? [
          network,
          `through the network's router, which routes ${rt} to the hub ${hubFor(rt)}`,
          `on the router: \`ip route add ${rt} via ${hubFor(rt) === hub.address ? hub.address : "<the hub's IPv6 address>"}\``,
        ]
      : [
          network,
          `\`ip route add ${rt} via ${via}\``,
          `netifrc: \`routes_<interface>="${rt} via ${via}"\`; systemd-networkd: \`[Route]\` \`Destination=${rt}\` \`Gateway=${via}\``,
        ],
  );
  const ports = (a: { protocol: string; ports: readonly number[] }) =>
    a.ports.map((p) => `${p}/${a.protocol}`).join(", ");
  return [
    "## WireGuard hub host",
    "",
    `The hub ${hub.address}${hub.node === undefined ? "" : ` (node ${hub.node})`} forwards between \`${h.firewall.interface}\` (${tunnels}) and on-prem: \`${h.dir}/${HUB_SYSCTL_FILE}\` sets ${h.forwarding.map((k) => `\`${k} = 1\``).join(" and ")}${hub.node === undefined ? "" : " (the node's own sysctl file sets IPv4 forwarding too)"}.`,
    "",
    `**Return route.** Every on-prem host that burst nodes talk to, or that talks to them, needs a route to ${tunnels} through the hub: without it replies leave by its default route and are lost. ${
      generated
        ? `The generated nodes have it (\`routes_\` in their conf.d/net${hub.node === undefined ? "" : `; the hub ${hub.node} holds the tunnel`}); add it on every other host there (the nameservers, a monitoring or registry host):`
        : "No on-prem host is generated here: add it on each (the cluster's nodes, its nameservers, monitoring):"
    }`,
    "",
    mdTable(["hosts in", "route", "persistent"], routes),
    "",
    `**Forward filter.** WireGuard's AllowedIPs checks only a packet's source: the hub would forward a compromised burst node's packets to anything it reaches. \`${h.dir}/${HUB_FIREWALL_FILE}\` (table \`inet ${HUB_FIREWALL_TABLE}\`, forward hook) drops every new connection in from \`${h.firewall.interface}\` except ICMP, replies and these:`,
    "",
    mdTable(
      ["for", "destination", "port"],
      h.firewall.allow.map((a) => [a.what, a.daddr.join(", "), ports(a)]),
    ),
    "",
    `${hub.configPath === undefined ? `Load it before the tunnel: add \`PreUp = nft -f /${HUB_FIREWALL_FILE}\` to the hub's wg-quick config.` : `The hub's wg-quick config loads it (\`PreUp = nft -f /${HUB_FIREWALL_FILE}\`).`} Connections from on-prem to the burst nodes (the apiserver to their kubelet, metrics scrapes) and the hub's own input are not filtered by it. ${
      generated
        ? ""
        : "The existing cluster's nodes are not known: its on-prem networks stand for them, and VXLAN (Cilium's default tunnel) is assumed; with Geneve open 6081/udp, with native routing the pod subnet, in the table. "
    }Open more in the table when burst pods need it: other on-prem services (registries, databases, NFS, LDAP), Services whose backends run in the host network of on-prem nodes (their ports on the node addresses), NodePorts 30000-32767, Hubble's peer service 4244/tcp, Cilium's WireGuard encryption 51871/udp, node exporters (9100/tcp).`,
  ].join("\n");
}
