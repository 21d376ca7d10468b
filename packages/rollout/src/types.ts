// The change plan's shape: what `clusterspec changes` prints and `--json` writes (docs/changes.schema.json).

export interface ChangePlan {
  readonly schemaVersion: 1;
  readonly specChanges: readonly SpecChange[];
  /** In order: each step starts after the one before it finished. */
  readonly steps: readonly RolloutStep[];
  /** Changes that cannot be made in place: reported with their procedure; the plan is still given. */
  readonly notInPlace: readonly {
    readonly path: string;
    readonly reason: string;
    readonly procedure: readonly string[];
    /** The error catalog's code: `change_not_in_place`. */
    readonly code?: "change_not_in_place";
    /** The path's line in the new spec (in the old one when it was removed). */
    readonly line?: number;
  }[];
  /** Changes with no safe procedure: non-empty means exit 2 and no steps. */
  readonly refused: readonly {
    readonly path: string;
    readonly reason: string;
    /** The error catalog's code: `change_refused`. */
    readonly code?: "change_refused";
    readonly line?: number;
  }[];
  /**
   * Changed files that no step installs (their kind's planner was not given, e.g. keepalived or netifrc), so the
   * reviewer knows the plan does not cover them. PLAN.md is never listed.
   */
  readonly unplanned?: readonly { readonly path: string; readonly node: string | null }[];
}

export interface SpecChange {
  /** Dot path, e.g. `externalVips.addresses[0]`. */
  readonly path: string;
  readonly old: unknown;
  readonly new: unknown;
  readonly oldLine?: number;
  readonly newLine?: number;
  /** Lines are 1-based, in the new file (in the old one for a removed file). */
  readonly files: readonly {
    readonly path: string;
    readonly lines: readonly number[];
    /** added: the file is new; removed: it is gone (lines in the old file); changed otherwise. */
    readonly status?: "added" | "removed" | "changed";
    /** Lines of the old file this change removes or replaces (a file that only loses lines has no `lines`). */
    readonly oldLines?: readonly number[];
  }[];
  /**
   * exact: the lines were measured by regenerating with this change alone; shared: several changes could not be
   * told apart (one alone gives an invalid spec), so each lists every changed line of the files.
   */
  readonly attribution?: "exact" | "shared";
}

export type StepKind =
  | "keepalived"
  | "netifrc"
  | "sysctl"
  | "kubelet"
  | "kubeadm"
  | "kubectl"
  | "helm"
  | "terraform"
  | "wireguard"
  | "cloud-init"
  | "host";

export interface VipMove {
  /** The VIP's address, no prefix. */
  readonly vip: string;
  readonly from: string | null;
  readonly to: string | null;
  /** Predicted unavailability of the VIP while it moves, from PLAN.md's failover timing model. */
  readonly unavailableSeconds: number;
}

export interface RolloutStep {
  /** 1-based. */
  readonly index: number;
  /** null: cluster-wide, run from an admin host (helm, terraform, kubectl). */
  readonly node: string | null;
  readonly kind: StepKind;
  readonly title: string;
  /** Output-folder paths to install on `node` before the commands run. */
  readonly files: readonly string[];
  /** Exact shell commands, in order. */
  readonly commands: readonly string[];
  readonly vipMoves: readonly VipMove[];
  /** A check to pass before the next step, e.g. the apiserver's /readyz between control planes. */
  readonly waitFor?: string;
  readonly warnings: readonly string[];
  /**
   * The exact edit of a `kubectl edit` command: YAML to set under the ConfigMap's data key (the keys named, with
   * their new values; `null` removes a key).
   */
  readonly patch?: string;
  /** Nodes whose control-plane components or kubelet this step restarts: out of service while it runs. */
  readonly down?: readonly string[];
}
