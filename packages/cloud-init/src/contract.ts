// The provisioner's side of the bargain, as an OpenAPI 3.1 document built from the plan: the endpoints the
// join script calls (with the same paths, headers, statuses and retries the script uses), the SNS endpoint,
// the lifecycle it must implement and the Kubernetes Secret layout of the peer configs.
import { type BurstPlan, type CloudPlan, PROVISIONER_EVENT_STATES, toYaml } from "@clusterspec/core";
import {
  BOOTSTRAP_TOKEN_MIN_TTL_SECONDS,
  IDENTITY_HEADERS,
  JOIN_BOUNDS,
  PROVISIONER_RETRY,
  RETRIED_STATUSES,
} from "./join-script.js";
import {
  BURST_PROVIDER_PREFIX,
  NODE_VERBS,
  PROVISIONER_SERVICE_ACCOUNT,
  provisionerRbacName,
  RBAC_PATH,
  SLOT_SECRET_VERBS,
  TOKEN_SECRET_VERBS,
} from "./rbac.js";

export const CONTRACT_PATH = "cloud/provisioner/openapi.yaml";

/**
 * The bootstrap token's TTL. It is minted when the kubeconfig that carries it is served (once per instance, after
 * boot), and the join script's last use of it (`kubeadm join` runs under `timeout` until the join's deadline of
 * uptime, JOIN_BOUNDS) comes before BOOTSTRAP_TOKEN_MIN_TTL_SECONDS of uptime: that covers it, and a longer one buys
 * nothing (Cluster Autoscaler deletes an instance not registered by then).
 */
export function bootstrapTokenTtlSeconds(): number {
  return BOOTSTRAP_TOKEN_MIN_TTL_SECONDS;
}

/** SNS waits this long for an answer before it counts the delivery as failed (AWS: 15 s). */
export const SNS_ANSWER_SECONDS = 15;

const INSTANCE_ID_PATTERN = "^i-[0-9a-f]{8,17}$";

const INSTANCE_ID_PARAMETER = {
  name: "instanceId",
  in: "path",
  required: true,
  description: "The EC2 instance id, as the node reads it from IMDS",
  schema: { type: "string", pattern: INSTANCE_ID_PATTERN },
};

const retryText = (what: string) =>
  `The join script sends GET at most ${PROVISIONER_RETRY.attempts} times, ${PROVISIONER_RETRY.delaySeconds} s apart (${PROVISIONER_RETRY.timeoutSeconds} s timeout each), retrying on no answer and on ${RETRIED_STATUSES.join(", ")}; any other status stops the join at once. ${what}`;

function identityText(cloud: CloudPlan): string {
  return [
    `Every request carries the instance identity document and its signature, both read from IMDSv2 (\`/latest/dynamic/instance-identity/document\` and \`/latest/dynamic/instance-identity/pkcs7\`).`,
    `\`${IDENTITY_HEADERS.document}\` is the document, base64-encoded (one line); \`${IDENTITY_HEADERS.signature}\` is the PKCS7 signature as IMDS serves it, newlines removed.`,
    `To verify: decode the document; check the PKCS7 (SignedData) signature over exactly those bytes against AWS's published DSA certificate for instance identity documents of region ${cloud.aws.region}, pinned in the provisioner, and never against a certificate the request carries (openssl: \`openssl smime -verify -binary -in sig.p7 -inform PEM -content document -certfile aws.pem -nointern -noverify\`, with the signature wrapped in PEM BEGIN/END PKCS7 lines; without \`-nointern\` openssl also trusts certificates embedded in the PKCS7, and a document signed by any self-made key verifies);`,
    `then require document.region = ${cloud.aws.region}, document.accountId = the account this provisioner serves, document.instanceId = the path's instanceId.`,
    "The signed document never changes during an instance's life, so it is bound to the instance and to first use: the request must come from the instance's own address as ec2:DescribeInstances reported it at `running` (private or public IPv4 address, or one of its IPv6 addresses), and each of the two answers is served once per instance (a second GET is refused and logged).",
    "A request that fails any of these checks gets 403 and is not retried: the node powers off. An instance the provisioner has not seen start (`running`) in one of the pools' groups, or has seen terminate, gets 404 (retried).",
  ].join(" ");
}

