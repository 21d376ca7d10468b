// Kubernetes and DNS names, one validator per rule and one message per rule, for every section of the spec:
// label keys and values, taints, RFC 1123 labels (object names), DNS subdomains and host names.
import * as z from "zod";
import { isIp } from "../ip.js";

/** Kubernetes label keys: optional DNS-subdomain prefix and `/`, then a name of at most 63 characters. */
export const LABEL_KEY =
  /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
export const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
export const RFC1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
// Dot-separated lowercase RFC 1123 labels (search domains, the cluster's DNS domain, the API endpoint's name).
export const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
export const WILDCARD_DNS = /^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

// ---- labels and taints ----

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
/** The same check, with LABEL_KEY as the key's pattern in the JSON Schema (the cloud sections have always shown it). */
export const PatternedLabelKeySchema = LabelKeySchema.meta({ pattern: LABEL_KEY.source });

export const LabelValueSchema = z
  .string({ error: "label values are strings: quote it" })
  .max(63, { message: "label values are at most 63 characters" })
  .regex(LABEL_VALUE, {
    message: "label values are empty or letters, digits, '-', '_', '.', starting and ending with a letter or digit",
  });

export const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"] as const;

/** A taint's fields; `doc` holds the descriptions the using section gives them in the JSON Schema. */
export const taintFields = (doc: { readonly key: string; readonly value: string }, key = LabelKeySchema) => ({
  key: key.describe(doc.key),
  value: LabelValueSchema.default("").describe(doc.value),
  effect: z.enum(TAINT_EFFECTS).describe("Taint effect"),
});

// ---- object names and DNS ----

/** An RFC 1123 label (DNS-1123 label): the names of the cluster, its nodes, segments, pools, namespaces, volumes. */
export const rfc1123Label = (what: string) =>
  z
    .string()
    .max(63, { message: `${what} must be at most 63 characters (RFC 1123 label)` })
    .regex(RFC1123_LABEL, {
      message: `${what} must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit`,
    });

/** RFC 1123 host name: dot-separated LDH labels of 1-63 characters, at most 253 in all; not all digits and dots. */
export function isDnsName(host: string): boolean {
  if (host.length === 0 || host.length > 253) return false;
  const labels = host.split(".");
  if (labels.every((l) => /^[0-9]+$/.test(l))) return false;
  return labels.every((l) => /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/.test(l));
}

/** A lowercase DNS name that is not an IP address (the API endpoint's name). */
export const dnsName = () =>
  z
    .string()
    .max(253)
    .refine((s) => DNS_SUBDOMAIN.test(s) && !isIp(s), {
      message: "expected a lowercase DNS name such as api.k8s.example.com",
    });

/** glibc reads at most 6 search domains from resolv.conf (MAXDNSRCH in resolv.h); the rest are ignored. */
export const MAX_SEARCH_DOMAINS = 6;
export const searchDomains = (what: string) =>
  z
    .array(
      z
        .string()
        .max(253, { message: "a DNS name is at most 253 characters" })
        .regex(DNS_SUBDOMAIN, {
          message: "search domains are lowercase DNS names such as example.com",
        })
        .refine((d) => d.split(".").every((l) => l.length <= 63), { message: "a DNS label is at most 63 characters" }),
    )
    .max(MAX_SEARCH_DOMAINS, {
      message: `at most ${MAX_SEARCH_DOMAINS} search domains: glibc reads ${MAX_SEARCH_DOMAINS} from resolv.conf (MAXDNSRCH) and ignores the rest`,
    })
    .default([])
    .describe(what);

/** The cluster's DNS domain (kubeadm networking.dnsDomain), the same for a cluster of ours and an existing one. */
export const clusterDnsDomain = () =>
  z
    .string()
    .regex(DNS_SUBDOMAIN, {
      message: "DNS domain must be dot-separated RFC 1123 labels",
    })
    .default("cluster.local")
    .describe("Cluster DNS domain");
