// Secrets are references in the spec; the CLI resolves them (IO). Generators see a value that is either
// the real secret or a stable placeholder, so golden files never hold a secret. The kubeadm placeholders
// are deliberately of the wrong shape: kubeadm refuses them, so a review tree cannot be deployed by
// mistake with a token and certificate key that everyone who can read the repository knows.
import type { IssuePath } from "./issues.js";
import type { ClusterSpec, SecretRef } from "./spec/schema.js";

export type SecretId = "vrrpPassword" | "bootstrapToken" | "certificateKey" | "caCertHash";

interface SecretKind {
  readonly path: IssuePath;
  readonly describe: string;
  /** Rendered when the secret is not resolved; rejected by `check` where the consuming tool can refuse it. */
  readonly placeholder: string;
  readonly check: (value: string) => string | undefined;
}

export const SECRET_KINDS: Readonly<Record<SecretId, SecretKind>> = {
  vrrpPassword: {
    path: ["vrrp", "auth", "password"],
    describe: "VRRP auth_pass",
    placeholder: "CHANGEME",
    check: (v) =>
      /^[A-Za-z0-9_.:/+=,%-]{1,8}$/.test(v)
        ? undefined
        : "a VRRP password is 1-8 characters from A-Z a-z 0-9 _ . : / + = , % - (keepalived truncates longer ones and reads others as comments, quotes or variables)",
  },
  bootstrapToken: {
    path: ["kubernetes", "secrets", "bootstrapToken"],
    describe: "kubeadm bootstrap token",
    placeholder: "UNSET.resolve-with-secrets",
    check: (v) =>
      /^[a-z0-9]{6}\.[a-z0-9]{16}$/.test(v) ? undefined : "a bootstrap token matches [a-z0-9]{6}.[a-z0-9]{16}",
  },
  certificateKey: {
    path: ["kubernetes", "secrets", "certificateKey"],
    describe: "kubeadm certificate key",
    placeholder: "UNSET-resolve-with-secrets",
    check: (v) => (/^[0-9a-f]{64}$/.test(v) ? undefined : "a certificate key is 64 lowercase hex characters"),
  },
  caCertHash: {
    path: ["kubernetes", "secrets", "caCertHash"],
    describe: "discovery CA certificate hash",
    placeholder: "sha256:UNSET-resolve-with-secrets",
    check: (v) => (/^sha256:[0-9a-f]{64}$/.test(v) ? undefined : "a CA certificate hash is sha256:<64 lowercase hex>"),
  },
};

export interface ResolvedSecret {
  readonly id: SecretId;
  readonly ref: SecretRef;
  readonly value: string;
  readonly isPlaceholder: boolean;
}

export type SecretValues = Partial<Record<SecretId, string>>;

/** The references a spec makes, for the CLI to resolve. */
export function secretReferences(spec: ClusterSpec): { id: SecretId; ref: SecretRef }[] {
  const refs: { id: SecretId; ref: SecretRef }[] = [];
  if (spec.vrrp.auth) refs.push({ id: "vrrpPassword", ref: spec.vrrp.auth.password });
  const k = spec.kubernetes.secrets;
  if (k) {
    refs.push({ id: "bootstrapToken", ref: k.bootstrapToken });
    refs.push({ id: "certificateKey", ref: k.certificateKey });
    refs.push({ id: "caCertHash", ref: k.caCertHash });
  }
  return refs;
}

/** Errors for resolved values of the wrong shape, at the path of their reference. */
export function checkSecretValues(values: SecretValues): { path: IssuePath; message: string }[] {
  const issues: { path: IssuePath; message: string }[] = [];
  for (const [id, value] of Object.entries(values) as [SecretId, string][]) {
    const problem = SECRET_KINDS[id].check(value);
    if (problem)
      issues.push({
        path: SECRET_KINDS[id].path,
        message: `resolved ${SECRET_KINDS[id].describe} is invalid: ${problem}`,
      });
  }
  return issues;
}

export function resolveSecrets(spec: ClusterSpec, values: SecretValues): Partial<Record<SecretId, ResolvedSecret>> {
  const out: Partial<Record<SecretId, ResolvedSecret>> = {};
  for (const { id, ref } of secretReferences(spec)) {
    const value = values[id];
    out[id] = { id, ref, value: value ?? SECRET_KINDS[id].placeholder, isPlaceholder: value === undefined };
  }
  return out;
}