function groupList(cloud: CloudPlan): string {
  return cloud.pools.map((p) => `\`${p.groupName}\` (pool ${p.name})`).join(", ");
}

function lifecycleText(plan: BurstPlan, cloud: CloudPlan): string {
  const wg = cloud.wireguard.interface;
  // dual stack: the slot's address of each family, comma-separated as wg set takes them
  const slotAllowed =
    cloud.wireguard.tunnelSubnet6 === undefined ? "<slot address>/32" : "<slot address>/32,<slot IPv6 address>/128";
  const keys =
    cloud.peerKeys === "static"
      ? `The slots' key pairs are static (\`cloud.wireguard.peerKeys\`): their client configs are the generated Secrets and the hub's config lists their peers; on \`running\` the provisioner (re-)adds the slot's peer with \`wg set ${wg} peer <public key> allowed-ips ${slotAllowed}\` on the hub, on \`terminated\` it removes it with \`wg set ${wg} peer <public key> remove\` (and again whenever the hub restarts, for every free slot).`
      : `The provisioner mints a key pair per instance on \`running\`, writes the client config into the slot's Secret and adds the peer on the hub with \`wg set ${wg} peer <public key> allowed-ips ${slotAllowed}\`; on \`terminated\` it removes the peer (\`wg set ${wg} peer <public key> remove\`) and deletes the key from the Secret.`;
  return [
    `EC2 state changes (${PROVISIONER_EVENT_STATES.join(" and ")} only) reach the provisioner of cluster ${plan.name} as SNS notifications (POST ${cloud.provisioner.notifyPath}).`,
    `They cover every instance of the account and region: the event names no Auto Scaling Group, and EventBridge cannot match on tags. So on \`running\`, before anything else, check that the instance belongs to a pool: its tag \`aws:autoscaling:groupName\` (set by Auto Scaling on every instance it launches; read with ec2:DescribeTags or ec2:DescribeInstances, retrying while the tag is not there yet, as the event may come first) is one of ${groupList(cloud)}, which also names the instance's pool. An instance of no pool gets nothing (no slot, no token; answer 2XX and drop the event), so unrelated instances neither use up peer slots nor receive credentials.`,
    "On `running` of a pool's instance: assign the instance a free WireGuard peer slot of its pool (a Secret of the pool without the instance-id label; label it with the instance id) and record the addresses ec2:DescribeInstances reports for it.",
    `When the instance fetches its discovery kubeconfig (once), mint a bootstrap token for that instance alone (usages authentication and signing, groups system:bootstrappers:kubeadm:default-node-token) with a TTL of ${bootstrapTokenTtlSeconds()} s: the join script uses it last before ${JOIN_BOUNDS.deadlineSeconds} s of uptime (\`kubeadm join\` runs under \`timeout\` until that deadline), plus ${JOIN_BOUNDS.marginSeconds} s for clock skew.`,
    "On `terminated`: delete the instance's bootstrap token and free its slot (remove the instance-id label), so that GET for that instance id answers 404 from then on.",
    nodeLifecycleText(cloud),
    keys,
    "Events may arrive twice, late or out of order, or not at all: handle each idempotently (ask ec2:DescribeInstances for the instance's state rather than trusting the event's order), treat `terminated` as final for an instance id, and reconcile on start and periodically: the pools' instances (autoscaling:DescribeAutoScalingGroups, ec2:DescribeInstances) against the slots, the tokens, the burst Nodes and the hub's peers (a lost `terminated` still frees the slot, revokes the token and deletes the Node; a lost `running` still gets a slot; peers the hub lost in a restart are added again from the slot Secrets).",
  ].join(" ");
}

