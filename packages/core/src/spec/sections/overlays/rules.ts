// The free-form parts of the spec (overlays, cilium.values, kubernetes.kubelet, extraArgs; issue 10) reach generated
// files verbatim: no secret is ever written there as a literal.
import type { IssuePath, Reporter } from "../../../issues.js";
import type { Rule } from "../../rule.js";
import { COMPONENTS } from "../kubernetes/rules.js";

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

const SECRET_SHAPES: readonly (readonly [RegExp, string])[] = [
  [/\b[a-z0-9]{6}\.[a-z0-9]{16}\b/, "a kubeadm bootstrap token"],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----/, "a private key"],
  // the whole value: a sha256 digest (`sha256:…`, `image@sha256:…`) is not a secret
  [/^\s*[0-9a-fA-F]{64}\s*$/, "a certificate key"],
];

/** The kind of secret a string looks like, if any. */
export function secretShapeOf(value: string): string | undefined {
  return SECRET_SHAPES.find(([re]) => re.test(value))?.[1];
}

function literalSecrets(value: unknown, path: IssuePath, report: Reporter): void {
  if (typeof value === "string") {
    const what = secretShapeOf(value);
    if (what)
      report.error(
        path,
        `this looks like ${what}: secrets are never written in the spec; kubeadm secrets come from kubernetes.secrets references ({ env } or { file })`,
        { secretValue: true },
      );
  } else if (Array.isArray(value))
    value.forEach((v, i) => {
      literalSecrets(v, [...path, i], report);
    });
  else if (isMap(value)) for (const [k, v] of Object.entries(value)) literalSecrets(v, [...path, k], report);
}

/** Free-form parts reach generated files verbatim: a literal that looks like a secret is refused there. */
export const noSecretLiterals: Rule = (spec, report) => {
  spec.overlays.forEach((o, i) => {
    literalSecrets(o.patch, ["overlays", i, "patch"], report);
  });
  literalSecrets(spec.cilium.values, ["cilium", "values"], report);
  literalSecrets(spec.kubernetes.kubelet, ["kubernetes", "kubelet"], report);
  for (const component of COMPONENTS)
    literalSecrets(spec.kubernetes[component].extraArgs, ["kubernetes", component, "extraArgs"], report);
};
