// The network planner: the Kubernetes segment, every segment, and the policy-routing table of each uplink.
import { kubernetesSegment } from "../facts/spec.js";
import { InternalError } from "../issues.js";
import type { ClusterSpec } from "../spec/schema.js";
import type { NetworkPlan, PolicyRoute } from "./types.js";

export function planNetwork(spec: ClusterSpec): NetworkPlan {
  const k8s = kubernetesSegment(spec);
  if (!k8s) throw new InternalError("resolvePlan needs a validated spec");
  const segments = spec.network.segments;
  const policyRoutes = segments.flatMap((seg): PolicyRoute[] =>
    seg.uplink
      ? [
          {
            segment: seg,
            interface: seg.interface,
            table: seg.uplink.routingTable,
            gateway: seg.uplink.gateway,
            sources: seg.uplink.sources ?? seg.onLink,
          },
        ]
      : [],
  );
  return {
    kubernetesSegment: k8s,
    segments,
    nameservers: spec.network.nameservers,
    searchDomains: spec.network.searchDomains,
    policyRoutes,
  };
}
