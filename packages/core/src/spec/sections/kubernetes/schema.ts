// The kubernetes section: version, networks, kubeadm settings, node-health timing, join secrets, and the typed
// kubeadm knobs (extraArgs, certificate SANs, extra volumes, KubeletConfiguration fields). Rules: ./rules.ts.
import * as z from "zod";
import { kubernetesContract, MIN_KUBERNETES_MINOR } from "../../../facts/contract.js";
import { isIp } from "../../../ip.js";
import { duration, networkCidr, SecretRefSchema } from "../../fields.js";
import type { Equal, ExtraVolume } from "../../knob-types.js";
import { clusterDnsDomain, DNS_SUBDOMAIN, rfc1123Label, WILDCARD_DNS } from "../../kubernetes-names.js";
import { parseKubernetesVersion } from "../../version.js";

const FLAG_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
const ABS_PATH = /^\/[A-Za-z0-9._/@+-]*$/;

const NodeHealthSchema = z
  .strictObject({
    statusUpdateFrequency: duration()
      .default("10s")
      .describe("kubelet nodeStatusUpdateFrequency: how often the kubelet posts node status"),
    monitorPeriod: duration()
      .default("5s")
      .describe("kube-controller-manager --node-monitor-period: how often node status is checked"),
    monitorGracePeriod: duration()
      .optional()
      .describe(
        "kube-controller-manager --node-monitor-grace-period: how long a node may be silent before NotReady (default 40s, 50s from 1.32)",
      ),
    evictionAfter: duration()
      .default("300s")
      .describe(
        "How long pods stay on a NotReady/unreachable node before eviction (--pod-eviction-timeout below 1.27, default toleration seconds from 1.27)",
      ),
  })
  .describe("Node failure detection and eviction timing");

export const kubernetesVersion = () =>
  z.string().superRefine((v, ctx) => {
    const parsed = parseKubernetesVersion(v);
    if (!parsed) ctx.addIssue({ code: "custom", message: `Kubernetes version ${v} is not of the form v1.MINOR.PATCH` });
    else if (!kubernetesContract(parsed).isSupported())
      ctx.addIssue({
        code: "custom",
        message: `Kubernetes ${v} is not supported: clusterspec supports 1.${MIN_KUBERNETES_MINOR} and newer`,
      });
  });

const KubeadmSecretsSchema = z
  .strictObject({
    bootstrapToken: SecretRefSchema.describe("kubeadm bootstrap token ([a-z0-9]{6}.[a-z0-9]{16})"),
    certificateKey: SecretRefSchema.describe("kubeadm certificate key for control-plane joins (64 hex characters)"),
    caCertHash: SecretRefSchema.describe("discovery CA certificate hash (sha256:<64 hex>)"),
  })
  .describe("Secrets kubeadm needs to join nodes; placeholders in golden files");

// ---- kubeadm knobs ----

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

/**
 * A network, or one network per family for a dual-stack cluster (primary family first). kubeadm takes the two as one
 * comma-separated string and refuses more than two, or two of one family (validation.go ValidateIPNetFromString).
 */
export const familySubnets = (what: string) =>
  z.union([
    networkCidr(),
    // A refinement rather than min/max: the message then names the union's list branch, not "expected a string".
    z.array(networkCidr()).refine((l) => l.length >= 1 && l.length <= 2, {
      message: `expected one ${what}, or one per family (IPv4 and IPv6) for dual stack`,
    }),
  ]);

const componentWithArgs = (what: string) => z.strictObject({ extraArgs: ExtraArgsSchema }).describe(what);

const SanSchema = z.string().refine((s) => isIp(s) || DNS_SUBDOMAIN.test(s) || WILDCARD_DNS.test(s), {
  message: "certificate SANs are IP addresses or lowercase DNS names (a leading *. wildcard is allowed)",
});

const ExtraVolumeSchema = z
  .strictObject({
    name: rfc1123Label("volume name").describe("Volume name"),
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

const ApiServerKnobsSchema = z
  .strictObject({
    certSANs: z
      .array(SanSchema)
      .default([])
      .describe(
        "Extra API server certificate SANs; the VIP, controlPlane.dnsName and every control-plane address are always included",
      ),
    extraArgs: ExtraArgsSchema,
    extraVolumes: z.array(ExtraVolumeSchema).default([]).describe("Host paths mounted into kube-apiserver"),
    anonymousAuth: z
      .enum(["all", "healthEndpoints"])
      .optional()
      .describe(
        "Anonymous requests to kube-apiserver. healthEndpoints (Kubernetes 1.32 and newer): allowed only for /healthz, /livez and /readyz, through a generated AuthenticationConfiguration (--authentication-config), so keepalived's anonymous /readyz check keeps working. all (the default, also when unset): kube-apiserver's default (anonymous on; RBAC's system:public-info-viewer lets it read only the health endpoints and /version)",
      ),
  })
  .describe("kube-apiserver settings (kubeadm ClusterConfiguration.apiServer)");

const KubernetesKnobs = {
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

export const KubernetesSchema = z
  .strictObject({
    version: kubernetesVersion().describe("Kubernetes version, e.g. v1.34.2 (1.22 and newer)"),
    podSubnet: familySubnets("pod network").describe(
      "Pod network (kubeadm networking.podSubnet); dual stack: one network per family, the primary family first",
    ),
    serviceSubnet: familySubnets("service network")
      .default("10.96.0.0/12")
      .describe(
        "Service network (kubeadm networking.serviceSubnet); dual stack: one network per family, in the pod network's order",
      ),
    nodeCidrMaskSize: z
      .number()
      .int()
      .min(8)
      .max(30)
      .default(24)
      .describe(
        "Prefix length of the IPv4 pod CIDR each node gets (kube-controller-manager --node-cidr-mask-size; --node-cidr-mask-size-ipv4 in a dual-stack cluster)",
      ),
    nodeCidrMaskSize6: z
      .number()
      .int()
      .min(8)
      .max(126)
      .optional()
      .describe(
        "Prefix length of the IPv6 pod CIDR each node gets (kube-controller-manager --node-cidr-mask-size-ipv6 in a dual-stack cluster, --node-cidr-mask-size in an IPv6-only one; default 64, kubeadm's)",
      ),
    dnsDomain: clusterDnsDomain(),
    schedulableControlPlanes: z
      .boolean()
      .default(false)
      .describe("Let control-plane nodes run workloads (no control-plane taint)"),
    criSocket: z
      .string()
      .regex(/^unix:\/\/\/[A-Za-z0-9._/-]+$/, { message: "CRI socket must be a unix:/// URL" })
      .default("unix:///run/containerd/containerd.sock")
      .describe("CRI endpoint of the bare-metal nodes"),
    cgroupDriver: z
      .enum(["cgroupfs", "systemd"])
      .default("cgroupfs")
      .describe("kubelet cgroup driver; cgroupfs on OpenRC hosts"),
    nodeHealth: NodeHealthSchema.prefault({}),
    secrets: KubeadmSecretsSchema.optional(),
    ...KubernetesKnobs,
  })
  .describe("Kubernetes version, networks and kubeadm settings");

// The public type is a plain interface (knob-types.ts); this line fails to compile if the two drift apart.
export const extraVolumeTypeMatches: Equal<z.output<typeof ExtraVolumeSchema>, ExtraVolume> = true;
