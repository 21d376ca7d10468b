import { z } from "zod";
import { ClusterSpecSchema } from "./spec/schema.js";

/** JSON Schema of the spec as users write it, for yaml-language-server (`# yaml-language-server: $schema=…`). */
export function specJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(ClusterSpecSchema, { io: "input", unrepresentable: "any", target: "draft-2020-12" });
  return {
    ...schema,
    $id: "https://clusterspec.dev/schema/v1alpha1/cluster.schema.json",
    title: "clusterspec Cluster",
  };
}
