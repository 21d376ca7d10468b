// The cluster spec as the user writes it, assembled from its sections. Each section is one folder under sections/,
// its schema (checks local to one value) beside its cross-field rules (one function each, so each can be tested and
// can warn): nodes, network, control-plane (controlPlane, vrrp, externalVips), kubernetes, cilium, host, overlays,
// cloud and cloud-burst (existingCluster). Kubernetes and DNS names are checked by kubernetes-names.ts, other shared
// values (addresses, interface names, durations, secret references) by fields.ts.
import * as z from "zod";
import { rfc1123Label } from "./kubernetes-names.js";
import { CiliumSchema } from "./sections/cilium/schema.js";
import { CloudSchema, cloudSchemaBuilt } from "./sections/cloud/schema.js";
import { ExistingClusterSchema, existingClusterSchemaBuilt } from "./sections/cloud-burst/schema.js";
import { ControlPlaneSchema, ExternalVipsSchema, VrrpSchema } from "./sections/control-plane/schema.js";
import { HostSchema } from "./sections/host/schema.js";
import { KubernetesSchema } from "./sections/kubernetes/schema.js";
import { NetworkSchema } from "./sections/network/schema.js";
import { NodesSchema } from "./sections/nodes/schema.js";
import { OverlaysSchema } from "./sections/overlays/schema.js";

export { MIN_CILIUM, MIN_KUBERNETES_MINOR } from "../facts/contract.js";
// Constants other modules read from here.
export { WIREGUARD_KEY } from "./sections/cloud/schema.js";

/** Whether this process has built the cloud sections' schemas (tests: a spec without cloud never does). */
export const cloudSchemasBuilt = (): boolean => cloudSchemaBuilt() || existingClusterSchemaBuilt();

// ---- root ----

/** The fields of a cluster spec before `cloud`, in the order the JSON Schema lists them. */
const onPremFields = {
  apiVersion: z.literal("clusterspec/v1alpha1").describe("Spec format version"),
  kind: z.literal("Cluster").describe("Always Cluster"),
  name: rfc1123Label("cluster name").describe("Cluster name (kubeadm clusterName, AWS resource names)"),
  kubernetes: KubernetesSchema,
  network: NetworkSchema,
  controlPlane: ControlPlaneSchema,
  vrrp: VrrpSchema.prefault({}),
  externalVips: ExternalVipsSchema.optional(),
  nodes: NodesSchema,
  host: HostSchema.prefault({}),
  cilium: CiliumSchema,
};
const CLUSTER_SPEC = "clusterspec cluster: one spec, every config file";

export const ClusterSpecSchema = z
  .strictObject({ ...onPremFields, cloud: CloudSchema.optional(), overlays: OverlaysSchema })
  .describe(CLUSTER_SPEC);

/** ClusterSpecSchema without `cloud`: the same parse for a spec that has none, without building the cloud schemas. */
export const OnPremSpecSchema = z.strictObject({ ...onPremFields, overlays: OverlaysSchema }).describe(CLUSTER_SPEC);

/** Sections that describe a cluster to generate; a spec with existingCluster has none of them. */
export const ON_PREM_SECTIONS = ["nodes", "controlPlane", "network", "vrrp", "externalVips", "cilium", "host"] as const;

export const CloudBurstSpecSchema = z
  .strictObject({
    apiVersion: z.literal("clusterspec/v1alpha1").describe("Spec format version"),
    kind: z.literal("Cluster").describe("Always Cluster"),
    name: rfc1123Label("cluster name").describe("Cluster name (AWS resource names, node labels)"),
    existingCluster: ExistingClusterSchema,
    cloud: CloudSchema,
  })
  .describe("clusterspec cloud burst for an existing cluster: cloud/** and PLAN.md only");

/** What `clusterspec schema` describes: a cluster to generate, or the cloud burst of an existing one. */
export const AnySpecSchema = z.union([ClusterSpecSchema, CloudBurstSpecSchema]);

export const isCloudBurstSpec = (spec: AnySpec): spec is CloudBurstSpec => "existingCluster" in spec;

// The spec's types are plain interfaces rendered from this schema (and proven equal to z.input/z.output
// by test/spec-types.test.ts; written by `pnpm codegen`): declaration files then never reach into zod's types.
export type {
  AnySpec,
  CloudBurstSpec,
  CloudBurstSpecInput,
  CloudSpec,
  ClusterSpec,
  ClusterSpecInput,
  InterfaceSpec,
  NodeSpec,
  PoolSpec,
  SecretRef,
  SegmentSpec,
} from "../generated/spec-types.js";

import type { AnySpec, CloudBurstSpec } from "../generated/spec-types.js";
