// The open parts of the spec as plain interfaces (zod-free, for the public declarations); the sections that define
// them (nodes, kubernetes, overlays) prove them equal to what their zod schemas output.

/** True when A and B are the same type; the sections' `…TypeMatches` constants fail to compile otherwise. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

export interface NodeTaint {
  key: string;
  value: string;
  effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute";
}

export interface ExtraVolume {
  name: string;
  hostPath: string;
  mountPath: string;
  readOnly: boolean;
  pathType?:
    | "DirectoryOrCreate"
    | "Directory"
    | "FileOrCreate"
    | "File"
    | "Socket"
    | "CharDevice"
    | "BlockDevice"
    | undefined;
}

export interface Overlay {
  target: string;
  document?: string | undefined;
  patch: Record<string, unknown>;
}
