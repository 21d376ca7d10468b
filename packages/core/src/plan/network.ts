// The network planner: the Kubernetes segment, every segment, and the policy-routing table of each uplink.
import { kubernetesSegment } from "../facts/spec.js";
import { uplinkSources } from "../facts/uplink.js";
import { InternalError } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import type { NetworkPlan, PlannedSegment, PolicyRoute } from "./types.js";

export function planNetwork(spec: ClusterSpec): NetworkPlan {
  const k8s = kubernetesSegment(spec);
  if (!k8s) throw new InternalError("resolvePlan needs a validated spec");
  const segments = spec.network.segments.map(
    (seg): PlannedSegment => ({
      name: seg.name,
      interface: seg.interface,
      subnet: seg.subnet,
      subnet6: seg.subnet6,
      onLink: seg.onLink,
      uplink: seg.uplink && {
        gateway: seg.uplink.gateway,
        gateway6: seg.uplink.gateway6,
        table: seg.uplink.routingTable,
        sources: uplinkSources(spec, seg).sources,
      },
    }),
  );
  const planned = segments[spec.network.segments.indexOf(k8s)];
  if (!planned) throw new InternalError("resolvePlan needs a validated spec");
  const policyRoutes = segments.flatMap((segment): PolicyRoute[] =>
    segment.uplink ? [{ segment, interface: segment.interface, ...segment.uplink }] : [],
  );
  return {
    kubernetesSegment: planned,
    segments,
    nameservers: spec.network.nameservers,
    searchDomains: spec.network.searchDomains,
    policyRoutes,
  };
}
