import { type Artifact, type ClusterPlan, type GeneratorModule, toYaml } from "@clusterspec/core";
import { summarizeHost } from "./summary.js";
import {
  renderAcceptKeywords,
  renderFstabLine,
  renderHosts,
  renderKubeletConfd,
  renderModules,
  renderRcConf,
  renderResolvConf,
  renderSysctl,
  renderUdevRules,
} from "./template.js";
import { type HostView, toHostView } from "./view.js";

export const SYSCTL_FILE = "etc/sysctl.d/90-kubernetes.conf";

/** crictl's config (YAML): both endpoints on the CRI socket kubeadm uses. */
export function renderCrictlYaml(view: HostView, criSocket: string): string {
  return `# ${view.marker}\n${toYaml({ "runtime-endpoint": criSocket, "image-endpoint": criSocket, timeout: 10 })}`;
}

export function generateHost(plan: ClusterPlan): Artifact[] {
  return plan.nodes.flatMap((node) => {
    const v = toHostView(plan, node);
    const at = (p: string, content: string): Artifact => ({ path: `nodes/${node.name}/${p}`, content });
    return [
      at(SYSCTL_FILE, renderSysctl(v)),
      at("etc/hosts", renderHosts(v)),
      at("etc/resolv.conf", renderResolvConf(v)),
      at("etc/conf.d/modules", renderModules(v)),
      at("etc/conf.d/kubelet", renderKubeletConfd(v)),
      at("etc/crictl.yaml", renderCrictlYaml(v, plan.kubernetes.criSocket)),
      at("etc/udev/rules.d/70-persistent-net.rules", renderUdevRules(v)),
      at("etc/fstab.clusterspec", renderFstabLine(v)),
      at("etc/rc.conf.clusterspec", renderRcConf(v)),
      ...(plan.host.gentooPackages
        ? [at("etc/portage/package.accept_keywords/kubernetes", renderAcceptKeywords(v))]
        : []),
    ];
  });
}

export const hostModule: GeneratorModule = { name: "host", generate: generateHost, summarize: summarizeHost };
