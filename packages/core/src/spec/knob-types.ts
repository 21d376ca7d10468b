// The open parts of the spec as plain interfaces (zod-free, for the public declarations); knobs-schema.ts proves
// them equal to what its zod schemas output.

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
