import type { KubeadmApiVersion } from "../facts/kubernetes.js";

export type ExtraArgs = Record<string, string> | { name: string; value: string }[];

/** kubeadm extraArgs: a map in v1beta3, a list of {name, value} in v1beta4 (which allows repeats). */
export function formatExtraArgs(apiVersion: KubeadmApiVersion, args: Readonly<Record<string, string>>): ExtraArgs {
  const keys = Object.keys(args).sort();
  if (apiVersion === "kubeadm.k8s.io/v1beta3") return Object.fromEntries(keys.map((k) => [k, args[k] ?? ""]));
  return keys.map((name) => ({ name, value: args[name] ?? "" }));
}
