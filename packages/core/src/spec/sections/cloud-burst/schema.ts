// The existingCluster section of a cloud-burst spec: the cluster, managed by other means, that only the cloud burst
// is generated for (its cloud: section is ../cloud/). Built on first use, as the cloud section is. Rules: ./rules.ts.
import * as z from "zod";
import { hostPort, ipAddress, networkCidr, SecretRefSchema } from "../../fields.js";
import { clusterDnsDomain, searchDomains } from "../../kubernetes-names.js";
import { familySubnets, kubernetesVersion } from "../kubernetes/schema.js";

function buildExistingClusterSchema() {
  const ExistingClusterSchema = z
    .strictObject({
      endpoint: hostPort().describe("API server endpoint the burst nodes join (host:port, IP or DNS name)"),
      caCertHash: SecretRefSchema.describe("discovery CA certificate hash (sha256:<64 hex>) of the cluster"),
      kubernetesVersion: kubernetesVersion().describe(
        "Kubernetes version the cluster runs, e.g. v1.34.2 (1.22 and newer)",
      ),
      podSubnet: familySubnets("pod network").describe(
        "The cluster's pod network; dual stack: one network per family, the primary family first",
      ),
      serviceSubnet: familySubnets("service network")
        .default("10.96.0.0/12")
        .describe("The cluster's service network; dual stack: one network per family, in the pod network's order"),
      dnsDomain: clusterDnsDomain(),
      cgroupDriver: z
        .enum(["cgroupfs", "systemd"])
        .default("systemd")
        .describe("The cgroup driver of the cluster's KubeletConfiguration; cri-o on the burst nodes follows it"),
      onPremNetworks: z
        .array(networkCidr())
        .min(1)
        .describe("On-prem networks the burst nodes reach through the tunnel (nodes, API endpoint, hub)"),
      nameservers: z.array(ipAddress()).min(1).describe("DNS servers of the burst nodes after tunnel-up (at most 2)"),
      searchDomains: searchDomains("DNS search domains of the burst nodes (at most 6)"),
    })
    .describe("A cluster that exists already, managed by other means: only its cloud burst is generated");
  return ExistingClusterSchema;
}

let existingClusterSchema: ReturnType<typeof buildExistingClusterSchema> | undefined;
/** Whether this process has built the existingCluster section's schema. */
export const existingClusterSchemaBuilt = (): boolean => existingClusterSchema !== undefined;
export const ExistingClusterSchema = z.lazy(() => (existingClusterSchema ??= buildExistingClusterSchema()));
