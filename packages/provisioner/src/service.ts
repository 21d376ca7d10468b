// The provisioner's logic: request → decision, over the ports of ports.ts. No I/O of its own, so the tests run it
// in-process with stand-ins; server.ts and bin.ts wire it to HTTP and the real APIs.
//
// State lives in the slot Secrets (label: the instance; annotations: its addresses, what was served, its token), so
// a restarted provisioner, or a second one, carries on. AWS is the source of truth for an instance's life: an event
// only says which instance to look at, so duplicates, late and out-of-order events change nothing.
import { randomBytes } from "node:crypto";
import { canonicalIp, toYaml } from "@clusterspec/core";
import { clientConfig, slotCidrs } from "@clusterspec/wireguard";
import type { IdentityVerifier } from "./identity.js";
import { generateKeyPair, privateKeyOfConfig, publicKeyOf } from "./keys.js";
import type { AwsApi, AwsInstance, Clock, HubApi, KubeApi, Logger, SlotSecret } from "./ports.js";
import { ConflictError } from "./ports.js";
import type { Settings } from "./settings.js";
import { type CertificateFetcher, parseSnsMessage, snsUrlOk, verifySnsMessage } from "./sns.js";

/** Annotations on a slot Secret while an instance holds it. */
export const ANNOTATIONS = {
  privateIp: "clusterspec.dev/private-ip",
  publicIp: "clusterspec.dev/public-ip",
  /** The instance's IPv6 addresses, comma-separated (a pool with `ipv6`). */
  ipv6: "clusterspec.dev/ipv6-addresses",
  publicKey: "clusterspec.dev/public-key",
  servedWireguard: "clusterspec.dev/served-wireguard",
  servedKubeconfig: "clusterspec.dev/served-kubeconfig",
  tokenId: "clusterspec.dev/bootstrap-token-id",
  tokenExpiration: "clusterspec.dev/bootstrap-token-expiration",
} as const;

export type Kind = "wireguard" | "kubeconfig";

export interface Reply {
  readonly status: number;
  readonly body: string;
  readonly contentType: string;
}

export interface GetRequest {
  readonly kind: Kind;
  readonly instanceId: string;
  /** the identity headers' values, as received */
  readonly document: string | undefined;
  readonly signature: string | undefined;
  /** the TCP peer address (or the proxy's forwarded one, when the proxy is trusted) */
  readonly sourceAddress: string;
}

export interface Dependencies {
  readonly kube: KubeApi;
  readonly aws: AwsApi;
  readonly hub: HubApi;
  readonly identity: IdentityVerifier;
  readonly clock: Clock;
  readonly log: Logger;
  readonly fetchCertificate: CertificateFetcher;
  /** GET the SubscribeURL of a SubscriptionConfirmation. */
  readonly confirmSubscription: (url: string) => Promise<void>;
}

export type SyncOutcome = "assigned" | "released" | "ignored" | "retry";

export interface ReconcileReport {
  assigned: string[];
  released: string[];
  tokensRevoked: string[];
  nodesDeleted: string[];
  peersAdded: string[];
  peersRemoved: string[];
}

const INSTANCE_ID = /^i-[0-9a-f]{8,17}$/;
const GONE = new Set(["shutting-down", "terminated"]);
const text = (status: number, body: string): Reply => ({ status, body: `${body}\n`, contentType: "text/plain" });

/** [a-z0-9]{n} from the CSPRNG (rejection sampling: no bias). */
function randomToken(n: number): string {
  const alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
  let out = "";
  while (out.length < n) for (const b of randomBytes(n * 2)) if (b < 252 && out.length < n) out += alphabet[b % 36];
  return out;
}

export class Provisioner {
  private readonly handledMessages = new Set<string>();

  constructor(
    readonly settings: Settings,
    private readonly deps: Dependencies,
  ) {}

  private get poolGroups(): string[] {
    return [...this.settings.groups.keys()];
  }

  // ---- GET /wireguard/config/{id} and /kubeadm/kubeconfig/{id} ----

