// The provisioner's view of the world, as small interfaces: the service logic (service.ts) sees only these, so tests
// run it in-process with stand-ins, and the command (bin.ts) wires the real ones (kube.ts, aws.ts, hub.ts).

/** An EC2 instance as DescribeInstances reports it. */
export interface AwsInstance {
  readonly id: string;
  /** `pending`, `running`, `shutting-down`, `terminated`, `stopping`, `stopped` */
  readonly state: string;
  readonly privateIp: string | undefined;
  readonly publicIp: string | undefined;
  /**
   * Its IPv6 addresses (`ipv6Address`, the instance's and its network interfaces'): an instance of a pool with `ipv6`
   * may reach the provisioner from one of them, and one of an IPv6-only pool has no IPv4 address at all.
   */
  readonly ipv6?: readonly string[] | undefined;
  /** Its tag `aws:autoscaling:groupName`, set by Auto Scaling on every instance it launches. */
  readonly group: string | undefined;
}

export interface AwsApi {
  /** The instances of these ids that EC2 still knows (a long-gone id is simply absent). */
  describeInstances(ids: readonly string[]): Promise<AwsInstance[]>;
  /** Every instance (any state EC2 reports) tagged with one of these Auto Scaling groups. */
  groupInstances(groups: readonly string[]): Promise<AwsInstance[]>;
}

/** One burst slot's Secret: its labels and annotations are the provisioner's state. */
export interface SlotSecret {
  readonly name: string;
  readonly pool: string;
  readonly index: number;
  /** The label: the instance holding the slot. */
  readonly instanceId: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
  /** The client config (the data key), or undefined when none is stored yet. */
  readonly config: string | undefined;
  /** Optimistic concurrency: the update fails when the Secret changed since it was read. */
  readonly resourceVersion: string;
}

export interface SlotUpdate {
  readonly instanceId: string | undefined;
  readonly annotations: Readonly<Record<string, string>>;
  readonly config: string | undefined;
}

export interface BootstrapToken {
  /** [a-z0-9]{6} */
  readonly id: string;
  /** [a-z0-9]{16}; absent when listed */
  readonly secret?: string;
  /** the instance it was minted for (a label on its Secret) */
  readonly instanceId: string | undefined;
  /** RFC 3339 */
  readonly expiration: string;
}

export interface KubeNode {
  readonly name: string;
  readonly providerID: string | undefined;
}

export interface KubeApi {
  listSlots(): Promise<SlotSecret[]>;
  /** Replaces labels/annotations/data of the slot's Secret; rejects with ConflictError when it changed. */
  updateSlot(slot: SlotSecret, update: SlotUpdate): Promise<void>;
  createBootstrapToken(token: Required<BootstrapToken> & { readonly description: string }): Promise<void>;
  /** The provisioner's tokens (labelled with the cluster). */
  listBootstrapTokens(): Promise<BootstrapToken[]>;
  /** Deleting a token that is gone is success. */
  deleteBootstrapToken(id: string): Promise<void>;
  getNode(name: string): Promise<KubeNode | undefined>;
  listNodes(): Promise<KubeNode[]>;
  /** Deleting a Node that is gone is success. */
  deleteNode(name: string): Promise<void>;
  /** The cluster CA (PEM) the discovery kubeconfig carries. */
  clusterCaPem(): Promise<string>;
}

export class ConflictError extends Error {}

export interface HubPeer {
  readonly publicKey: string;
  readonly allowedIps: readonly string[];
}

/** The on-prem hub's WireGuard interface (`wg set` / `wg show dump`). */
export interface HubApi {
  peers(): Promise<HubPeer[]>;
  setPeer(publicKey: string, allowedIp: string): Promise<void>;
  removePeer(publicKey: string): Promise<void>;
}

export interface Clock {
  now(): Date;
}

export type LogLevel = "info" | "warn" | "error";
/** One JSON line per event: never a secret (no key, no token secret, no config). */
export type Logger = (level: LogLevel, event: string, fields?: Readonly<Record<string, unknown>>) => void;
