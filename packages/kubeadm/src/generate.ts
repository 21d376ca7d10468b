import { type Artifact, type ClusterPlan, generatedMarker, toYaml, toYamlDocuments } from "@clusterspec/core";
import {
  authenticationConfiguration,
  CLUSTER_CONFIG_PATH,
  carriesSecret,
  clusterConfigDocuments,
  KUBELET_PATCH_FILE,
  kubeadmDocuments,
  kubeletPatch,
  PATCHES_DIRECTORY,
} from "./documents.js";

export function generateKubeadm(plan: ClusterPlan): Artifact[] {
  const header = `# ${generatedMarker(plan)}\n`;
  const clusterDocuments = clusterConfigDocuments(plan);
  const clusterConfig: Artifact[] =
    clusterDocuments === undefined
      ? []
      : [{ path: CLUSTER_CONFIG_PATH, content: header + toYamlDocuments(clusterDocuments), schema: "kubeadm" }];
  const authentication = authenticationConfiguration(plan);
  const perNode = plan.nodes.flatMap((node): Artifact[] => {
    // Every control plane's kube-apiserver reads it (a joining control plane gets the flag from the cluster's
    // ClusterConfiguration, not the file): the node folder is a root-filesystem overlay.
    const auth: Artifact[] =
      authentication === undefined || !node.controlPlane
        ? []
        : [
            {
              path: `nodes/${node.name}${plan.kubernetes.knobs.apiServerAuthentication?.path}`,
              content: header + toYaml(authentication),
            },
          ];
    const config: Artifact = {
      path: `nodes/${node.name}/kubeadm.yaml`,
      content: header + toYamlDocuments(kubeadmDocuments(plan, node)),
      schema: "kubeadm",
      ...(carriesSecret(plan, node) ? { secret: true, mode: 0o600 } : {}),
    };
    const patch = kubeletPatch(plan, node);
    if (!patch) return [config, ...auth];
    return [
      config,
      ...auth,
      {
        path: `nodes/${node.name}${PATCHES_DIRECTORY}/${KUBELET_PATCH_FILE}`,
        content: header + toYaml(patch),
        schema: "kubelet-patch",
      },
    ];
  });
  return [...clusterConfig, ...perNode];
}
