import { type Artifact, type ClusterPlan, generatedMarker, toYaml, toYamlDocuments } from "@clusterspec/core";
import { carriesSecret, KUBELET_PATCH_FILE, kubeadmDocuments, kubeletPatch, PATCHES_DIRECTORY } from "./documents.js";

export function generateKubeadm(plan: ClusterPlan): Artifact[] {
  const header = `# ${generatedMarker(plan)}\n`;
  return plan.nodes.flatMap((node) => {
    const config: Artifact = {
      path: `nodes/${node.name}/kubeadm.yaml`,
      content: header + toYamlDocuments(kubeadmDocuments(plan, node)),
      schema: "kubeadm",
      ...(carriesSecret(plan, node) ? { secret: true, mode: 0o600 } : {}),
    };
    const patch = kubeletPatch(plan, node);
    if (!patch) return [config];
    return [
      config,
      {
        path: `nodes/${node.name}${PATCHES_DIRECTORY}/${KUBELET_PATCH_FILE}`,
        content: header + toYaml(patch),
        schema: "kubelet-patch",
      },
    ];
  });
}
