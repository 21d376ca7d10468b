// The sources of an uplink's policy-routing rules, shared by the network rule that refuses an uplink no rule would
// use and by the network planner, so both see the same list.
import { cidrContains, ipFamily } from "../ip.js";
import type { ClusterSpec, SegmentSpec } from "../spec/schema.js";
import { segmentSubnets } from "./families.js";
import { externalVipAddresses, externalVipInterface } from "./spec.js";

/** Where an uplink's sources come from: the spec's `sources`, the segment's on-link networks, or its external VIPs. */
export type UplinkSourcesFrom = "sources" | "onLink" | "external-vips" | "none";

/**
 * The networks whose replies take the segment's uplink table: `uplink.sources` when given, else the segment's on-link
 * networks, else the external VIPs that live on this segment's interface inside its subnet (or subnet6), each as a host prefix
 * (/32, /128): with neither, a VIP in the segment's own subnet would reply through the main table's default route,
 * the asymmetric path the uplink exists to avoid. Empty ("none"): no rule would use the table (a rule refuses it).
 */
export function uplinkSources(
  spec: ClusterSpec,
  segment: SegmentSpec,
): { readonly sources: readonly string[]; readonly from: UplinkSourcesFrom } {
  const uplink = segment.uplink;
  if (!uplink) return { sources: [], from: "none" };
  if (uplink.sources !== undefined) return { sources: uplink.sources, from: "sources" };
  if (segment.onLink.length > 0) return { sources: segment.onLink, from: "onLink" };
  const vips =
    spec.externalVips && externalVipInterface(spec) === segment.interface
      ? externalVipAddresses(spec)
          .map((e) => e.address)
          .filter((a) => segmentSubnets(segment).some((n) => cidrContains(n, a)))
      : [];
  if (vips.length > 0)
    return { sources: vips.map((a) => `${a}/${ipFamily(a) === 4 ? 32 : 128}`), from: "external-vips" };
  return { sources: [], from: "none" };
}
