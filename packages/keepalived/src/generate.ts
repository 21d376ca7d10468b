import type { Artifact, ArtifactBlock, ArtifactScope, ClusterPlan } from "@clusterspec/core";
import { blockArtifact, IDENTITIES_FILE, identitiesOf, nodesInScope, scopeNode, stableJson } from "@clusterspec/core";
import { keepalivedConfRenderer } from "./render.js";
import {
  renderAuthConf,
  renderCheckScript,
  renderOpenrcConf,
  renderReadinessScript,
  renderUplinkScript,
} from "./template.js";
import {
  AUTH_FILE,
  CHECK_SCRIPT,
  CHECK_SCRIPT6,
  OPENRC_CONF,
  READINESS_SCRIPT,
  toAuthView,
  toCheckScriptView,
  toKeepalivedView,
  toOpenrcView,
  toReadinessScriptView,
  toUplinkScriptView,
  UPLINK_SCRIPT,
  vipsOf,
} from "./view.js";

/**
 * keepalived.conf, the auth include (0600), the check scripts (0755) and the OpenRC start precondition
 * (`/etc/conf.d/keepalived`) for every node that holds a VIP; and `identities.json` at the top of the tree, every
 * VIP's priority order after this run, which the next run carries forward (the previous assignment is an input).
 */
/** With a scope (explain): only the scope's node's files, or only identities.json for a cluster-wide one. */
export function generateKeepalived(plan: ClusterPlan, scope?: ArtifactScope): Artifact[] {
  const nodes = nodesInScope(plan.nodes, scope);
  const identities = scope === undefined || scopeNode(scope) === undefined ? [identitiesArtifact(plan)] : [];
  return [...identities, ...nodeArtifacts(plan, nodes)];
}

/** An entry of identities.json's `vips`: its first line, four spaces in (the nodes are six in). */
const VIP_ENTRY = /^ {4}"/;

/**
 * identities.json, stableJson's text cut into blocks: the head, one block per VIP (keyed by its entry's first
 * line), the tail. On 300 × 254 the file is 65,000 lines, and a change plan diffs it block by block.
 */
function identitiesArtifact(plan: ClusterPlan): Artifact {
  const text = stableJson(identitiesOf(plan.vips));
  const blocks: ArtifactBlock[] = [];
  let key = "#head";
  let start = 0;
  for (let at = 0; at < text.length; ) {
    const end = text.indexOf("\n", at) + 1 || text.length;
    const line = text.slice(at, end);
    const next = VIP_ENTRY.test(line) ? line : line.startsWith("  }") ? "#tail" : undefined;
    if (next !== undefined && at > start) {
      blocks.push({ key, parts: [text.slice(start, at)] });
      start = at;
    }
    if (next !== undefined) key = next;
    at = end;
  }
  blocks.push({ key, parts: [text.slice(start)] });
  return blockArtifact(IDENTITIES_FILE, blocks);
}

function nodeArtifacts(plan: ClusterPlan, nodes: readonly ClusterPlan["nodes"][number][]): Artifact[] {
  if (nodes.length === 0) return [];
  const auth = toAuthView(plan);
  const authContent = auth && renderAuthConf(auth);
  const openrcView = toOpenrcView(plan);
  const openrc = openrcView && renderOpenrcConf(openrcView);
  const readiness = plan.vrrp.readinessCheck && renderReadinessScript(toReadinessScriptView(plan));
  const uplink = plan.vrrp.uplinkCheck && renderUplinkScript(toUplinkScriptView(plan));
  const renderKeepalivedConf = keepalivedConfRenderer();
  return nodes.flatMap((node) => {
    const vips = vipsOf(plan, node.name);
    if (vips.length === 0) return [];
    const dir = `nodes/${node.name}`;
    const path = `${dir}/etc/keepalived/keepalived.conf`;
    const conf = renderKeepalivedConf(toKeepalivedView(plan, node));
    const out: Artifact[] = [typeof conf === "string" ? { path, content: conf } : blockArtifact(path, conf)];
    if (authContent) out.push({ path: `${dir}${AUTH_FILE}`, content: authContent, secret: true, mode: 0o600 });
    if (vips.some((v) => v.kind === "control-plane"))
      out.push({
        path: `${dir}${CHECK_SCRIPT}`,
        content: renderCheckScript(toCheckScriptView(plan, node)),
        mode: 0o755,
      });
    if (plan.controlPlane.vip.pair6 && vips.some((v) => v.kind === "control-plane"))
      out.push({
        path: `${dir}${CHECK_SCRIPT6}`,
        content: renderCheckScript(toCheckScriptView(plan, node, 6)),
        mode: 0o755,
      });
    const external = vips.some((v) => v.kind === "external");
    if (external && readiness) out.push({ path: `${dir}${READINESS_SCRIPT}`, content: readiness, mode: 0o755 });
    if (external && uplink) out.push({ path: `${dir}${UPLINK_SCRIPT}`, content: uplink, mode: 0o755 });
    if (openrc) out.push({ path: `${dir}${OPENRC_CONF}`, content: openrc });
    return out;
  });
}
