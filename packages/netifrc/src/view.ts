// Every decision about /etc/conf.d/net lives here; the template only loops.
import {
  type ClusterPlan,
  generatedMarker,
  InternalError,
  ipFamily,
  type PlannedNode,
  type PolicyRoute,
  shellVar,
} from "@clusterspec/core";
import { commentText, token, variableName } from "./escape.js";

/**
 * One shell assignment; more than one line renders as a multi-line string, as netifrc's examples do.
 * `rules_*` variables hold typed rules, written as `ip rule` lines only by the template.
 */
export type NetVariable =
  | { readonly name: string; readonly lines: readonly string[] }
  | { readonly name: string; readonly rules: readonly PlannedRule[] };

export interface NetifrcInterfaceView {
  /** Interface name, for the comment above its block. */
  readonly iface: string;
  readonly variables: readonly NetVariable[];
}

/** The per-interface kernel settings of one interface, written by postup() when netifrc brings it up. */
export interface PostupView {
  readonly iface: string;
  /** `/proc/sys/net/ipv4/conf/<iface>/<key>` ← value; keys and values are checked words. */
  readonly settings: readonly { readonly key: string; readonly value: string }[];
}

export interface NetifrcView {
  readonly marker: string;
  readonly node: string;
  readonly globals: readonly NetVariable[];
  readonly interfaces: readonly NetifrcInterfaceView[];
  /** Empty: no postup() is written. */
  readonly postup: readonly PostupView[];
}

/**
 * Seconds netifrc waits for tentative IPv6 addresses (`dad_timeout_<if>`): DAD itself takes one probe and the
 * kernel's RetransTimer (1 s) after a random delay of up to 1 s, so 5 leaves room without holding boot long.
 */
export const DAD_TIMEOUT_SECONDS = 5;

/** Priority of `from all to <podSubnet> lookup main`; source rules follow it. */
export const POD_RULE_PRIORITY = 1000;

const line = (...words: (string | number)[]): string => words.map(token).join(" ");
const v = (name: string, lines: readonly string[]): NetVariable => ({ name: variableName(name), lines });
const isV6 = (cidrOrIp: string): boolean => ipFamily(cidrOrIp) === 6;

/** A route line with netifrc's `-6` family prefix where the route is IPv6. */
const route = (dest: string, ...rest: (string | number)[]): string =>
  isV6(dest === "default" ? String(rest[1]) : dest) ? line("-6", dest, ...rest) : line(dest, ...rest);

/** An `ip rule`: `from <from|all> [to <to>] table <table> priority <priority>`. */
export interface PlannedRule {
  readonly priority: number;
  /** Source network; absent: all. */
  readonly from?: string;
  readonly to?: string;
  /** Routing table name (`main` or a policy route's table). */
  readonly table: string;
  readonly family: 4 | 6;
}

/**
 * Rules for the policy routes, in priority order, with the pod-subnet exception first.
 * Rules are global (not per interface), so the whole list is attached to the first policy route's interface.
 */
export function policyRules(plan: ClusterPlan): PlannedRule[] {
  if (plan.network.policyRoutes.length === 0) return [];
  // One pod-network exception per family (dual stack: rules_ and rules6_ each get theirs).
  const rules: PlannedRule[] = plan.kubernetes.podSubnets.map((pod) => ({
    priority: POD_RULE_PRIORITY,
    to: pod,
    table: "main",
    family: ipFamily(pod),
  }));
  let priority = POD_RULE_PRIORITY;
  for (const pr of plan.network.policyRoutes) {
    for (const source of pr.sources) {
      priority += 1;
      rules.push({ priority, from: source, table: pr.table.name, family: ipFamily(source) });
    }
  }
  return rules;
}

/** Routes of one policy route: on-link networks in main, then in the table the on-link networks, the segment subnet, and the default through the gateway. */
export function policyRouteLines(pr: PolicyRoute): string[] {
  const dev = pr.interface;
  const t = pr.table.name;
  return [
    ...pr.segment.onLink.map((net) => route(net, "dev", dev)),
    ...pr.segment.onLink.map((net) => route(net, "dev", dev, "scope", "link", "table", t)),
    route(pr.segment.subnet, "dev", dev, "scope", "link", "table", t),
    ...(pr.segment.subnet6 === undefined ? [] : [route(pr.segment.subnet6, "dev", dev, "scope", "link", "table", t)]),
    route("default", "via", pr.gateway, "table", t),
    ...(pr.gateway6 === undefined ? [] : [route("default", "via", pr.gateway6, "table", t)]),
  ];
}

