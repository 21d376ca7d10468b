// The overlays section: JSON merge patches over generated files, checked afterwards against the upstream schema of
// each file. Rules: ./rules.ts (no secret literal in any free-form part).
import * as z from "zod";
import type { Equal, Overlay } from "../../knob-types.js";

/** A glob over artifact paths: letters, digits, `._-/`, `*` (one segment), `**` (any depth), `?`. */
const GLOB = /^[A-Za-z0-9._\-/*?+]+$/;

const OverlaySchema = z
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

// The public type is a plain interface (knob-types.ts); this line fails to compile if the two drift apart.
export const overlayTypeMatches: Equal<z.output<typeof OverlaySchema>, Overlay> = true;
