// Overlays: RFC 7386 merge patches over generated YAML/JSON artifacts, in spec order. Pure: the patched artifacts
// come back with what each overlay changed, so the caller can re-check them against their upstream schemas.
import type { Artifact } from "../artifact.js";
import { terraformLiterals } from "../escape.js";
import type { IssuePath, SpecIssue } from "../issues.js";
import { stableJson } from "../serialize/json.js";
import { parseYamlDocuments, toYaml, toYamlDocuments } from "../serialize/yaml.js";
import type { Overlay } from "../spec/knob-types.js";
import { globToRegExp } from "./glob.js";
import { changedValues, isJsonMap, mergePatch, toPointer } from "./merge-patch.js";

/** Where a patched document came from: for naming `overlays[i].patch…` when its schema check fails. */
export interface AppliedPatch {
  readonly overlay: number;
  readonly document: number;
  readonly patch: Record<string, unknown>;
}

export interface OverlayOutcome {
  readonly artifacts: Artifact[];
  readonly errors: SpecIssue[];
  readonly warnings: SpecIssue[];
  /** Per overlay, in spec order: the files it changed. */
  readonly changed: readonly { readonly overlay: Overlay; readonly files: readonly string[] }[];
  /** Per patched artifact path. */
  readonly applied: ReadonlyMap<string, readonly AppliedPatch[]>;
}

