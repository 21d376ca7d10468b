// The Kubernetes RBAC the provisioner needs for the node lifecycle of the contract: without a cloud controller
// manager nothing else deletes the Node of a terminated burst instance, so the provisioner does, on `terminated`.
import { type BurstPlan, toYamlDocuments } from "@clusterspec/core";

export const RBAC_PATH = "cloud/provisioner/rbac.yaml";

/** The provisioner's identity in the cluster: a ServiceAccount in the provisioner's namespace. */
export const PROVISIONER_SERVICE_ACCOUNT = "clusterspec-provisioner";

/** What the provisioner may do with Nodes: read one (to compare its providerID) and delete it. Nothing else. */
export const NODE_VERBS = ["get", "delete"] as const;

export function provisionerRbacName(plan: BurstPlan): string {
  return `clusterspec-provisioner-${plan.name}`.slice(0, 253);
}

/** The ClusterRole and its binding to the provisioner's ServiceAccount, as the documents of rbac.yaml. */
export function provisionerRbac(plan: BurstPlan): Record<string, unknown>[] {
  const cloud = plan.cloud;
  if (!cloud) return [];
  const name = provisionerRbacName(plan);
  const labels = { "app.kubernetes.io/managed-by": "clusterspec", [cloud.peerSecret.labels.cluster]: plan.name };
  return [
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: PROVISIONER_SERVICE_ACCOUNT, namespace: cloud.provisioner.namespace, labels },
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRole",
      metadata: { name, labels },
      rules: [{ apiGroups: [""], resources: ["nodes"], verbs: [...NODE_VERBS] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "ClusterRoleBinding",
      metadata: { name, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
      subjects: [{ kind: "ServiceAccount", name: PROVISIONER_SERVICE_ACCOUNT, namespace: cloud.provisioner.namespace }],
    },
  ];
}

export function renderRbac(plan: BurstPlan, marker: string): string | undefined {
  const docs = provisionerRbac(plan);
  if (docs.length === 0) return undefined;
  return `# ${marker}\n${toYamlDocuments(docs)}`;
}
