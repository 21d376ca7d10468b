// Line formats as ejs templates: loops and interpolation only, every value escaped (view.ts decides).
import { lineTemplate } from "@clusterspec/core";
import { keepalivedSecretToken, keepalivedToken, shellWord } from "./escape.js";
import type {
  AuthView,
  CheckScriptView,
  KeepalivedView,
  OpenrcView,
  ReadinessScriptView,
  UplinkScriptView,
} from "./view.js";

// `<%-` only for comment text that view.ts has passed through keepalivedComment.
export const keepalivedConfSource = `# <%- v.header %>

global_defs {
    router_id <%= v.routerId %>
    enable_script_security
    script_user <%= v.scriptUser %>
<% if (v.garpRefresh !== undefined) { -%>
    vrrp_garp_master_refresh <%= v.garpRefresh %>
<% } -%>
<% if (v.lowerPrioNoAdvert !== undefined) { -%>
    # <%- v.lowerPrioNoAdvert %>
    vrrp_lower_prio_no_advert
<% } -%>
}
<% for (const c of v.checks) { -%>

# <%- c.comment %>
vrrp_script <%= c.name %> {
    script <%= c.path %>
    interval <%= c.interval %>
    timeout <%= c.timeout %>
    fall <%= c.fall %>
    rise <%= c.rise %>
    weight <%= c.weight %>
}
<% } -%>
<% for (const i of v.instances) { -%>

# <%- i.comment %>
vrrp_instance <%= i.name %> {
    state <%= i.state %>
    interface <%= i.iface %>
    virtual_router_id <%= i.vrid %>
<% if (i.version !== undefined) { -%>
    version <%= i.version %>
<% } -%>
    priority <%= i.priority %>
    advert_int <%= i.advertInt %>
<% if (i.nopreempt) { -%>
    nopreempt
<% } -%>
<% if (i.preemptDelay !== undefined) { -%>
    preempt_delay <%= i.preemptDelay %>
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
<% if (i.trackScripts.length > 0) { -%>
    track_script {
<% for (const t of i.trackScripts) { -%>
        <%= t %>
<% } -%>
    }
<% } -%>
<% for (const n of i.notify) { -%>
    <%= n.keyword %> <%= n.path %>
<% } -%>
}
<% } -%>
<% for (const g of v.syncGroups) { -%>

# <%- g.comment %>
vrrp_sync_group <%= g.name %> {
    group {
<% for (const m of g.members) { -%>
        <%= m %>
<% } -%>
    }
    sync_group_tracking_weight
}
<% } -%>
`;

export const authConfSource = `# <%- v.header %>
auth_pass <%= v.password %>
`;

// POSIX sh; the URL is single-quoted by the escape.
export const checkScriptSource = `#!/bin/sh
# <%- v.header %>
# keepalived vrrp_script: exits 0 while the kube-apiserver on this node answers /readyz (not /livez: /readyz
# fails as soon as the apiserver starts shutting down, while it keeps serving for its shutdown-delay-duration).
# Needs curl (a host dependency); the CA is the one kubeadm writes (world-readable), so the check runs as
# keepalived's unprivileged script_user.
exec curl --silent --fail --output /dev/null --max-time <%= v.maxTime %> --cacert <%= v.caFile %> <%= v.url %>
`;

// POSIX sh; the port and timeout are integers, the URL is fixed.
export const readinessScriptSource = `#!/bin/sh
# <%- v.header %>
# keepalived vrrp_script: exits 0 while the Cilium agent on this node reports healthy on its health API (the
# endpoint of its own liveness and readiness probes), so external VIPs wait until Cilium serves the node.
# Needs curl (a host dependency).
exec curl --silent --fail --output /dev/null --max-time <%= v.maxTime %> --header 'brief: true' <%= v.url %>
`;

// POSIX sh; the gateway and interface come from the spec, single-quoted by the escape.
export const uplinkScriptSource = `#!/bin/sh
# <%- v.header %>
# keepalived vrrp_script: exits 0 while the uplink gateway answers one ping on the external VIPs' interface,
# so external VIPs leave a node that cannot route their replies. ping must work for keepalived's script_user
# (iputils installs it with cap_net_raw, or set net.ipv4.ping_group_range).
exec ping -n -q -c 1 -W <%= v.maxTime %> -I <%= v.iface %> <%= v.gateway %>
`;

// Sourced by OpenRC's openrc-run before /etc/init.d/keepalived, which defines no start_pre or reload_pre of its own
// (gentoo sys-cluster/keepalived files/keepalived.init-r1: reload is an extra_started_command sending SIGHUP).
// openrc-run runs `<command>_pre` before any command, reload included (OpenRC sh/openrc-run.sh.in, ~405).
export const openrcConfSource = `# <%- v.header %>
# keepalived ignores an include whose file is missing, so a node without its VRRP password would run with
# other authentication than its peers: refuse to start instead, and refuse to reload (SIGHUP re-reads the include).
start_pre() {
	if ! grep -q '^auth_pass [^[:space:]]' <%= v.authFile %> 2>/dev/null; then
		eerror <%= v.message %>
		return 1
	fi
}

reload_pre() {
	start_pre
}
`;

export const renderKeepalivedConf = lineTemplate<KeepalivedView>(keepalivedConfSource, keepalivedToken);
export const renderAuthConf = lineTemplate<AuthView>(authConfSource, keepalivedSecretToken);
export const renderCheckScript = lineTemplate<CheckScriptView>(checkScriptSource, shellWord);
export const renderReadinessScript = lineTemplate<ReadinessScriptView>(readinessScriptSource, shellWord);
export const renderUplinkScript = lineTemplate<UplinkScriptView>(uplinkScriptSource, shellWord);
export const renderOpenrcConf = lineTemplate<OpenrcView>(openrcConfSource, shellWord);
