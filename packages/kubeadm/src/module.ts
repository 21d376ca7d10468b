import { type GeneratorModule, isJsonMap } from "@clusterspec/core";
import { generateKubeadm } from "./generate.js";
import { summarizeKubeadm } from "./summary.js";

/** Each node's kubeadm.yaml and kubelet patch; `kubernetes.kubelet` is merged into the KubeletConfiguration. */
export const kubeadmModule: GeneratorModule = {
  name: "kubeadm",
  generate: generateKubeadm,
  summarize: (plan) => summarizeKubeadm(plan),
  freeForm: [
    {
      specPath: ["kubernetes", "kubelet"],
      value: (plan) => plan.kubernetes.knobs.kubelet,
      carriedBy: (a) => a.schema === "kubeadm",
      readsAt: (_a, document) => isJsonMap(document) && document.kind === "KubeletConfiguration",
    },
  ],
};
