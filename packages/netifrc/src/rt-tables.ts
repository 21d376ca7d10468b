import { type ClusterPlan, generatedMarker, lineTemplate } from "@clusterspec/core";
import { commentText, token } from "./escape.js";

export interface RtTablesView {
  readonly marker: string;
  readonly tables: readonly { readonly id: string; readonly name: string }[];
}

export function toRtTablesView(plan: ClusterPlan): RtTablesView {
  return {
    marker: commentText(generatedMarker(plan)),
    tables: plan.network.policyRoutes.map((p) => ({ id: token(p.table.id), name: token(p.table.name) })),
  };
}

// iproute2's stock entries, then ours: this file replaces /etc/iproute2/rt_tables. Values are checked tokens.
const source = `# <%- v.marker %>
#
# reserved values
#
255	local
254	main
253	default
0	unspec
#
# local
#
<% for (const t of v.tables) { -%>
<%- t.id %>	<%- t.name %>
<% } -%>
`;

export const renderRtTables = lineTemplate<RtTablesView>(source, token);
