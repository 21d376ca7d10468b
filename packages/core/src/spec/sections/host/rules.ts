// Rules about the host section: sysctls clusterspec sets itself, the cgroup mode and the host firewall's interfaces.
import { clusterFamilies } from "../../../facts/families.js";
import { firewallInterfaces, kubernetesSegment, rpFilterLooseInterfaces } from "../../../facts/spec.js";
import { own } from "../../../own.js";
import type { Rule } from "../../rule.js";

/**
 * IPv4 forwarding under the names procps accepts besides net.ipv4.ip_forward: `all`, `default` and every interface's
 * `forwarding`. The schema admits only dotted keys of [a-z0-9_-] (no `/` spelling, no `-` prefix), so these are all.
 */
const FORWARDING_ALIAS = /^net\.ipv4\.conf\.[^.]+\.forwarding$/;
/**
 * Where the cluster runs IPv6 clusterspec sets net.ipv6.conf.all.forwarding = 1 and all/default accept_ra = 0:
 * `default` and an interface's own `forwarding` or `accept_ra` would undo that there (IPv6 has no ip_forward; the
 * kernel forwards per interface, and accept_ra = 2 takes router advertisements even with forwarding on).
 */
const IPV6_ROUTER_ALIAS = /^net\.ipv6\.conf\.[^.]+\.(?:forwarding|accept_ra)$/;

export const hostSysctlAllowed: Rule = (spec, report) => {
  const ipv6 = clusterFamilies(spec).includes(6);
  const managed = new Set([
    "net.ipv4.ip_forward",
    "net.ipv4.ip_nonlocal_bind",
    "net.ipv6.ip_nonlocal_bind",
    // Set where the cluster runs IPv6 (packages/host: forwarding on, router advertisements refused).
    ...(ipv6 ? ["net.ipv6.conf.all.forwarding", "net.ipv6.conf.all.accept_ra", "net.ipv6.conf.default.accept_ra"] : []),
  ]);
  const pinnedRpFilter = new Set(
    ["all", "default", ...spec.nodes.flatMap((n) => rpFilterLooseInterfaces(spec, n))].map(
      (i) => `net.ipv4.conf.${i}.rp_filter`,
    ),
  );
  for (const key of Object.keys(spec.host.sysctl)) {
    if (key === "net.ipv4.ip_local_port_range")
      report.error(
        ["host", "sysctl", key],
        "net.ipv4.ip_local_port_range stays at its default: NodePorts (30000-32767) must stay outside the ephemeral port range",
      );
    else if (managed.has(key))
      report.error(["host", "sysctl", key], `${key} is set by clusterspec itself (Kubernetes needs it on)`);
    else if (FORWARDING_ALIAS.test(key))
      // Checked with procps `sysctl -p` in a network namespace (packages/core/test/reliability-round2.test.ts):
      // conf.all.forwarding = 0 turns net.ipv4.ip_forward off, conf.default.forwarding = 0 every interface created
      // later (VLANs, Cilium's), and an interface's own forwarding = 0 stops forwarding from it (the kernel's
      // devinet_conf_proc and IN_DEV_FORWARD in ip_route_input_slow).
      report.error(
        ["host", "sysctl", key],
        `${key} switches IPv4 forwarding under another name (conf.all.forwarding is net.ipv4.ip_forward; default and an interface's own forwarding turn it off there): net.ipv4.ip_forward is set by clusterspec itself (Kubernetes needs it on)`,
      );
    else if (ipv6 && IPV6_ROUTER_ALIAS.test(key))
      report.error(
        ["host", "sysctl", key],
        `${key} would undo, on that interface, what clusterspec sets for an IPv6 cluster (net.ipv6.conf.all.forwarding = 1, all and default accept_ra = 0: a node forwards its pods' IPv6 and takes no router advertisements)`,
      );
    else if (pinnedRpFilter.has(key))
      report.error(
        ["host", "sysctl", key],
        `${key} is set by clusterspec (all: 0, as Cilium requires; default and the VIP and policy-routed interfaces: 2, loose): strict reverse-path filtering drops policy-routed and DSR replies`,
      );
  }
};

/**
 * host: cgroup v1 works but is in maintenance mode; host.firewall's listed interfaces exist, and never the Kubernetes
 * interface (the cluster's own traffic).
 */
export const hostSettingsFit: Rule = (spec, report) => {
  if (spec.host.cgroupMode !== "unified")
    report.warning(
      ["host", "cgroupMode"],
      `cgroupMode ${spec.host.cgroupMode} runs the kubelet on cgroup v1, in maintenance mode since Kubernetes 1.31; OpenRC's default unified (cgroup v2) needs nothing written`,
    );
  const fw = spec.host.firewall;
  if (!fw) return;
  const k8s = kubernetesSegment(spec)?.interface;
  (fw.publicInterfaces ?? []).forEach((name, j) => {
    const path = ["host", "firewall", "publicInterfaces", j];
    if (!spec.nodes.some((n) => own(n.interfaces, name) !== undefined))
      report.error(path, `public interface ${name} is not an interface of any node`);
    else if (name === k8s)
      report.error(
        path,
        `${name} carries the Kubernetes segment (API server, kubelet, etcd, Cilium between the nodes): it cannot be a public interface`,
      );
  });
  const unfiltered = spec.nodes.filter((n) => firewallInterfaces(spec, n).length === 0).map((n) => n.name);
  if (unfiltered.length > 0)
    report.warning(
      ["host", "firewall"],
      `the host firewall filters nothing on ${unfiltered.join(", ")}: ${fw.publicInterfaces ? "none of host.firewall.publicInterfaces is" : "every interface attaches a network segment, so none is"} an interface there; list the public ones in host.firewall.publicInterfaces`,
    );
};
