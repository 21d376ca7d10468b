import ejs from "ejs";
import { netifrcValue } from "./escape.js";
import type { NetifrcView } from "./view.js";

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
`;

const template = ejs.compile(source, { strict: true, _with: false, localsName: "v", escape: netifrcValue });

export const renderConfdNet = (view: NetifrcView): string => template(view);