  async get(req: GetRequest): Promise<Reply> {
    const { log } = this.deps;
    const fields = { instance: req.instanceId, kind: req.kind, source: req.sourceAddress };
    const refuse = (why: string): Reply => {
      log("warn", "request refused", { ...fields, reason: why });
      return text(403, why);
    };
    if (!INSTANCE_ID.test(req.instanceId)) return text(404, "not an instance id");
    if (!req.document || !req.signature) return refuse("identity headers missing");
    const docBytes = Buffer.from(req.document, "base64");
    let doc: { instanceId?: unknown; region?: unknown; accountId?: unknown };
    try {
      doc = JSON.parse(docBytes.toString("utf8"));
    } catch {
      return refuse("identity document is not base64 JSON");
    }
    let verified: boolean;
    try {
      verified = await this.deps.identity.verify(docBytes, req.signature);
    } catch (e) {
      log("error", "identity check failed to run", { ...fields, error: (e as Error).message });
      return text(503, "identity check unavailable");
    }
    if (!verified) return refuse("identity signature does not verify against the region's AWS certificate");
    if (doc.region !== this.settings.cloud.aws.region) return refuse("identity document is of another region");
    if (doc.accountId !== this.settings.accountId) return refuse("identity document is of another account");
    if (doc.instanceId !== req.instanceId) return refuse("identity document is of another instance");

    const slot = (await this.deps.kube.listSlots()).find((s) => s.instanceId === req.instanceId);
    // not seen running yet, or terminated: the join script retries a 404
    if (!slot) {
      log("info", "no slot for instance", fields);
      return text(404, "no slot for this instance (not seen running yet, or terminated)");
    }
    const addresses = [
      slot.annotations[ANNOTATIONS.privateIp],
      slot.annotations[ANNOTATIONS.publicIp],
      ...(slot.annotations[ANNOTATIONS.ipv6]?.split(",") ?? []),
    ].filter((a): a is string => a !== undefined && a !== "");
    if (!addresses.some((a) => sameAddress(a, req.sourceAddress)))
      return refuse(`request from ${req.sourceAddress}, not from the instance's address (${addresses.join(", ")})`);
    const served = req.kind === "wireguard" ? ANNOTATIONS.servedWireguard : ANNOTATIONS.servedKubeconfig;
    if (slot.annotations[served] !== undefined)
      return refuse(`already served at ${slot.annotations[served]}: served once per instance`);

    const now = this.deps.clock.now();
    if (req.kind === "wireguard") {
      if (slot.config === undefined) {
        log("error", "slot has no client config", { ...fields, slot: slot.name });
        return text(503, "the slot's client config is not there");
      }
      // stored first: a crash after this line never serves a config twice
      if (!(await this.mark(slot, { [served]: now.toISOString() }))) return text(503, "slot changed, retry");
      log("info", "served wireguard config", { ...fields, slot: slot.name });
      return { status: 200, body: slot.config, contentType: "text/plain" };
    }

    // kubeconfig: the bootstrap token is minted now, for this instance alone
    const token = { id: randomToken(6), secret: randomToken(16) };
    const expiration = new Date(now.getTime() + this.settings.tokenTtlSeconds * 1000)
      .toISOString()
      .replace(/\.\d+Z$/, "Z");
    let ca: string;
    try {
      ca = await this.deps.kube.clusterCaPem();
      await this.deps.kube.createBootstrapToken({
        ...token,
        instanceId: req.instanceId,
        expiration,
        description: `clusterspec burst node ${req.instanceId} of cluster ${this.settings.plan.name}`,
      });
    } catch (e) {
      log("error", "bootstrap token not created", { ...fields, error: (e as Error).message });
      return text(503, "bootstrap token not created");
    }
    const marks = {
      [served]: now.toISOString(),
      [ANNOTATIONS.tokenId]: token.id,
      [ANNOTATIONS.tokenExpiration]: expiration,
    };
    if (!(await this.mark(slot, marks))) {
      await this.deps.kube.deleteBootstrapToken(token.id).catch(() => undefined);
      return text(503, "slot changed, retry");
    }
    log("info", "served discovery kubeconfig", { ...fields, token: token.id, expiration });
    return { status: 200, body: this.kubeconfig(ca, `${token.id}.${token.secret}`), contentType: "application/yaml" };
  }

  private async mark(slot: SlotSecret, annotations: Record<string, string>): Promise<boolean> {
    try {
      await this.deps.kube.updateSlot(slot, {
        instanceId: slot.instanceId,
        annotations: { ...slot.annotations, ...annotations },
        config: slot.config,
      });
      return true;
    } catch (e) {
      if (e instanceof ConflictError) return false;
      throw e;
    }
  }

