import { lineTemplate } from "@clusterspec/core";
import { netifrcValue, token } from "./escape.js";
import type { NetifrcView, NetVariable, PlannedRule, RtTablesView } from "./view.js";

/** An `ip rule` line as netifrc passes it to iproute2, which reads `lookup` and `table` alike. */
export function ruleLine(rule: PlannedRule): string {
  const words: (string | number)[] = ["from", rule.from ?? "all"];
  if (rule.to !== undefined) words.push("to", rule.to);
  words.push(rule.table === "main" ? "lookup" : "table", rule.table, "priority", rule.priority);
  return words.map(token).join(" ");
}

/** The lines of a variable's value: rules written out here, every other value as the view gives it. */
export const variableLines = (x: NetVariable): readonly string[] => ("rules" in x ? x.rules.map(ruleLine) : x.lines);

// Names are checked shell identifiers (`<%-`); every value goes through netifrcValue inside double quotes.
const source = `# <%- v.marker %>
# netifrc configuration of <%- v.node %>: /etc/conf.d/net, sourced by /etc/init.d/net.<interface>
<% for (const g of v.globals) { -%>
<%- g.name %>="<%= g.lines.join(" ") %>"
<% } -%>
<% for (const i of v.interfaces) { -%>

# <%- i.iface %>
<% for (const x of i.variables) { -%>
<% if (x.lines.length === 1) { -%>
<%- x.name %>="<%= x.lines[0] %>"
<% } else { -%>
<%- x.name %>="
<% for (const l of x.lines) { -%>
<%= l %>
<% } -%>
"
<% } -%>
<% } -%>
<% } -%>
<% if (v.postup.length > 0) { -%>

# Per-interface kernel settings, set when netifrc brings the interface up (IFACE): OpenRC's sysctl service runs
# in the boot runlevel, before a VLAN exists. Check: sysctl net/ipv4/conf/<interface>/<key>
postup() {
	case "\${IFACE}" in
<% for (const p of v.postup) { -%>
	"<%= p.iface %>")
<% for (const s of p.settings) { -%>
		echo <%- s.value %> > "/proc/sys/net/ipv4/conf/\${IFACE}/<%- s.key %>" || ewarn "cannot set <%- s.key %> = <%- s.value %> on \${IFACE}"
<% } -%>
		;;
<% } -%>
	esac
	return 0
}
<% } -%>
`;

const template = lineTemplate<NetifrcView>(source, netifrcValue);

export const renderConfdNet = (view: NetifrcView): string =>
  template({
    ...view,
    globals: view.globals.map((x) => ({ name: x.name, lines: variableLines(x) })),
    interfaces: view.interfaces.map((i) => ({
      ...i,
      variables: i.variables.map((x) => ({ name: x.name, lines: variableLines(x) })),
    })),
  });

// One table per file in rt_tables.d, which iproute2 reads after rt_tables. Values are checked tokens.
const rtTablesSource = `# <%- v.marker %>
# policy routing table, named for ip route/rule (iproute2 reads /etc/iproute2/rt_tables.d/*.conf)
<%- v.table.id %>	<%- v.table.name %>
`;

export const renderRtTables = lineTemplate<RtTablesView>(rtTablesSource, token);
