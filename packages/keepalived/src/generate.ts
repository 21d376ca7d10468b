import type { Artifact, ClusterPlan, GeneratorModule } from "@clusterspec/core";
import { summarizeKeepalived } from "./summary.js";
import { renderAuthConf, renderCheckScript, renderKeepalivedConf } from "./template.js";
import { AUTH_FILE, CHECK_SCRIPT, toAuthView, toCheckScriptView, toKeepalivedView, vipsOf } from "./view.js";

/** keepalived.conf, the auth include (0600) and the apiserver check (0755) for every node that holds a VIP. */
export function generateKeepalived(plan: ClusterPlan): Artifact[] {
  const auth = toAuthView(plan);
  const authContent = auth && renderAuthConf(auth);
  return plan.nodes.flatMap((node) => {
    const vips = vipsOf(plan, node.name);
    if (vips.length === 0) return [];
    const dir = `nodes/${node.name}`;
    const out: Artifact[] = [
      { path: `${dir}/etc/keepalived/keepalived.conf`, content: renderKeepalivedConf(toKeepalivedView(plan, node)) },
    ];
    if (authContent) out.push({ path: `${dir}${AUTH_FILE}`, content: authContent, secret: true, mode: 0o600 });
    if (vips.some((v) => v.kind === "control-plane"))
      out.push({
        path: `${dir}${CHECK_SCRIPT}`,
        content: renderCheckScript(toCheckScriptView(plan, node)),
        mode: 0o755,
      });
    return out;
  });
}

export const keepalivedModule: GeneratorModule = {
  name: "keepalived",
  generate: generateKeepalived,
  summarize: summarizeKeepalived,
};
