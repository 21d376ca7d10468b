// @clusterspec/schemas: the upstream schemas clusterspec checks generated files against, loaded lazily. A spec with
// no free-form part (overlays, cilium.values, kubernetes.kubelet) never imports this package.
import {
  type ArtifactChecker,
  type ArtifactSchemaId,
  InternalError,
  parseYamlDocuments,
  type SchemaParameters,
  type SchemaProblem,
} from "@clusterspec/core";

/** The schemas to load, and the parameters the modules whose artifacts are checked declare (the Cilium version). */
export interface CheckerOptions extends SchemaParameters {
  /** The schemas to load: only those of the artifacts that will be checked. */
  readonly schemas: Iterable<ArtifactSchemaId>;
}

/** Loads the schemas asked for and returns a synchronous checker over artifacts that name one of them. */
export async function loadArtifactChecker(options: CheckerOptions): Promise<ArtifactChecker> {
  const ids = new Set(options.schemas);
  const notes: string[] = [];
  const checks = new Map<ArtifactSchemaId, (docs: unknown[]) => SchemaProblem[]>();
  if (ids.has("kubeadm") || ids.has("kubelet-patch")) {
    const k = await import("./kubernetes.js");
    checks.set("kubeadm", (docs) => k.checkKubernetesDocuments(docs));
    checks.set("kubelet-patch", (docs) => k.checkKubeletPatch(docs[0]));
  }
  if (ids.has("cilium-values")) {
    // The Cilium module declares the version with the artifact it has checked: a checker asked without it is our bug.
    const version = options.ciliumVersion;
    if (version === undefined)
      throw new InternalError("cilium-values is checked against the chart of a Cilium version");
    const chart = await (await import("./cilium.js")).loadCiliumChart(version);
    if (chart.chart !== version)
      notes.push(
        `Cilium ${version}: its chart schema is not stored, values were checked against the nearest stored chart ${chart.chart}`,
      );
    checks.set("cilium-values", (docs) => chart.check(docs[0]));
  }
  if (ids.has("cloud-config")) {
    const c = await import("./cloud-init.js");
    checks.set("cloud-config", (docs) => c.checkCloudConfig(docs[0]));
  }
  if (ids.has("terraform-aws")) {
    const check = await (await import("./terraform.js")).loadTerraformChecker();
    checks.set("terraform-aws", (docs) => check(docs[0]));
  }
  return {
    notes,
    check(artifact) {
      const check = artifact.schema === undefined ? undefined : checks.get(artifact.schema);
      if (!check) return [];
      const docs = artifact.path.endsWith(".json")
        ? [JSON.parse(artifact.content)]
        : parseYamlDocuments(artifact.content);
      return check(docs);
    },
  };
}

export { ajv04, ajv07, problemsOf, withoutMeta } from "./ajv.js";
// The schemas themselves are subpath exports (`@clusterspec/schemas/kubernetes`, `/cilium`, `/cloud-init`,
// `/terraform`), so importing this entry point loads none of them.
