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
  }[];
  /** Changes with no safe procedure: non-empty means exit 2 and no steps. */
  readonly refused: readonly { readonly path: string; readonly reason: string }[];
}

export interface SpecChange {
  /** Dot path, e.g. `externalVips.addresses[0]`. */
  readonly path: string;
  readonly old: unknown;
  readonly new: unknown;
  readonly oldLine?: number;
  readonly newLine?: number;
  /** Lines are 1-based, in the new file (in the old one for a removed file). */
  readonly files: readonly { readonly path: string; readonly lines: readonly number[] }[];
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
}
