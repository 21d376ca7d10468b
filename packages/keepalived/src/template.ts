// Line formats as ejs templates: loops and interpolation only, every value escaped (view.ts decides).
import { lineTemplate } from "@clusterspec/core";
import { keepalivedSecretToken, keepalivedToken, shellWord } from "./escape.js";
import type { AuthView, CheckScriptView, KeepalivedView } from "./view.js";

// `<%-` only for comment text that view.ts has passed through keepalivedComment.
export const keepalivedConfSource = `# <%- v.header %>

global_defs {
    router_id <%= v.routerId %>
    enable_script_security
    script_user <%= v.scriptUser %>
}
<% if (v.healthCheck) { -%>

# <%- v.healthCheck.comment %>
vrrp_script <%= v.healthCheck.name %> {
    script "/bin/sh <%= v.healthCheck.path %>"
    interval <%= v.healthCheck.interval %>
    timeout <%= v.healthCheck.timeout %>
    fall <%= v.healthCheck.fall %>
    rise <%= v.healthCheck.rise %>
    weight <%= v.healthCheck.weight %>
}
<% } -%>
<% for (const i of v.instances) { -%>

# <%- i.comment %>
vrrp_instance <%= i.name %> {
    state <%= i.state %>
    interface <%= i.iface %>
    virtual_router_id <%= i.vrid %>
    priority <%= i.priority %>
    advert_int <%= i.advertInt %>
<% if (i.nopreempt) { -%>
    nopreempt
<% } -%>
<% if (i.auth) { -%>
    authentication {
        auth_type <%= i.auth.type %>
        include <%= i.auth.include %>
    }
<% } -%>
<% if (i.unicast) { -%>
    unicast_src_ip <%= i.unicast.src %>
    unicast_peer {
<% for (const peer of i.unicast.peers) { -%>
        <%= peer %>
<% } -%>
    }
<% } -%>
    virtual_ipaddress {
        <%= i.vip %> dev <%= i.iface %>
    }
<% if (i.trackScript) { -%>
    track_script {
        <%= i.trackScript %>
    }
<% } -%>
<% for (const n of i.notify) { -%>
    <%= n.keyword %> <%= n.path %>
<% } -%>
}
<% } -%>
`;

export const authConfSource = `# <%- v.header %>
auth_pass <%= v.password %>
`;

// POSIX sh; the URL is single-quoted by the escape.
export const checkScriptSource = `#!/bin/sh
# <%- v.header %>
# keepalived vrrp_script: exits 0 while the kube-apiserver on this node answers /livez.
# Needs curl (a host dependency); the CA is the one kubeadm writes.
exec curl --silent --fail --output /dev/null --max-time <%= v.maxTime %> --cacert <%= v.caFile %> <%= v.url %>
`;

export const renderKeepalivedConf = lineTemplate<KeepalivedView>(keepalivedConfSource, keepalivedToken);
export const renderAuthConf = lineTemplate<AuthView>(authConfSource, keepalivedSecretToken);
export const renderCheckScript = lineTemplate<CheckScriptView>(checkScriptSource, shellWord);
