import type { Artifact, ArtifactBlock, ArtifactScope, GenerationMemo, PlannedNode } from "@clusterspec/core";
import {
  blockArtifact,
  IDENTITIES_FILE,
  identitiesOf,
  linePart,
  nodesInScope,
  scopeNode,
  stableJson,
} from "@clusterspec/core";
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
  type KeepalivedInputs,
  OPENRC_CONF,
  READINESS_SCRIPT,
  toAuthView,
  toCheckScriptView,
  toKeepalivedNodeView,
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
export function generateKeepalived(plan: KeepalivedInputs, scope?: ArtifactScope, memo?: GenerationMemo): Artifact[] {
  const nodes = nodesInScope(plan.nodes, scope);
  const identities = scope === undefined || scopeNode(scope) === undefined ? [identitiesArtifact(plan)] : [];
  return [...identities, ...nodeArtifacts(plan, nodes, memo)];
}

/** The start of an entry of identities.json's `vips`: four spaces in, where the nodes are six in. */
const VIP_ENTRY = '\n    "';

/**
 * identities.json, stableJson's text cut into blocks: the head, one block per VIP (keyed by its entry's first
 * line), the tail. On 300 × 254 the file is 65,000 lines, and a change plan diffs it block by block.
 */
function identitiesArtifact(plan: KeepalivedInputs): Artifact {
  const text = stableJson(identitiesOf(plan.vips));
  const blocks: ArtifactBlock[] = [];
  const tail = text.lastIndexOf("\n  }") + 1; // the line that closes `vips` (0: no entries)
  let key = "#head";
  let start = 0;
  for (let at = text.indexOf(VIP_ENTRY); at >= 0 && at < tail; at = text.indexOf(VIP_ENTRY, at + 1)) {
    blocks.push({ key, parts: [linePart(text.slice(start, at + 1))] });
    start = at + 1;
    key = text.slice(start, text.indexOf("\n", start) + 1);
  }
  if (tail > start) {
    blocks.push({ key, parts: [linePart(text.slice(start, tail))] });
    [key, start] = ["#tail", tail];
  }
  blocks.push({ key, parts: [linePart(text.slice(start))] });
  // the text is at hand: content need not be joined from the blocks
  return { path: IDENTITIES_FILE, content: text, blocks };
}

function nodeArtifacts(plan: KeepalivedInputs, nodes: readonly PlannedNode[], memo?: GenerationMemo): Artifact[] {
  if (nodes.length === 0) return [];
  const auth = toAuthView(plan);
  const authContent = auth && renderAuthConf(auth);
  const openrcView = toOpenrcView(plan);
  const openrc = openrcView && renderOpenrcConf(openrcView);
  const readiness = plan.vrrp.readinessCheck && renderReadinessScript(toReadinessScriptView(plan));
  const uplink = plan.vrrp.uplinkCheck && renderUplinkScript(toUplinkScriptView(plan));
  const renderKeepalivedConf = keepalivedConfRenderer(memo);
  return nodes.flatMap((node) => {
    const vips = vipsOf(plan, node.name);
    if (vips.length === 0) return [];
    const dir = `nodes/${node.name}`;
    const path = `${dir}/etc/keepalived/keepalived.conf`;
    const conf = renderKeepalivedConf(toKeepalivedNodeView(plan, node));
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