/** Line-format files are rendered from typed fields only: the fields to use instead of a patch. */
const TYPED_FIELDS: readonly (readonly [RegExp, string])[] = [
  [/keepalived\.conf$/, "controlPlane, vrrp and externalVips"],
  [/etc\/conf\.d\/net$/, "nodes[].interfaces and network.segments"],
  [/rt_tables/, "network.segments[].uplink.routingTable"],
  [/sysctl\.d\//, "host.sysctl"],
  [/etc\/hosts$/, "nodes[].name, the internal addresses and controlPlane.dnsName"],
  [/resolv\.conf$/, "network.nameservers and network.searchDomains"],
  [/conf\.d\/kubelet$/, "kubernetes.kubelet (KubeletConfiguration fields)"],
  [/crictl\.yaml$/, "kubernetes.criSocket"],
  [/modules-load|conf\.d\/modules/, "(fixed: the modules Kubernetes needs)"],
  [/udev/, "nodes[].interfaces (name and mac)"],
  [/fstab/, "(fixed: the bpf mount Cilium needs)"],
  [/portage/, "host.gentooPackages and kubernetes.version"],
  [/^PLAN\.md$/, "(a summary of the spec: change the spec)"],
  [/user-data\.gz\.b64$/, "the user-data.yaml beside it (it is derived from that file)"],
];

function typedFieldsFor(path: string): string {
  return TYPED_FIELDS.find(([re]) => re.test(path))?.[1] ?? "the typed fields of the spec (docs/spec-reference.md)";
}

/** The comment lines before the first document (the generated-file marker, `#cloud-config`): kept as they are. */
function leadingComments(text: string): string {
  const lines = text.split("\n");
  let n = 0;
  while (n < lines.length && (lines[n] ?? "").startsWith("#")) n++;
  return lines
    .slice(0, n)
    .map((l) => `${l}\n`)
    .join("");
}

interface Parsed {
  readonly docs: unknown[];
  readonly render: (docs: unknown[]) => string;
}

function parse(a: Artifact): Parsed {
  if (a.path.endsWith(".json")) return { docs: [JSON.parse(a.content)], render: (d) => stableJson(d[0]) };
  const header = leadingComments(a.content);
  const docs = parseYamlDocuments(a.content);
  return {
    docs,
    render: (d) => header + (d.length === 1 ? toYaml(d[0]) : toYamlDocuments(d)),
  };
}

const kindOf = (doc: unknown): string | undefined =>
  isJsonMap(doc) && typeof doc.kind === "string" ? doc.kind : undefined;

/** Applies every overlay in order. Errors: a target that matches nothing or a line-format file, a missing document. */
export function applyOverlays(artifacts: readonly Artifact[], overlays: readonly Overlay[]): OverlayOutcome {
  const errors: SpecIssue[] = [];
  const warnings: SpecIssue[] = [];
  const error = (path: IssuePath, message: string) =>
    errors.push({ path, message, severity: "error", code: "overlay" });
  const parsed = new Map<string, Parsed>();
  const applied = new Map<string, AppliedPatch[]>();
  const changed: { overlay: Overlay; files: string[] }[] = [];

  overlays.forEach((overlay, i) => {
    const re = globToRegExp(overlay.target);
    const matches = artifacts.filter((a) => re.test(a.path));
    const files: string[] = [];
    changed.push({ overlay, files });
    if (matches.length === 0) {
      error(
        ["overlays", i, "target"],
        `overlay target ${overlay.target} matches no generated file (paths look like nodes/<node>/kubeadm.yaml, cluster/cilium-values.yaml, cloud/<pool>/user-data.yaml, cloud/terraform/<name>.tf.json)`,
      );
      return;
    }
    const lineFormat = matches.filter((a) => a.schema === undefined);
    const first = lineFormat[0];
    if (first)
      error(
        ["overlays", i, "target"],
        `overlay target ${overlay.target} matches ${first.path}${lineFormat.length > 1 ? ` (and ${lineFormat.length - 1} more)` : ""}, which is not a YAML/JSON file with an upstream schema and cannot be patched: set ${typedFieldsFor(first.path)} instead`,
      );
    if (lineFormat.length > 0) return;
    let documentFound = false;
    for (const a of matches) {
      let p = parsed.get(a.path);
      if (!p) {
        p = parse(a);
        parsed.set(a.path, p);
      }
      const kinds = p.docs.map(kindOf);
      let index: number;
      if (overlay.document !== undefined) {
        index = kinds.indexOf(overlay.document);
        if (index < 0) continue;
      } else if (p.docs.length > 1) {
        error(
          ["overlays", i, "target"],
          `${a.path} holds ${p.docs.length} documents (${kinds.join(", ")}): name the one to patch with document`,
        );
        continue;
      } else index = 0;
      documentFound = true;
      const before = p.docs[index];
      for (const c of changedValues(before, overlay.patch))
        warnings.push({
          path: ["overlays", i, "patch", ...c.path],
          severity: "warning",
          code: "overlay",
          message: `overlay ${c.after === undefined ? "deletes" : "changes"} a value clusterspec derived: ${a.path}${overlay.document ? ` (${overlay.document})` : ""} ${toPointer(c.path)} was ${JSON.stringify(c.before)}${c.after === undefined ? "" : `, now ${JSON.stringify(c.after)}`}`,
        });
      // Terraform evaluates `${…}` and `%{…}` in every JSON string: an overlay's strings (keys too) are literals.
      const patch = a.schema === "terraform-aws" ? terraformLiterals(overlay.patch) : overlay.patch;
      p.docs[index] = mergePatch(before, patch);
      const list = applied.get(a.path) ?? [];
      list.push({ overlay: i, document: index, patch: overlay.patch });
      applied.set(a.path, list);
      if (!files.includes(a.path)) files.push(a.path);
    }
    if (overlay.document !== undefined && !documentFound)
      error(["overlays", i, "document"], `no file matching ${overlay.target} holds a ${overlay.document} document`);
  });

  const out = artifacts.map((a) => {
    const p = parsed.get(a.path);
    if (!p || !applied.has(a.path)) return a;
    return { ...a, content: p.render(p.docs) };
  });
  return { artifacts: out, errors, warnings, changed, applied };
}

/**
 * The spec path to blame for a schema error at `pointer` in document `document` of a patched file: the deepest
 * key of the last overlay whose patch reaches into it, as `overlays[i].patch…`; undefined when no overlay did.
 */
export function blameOverlay(
  applied: readonly AppliedPatch[] | undefined,
  document: number,
  pointer: readonly string[],
): IssuePath | undefined {
  for (const a of [...(applied ?? [])].reverse()) {
    if (a.document !== document) continue;
    let node: unknown = a.patch;
    const path: string[] = [];
    for (const seg of pointer) {
      if (!isJsonMap(node) || !Object.hasOwn(node, seg)) break;
      path.push(seg);
      node = node[seg];
    }
    if (path.length > 0) return ["overlays", a.overlay, "patch", ...path];
  }
  return undefined;
}
