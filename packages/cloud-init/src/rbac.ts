// The Kubernetes identity of the provisioner, as narrow as its work: the Namespace and ServiceAccount it runs as;
// get/list/delete on Nodes, with a ValidatingAdmissionPolicy that lets it delete only burst Nodes (providerID
// `aws:///…`); the slot Secrets of its own namespace; and create/delete of Secrets in kube-system, which a second
// policy limits to bootstrap tokens. Without a cloud controller manager nothing else deletes the Node of a terminated
// burst instance, so the provisioner does, on `terminated` and when it reconciles.
import { type BurstPlan, toYamlDocuments } from "@clusterspec/core";

export const RBAC_PATH = "cloud/provisioner/rbac.yaml";

/** The provisioner's identity in the cluster: a ServiceAccount in the provisioner's namespace. */
export const PROVISIONER_SERVICE_ACCOUNT = "clusterspec-provisioner";

/** What the provisioner may do with Nodes: read them (providerID; list to reconcile) and delete burst ones. */
export const NODE_VERBS = ["get", "list", "delete"] as const;
/** On the slot Secrets of its namespace: read them, and update their labels, annotations and data. */
export const SLOT_SECRET_VERBS = ["get", "list", "update", "patch"] as const;
/** In kube-system: create and delete bootstrap-token Secrets (by name; a policy refuses any other type). */
export const TOKEN_SECRET_VERBS = ["create", "delete"] as const;
/** The providerID prefix of a burst Node; the admission policy refuses deleting any other Node. */
export const BURST_PROVIDER_PREFIX = "aws:///";
export const BOOTSTRAP_TOKEN_TYPE = "bootstrap.kubernetes.io/token";

export function provisionerRbacName(plan: BurstPlan): string {
  return `clusterspec-provisioner-${plan.name}`.slice(0, 253);
}

/** The Namespace, ServiceAccount, roles, bindings and admission policies, as the documents of rbac.yaml. */
export function provisionerRbac(plan: BurstPlan): Record<string, unknown>[] {
  const cloud = plan.cloud;
  if (!cloud) return [];
  const name = provisionerRbacName(plan);
  const ns = cloud.provisioner.namespace;
  const labels = { "app.kubernetes.io/managed-by": "clusterspec", [cloud.peerSecret.labels.cluster]: plan.name };
  const subject = { kind: "ServiceAccount", name: PROVISIONER_SERVICE_ACCOUNT, namespace: ns };
  const username = `system:serviceaccount:${ns}:${PROVISIONER_SERVICE_ACCOUNT}`;
  const onlyTheProvisioner = [{ name: "is-the-provisioner", expression: `request.userInfo.username == '${username}'` }];
  const policy = (
    suffix: string,
    rules: Record<string, unknown>[],
    expression: string,
    message: string,
    namespaced?: string,
  ): Record<string, unknown>[] => [
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicy",
      metadata: { name: `${name}-${suffix}`.slice(0, 253), labels },
      spec: {
        failurePolicy: "Fail",
        matchConstraints: { resourceRules: rules },
        matchConditions: onlyTheProvisioner,
        validations: [{ expression, message }],
      },
    },
    {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingAdmissionPolicyBinding",
      metadata: { name: `${name}-${suffix}`.slice(0, 253), labels },
      spec: {
        policyName: `${name}-${suffix}`.slice(0, 253),
        validationActions: ["Deny"],
        ...(namespaced === undefined
          ? {}
          : { matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": namespaced } } } }),
      },
    },
  ];
  return [
    { apiVersion: "v1", kind: "Namespace", metadata: { name: ns, labels } },
    {
      apiVersion: "v1",
      kind: "ServiceAccount",
      metadata: { name: PROVISIONER_SERVICE_ACCOUNT, namespace: ns, labels },
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
      subjects: [subject],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace: ns, labels },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: [...SLOT_SECRET_VERBS] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace: ns, labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [subject],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "Role",
      metadata: { name, namespace: "kube-system", labels },
      rules: [{ apiGroups: [""], resources: ["secrets"], verbs: [...TOKEN_SECRET_VERBS] }],
    },
    {
      apiVersion: "rbac.authorization.k8s.io/v1",
      kind: "RoleBinding",
      metadata: { name, namespace: "kube-system", labels },
      roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
      subjects: [subject],
    },
    ...policy(
      "burst-nodes",
      [{ apiGroups: [""], apiVersions: ["v1"], operations: ["DELETE"], resources: ["nodes"] }],
      `has(oldObject.spec.providerID) && oldObject.spec.providerID.startsWith('${BURST_PROVIDER_PREFIX}')`,
      `the provisioner of cluster ${plan.name} deletes only burst Nodes (providerID ${BURST_PROVIDER_PREFIX}…)`,
    ),
    ...policy(
      "bootstrap-tokens",
      [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "DELETE"], resources: ["secrets"] }],
      `(request.operation == 'DELETE' ? oldObject : object).type == '${BOOTSTRAP_TOKEN_TYPE}'`,
      `the provisioner of cluster ${plan.name} creates and deletes only bootstrap tokens in kube-system`,
      "kube-system",
    ),
  ];
}

export function renderRbac(plan: BurstPlan, marker: string): string | undefined {
  const docs = provisionerRbac(plan);
  if (docs.length === 0) return undefined;
  return `# ${marker}\n${toYamlDocuments(docs)}`;
}