  /** The discovery kubeconfig: the API endpoint, the cluster CA, the instance's bootstrap token. */
  kubeconfig(caPem: string, token: string): string {
    const name = this.settings.plan.name;
    return toYaml({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name,
          cluster: {
            server: `https://${this.settings.cloud.apiServerEndpoint}`,
            "certificate-authority-data": Buffer.from(caPem).toString("base64"),
          },
        },
      ],
      users: [{ name: "tls-bootstrap-token-user", user: { token } }],
      contexts: [
        { name: `tls-bootstrap-token-user@${name}`, context: { cluster: name, user: "tls-bootstrap-token-user" } },
      ],
      "current-context": `tls-bootstrap-token-user@${name}`,
    });
  }

  // ---- POST <notifyPath>: SNS ----

  async sns(body: string, typeHeader: string | undefined): Promise<Reply> {
    const { log } = this.deps;
    const m = parseSnsMessage(body);
    if (typeof m === "string") return text(400, m);
    if (typeHeader !== m.Type) return text(400, "x-amz-sns-message-type does not match Type");
    const check = await verifySnsMessage(
      m,
      { topicArn: this.settings.topicArn, region: this.settings.cloud.aws.region },
      this.deps.fetchCertificate,
    );
    if (!check.ok) {
      log("warn", "SNS message refused", { messageId: m.MessageId, reason: check.reason });
      return text(check.retry ? 503 : 400, check.reason);
    }
    if (m.Type === "SubscriptionConfirmation") {
      if (!m.SubscribeURL || !snsUrlOk(m.SubscribeURL, this.settings.cloud.aws.region, false))
        return text(400, "SubscribeURL is not on the region's SNS host");
      try {
        await this.deps.confirmSubscription(m.SubscribeURL);
      } catch (e) {
        log("error", "subscription not confirmed", { error: (e as Error).message });
        return text(503, "subscription not confirmed");
      }
      log("info", "subscription confirmed", { topic: m.TopicArn });
      return text(200, "confirmed");
    }
    if (m.Type !== "Notification") {
      log("warn", "SNS message ignored", { type: m.Type });
      return text(200, "ignored");
    }
    if (this.handledMessages.has(m.MessageId)) {
      log("info", "duplicate SNS message", { messageId: m.MessageId });
      return text(200, "duplicate");
    }
    const event = this.parseEvent(m.Message);
    if (typeof event === "string") {
      log("info", "event ignored", { messageId: m.MessageId, reason: event });
      return text(200, event);
    }
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), this.settings.snsAnswerWithinMs);
    });
    try {
      const outcome = await Promise.race([this.syncInstance(event.instanceId, event.state), late]);
      if (outcome === "late" || outcome === "retry") {
        log("warn", "event not handled yet: SNS delivers again", { instance: event.instanceId, outcome });
        return text(503, "not handled yet");
      }
      this.remember(m.MessageId);
      return text(200, outcome);
    } catch (e) {
      log("error", "event failed", { instance: event.instanceId, error: (e as Error).message });
      return text(503, "failed, retry");
    } finally {
      clearTimeout(timer);
    }
  }

  private remember(id: string): void {
    this.handledMessages.add(id);
    if (this.handledMessages.size > 10_000) {
      const first = this.handledMessages.values().next().value;
      if (first !== undefined) this.handledMessages.delete(first);
    }
  }

  private parseEvent(message: string): { instanceId: string; state: string } | string {
    let e: {
      source?: unknown;
      "detail-type"?: unknown;
      region?: unknown;
      account?: unknown;
      detail?: { "instance-id"?: unknown; state?: unknown };
    };
    try {
      e = JSON.parse(message);
    } catch {
      return "Message is not JSON";
    }
    if (e.source !== "aws.ec2" || e["detail-type"] !== "EC2 Instance State-change Notification")
      return "not an EC2 state change";
    if (e.region !== this.settings.cloud.aws.region || e.account !== this.settings.accountId)
      return "another region or account";
    const id = e.detail?.["instance-id"];
    const state = e.detail?.state;
    if (typeof id !== "string" || !INSTANCE_ID.test(id) || typeof state !== "string") return "no instance id or state";
    return { instanceId: id, state };
  }

  // ---- one instance ----

  /** Brings one instance's slot, token, Node and hub peer in line with what EC2 says of it. */
  async syncInstance(id: string, eventState?: string): Promise<SyncOutcome> {
    // `terminated` is final whatever DescribeInstances still says
    if (eventState === "terminated") return (await this.release(id)) ? "released" : "ignored";
    const [inst] = await this.deps.aws.describeInstances([id]);
    if (!inst || GONE.has(inst.state)) return (await this.release(id)) ? "released" : "ignored";
    if (inst.state === "pending") return "retry";
    if (inst.state !== "running") return "ignored";
    return this.assign(inst);
  }

  private async assign(inst: AwsInstance): Promise<SyncOutcome> {
    const { log, kube } = this.deps;
    const pool = inst.group === undefined ? undefined : this.settings.groups.get(inst.group);
    if (pool === undefined) {
      log("info", "instance of no pool ignored", { instance: inst.id, group: inst.group ?? null });
      return "ignored";
    }
    for (let attempt = 0; attempt < 3; attempt++) {
      const slots = await kube.listSlots();
      const held = slots.find((s) => s.instanceId === inst.id);
      if (held) {
        await this.ensurePeer(held);
        return "assigned";
      }
      const free = slots
        .filter((s) => s.pool === pool && s.instanceId === undefined)
        .sort((a, b) => a.index - b.index)[0];
      if (!free) {
        log("error", "no free slot in pool", { instance: inst.id, pool });
        return "retry";
      }
      const annotations: Record<string, string> = {};
      if (inst.privateIp) annotations[ANNOTATIONS.privateIp] = inst.privateIp;
      if (inst.publicIp) annotations[ANNOTATIONS.publicIp] = inst.publicIp;
      if (inst.ipv6?.length) annotations[ANNOTATIONS.ipv6] = inst.ipv6.join(",");
      let config = free.config;
      if (this.settings.cloud.peerKeys === "provisioner") {
        const planned = this.settings.cloud.slots.find((s) => s.pool === free.pool && s.index === free.index);
        if (!planned) throw new Error(`slot ${free.name} is not in the plan`);
        const keys = generateKeyPair();
        config = clientConfig(this.settings.plan, this.settings.cloud, { ...planned, privateKey: keys.privateKey });
        annotations[ANNOTATIONS.publicKey] = keys.publicKey;
      }
      try {
        await kube.updateSlot(free, { instanceId: inst.id, annotations, config });
      } catch (e) {
        if (e instanceof ConflictError) continue;
        throw e;
      }
      log("info", "slot assigned", { instance: inst.id, pool, slot: free.name });
      const [updated] = (await kube.listSlots()).filter((s) => s.instanceId === inst.id);
      if (updated) await this.ensurePeer(updated);
      return "assigned";
    }
    return "retry";
  }

  private slotPublicKey(slot: SlotSecret): string | undefined {
    const minted = slot.annotations[ANNOTATIONS.publicKey];
    if (minted) return minted;
    const priv = slot.config === undefined ? undefined : privateKeyOfConfig(slot.config);
    return priv === undefined ? undefined : publicKeyOf(priv);
  }

  /** The slot's allowed IPs as `wg set` takes them and `wg show dump` prints them: IPv4, then IPv6 (dual stack). */
  private slotCidr(slot: SlotSecret): string | undefined {
    const planned = this.settings.cloud.slots.find((s) => s.pool === slot.pool && s.index === slot.index);
    return planned === undefined ? undefined : slotCidrs(planned).join(",");
  }

  private async ensurePeer(slot: SlotSecret): Promise<void> {
    const key = this.slotPublicKey(slot);
    const cidr = this.slotCidr(slot);
    if (key && cidr) await this.deps.hub.setPeer(key, cidr);
  }

  /** Revokes the instance's token, deletes its Node, removes its peer, frees its slot. True when anything changed. */
  private async release(id: string): Promise<boolean> {
    const { kube, hub, log } = this.deps;
    let changed = false;
    for (const t of await kube.listBootstrapTokens())
      if (t.instanceId === id) {
        await kube.deleteBootstrapToken(t.id);
        log("info", "bootstrap token revoked", { instance: id, token: t.id });
        changed = true;
      }
    const node = await kube.getNode(id);
    if (node?.providerID?.startsWith("aws:///") && node.providerID.endsWith(`/${id}`)) {
      await kube.deleteNode(id);
      log("info", "node deleted", { instance: id });
      changed = true;
    }
    for (const slot of (await kube.listSlots()).filter((s) => s.instanceId === id)) {
      const key = this.slotPublicKey(slot);
      if (key) await hub.removePeer(key);
      const keepConfig = this.settings.cloud.peerKeys === "static" ? slot.config : undefined;
      await kube.updateSlot(slot, { instanceId: undefined, annotations: {}, config: keepConfig });
      log("info", "slot freed", { instance: id, slot: slot.name });
      changed = true;
    }
    return changed;
  }

  // ---- reconciliation ----

  /** Compares the pools' instances, the slots, the tokens, the burst Nodes and the hub's peers, and repairs. */
  async reconcile(): Promise<ReconcileReport> {
    const { kube, aws, hub, log } = this.deps;
    const report: ReconcileReport = {
      assigned: [],
      released: [],
      tokensRevoked: [],
      nodesDeleted: [],
      peersAdded: [],
      peersRemoved: [],
    };
    const inGroups = await aws.groupInstances(this.poolGroups);
    const alive = new Map(inGroups.filter((i) => !GONE.has(i.state)).map((i) => [i.id, i]));
    // a lost `terminated`: holders, tokens and Nodes of instances EC2 no longer runs
    const holders = (await kube.listSlots()).flatMap((s) => (s.instanceId ? [s.instanceId] : []));
    const tokens = await kube.listBootstrapTokens();
    const nodes = (await kube.listNodes()).filter((n) => n.providerID?.startsWith("aws:///"));
    const suspects = new Set<string>([
      ...holders,
      ...tokens.flatMap((t) => (t.instanceId ? [t.instanceId] : [])),
      ...nodes.map((n) => n.name),
    ]);
    const unknown = [...suspects].filter((id) => !alive.has(id) && INSTANCE_ID.test(id));
    const described = new Map((unknown.length ? await aws.describeInstances(unknown) : []).map((i) => [i.id, i]));
    for (const id of unknown) {
      const d = described.get(id);
      if (d && !GONE.has(d.state)) continue; // alive, just not in a pool's group (any more)
      const before = {
        tokens: tokens.filter((t) => t.instanceId === id).map((t) => t.id),
        node: nodes.some((n) => n.name === id),
      };
      if (await this.release(id)) {
        report.released.push(id);
        report.tokensRevoked.push(...before.tokens);
        if (before.node) report.nodesDeleted.push(id);
      }
    }
    // a lost `running`, after the releases: a slot freed by a lost `terminated` goes to an instance waiting for one
    for (const inst of inGroups.filter((i) => i.state === "running"))
      if (!(await kube.listSlots()).some((s) => s.instanceId === inst.id))
        if ((await this.assign(inst)) === "assigned") report.assigned.push(inst.id);
    // expired tokens, and tokens of no slot holder
    const holdersNow = new Set((await kube.listSlots()).flatMap((s) => (s.instanceId ? [s.instanceId] : [])));
    const now = this.deps.clock.now().getTime();
    for (const t of await kube.listBootstrapTokens())
      if (Date.parse(t.expiration) <= now || t.instanceId === undefined || !holdersNow.has(t.instanceId)) {
        await kube.deleteBootstrapToken(t.id);
        report.tokensRevoked.push(t.id);
      }
    // the hub: every held slot's peer, and no peer on a free slot's address
    const slots = await kube.listSlots();
    const want = new Map<string, string>();
    for (const s of slots.filter((s) => s.instanceId !== undefined)) {
      const key = this.slotPublicKey(s);
      const cidr = this.slotCidr(s);
      if (key && cidr) want.set(key, cidr);
    }
    const ours = new Set(this.settings.cloud.slots.flatMap((s) => slotCidrs(s)));
    const peers = await hub.peers();
    for (const p of peers)
      if (p.allowedIps.some((a) => ours.has(a)) && !sameAllowedIps(want.get(p.publicKey), p.allowedIps)) {
        await hub.removePeer(p.publicKey);
        report.peersRemoved.push(p.publicKey);
      }
    const present = new Set(
      peers.filter((p) => sameAllowedIps(want.get(p.publicKey), p.allowedIps)).map((p) => p.publicKey),
    );
    for (const [key, cidr] of want)
      if (!present.has(key)) {
        await hub.setPeer(key, cidr);
        report.peersAdded.push(key);
      }
    log("info", "reconciled", { ...report });
    return report;
  }
}

/** A peer's allowed IPs against a slot's (`a,b`), in any order: the kernel may list the families either way. */
function sameAllowedIps(want: string | undefined, have: readonly string[]): boolean {
  return want !== undefined && want.split(",").sort().join(",") === [...have].sort().join(",");
}

/** Whether two addresses are the same, whatever their IPv6 spelling (EC2's and the socket's may differ). */
function sameAddress(a: string, b: string): boolean {
  try {
    return canonicalIp(a) === canonicalIp(b);
  } catch {
    return a === b;
  }
}
