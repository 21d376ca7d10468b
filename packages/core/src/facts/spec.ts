// Small lookups over a parsed spec, shared by the rules and by resolvePlan so each fact is derived once.
import type { IssuePath } from "../issues.js";
import { own } from "../own.js";
import type { ClusterSpec, InterfaceSpec, NodeSpec, SegmentSpec } from "../spec/schema.js";

export function kubernetesSegment(spec: ClusterSpec): SegmentSpec | undefined {
  const name = spec.network.kubernetesSegment;
  return name === undefined ? spec.network.segments[0] : spec.network.segments.find((s) => s.name === name);
}

export function segmentOfInterface(spec: ClusterSpec, iface: string): SegmentSpec | undefined {
  return spec.network.segments.find((s) => s.interface === iface);
}

export function controlPlaneInterface(spec: ClusterSpec): string | undefined {
  return spec.controlPlane.interface ?? kubernetesSegment(spec)?.interface;
}

/** The pool's interface: explicit, else the segment with an uplink, else the Kubernetes segment. */
export function externalVipInterface(spec: ClusterSpec): string | undefined {
  return (
    spec.externalVips?.interface ??
    spec.network.segments.find((s) => s.uplink !== undefined)?.interface ??
    kubernetesSegment(spec)?.interface
  );
}

export interface ExternalVipEntry {
  readonly address: string;
  /** The IPv6 half of a dual-stack pair (`address6`), with its spec path. */
  readonly address6: string | undefined;
  readonly path6: IssuePath | undefined;
  readonly vrid: number | undefined;
  readonly path: IssuePath;
}

export function externalVipEntries(spec: ClusterSpec): ExternalVipEntry[] {
  return (spec.externalVips?.addresses ?? []).map((entry, i) =>
    typeof entry === "string"
      ? {
          address: entry,
          address6: undefined,
          path6: undefined,
          vrid: undefined,
          path: ["externalVips", "addresses", i],
        }
      : {
          address: entry.address,
          address6: entry.address6,
          path6: entry.address6 === undefined ? undefined : ["externalVips", "addresses", i, "address6"],
          vrid: entry.vrid,
          path: ["externalVips", "addresses", i, "address"],
        },
  );
}

/** Every external VIP address of both families, each with its spec path (a pair gives two). */
export function externalVipAddresses(spec: ClusterSpec): { readonly address: string; readonly path: IssuePath }[] {
  return externalVipEntries(spec).flatMap((e) => [
    { address: e.address, path: e.path },
    ...(e.address6 !== undefined && e.path6 !== undefined ? [{ address: e.address6, path: e.path6 }] : []),
  ]);
}

export const isControlPlane = (node: NodeSpec): boolean => node.roles.includes("control-plane");
export const isWorker = (node: NodeSpec): boolean => node.roles.includes("worker");

/** The interface a node's default route leaves through (the one with a gateway), if any. */
export function defaultRouteInterface(node: NodeSpec): string | undefined {
  return Object.entries(node.interfaces).find(([, f]) => f.gateway !== undefined)?.[0];
}

export function nodeInterfaces(node: NodeSpec): [string, InterfaceSpec][] {
  return Object.entries(node.interfaces);
}

/** netifrc's shell_var: every character outside [A-Za-z0-9_] becomes `_` (net/functions.sh). */
export function shellVar(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, "_");
}

/**
 * Interfaces whose `rp_filter` is pinned to 2 (loose): those that carry a VIP (a reply from a VIP the node just
 * lost, or a DSR reply, has a source the strict check rejects) and those whose replies take a policy-routing table
 * (strict mode checks the source against the main table only and drops them). Only those the node has.
 */
export function rpFilterLooseInterfaces(spec: ClusterSpec, node: NodeSpec): string[] {
  const vip = [controlPlaneInterface(spec), spec.externalVips ? externalVipInterface(spec) : undefined];
  const routed = spec.network.segments.filter((s) => s.uplink !== undefined).map((s) => s.interface);
  return [...vip, ...routed].filter(
    (i, n, all): i is string => i !== undefined && all.indexOf(i) === n && own(node.interfaces, i) !== undefined,
  );
}

/** The interfaces `host.firewall` filters on a node: the listed ones it has, else those that attach no segment. */
export function firewallInterfaces(spec: ClusterSpec, node: NodeSpec): string[] {
  const listed = spec.host.firewall?.publicInterfaces;
  if (listed) return listed.filter((i) => own(node.interfaces, i) !== undefined);
  return Object.keys(node.interfaces).filter((i) => segmentOfInterface(spec, i) === undefined);
}
