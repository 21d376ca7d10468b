// resolvePlan composes one planner per section, in dependency order: each fact is derived once, in its
// section's planner, and later planners take the plan parts they need rather than working them out again.
import { asList } from "../facts/families.js";
import type { Identities } from "../facts/identities.js";
import { ipFamily } from "../ip.js";
import { resolveSecrets, type SecretValues } from "../secrets.js";
import { type AnySpec, type CloudBurstSpec, type ClusterSpec, isCloudBurstSpec } from "../spec/schema.js";
import { planCloud, planClusterCloud, planExistingKubernetes } from "./burst.js";
import { planCilium } from "./cilium.js";
import { planHost } from "./host.js";
import { planKubernetes, planVersion } from "./kubeadm.js";
import { planNetwork } from "./network.js";
import { planNodes, rolesOf } from "./nodes.js";
import type { AnyPlan, CloudBurstPlan, ClusterPlan } from "./types.js";
import { planControlPlane, planVips, planVrrp, vipInterfacesOf } from "./vrrp.js";

export interface ResolveOptions {
  /** Spec file name for the generated-file header; default `cluster.yaml`. */
  readonly sourceName?: string;
  /** Resolved secret values; absent ones become placeholders. */
  readonly secrets?: SecretValues;
  /**
   * The previous tree's identities.json (checked with parseIdentities): VIP priority orders are carried forward from
   * it. Without it they are positional (day 1).
   */
  readonly identities?: Identities;
}

/**
 * Everything derived from a validated spec, once. Generators read only this.
 * Throws InternalError on a spec that did not pass validateSpec.
 */
export function resolvePlan(spec: ClusterSpec, options?: ResolveOptions): ClusterPlan;
export function resolvePlan(spec: CloudBurstSpec, options?: ResolveOptions): CloudBurstPlan;
export function resolvePlan(spec: AnySpec, options?: ResolveOptions): AnyPlan;
export function resolvePlan(spec: AnySpec, options: ResolveOptions = {}): AnyPlan {
  return isCloudBurstSpec(spec) ? resolveCloudBurstPlan(spec, options) : resolveClusterPlan(spec, options);
}

/** The plan of a cloud-burst-only spec: the existing cluster's facts and the burst side. */
function resolveCloudBurstPlan(spec: CloudBurstSpec, options: ResolveOptions): CloudBurstPlan {
  const e = spec.existingCluster;
  const kubernetes = planExistingKubernetes(e);
  const secrets = resolveSecrets(spec, options.secrets ?? {});
  return {
    sourceName: options.sourceName ?? "cluster.yaml",
    name: spec.name,
    existingCluster: { endpoint: e.endpoint, onPremNetworks: e.onPremNetworks },
    kubernetes,
    cloud: planCloud(spec.cloud, {
      clusterName: spec.name,
      kubernetes,
      apiServerEndpoint: e.endpoint,
      nameservers: e.nameservers,
      searchDomains: e.searchDomains,
      onPremNetworks: e.onPremNetworks,
      families: asList(e.podSubnet).map((n) => ipFamily(n)),
      hubNode: undefined,
      secrets,
    }),
    secrets,
  };
}

function resolveClusterPlan(spec: ClusterSpec, options: ResolveOptions): ClusterPlan {
  const version = planVersion(spec.kubernetes.version);
  const network = planNetwork(spec);
  const roles = rolesOf(spec);
  const vipInterfaces = vipInterfacesOf(spec);
  const vips = planVips(spec, vipInterfaces, roles, options.identities?.vips);
  const controlPlane = planControlPlane(spec, vips);
  const { nodes, initNode, bootstrap, hubNode } = planNodes(spec, { version, network, roles, vips, vipInterfaces });
  const kubernetes = planKubernetes(spec, { version, controlPlane, nodes });
  const vrrp = planVrrp(spec, { network, vipInterfaces, roles });
  const secrets = resolveSecrets(spec, options.secrets ?? {});
  const onPremNodes = nodes.flatMap((n) => n.internalAddresses);
  const hubPlanned = nodes.find((n) => n.name === hubNode);
  const hub6 = hubPlanned?.interfaces.find((f) => f.name === hubPlanned.internalInterface)?.address6;
  const cloud = planClusterCloud(spec, { kubernetes, controlPlane, network, hubNode, secrets, onPremNodes, hub6 });
  const cilium = planCilium(spec, { network, cloud, vipInterfaces });
  return {
    sourceName: options.sourceName ?? "cluster.yaml",
    name: spec.name,
    kubernetes,
    network,
    controlPlane,
    vips,
    vrrp,
    nodes,
    initNode,
    bootstrap,
    host: planHost(spec),
    cilium,
    cloud,
    secrets,
    overlays: spec.overlays,
  };
}
