// Stand-ins for the provisioner's ports (Kubernetes, AWS, the hub) with the semantics the service relies on
// (optimistic concurrency on Secrets, deletes of what is gone succeed), and real openssl-made signing material:
// a test "AWS" certificate for identity documents and a test SNS signing key.
import { execFileSync } from "node:child_process";
import { createSign, generateKeyPairSync } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, resolvePlan } from "@clusterspec/core";
import { certificate, specText } from "@clusterspec/testkit";
import { clientConfig } from "@clusterspec/wireguard";
import { OpensslIdentityVerifier } from "../src/identity.js";
import { generateKeyPair } from "../src/keys.js";
import {
  type AwsApi,
  type AwsInstance,
  type BootstrapToken,
  ConflictError,
  type HubApi,
  type HubPeer,
  type KubeApi,
  type KubeNode,
  type LogLevel,
  type SlotSecret,
  type SlotUpdate,
} from "../src/ports.js";
import { Provisioner } from "../src/service.js";
import { type Settings, settingsFrom, topicName } from "../src/settings.js";
import { type SnsMessage, stringToSign } from "../src/sns.js";

export const ACCOUNT = "123456789012";

export class FakeKube implements KubeApi {
  readonly slots = new Map<string, SlotSecret>();
  readonly tokens = new Map<string, Required<BootstrapToken> & { description: string }>();
  readonly nodes = new Map<string, KubeNode>();
  readonly calls: string[] = [];
  private version = 1;
  ca = "-----BEGIN CERTIFICATE-----\nTESTCA\n-----END CERTIFICATE-----\n";

  async listSlots(): Promise<SlotSecret[]> {
    return [...this.slots.values()];
  }
  async updateSlot(slot: SlotSecret, u: SlotUpdate): Promise<void> {
    const current = this.slots.get(slot.name);
    if (!current || current.resourceVersion !== slot.resourceVersion) throw new ConflictError(slot.name);
    this.calls.push(`update ${slot.name}`);
    this.slots.set(slot.name, { ...current, ...u, resourceVersion: String(++this.version) });
  }
  async createBootstrapToken(t: Required<BootstrapToken> & { description: string }): Promise<void> {
    this.tokens.set(t.id, t);
  }
  async listBootstrapTokens(): Promise<BootstrapToken[]> {
    return [...this.tokens.values()].map(({ id, instanceId, expiration }) => ({ id, instanceId, expiration }));
  }
  async deleteBootstrapToken(id: string): Promise<void> {
    this.tokens.delete(id);
  }
  async getNode(name: string): Promise<KubeNode | undefined> {
    return this.nodes.get(name);
  }
  async listNodes(): Promise<KubeNode[]> {
    return [...this.nodes.values()];
  }
  async deleteNode(name: string): Promise<void> {
    this.calls.push(`delete node ${name}`);
    this.nodes.delete(name);
  }
  async clusterCaPem(): Promise<string> {
    return this.ca;
  }
  /** The instance holding a slot, by slot. */
  holders(): Record<string, string | undefined> {
    return Object.fromEntries([...this.slots.values()].map((s) => [s.name, s.instanceId]));
  }
}

export class FakeAws implements AwsApi {
  readonly instances = new Map<string, AwsInstance>();
  async describeInstances(ids: readonly string[]): Promise<AwsInstance[]> {
    return ids.flatMap((id) => this.instances.get(id) ?? []);
  }
  async groupInstances(groups: readonly string[]): Promise<AwsInstance[]> {
    return [...this.instances.values()].filter((i) => i.group !== undefined && groups.includes(i.group));
  }
  launch(id: string, group: string, privateIp: string, state = "running"): AwsInstance {
    const i = { id, state, privateIp, publicIp: undefined, group };
    this.instances.set(id, i);
    return i;
  }
  setState(id: string, state: string): void {
    const i = this.instances.get(id);
    if (i) this.instances.set(id, { ...i, state });
  }
}

