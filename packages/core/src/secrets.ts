// Secrets are references in the spec; the CLI resolves them (IO). Generators see a value that is either
// the real secret or a stable placeholder, so golden files never hold a secret. The kubeadm placeholders
// are deliberately of the wrong shape: kubeadm refuses them, so a review tree cannot be deployed by
// mistake with a token and certificate key that everyone who can read the repository knows.
import type { IssuePath } from "./issues.js";
import { type AnySpec, isCloudBurstSpec, WIREGUARD_KEY } from "./spec/schema.js";

/** Where a secret is read from: an environment variable or a file (the spec's `{ env }` / `{ file }` reference). */
export type SecretSource = { readonly env: string } | { readonly file: string };

export type SecretId =
  | "vrrpPassword"
  | "bootstrapToken"
  | "certificateKey"
  | "caCertHash"
  | "wireguardHubPrivateKey"
  | "wireguardPeerPrivateKeys"
  | "wireguardPeerPublicKeys";

interface SecretKind {
  readonly path: IssuePath;
  readonly describe: string;
  /** Rendered when the secret is not resolved; rejected by `check` where the consuming tool can refuse it. */
  readonly placeholder: string;
  readonly check: (value: string) => string | undefined;
}

const WIREGUARD_KEY_SHAPE =
  "a WireGuard key is 32 bytes in base64 (44 characters ending in '='), as wg genkey and wg pubkey print it";

function checkKeyLines(value: string): string | undefined {
  const lines = peerKeyLines(value);
  const bad = lines.findIndex((l) => !WIREGUARD_KEY.test(l.trim()));
  if (lines.length === 0) return "expected one WireGuard key per line, one line per burst slot";
  return bad < 0 ? undefined : `line ${bad + 1}: ${WIREGUARD_KEY_SHAPE}`;
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
  wireguardHubPrivateKey: {
    path: ["cloud", "wireguard", "privateKey"],
    describe: "WireGuard hub private key",
    placeholder: "UNSET-resolve-with-secrets",
    check: (v) => (WIREGUARD_KEY.test(v) ? undefined : WIREGUARD_KEY_SHAPE),
  },
  wireguardPeerPrivateKeys: {
    path: ["cloud", "wireguard", "peerKeys", "privateKeys"],
    describe: "WireGuard peer private keys",
    placeholder: "UNSET-resolve-with-secrets",
    check: checkKeyLines,
  },
  wireguardPeerPublicKeys: {
    path: ["cloud", "wireguard", "peerKeys", "publicKeys"],
    describe: "WireGuard peer public keys",
    placeholder: "UNSET-resolve-with-secrets",
    check: checkKeyLines,
  },
};

/** One line per key: a secret resolved from peerKeys holds one key for every burst slot. */
export function peerKeyLines(value: string): string[] {
  return value.split(/\r?\n/).filter((l) => l.trim() !== "");
}

export interface ResolvedSecret {
  readonly id: SecretId;
  readonly ref: SecretSource;
  readonly value: string;
  readonly isPlaceholder: boolean;
}

export type SecretValues = Partial<Record<SecretId, string>>;

export interface SecretReference {
  readonly id: SecretId;
  readonly ref: SecretSource;
  /** where the spec makes the reference */
  readonly path: IssuePath;
}

/** The references a spec makes, for the CLI to resolve. */
export function secretReferences(spec: AnySpec): SecretReference[] {
  const refs: SecretReference[] = [];
  const add = (id: SecretId, ref: SecretSource, path: IssuePath = SECRET_KINDS[id].path) =>
    refs.push({ id, ref, path });
  if (isCloudBurstSpec(spec)) add("caCertHash", spec.existingCluster.caCertHash, ["existingCluster", "caCertHash"]);
  else {
    if (spec.vrrp.auth) add("vrrpPassword", spec.vrrp.auth.password);
    const k = spec.kubernetes.secrets;
    if (k) {
      add("bootstrapToken", k.bootstrapToken);
      add("certificateKey", k.certificateKey);
      add("caCertHash", k.caCertHash);
    }
  }
  const wg = spec.cloud?.wireguard;
  if (wg?.privateKey) add("wireguardHubPrivateKey", wg.privateKey);
  if (wg?.peerKeys) {
    add("wireguardPeerPrivateKeys", wg.peerKeys.privateKeys);
    add("wireguardPeerPublicKeys", wg.peerKeys.publicKeys);
  }
  return refs;
}

/**
 * Errors for resolved values of the wrong shape, at the path of their reference. With the spec, the
 * peer key lists are also checked to hold one key per burst slot.
 */
export function checkSecretValues(values: SecretValues, spec?: AnySpec): { path: IssuePath; message: string }[] {
  const issues: { path: IssuePath; message: string }[] = [];
  const paths = new Map(spec ? secretReferences(spec).map((r) => [r.id, r.path] as const) : []);
  const slots = spec?.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0;
  for (const [id, value] of Object.entries(values) as [SecretId, string][]) {
    const path = paths.get(id) ?? SECRET_KINDS[id].path;
    const problem = SECRET_KINDS[id].check(value);
    if (problem) issues.push({ path, message: `resolved ${SECRET_KINDS[id].describe} is invalid: ${problem}` });
    else if (spec && (id === "wireguardPeerPrivateKeys" || id === "wireguardPeerPublicKeys")) {
      const count = peerKeyLines(value).length;
      if (count !== slots)
        issues.push({
          path,
          message: `resolved ${SECRET_KINDS[id].describe} hold ${count} keys; the pools have ${slots} burst slots (the sum of their maxSize), one key each`,
        });
    }
  }
  return issues;
}

export function resolveSecrets(spec: AnySpec, values: SecretValues): Partial<Record<SecretId, ResolvedSecret>> {
  const out: Partial<Record<SecretId, ResolvedSecret>> = {};
  for (const { id, ref } of secretReferences(spec)) {
    const value = values[id];
    out[id] = { id, ref, value: value ?? SECRET_KINDS[id].placeholder, isPlaceholder: value === undefined };
  }
  return out;
}
