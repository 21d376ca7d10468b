import { type Artifact, type BurstPlan, generatedMarker, toYamlDocuments } from "@clusterspec/core";
import { hubConfig, PEER_SECRETS_PATH, peerSecrets } from "./config.js";

export function generateWireguard(plan: BurstPlan): Artifact[] {
  const cloud = plan.cloud;
  const hub = cloud?.hub;
  if (!cloud || !hub?.configPath) return [];
  const out: Artifact[] = [];
  const conf = hubConfig(plan, cloud);
  if (conf !== undefined) out.push({ path: hub.configPath, content: conf, secret: true });
  if (cloud.peerKeys === "static")
    out.push({
      path: PEER_SECRETS_PATH,
      content: `# ${generatedMarker(plan)}\n${toYamlDocuments(peerSecrets(plan, cloud))}`,
      secret: true,
    });
  return out;
}