export class FakeHub implements HubApi {
  readonly peerMap = new Map<string, string>();
  async peers(): Promise<HubPeer[]> {
    // as `wg show dump` lists them: comma-separated, here IPv6 first (the kernel's order is not the order set)
    return [...this.peerMap].map(([publicKey, ips]) => ({ publicKey, allowedIps: ips.split(",").reverse() }));
  }
  async setPeer(publicKey: string, allowedIp: string): Promise<void> {
    this.peerMap.set(publicKey, allowedIp);
  }
  async removePeer(publicKey: string): Promise<void> {
    this.peerMap.delete(publicKey);
  }
}

/** Certificates made once per test file, in a folder removed when the process exits. */
let sharedDir: string | undefined;
const shared = new Map<string, { cert: string; key: string; certPem: string }>();
function sharedCertificate(name: string): { cert: string; key: string; certPem: string } {
  if (sharedDir === undefined) {
    const d = mkdtempSync(join(tmpdir(), "clusterspec-prov-certs-"));
    sharedDir = d;
    process.on("exit", () => rmSync(d, { recursive: true, force: true }));
  }
  let c = shared.get(name);
  if (!c) {
    c = makeCertificate(sharedDir, name);
    shared.set(name, c);
  }
  return c;
}

/** A self-signed certificate and its key, made by openssl in `dir` (testkit's `certificate`), with its PEM text. */
export function makeCertificate(dir: string, name: string): { cert: string; key: string; certPem: string } {
  const { cert, key } = certificate(dir, name, "");
  return { cert, key, certPem: readFileSync(cert, "utf8") };
}

/** `openssl smime -sign`: a detached PKCS7 over the document, as IMDS serves it (base64, no PEM lines). */
export function signDocument(dir: string, document: string, signer: { cert: string; key: string }): string {
  const doc = join(dir, "document");
  writeFileSync(doc, document);
  const pem = execFileSync(
    "openssl",
    ["smime", "-sign", "-binary", "-in", doc, "-signer", signer.cert, "-inkey", signer.key, "-outform", "PEM"],
    { encoding: "utf8" },
  );
  return pem.replace(/-----(BEGIN|END) PKCS7-----/g, "").replace(/\s+/g, "");
}

export function identityDocument(instanceId: string, region: string, accountId = ACCOUNT): string {
  return `${JSON.stringify(
    {
      accountId,
      architecture: "arm64",
      availabilityZone: `${region}a`,
      imageId: "ami-0123456789abcdef0",
      instanceId,
      instanceType: "t4g.xlarge",
      pendingTime: "2026-12-02T14:00:00Z",
      privateIp: "172.24.1.10",
      region,
      version: "2017-09-30",
    },
    null,
    2,
  )}`;
}

/** SNS's side: a key pair standing for the region's signing certificate, and messages signed with it. */
export class TestSns {
  readonly certUrl: string;
  readonly certPem: string;
  private readonly key;
  private n = 0;
  constructor(
    readonly region: string,
    readonly topicArn: string,
  ) {
    const c = sharedCertificate("sns");
    this.certPem = c.certPem;
    this.key = readFileSync(c.key, "utf8");
    this.certUrl = `https://sns.${region}.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem`;
  }
  sign(m: Omit<SnsMessage, "Signature" | "SignatureVersion" | "SigningCertURL">, key = this.key): SnsMessage {
    const full = { ...m, SignatureVersion: "2", SigningCertURL: this.certUrl, Signature: "" };
    const s = createSign("RSA-SHA256");
    s.update(stringToSign(full));
    return { ...full, Signature: s.sign(key, "base64") };
  }
  event(instanceId: string, state: string, account = ACCOUNT): SnsMessage {
    this.n++;
    return this.sign({
      Type: "Notification",
      MessageId: `00000000-0000-0000-0000-${String(this.n).padStart(12, "0")}`,
      TopicArn: this.topicArn,
      Message: JSON.stringify({
        version: "0",
        source: "aws.ec2",
        "detail-type": "EC2 Instance State-change Notification",
        account,
        region: this.region,
        time: "2026-12-02T14:00:00Z",
        detail: { "instance-id": instanceId, state },
      }),
      Timestamp: "2026-12-02T14:00:00.000Z",
    });
  }
  /** A key SNS never had. */
  static otherKey(): string {
    return generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({
      type: "pkcs8",
      format: "pem",
    }) as string;
  }
}

