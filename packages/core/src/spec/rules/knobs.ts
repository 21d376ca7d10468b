// Open parts of the spec (issue 10): free-form knobs never set what clusterspec derives, node labels
// are ones the kubelet may set, and no secret is ever written as a literal.
import { kubeletMaySetLabel } from "../../facts/cloud.js";
import { type ControlPlaneComponent, OWNED_CILIUM_KEYS, OWNED_FLAGS, OWNED_KUBELET_FIELDS } from "../../facts/owned.js";
import type { IssuePath, Reporter } from "../../issues.js";
import { own } from "../../own.js";
import type { Rule } from "./rule.js";

const COMPONENTS: readonly ControlPlaneComponent[] = ["apiServer", "controllerManager", "scheduler", "etcd"];

/** A flag clusterspec derives (or kubeadm derives from a typed field) cannot be overridden through extraArgs. */
export const extraArgsNotOwned: Rule = (spec, report) => {
  for (const component of COMPONENTS)
    for (const flag of Object.keys(spec.kubernetes[component].extraArgs)) {
      const owner = own(OWNED_FLAGS[component], flag);
      if (owner !== undefined)
        report.error(
          ["kubernetes", component, "extraArgs", flag],
          `--${flag} is derived by clusterspec from ${owner}: set that field instead of kubernetes.${component}.extraArgs`,
        );
    }
};

export const kubeletFieldsNotOwned: Rule = (spec, report) => {
  for (const field of Object.keys(spec.kubernetes.kubelet)) {
    const owner = own(OWNED_KUBELET_FIELDS, field);
    if (owner !== undefined)
      report.error(
        ["kubernetes", "kubelet", field],
        `KubeletConfiguration ${field} is set by clusterspec from ${owner}: set that field instead`,
      );
  }
};

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every owned key that `values` would set, replace or delete (a non-mapping above an owned key replaces it). */
export function ownedCiliumKeysIn(values: Record<string, unknown>): { path: string[]; key: string }[] {
  const found: { path: string[]; key: string }[] = [];
  const owned = Object.keys(OWNED_CILIUM_KEYS);
  const walk = (node: Record<string, unknown>, prefix: string[]) => {
    for (const [k, v] of Object.entries(node)) {
      const path = [...prefix, k];
      const dotted = path.join(".");
      if (own(OWNED_CILIUM_KEYS, dotted) !== undefined) found.push({ path, key: dotted });
      else if (isMap(v)) walk(v, path);
      else {
        const below = owned.find((o) => o.startsWith(`${dotted}.`));
        if (below !== undefined) found.push({ path, key: below });
      }
    }
  };
  walk(values, []);
  return found;
}

export const ciliumValuesNotOwned: Rule = (spec, report) => {
  for (const { path, key } of ownedCiliumKeysIn(spec.cilium.values))
    report.error(
      ["cilium", "values", ...path],
      `Cilium value ${key} is set by clusterspec from ${OWNED_CILIUM_KEYS[key]}: set that field instead of cilium.values`,
    );
};

/** NodeRestriction: a kubelet may only label its own Node with keys outside kubernetes.io/k8s.io, or the allowed ones. */
export const nodeLabelsSelfSettable: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    for (const key of Object.keys(node.labels))
      if (!kubeletMaySetLabel(key))
        report.error(
          ["nodes", i, "labels", key],
          `the kubelet may not set label ${key} on its own node (the NodeRestriction admission plugin forbids node-role.kubernetes.io/* and other kubernetes.io/k8s.io keys outside its allowed list): apply it after the node joined with \`kubectl label node ${node.name} ${key}=${node.labels[key] ?? ""}\`, or use a key of your own (example.com/role) or under node.kubernetes.io/`,
        );
  });
};

/** The API server refuses two taints with the same key and effect. */
export const nodeTaintsDistinct: Rule = (spec, report) => {
  spec.nodes.forEach((node, i) => {
    const seen = new Set<string>();
    node.taints.forEach((t, j) => {
      const id = `${t.key}:${t.effect}`;
      if (seen.has(id))
        report.error(
          ["nodes", i, "taints", j],
          `taint ${t.key} with effect ${t.effect} is listed twice on ${node.name}`,
        );
      seen.add(id);
    });
  });
};

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