/** Who removes the Node of a terminated instance: the provisioner (no cloud controller manager runs). */
export function nodeLifecycleText(cloud: CloudPlan): string {
  return [
    "Also on `terminated`: delete the instance's Node. A burst node registers under its instance id (kubeadm `nodeRegistration.name`; the instance id is never reused, unlike the ip-a-b-c-d host name), with providerID `aws:///<availability zone>/<instance id>`.",
    "GET the Node named by the event's detail.instance-id; when it exists and its spec.providerID ends in `/<instance id>`, DELETE it (a 404 on either is success: already gone). No cloud controller manager runs, so nothing else removes it: a stale Node keeps its taints and providerID, and Cluster Autoscaler counts it against the pool.",
    `The provisioner runs as ServiceAccount ${cloud.provisioner.namespace}/${PROVISIONER_SERVICE_ACCOUNT}; \`${RBAC_PATH}\` grants it ${NODE_VERBS.join(", ")} on nodes (a ValidatingAdmissionPolicy refuses its delete of any Node whose providerID does not start with \`${BURST_PROVIDER_PREFIX}\`), ${SLOT_SECRET_VERBS.join(", ")} on the Secrets of namespace ${cloud.provisioner.namespace}, and ${TOKEN_SECRET_VERBS.join(", ")} on Secrets of kube-system (a second policy limits those to bootstrap tokens), and creates that namespace.`,
  ].join(" ");
}

function clientConfigText(cloud: CloudPlan): string {
  const hub = cloud.hub;
  return [
    "A complete wg-quick config for this instance's slot:",
    `[Interface] PrivateKey (the slot's key), Address = ${cloud.wireguard.tunnelSubnet6 === undefined ? "the slot address as /32" : "the slot's addresses as /32 and /128 (IPv4, IPv6)"} (one of ${cloud.slots.length} slots, see x-clusterspec.slots), MTU = ${cloud.tunnelMtu};`,
    `[Peer] PublicKey = the hub's public key${hub?.publicKey ? ` (${hub.publicKey})` : ""}, Endpoint = ${hub?.endpoint ?? "the hub's public host:port"}, AllowedIPs = ${cloud.routedNetworks.join(", ")}, PersistentKeepalive = 25.`,
    `No DNS= line: the burst node drops any, keeping only ${cloud.nameservers.join(", ")}.`,
    "It is the data key of the slot's Secret (x-clusterspec.peerSecrets).",
  ].join(" ");
}

function errorResponses(notFound: string): Record<string, unknown> {
  const text = { "text/plain": { schema: { type: "string" } } };
  return {
    "403": {
      description:
        "The identity headers are missing or do not verify for this instance, the request does not come from the instance's address, or this answer was served to the instance already. Not retried.",
      content: text,
    },
    "404": { description: notFound, content: text },
    "429": { description: "Too many requests. Retried.", content: text },
    "5XX": { description: "A failure worth retrying (the provisioner or an API it needs). Retried.", content: text },
  };
}

function getOperation(
  operationId: string,
  summary: string,
  description: string,
  ok: Record<string, unknown>,
  notFound: string,
): Record<string, unknown> {
  return {
    get: {
      operationId,
      summary,
      description,
      security: [{ identityDocument: [], identitySignature: [] }],
      // inline: the 3.1 schema of 2021-04-15 wants an absolute URI in $ref
      parameters: [INSTANCE_ID_PARAMETER],
      responses: { "200": ok, ...errorResponses(notFound) },
    },
  };
}

