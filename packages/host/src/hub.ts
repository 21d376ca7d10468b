// The WireGuard hub's own host files (issue 29 items 4 and 12), in both layouts: the forwarding sysctls, and an
// nftables table whose forward chain lets new connections in from the tunnel only to what the burst nodes need.
// Built with the host firewall's machinery (firewall.ts: byFamily, set, the nftables word escape). The hub's
// wg-quick config (wireguard package) loads the table in PreUp, so it is in place before the tunnel carries a packet.
import { type BurstPlan, generatedMarker, HUB_FIREWALL_FILE, HUB_SYSCTL_FILE, lineTemplate } from "@clusterspec/core";
import { lineText, nftToken } from "./escape.js";
import { byFamily, set } from "./firewall.js";

export const HUB_FIREWALL_TABLE = "clusterspec_hub";

export interface HubView {
  readonly marker: string;
  readonly table: string;
  readonly interface: string;
  readonly tunnelSubnet: string;
  readonly forwarding: readonly string[];
  /** One nft rule per line, inside `chain from_tunnel`, in order. */
  readonly rules: readonly string[];
}

export function toHubView(plan: BurstPlan): HubView | undefined {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub) return undefined;
  const fw = hub.host.firewall;
  const rules = [
    // Replies to what on-prem opened towards the burst nodes (the apiserver to their kubelet, Prometheus, …).
    "ct state established,related accept",
    "ct state invalid drop",
    // Path MTU discovery, and the Cilium health checks' echo requests.
    "meta l4proto { icmp, ipv6-icmp } accept",
    ...fw.allow.flatMap((a) =>
      byFamily(a.daddr, "daddr", ` ${a.protocol} dport ${set(a.ports.map((p) => nftToken(p)))} accept`).map(
        (r) => `${r} comment "${nftToken(a.what.replace(/ /g, "-"))}"`,
      ),
    ),
    "counter drop",
  ];
  return {
    marker: lineText(generatedMarker(plan)),
    table: HUB_FIREWALL_TABLE,
    interface: nftToken(fw.interface),
    tunnelSubnet: lineText(
      cloud.wireguard.tunnelSubnet6 === undefined
        ? cloud.wireguard.tunnelSubnet
        : `${cloud.wireguard.tunnelSubnet}, ${cloud.wireguard.tunnelSubnet6}`,
    ),
    forwarding: hub.host.forwarding.map((k) => nftToken(k)),
    rules,
  };
}

// Rules are assembled from checked words in the view and written raw.
const rulesTemplate = lineTemplate<HubView>(
  `#!/usr/sbin/nft -f
# <%- v.marker %>
# WireGuard hub: new connections forwarded from the tunnel (<%- v.interface %>, <%- v.tunnelSubnet %>) are dropped
# unless the burst nodes need them (below). AllowedIPs checks only a packet's source. Traffic towards the tunnel,
# the hub's own input and every other table are untouched. Only this table is replaced (declared, deleted,
# declared again). Loaded by the hub's wg-quick PreUp, before the tunnel carries a packet.
table inet <%- v.table %>
delete table inet <%- v.table %>
table inet <%- v.table %> {
	chain forward {
		type filter hook forward priority 0; policy accept;
		iifname "<%- v.interface %>" jump from_tunnel
	}
	chain from_tunnel {
<% for (const r of v.rules) { -%>
		<%- r %>
<% } -%>
	}
}
`,
  lineText,
);

const sysctlTemplate = lineTemplate<HubView>(
  `# <%- v.marker %>
# WireGuard hub: forwards between the tunnel and the on-prem networks (applied at boot; now: sysctl --system).
<% for (const k of v.forwarding) { -%>
<%- k %> = 1
<% } -%>
`,
  lineText,
);

export const renderHubFirewall = (v: HubView): string => rulesTemplate(v);
export const renderHubSysctl = (v: HubView): string => sysctlTemplate(v);

export { HUB_FIREWALL_FILE, HUB_SYSCTL_FILE };
