// The open parts of the spec (issue 10): typed kubeadm knobs, node labels and taints, free-form Cilium values and
// overlays. Kept apart from schema.ts so the closed model stays readable; every free-form part is checked later
// against the upstream schema of the file it ends up in.
import * as z from "zod";
import { isIp } from "../ip.js";
import type { ExtraVolume, NodeTaint, Overlay } from "./knob-types.js";

/** Kubernetes label keys: optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const WILDCARD_DNS = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ABS_PATH = /^\/[A-Za-z0-9._/@+-]*$/;

/** Kubernetes' label key rules: name part ≤ 63, prefix ≤ 253 (IsQualifiedName). */
export function labelKeyProblem(key: string): string | undefined {
  if (!LABEL_KEY.test(key))
    return `label key ${JSON.stringify(key)} is not a Kubernetes qualified name ([prefix/]name: name of letters, digits, '-', '_', '.', starting and ending with a letter or digit; prefix a lowercase DNS subdomain)`;
  const slash = key.indexOf("/");
  const name = slash < 0 ? key : key.slice(slash + 1);
  if (name.length > 63) return `label key ${JSON.stringify(key)}: the name after the prefix is at most 63 characters`;
  if (slash > 253) return `label key ${JSON.stringify(key)}: the prefix is at most 253 characters`;
  return undefined;
}

export const LabelKeySchema = z.string().superRefine((k, ctx) => {
  const problem = labelKeyProblem(k);
  if (problem) ctx.addIssue({ code: "custom", message: problem });
});
export const LabelValueSchema = z
  .string({ error: "label values are strings: quote it" })
  .max(63, { message: "label values are at most 63 characters" })
  .regex(LABEL_VALUE, {
    message: "label values are empty or letters, digits, '-', '_', '.', starting and ending with a letter or digit",
  });

export const NodeTaintSchema = z
  .strictObject({
    key: LabelKeySchema.describe("Taint key (label-key syntax)"),
    value: LabelValueSchema.default("").describe("Taint value (label-value syntax)"),
    effect: z.enum(["NoSchedule", "PreferNoSchedule", "NoExecute"]).describe("Taint effect"),
  })
  .describe("A taint registered with the node");

/** kubeadm reads every flag value as a string; a YAML `true` or `8` is refused rather than silently converted. */
const ExtraArgsSchema = z
  .record(
    z
      .string()
      .refine((k) => !k.startsWith("-"), { message: "flag names are written without the leading --", abort: true })
      .regex(FLAG_NAME, { message: "flag names use letters, digits, '-', '_' and '.'" }),
    z.string({
      error: (issue) =>
        typeof issue.input === "boolean" || typeof issue.input === "number"
          ? `kubeadm reads flag values as strings: quote it ("${String(issue.input)}")`
          : "expected a string flag value",
    }),
  )
  .default({})
  .describe("Extra command-line flags: flag name without -- to a string value");

const componentWithArgs = (what: string) => z.strictObject({ extraArgs: ExtraArgsSchema }).describe(what);

const SanSchema = z.string().refine((s) => isIp(s) || DNS_SUBDOMAIN.test(s) || WILDCARD_DNS.test(s), {
  message: "certificate SANs are IP addresses or lowercase DNS names (a leading *. wildcard is allowed)",
});

const ExtraVolumeSchema = z
  .strictObject({
    name: z
      .string()
      .max(63)
      .regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, { message: "volume names are RFC 1123 labels" })
      .describe("Volume name"),
    hostPath: z.string().regex(ABS_PATH, { message: "expected an absolute path" }).describe("Path on the node"),
    mountPath: z
      .string()
      .regex(ABS_PATH, { message: "expected an absolute path" })
      .describe("Path inside the kube-apiserver container"),
    readOnly: z.boolean().default(true).describe("Mount read-only"),
    pathType: z
      .enum(["DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket", "CharDevice", "BlockDevice"])
      .optional()
      .describe("Kubernetes hostPath type check"),
  })
  .describe("A host path mounted into the kube-apiserver pod (an OIDC CA file, an audit policy)");

export const ApiServerKnobsSchema = z
  .strictObject({
    certSANs: z
      .array(SanSchema)
      .default([])
      .describe(
        "Extra API server certificate SANs; the VIP, controlPlane.dnsName and every control-plane address are always included",
      ),
    extraArgs: ExtraArgsSchema,
    extraVolumes: z.array(ExtraVolumeSchema).default([]).describe("Host paths mounted into kube-apiserver"),
  })
  .describe("kube-apiserver settings (kubeadm ClusterConfiguration.apiServer)");

export const KubernetesKnobs = {
  apiServer: ApiServerKnobsSchema.prefault({}),
  controllerManager: componentWithArgs("kube-controller-manager settings").prefault({}),
  scheduler: componentWithArgs("kube-scheduler settings").prefault({}),
  etcd: componentWithArgs("local etcd settings").prefault({}),
  kubelet: z
    .record(z.string(), z.unknown())
    .default({})
    .describe(
      "KubeletConfiguration fields merged into the generated one (all nodes); checked against the kubelet schema",
    ),
};

export const DnsNameSchema = z
  .string()
  .max(253)
  .refine((s) => DNS_SUBDOMAIN.test(s) && !isIp(s), {
    message: "expected a lowercase DNS name such as api.k8s.example.com",
  })
  .describe("DNS name of the API endpoint: controlPlaneEndpoint, certSANs and every node's /etc/hosts (to the VIP)");

export const NodeKnobs = {
  labels: z
    .record(LabelKeySchema, LabelValueSchema)
    .default({})
    .describe("Node labels, set by the kubelet when it registers (kubeadm nodeRegistration)"),
  taints: z.array(NodeTaintSchema).default([]).describe("Node taints (kubeadm nodeRegistration.taints)"),
};

export const CiliumValuesSchema = z
  .record(z.string(), z.unknown())
  .default({})
  .describe(
    "Helm values deep-merged over the generated ones; checked against the chart's values.schema.json, unknown keys refused",
  );

/** A glob over artifact paths: letters, digits, `._-/`, `*` (one segment), `**` (any depth), `?`. */
const GLOB = /^[A-Za-z0-9._\-/*?+]+$/;

export const OverlaySchema = z
  .strictObject({
    target: z
      .string()
      .regex(GLOB, { message: "targets are globs over generated paths, e.g. nodes/*/kubeadm.yaml" })
      .describe("Glob over generated artifact paths (* within a folder, ** across folders)"),
    document: z
      .string()
      .regex(/^[A-Z][A-Za-z0-9]*$/, { message: "document is the kind of one document, e.g. ClusterConfiguration" })
      .optional()
      .describe("The kind of the document to patch in a multi-document YAML file"),
    patch: z
      .record(z.string(), z.unknown(), { error: "a patch is a mapping (an RFC 7386 JSON merge patch)" })
      .describe("RFC 7386 JSON merge patch: null deletes, mappings merge, anything else replaces"),
  })
  .describe("A JSON merge patch applied to generated YAML/JSON files, then checked against their upstream schema");

export const OverlaysSchema = z.array(OverlaySchema).default([]).describe("Patches over generated files");

// The public types are plain interfaces (knob-types.ts); these lines fail to compile if they drift apart.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
export const knobTypesMatch: [
  Equal<z.output<typeof NodeTaintSchema>, NodeTaint>,
  Equal<z.output<typeof ExtraVolumeSchema>, ExtraVolume>,
  Equal<z.output<typeof OverlaySchema>, Overlay>,
] = [true, true, true];