export interface World {
  readonly dir: string;
  readonly settings: Settings;
  readonly kube: FakeKube;
  readonly aws: FakeAws;
  readonly hub: FakeHub;
  readonly sns: TestSns;
  readonly aws_: { cert: string; key: string; certPem: string };
  readonly provisioner: Provisioner;
  readonly logs: { level: LogLevel; event: string; fields: Record<string, unknown> }[];
  readonly confirmed: string[];
  now: Date;
  /** Headers of a request from this instance, signed by the test AWS certificate (or by `signer`). */
  identity(
    instanceId: string,
    signer?: { cert: string; key: string },
    accountId?: string,
  ): { document: string; signature: string };
  cleanup(): void;
}

/** A provisioner of an example spec, with stand-ins and the slots' Secrets as the operator applies them. */
export function world(
  example:
    | "cloud-burst-only"
    | "hybrid-cloud-burst"
    | "fixture:dual-stack-cloud-burst-only"
    | "fixture:ipv6-only-cloud-burst-only",
  realHub?: HubApi,
): World {
  const dir = mkdtempSync(join(tmpdir(), "clusterspec-prov-"));
  const loaded = loadSpec(specText(example));
  if (!loaded.ok) throw new Error(`${example} is invalid`);
  const plan = resolvePlan(loaded.value);
  const cloud = plan.cloud;
  if (!cloud) throw new Error("no cloud");
  const topicArn = `arn:aws:sns:${cloud.aws.region}:${ACCOUNT}:${topicName(plan)}`;
  const settings = settingsFrom(plan, { accountId: ACCOUNT, topicArn });
  const kube = new FakeKube();
  for (const slot of cloud.slots)
    kube.slots.set(slot.secretName, {
      name: slot.secretName,
      pool: slot.pool,
      index: slot.index,
      instanceId: undefined,
      annotations: {},
      // static keys: the generated Secrets hold each slot's config (here with real keys); minted keys: empty
      config:
        cloud.peerKeys === "static"
          ? clientConfig(plan, cloud, { ...slot, privateKey: generateKeyPair().privateKey })
          : undefined,
      resourceVersion: "1",
    });
  const aws = new FakeAws();
  const hub = new FakeHub();
  const sns = new TestSns(cloud.aws.region, topicArn);
  const awsCert = sharedCertificate("aws-identity");
  const logs: World["logs"] = [];
  const confirmed: string[] = [];
  const w: World = {
    dir,
    settings,
    kube,
    aws,
    hub,
    sns,
    aws_: awsCert,
    logs,
    confirmed,
    now: new Date("2026-12-02T14:00:00Z"),
    provisioner: undefined as unknown as Provisioner,
    identity(instanceId, signer = awsCert, accountId = ACCOUNT) {
      const doc = identityDocument(instanceId, cloud.aws.region, accountId);
      return { document: Buffer.from(doc).toString("base64"), signature: signDocument(dir, doc, signer) };
    },
    cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  (w as { provisioner: Provisioner }).provisioner = new Provisioner(settings, {
    kube,
    aws,
    hub: realHub ?? hub,
    identity: new OpensslIdentityVerifier(awsCert.certPem),
    clock: { now: () => w.now },
    log: (level, event, fields = {}) => logs.push({ level, event, fields: { ...fields } }),
    fetchCertificate: async (url) => {
      if (url !== sns.certUrl) throw new Error(`unexpected certificate URL ${url}`);
      return sns.certPem;
    },
    confirmSubscription: async (url) => {
      confirmed.push(url);
    },
  });
  return w;
}