/** The contract as an object, in the order it is written. */
export function provisionerContract(plan: BurstPlan): Record<string, unknown> | undefined {
  const cloud = plan.cloud;
  if (!cloud) return undefined;
  const s = cloud.peerSecret;
  const notYet =
    `The instance has no slot: the provisioner has not seen it \`running\` in a pool's group yet, or has seen it terminate (from then on always 404). ${retryText("")}`.trim();
  return {
    openapi: "3.1.0",
    info: {
      title: `clusterspec provisioner of cluster ${plan.name}`,
      version: "clusterspec/v1alpha1",
      summary: "What the burst nodes' user data expects from the provisioner",
      description: lifecycleText(plan, cloud),
    },
    servers: [{ url: cloud.provisioner.url.replace(/\/+$/, "") }],
    paths: {
      "/wireguard/config/{instanceId}": getOperation(
        "getWireguardConfig",
        "The wg-quick config of the instance's peer slot",
        `${clientConfigText(cloud)} Served once. ${retryText(`The node writes it 0600 to /etc/wireguard/${cloud.wireguard.interface}.conf.`)}`,
        { description: "The client config", content: { "text/plain": { schema: { type: "string" } } } },
        notYet,
      ),
      "/kubeadm/kubeconfig/{instanceId}": getOperation(
        "getDiscoveryKubeconfig",
        "The kubeadm discovery kubeconfig of the instance",
        `A kubeconfig for \`kubeadm join --discovery-file\`: cluster server https://${cloud.apiServerEndpoint}, its certificate-authority-data the cluster CA (whose hash is the spec's caCertHash), and as user token a bootstrap token minted for this instance by this answer (TTL ${bootstrapTokenTtlSeconds()} s). Served once. ${retryText("")}`.trim(),
        { description: "The discovery kubeconfig", content: { "application/yaml": { schema: { type: "string" } } } },
        notYet,
      ),
      [cloud.provisioner.notifyPath]: {
        post: {
          operationId: "receiveSnsMessage",
          summary: "EC2 instance state changes, through the SNS topic Terraform creates",
          description: [
            "Verify every message's signature (SignatureVersion 2: SHA256withRSA over the message type's fields in AWS's documented order; the certificate fetched only from an HTTPS SigningCertURL on the host sns.<region>.amazonaws.com) and that TopicArn is this cluster's topic; reject others with 400.",
            "SubscriptionConfirmation: GET the SubscribeURL (the provisioner confirms the subscription itself; Terraform sets endpoint_auto_confirms and waits for it).",
            `Notification: Message is the EventBridge event; act on detail.state ${PROVISIONER_EVENT_STATES.join(" and ")} (the rule forwards no other state) of instances in the pools' groups (see the lifecycle in info.description), ignore any other.`,
            `Answer 2XX only once the event's effect is stored; answer 5XX for anything worth retrying (an API the provisioner needs failed, the instance is still pending); answer within ${SNS_ANSWER_SECONDS} s (SNS counts a slower answer as failed and delivers again), handling duplicates idempotently.`,
          ].join(" "),
          parameters: [
            {
              name: "x-amz-sns-message-type",
              in: "header",
              required: true,
              schema: { type: "string", enum: ["SubscriptionConfirmation", "Notification", "UnsubscribeConfirmation"] },
            },
          ],
          requestBody: {
            required: true,
            description: "SNS posts JSON with Content-Type text/plain",
            content: { "text/plain": { schema: { $ref: "#/components/schemas/SnsMessage" } } },
          },
          responses: {
            "200": { description: "Handled (or stored for handling)" },
            "400": { description: "Signature or topic does not verify: dropped" },
            "5XX": { description: "Not handled: SNS delivers again" },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        identityDocument: {
          type: "apiKey",
          in: "header",
          name: IDENTITY_HEADERS.document,
          description: identityText(cloud),
        },
        identitySignature: {
          type: "apiKey",
          in: "header",
          name: IDENTITY_HEADERS.signature,
          description: `The PKCS7 signature of the identity document; see ${IDENTITY_HEADERS.document}.`,
        },
      },
      schemas: {
        SnsMessage: {
          type: "object",
          required: ["Type", "MessageId", "TopicArn", "Timestamp", "SignatureVersion", "Signature", "SigningCertURL"],
          properties: Object.fromEntries(
            [
              "Type",
              "MessageId",
              "TopicArn",
              "Subject",
              "Message",
              "Timestamp",
              "SignatureVersion",
              "Signature",
              "SigningCertURL",
              "SubscribeURL",
              "Token",
              "UnsubscribeURL",
            ].map((k) => [k, { type: "string" }]),
          ),
        },
        Ec2StateChange: {
          type: "object",
          description: "The EventBridge event in a Notification's Message",
          required: ["source", "detail-type", "detail"],
          properties: {
            source: { const: "aws.ec2" },
            "detail-type": { const: "EC2 Instance State-change Notification" },
            region: { type: "string" },
            account: { type: "string" },
            detail: {
              type: "object",
              required: ["instance-id", "state"],
              properties: {
                "instance-id": { type: "string", pattern: INSTANCE_ID_PATTERN },
                state: {
                  type: "string",
                  enum: [...PROVISIONER_EVENT_STATES],
                },
              },
            },
          },
        },
        PeerSecret: {
          type: "object",
          description: `One Kubernetes Secret per burst slot, in namespace ${s.namespace}, named <cluster>-wg-<pool>-<index>.`,
          required: ["apiVersion", "kind", "type", "metadata", "data"],
          properties: {
            apiVersion: { const: "v1" },
            kind: { const: "Secret" },
            type: { const: s.type },
            metadata: {
              type: "object",
              required: ["name", "namespace", "labels"],
              properties: {
                name: { type: "string" },
                namespace: { const: s.namespace },
                labels: {
                  type: "object",
                  required: [s.labels.cluster, s.labels.pool, s.labels.slot],
                  properties: {
                    [s.labels.cluster]: { const: plan.name },
                    [s.labels.pool]: { enum: cloud.pools.map((p) => p.name) },
                    [s.labels.slot]: { type: "string", pattern: "^[0-9]+$" },
                    [s.labels.instanceId]: {
                      type: "string",
                      pattern: INSTANCE_ID_PATTERN,
                      description: "Set on running while the instance holds the slot; removed on terminated",
                    },
                  },
                },
              },
            },
            data: {
              type: "object",
              required: [s.dataKey],
              properties: {
                [s.dataKey]: { type: "string", contentEncoding: "base64", description: "The client config" },
              },
            },
          },
        },
      },
    },
    "x-clusterspec": {
      nodeLifecycle: {
        nodeName: "instance-id",
        providerId: "aws:///<availability zone>/<instance id>",
        deleteNodeOn: "terminated",
        serviceAccount: `${cloud.provisioner.namespace}/${PROVISIONER_SERVICE_ACCOUNT}`,
        clusterRole: provisionerRbacName(plan),
        verbs: [...NODE_VERBS],
        deletableProviderIds: `${BURST_PROVIDER_PREFIX}*`,
      },
      bootstrapTokenTtlSeconds: bootstrapTokenTtlSeconds(),
      peerSecrets: {
        namespace: s.namespace,
        type: s.type,
        dataKey: s.dataKey,
        labels: s.labels,
        keys: cloud.peerKeys,
      },
      ...(cloud.hub === undefined
        ? {}
        : {
            hub: {
              tunnelAddress: cloud.hub.tunnelCidr,
              ...(cloud.hub.tunnelCidr6 === undefined ? {} : { tunnelAddress6: cloud.hub.tunnelCidr6 }),
              listenPort: cloud.hub.listenPort,
              ...(cloud.hub.endpoint === undefined ? {} : { endpoint: cloud.hub.endpoint }),
              ...(cloud.hub.publicKey === undefined ? {} : { publicKey: cloud.hub.publicKey }),
            },
          }),
      slots: cloud.slots.map((slot) => ({
        pool: slot.pool,
        index: slot.index,
        address: slot.cidr,
        ...(slot.cidr6 === undefined ? {} : { address6: slot.cidr6 }),
        secret: slot.secretName,
      })),
    },
  };
}

export function renderContract(plan: BurstPlan, marker: string): string | undefined {
  const contract = provisionerContract(plan);
  return contract && `# ${marker}\n${toYaml(contract)}`;
}
