// Small lookups over a parsed spec, shared by the rules and by resolvePlan so each fact is derived once.
import type { IssuePath } from "../issues.js";
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
  readonly vrid: number | undefined;
  readonly path: IssuePath;
}

export function externalVipEntries(spec: ClusterSpec): ExternalVipEntry[] {
  return (spec.externalVips?.addresses ?? []).map((entry, i) =>
    typeof entry === "string"
      ? { address: entry, vrid: undefined, path: ["externalVips", "addresses", i] }
      : { address: entry.address, vrid: entry.vrid, path: ["externalVips", "addresses", i, "address"] },
  );
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
