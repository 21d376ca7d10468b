// The optional host firewall (`host.firewall`): an nftables table that filters only the public interfaces, and
// the OpenRC service that loads it before the network comes up. Every decision is made in the view.
import { type ClusterPlan, generatedMarker, ipFamily, lineTemplate, type PlannedNode } from "@clusterspec/core";
import { lineText, nftToken } from "./escape.js";

export const FIREWALL_TABLE = "clusterspec_host";
export const FIREWALL_RULES_FILE = "etc/nftables/clusterspec-host.nft";
export const FIREWALL_SERVICE_FILE = "etc/init.d/clusterspec-firewall";
/** IP protocol numbers: VRRP (RFC 5798) and IPsec AH, which keepalived's `auth_type AH` wraps VRRP in. */
export const VRRP_PROTOCOL = 112;
export const AH_PROTOCOL = 51;
/** VRRPv3 over IPv6: adverts come from a link-local address to the all-VRRP-routers group (RFC 5798 5.1.2). */
export const VRRP_IPV6_SOURCE = "fe80::/10";
export const VRRP_IPV6_GROUP = "ff02::12";

export interface FirewallView {
  readonly marker: string;
  readonly node: string;
  readonly table: string;
  readonly rulesPath: string;
  /** The filtered interfaces, for `iifname { … }`. */
  readonly interfaces: readonly string[];
  /** One nft rule per line, inside `chain public`, in order. */
  readonly rules: readonly string[];
}

export const set = (words: readonly string[]): string =>
  words.length === 1 ? (words[0] ?? "") : `{ ${words.join(", ")} }`;

/** `ip saddr {…}` / `ip6 saddr {…}` rules for one list of addresses or networks, one per family present. */
export function byFamily(addresses: readonly string[], field: "saddr" | "daddr", rest: string): string[] {
  const out: string[] = [];
  for (const family of [4, 6] as const) {
    const some = addresses.filter((a) => ipFamily(a) === family).map(nftToken);
    if (some.length > 0) out.push(`${family === 4 ? "ip" : "ip6"} ${field} ${set(some)}${rest}`);
  }
  return out;
}

export function toFirewallView(plan: ClusterPlan, node: PlannedNode): FirewallView | undefined {
  const fw = node.firewall;
  const host = plan.host.firewall;
  if (fw === undefined || host === undefined) return undefined;
  const vrrpProtocols = plan.vrrp.auth?.type === "AH" ? [AH_PROTOCOL, VRRP_PROTOCOL] : [VRRP_PROTOCOL];
  const rules = [
    // Replies to connections the node opened (image pulls, NTP, DNS) and ICMP errors for them.
    "ct state established,related accept",
    "ct state invalid drop",
    // ICMP: path MTU discovery and IPv6 neighbour discovery must work on every interface.
    "meta l4proto { icmp, ipv6-icmp } accept",
    ...byFamily(host.sshFrom, "saddr", " tcp dport 22 accept"),
  ];
  // The WireGuard hub: burst instances dial its endpoint from their public addresses.
  const hub = plan.cloud?.hub;
  if (hub?.node === node.name) rules.push(`udp dport ${nftToken(hub.listenPort)} accept`);
  for (const f of fw.interfaces) {
    if (f.vips.length === 0) continue;
    const iif = `iifname "${nftToken(f.name)}" `;
    const proto = ` meta l4proto ${set(vrrpProtocols.map(String))} accept`;
    rules.push(...byFamily(f.vrrpPeers, "saddr", proto).map((r) => iif + r));
    // VRRPv3 over IPv6 is sent from the peer's link-local address to ff02::12 (RFC 5798 5.1.2.1-5.1.2.2): never
    // from the peer's global address, so the IPv6 VIPs' adverts are let in by that shape (hop limit 255 is
    // keepalived's own check). Neighbour discovery for the VIPs is ICMPv6, accepted above.
    if (f.vips.some((a) => ipFamily(a) === 6))
      rules.push(
        `${iif}ip6 saddr ${VRRP_IPV6_SOURCE} ip6 daddr ${VRRP_IPV6_GROUP} meta l4proto ${VRRP_PROTOCOL} accept`,
      );
    rules.push(...byFamily(f.vips, "daddr", " accept").map((r) => iif + r));
  }
  rules.push("counter drop");
  return {
    marker: lineText(generatedMarker(plan)),
    node: lineText(node.name),
    table: FIREWALL_TABLE,
    rulesPath: `/${FIREWALL_RULES_FILE}`,
    interfaces: fw.interfaces.map((f) => nftToken(f.name)),
    rules,
  };
}

// Rules are assembled from checked words in the view and written raw; interface names pass nftToken there.
const rulesTemplate = lineTemplate<FirewallView>(
  `#!/usr/sbin/nft -f
# <%- v.marker %>
# Host firewall of <%- v.node %>: new inbound connections on its public interfaces are dropped unless allowed
# below. Only this table is replaced (declared, deleted, declared again): Cilium's and other tables stay.
# Other interfaces are not filtered here. Loaded by /etc/init.d/clusterspec-firewall before the network.
table inet <%- v.table %>
delete table inet <%- v.table %>
table inet <%- v.table %> {
	chain input {
		type filter hook input priority 0; policy accept;
<% if (v.interfaces.length > 0) { -%>
		iifname { <%- v.interfaces.map((i) => '"' + i + '"').join(", ") %> } jump public
<% } -%>
	}
	chain public {
<% for (const r of v.rules) { -%>
		<%- r %>
<% } -%>
	}
}
`,
  lineText,
);

const serviceTemplate = lineTemplate<FirewallView>(
  `#!/sbin/openrc-run
# <%- v.marker %>
description="clusterspec host firewall: nftables table inet <%- v.table %> on the public interfaces"

depend() {
	before net
}

start() {
	ebegin "Loading the clusterspec host firewall"
	nft -f <%- v.rulesPath %>
	eend $?
}

stop() {
	ebegin "Removing the clusterspec host firewall"
	nft delete table inet <%- v.table %>
	eend $?
}
`,
  lineText,
);

export const renderFirewallRules = (v: FirewallView): string => rulesTemplate(v);
export const renderFirewallService = (v: FirewallView): string => serviceTemplate(v);