export function toNetifrcView(plan: ClusterPlan, node: PlannedNode): NetifrcView {
  const names = new Map<string, string>();
  for (const f of node.interfaces) {
    const prior = names.get(shellVar(f.name));
    if (prior !== undefined) throw new InternalError(`interfaces ${prior} and ${f.name} share netifrc variables`);
    names.set(shellVar(f.name), f.name);
  }
  const rules = policyRules(plan);
  const ruleIface = plan.network.policyRoutes
    .map((p) => p.interface)
    .find((i) => node.interfaces.some((f) => f.name === i));
  const k8s = node.internalInterface;

  const interfaces = node.interfaces.map((f): NetifrcInterfaceView => {
    const iv = shellVar(f.name);
    const vars: NetVariable[] = [];
    const children = node.interfaces.filter((c) => c.vlan?.parent === f.name);
    if (children.length > 0) {
      vars.push(v(`vlans_${iv}`, [children.map((c) => token(c.vlan?.id ?? 0)).join(" ")]));
      for (const c of children) {
        const id = c.vlan?.id ?? 0;
        // netifrc names a VLAN `<parent>.<id>` unless told otherwise.
        if (c.name !== `${f.name}.${id}`) vars.push(v(`${iv}_vlan${id}_name`, [token(c.name)]));
      }
    }
    // Dual stack: one address per line, as netifrc's multi-address config_ does (net/iproute2.sh _add_address).
    vars.push(
      v(
        `config_${iv}`,
        f.cidr === undefined ? ["null"] : [f.cidr, ...(f.cidr6 === undefined ? [] : [f.cidr6])].map(token),
      ),
    );
    // netifrc waits this long for tentative IPv6 addresses to finish duplicate-address detection; its code defaults to
    // 5 while its docs say 10 (net/iproute2.sh iproute2_post_start: `${dad_timeout_IFVAR:-${dad_timeout:-5}}`,
    // gentoo/netifrc 6632c348), so it is written explicitly wherever the interface has an IPv6 address.
    if (f.cidr6 !== undefined || (f.cidr !== undefined && isV6(f.cidr)))
      vars.push(v(`dad_timeout_${iv}`, [token(DAD_TIMEOUT_SECONDS)]));
    // iproute2.sh sets it before the addresses (`ip link set dev <if> mtu <n>`), VLANs included.
    if (f.mtu !== undefined) vars.push(v(`mtu_${iv}`, [token(f.mtu)]));

    const routes: string[] = [];
    if (f.gateway !== undefined) routes.push(route("default", "via", f.gateway));
    if (f.gateway6 !== undefined) routes.push(route("default", "via", f.gateway6));
    for (const pr of plan.network.policyRoutes) if (pr.interface === f.name) routes.push(...policyRouteLines(pr));
    // Burst nodes' tunnel addresses are reached through the on-prem WireGuard hub.
    if (node.tunnelRoute?.interface === f.name)
      routes.push(route(node.tunnelRoute.subnet, "via", node.tunnelRoute.via));
    if (node.tunnelRoute6?.interface === f.name)
      routes.push(route(node.tunnelRoute6.subnet, "via", node.tunnelRoute6.via));
    // On-link networks of a segment without an uplink still belong in the main table.
    for (const seg of plan.network.segments)
      if (seg.interface === f.name && !seg.uplink) routes.push(...seg.onLink.map((net) => route(net, "dev", f.name)));
    if (routes.length > 0) vars.push(v(`routes_${iv}`, routes));

    if (f.name === ruleIface) {
      const r4 = rules.filter((r) => r.family === 4);
      const r6 = rules.filter((r) => r.family === 6);
      if (r4.length > 0) vars.push({ name: variableName(`rules_${iv}`), rules: r4 });
      if (r6.length > 0) vars.push({ name: variableName(`rules6_${iv}`), rules: r6 });
    }
    if (f.name === k8s) {
      const servers = plan.network.nameservers.slice(0, 2);
      if (servers.length > 0) vars.push(v(`dns_servers_${iv}`, [servers.map(token).join(" ")]));
      if (plan.network.searchDomains.length > 0)
        vars.push(v(`dns_search_${iv}`, [plan.network.searchDomains.map(token).join(" ")]));
    }
    return { iface: commentText(f.name), variables: vars };
  });

  return {
    marker: commentText(generatedMarker(plan)),
    node: commentText(node.name),
    // Our route and rule lines use iproute2 syntax (tables, scope): never let netifrc fall back to ifconfig.
    globals: [v("modules", ["iproute2"])],
    interfaces,
    postup: postupOf(node),
  };
}

/**
 * netifrc calls postup() with IFACE set after it brought an interface up (init.d/net.lo.in, start(): after the
 * modules' post_start), a VLAN included: net/vlan.sh's vlan_post_start creates it and runs start() for it. OpenRC's
 * sysctl service runs in the boot runlevel (init.d/sysctl.in: before bootmisc), when a VLAN does not exist yet, so
 * per-interface settings are written here, where the interface is sure to exist.
 */
function postupOf(node: PlannedNode): PostupView[] {
  const names = [...new Set(node.interfaceSysctls.map((s) => s.interface))];
  return names.map((iface) => ({
    iface: token(iface),
    settings: node.interfaceSysctls
      .filter((s) => s.interface === iface)
      .map((s) => ({ key: token(s.key), value: token(s.value) })),
  }));
}

/** One /etc/iproute2/rt_tables.d/<name>.conf per policy routing table; the distribution's rt_tables stays. */
export interface RtTablesView {
  readonly marker: string;
  readonly table: { readonly id: string; readonly name: string };
}

/** Where a table's name is declared: iproute2 reads rt_tables, then every `rt_tables.d/*.conf`. */
export const rtTablesPath = (name: string): string => `etc/iproute2/rt_tables.d/${name}.conf`;

export function toRtTablesViews(plan: ClusterPlan): RtTablesView[] {
  return plan.network.policyRoutes.map((p) => ({
    marker: commentText(generatedMarker(plan)),
    table: { id: token(p.table.id), name: token(p.table.name) },
  }));
}
