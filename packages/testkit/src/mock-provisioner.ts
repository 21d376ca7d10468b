// A provisioner that enforces the contract (cloud/provisioner/openapi.yaml) for the join-script tests: HTTPS on
// 127.0.0.1 only, GET on the two instance paths, each request with an identity document for the instance in
// the path and a signature (else 403), answering from a per-path script of statuses. Bounded: after
// `maxRequests` it answers 429 to everything. POST on the SNS path takes EC2 state-change notifications (no SNS
// signature check here): `terminated` is final for the instance (GET answers 404 from then on) and deletes its
// Node from `nodes`, a stand-in for the cluster's Node objects, when the Node's providerID names that instance.
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";

export interface MockProvisionerOptions {
  /** Header names of the identity document (base64 JSON) and its signature (base64). */
  readonly identityHeaders: { readonly document: string; readonly signature: string };
  /** The region the identity document must name. */
  readonly region: string;
  /** Bodies served with 200. */
  readonly bodies: { readonly wireguard: string; readonly kubeconfig: string };
  readonly maxRequests?: number;
  /** The SNS endpoint's path (cloud.provisioner.notifyPath). */
  readonly notifyPath?: string;
}

/** What the mock knows of a Node: its name and spec.providerID. */
export interface MockNode {
  readonly name: string;
  readonly providerID: string;
}

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly status: number;
}

/** Statuses per path, in order; the last one repeats. */
export type ProvisionerScript = Record<"wireguard" | "kubeconfig", number[]>;

export class MockProvisioner {
  readonly seen: SeenRequest[] = [];
  script: ProvisionerScript = { wireguard: [200], kubeconfig: [200] };
  /** The cluster's Nodes by name: a test registers what the join would; `terminated` deletes per the contract. */
  readonly nodes = new Map<string, MockNode>();
  /** Node names the provisioner deleted, in order. */
  readonly deletedNodes: string[] = [];
  /** Instance ids whose `terminated` was handled: final. */
  readonly terminated = new Set<string>();
  private server: Server | undefined;

  constructor(private readonly options: MockProvisionerOptions) {}

  /** Listens on 127.0.0.1 on a free port, with the given PEM key and certificate; returns the port. */
  async start(key: string, cert: string): Promise<number> {
    const server = createServer({ key, cert }, (req, res) => this.handle(req, res));
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return (server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const answer = (status: number, body = "") => {
      this.seen.push({ method: req.method ?? "", path: req.url ?? "", status });
      res.writeHead(status, { "content-type": "text/plain" }).end(body);
    };
    if (this.seen.length >= (this.options.maxRequests ?? 200)) {
      answer(429);
      return;
    }
    if (req.method === "POST" && req.url === (this.options.notifyPath ?? "/sns")) {
      this.receiveNotification(req, answer);
      return;
    }
    const m = /^\/(wireguard\/config|kubeadm\/kubeconfig)\/(i-[0-9a-f]{8,17})$/.exec(req.url ?? "");
    if (req.method !== "GET" || !m) {
      answer(405);
      return;
    }
    const doc = req.headers[this.options.identityHeaders.document.toLowerCase()];
    const sig = req.headers[this.options.identityHeaders.signature.toLowerCase()];
    let identity: { instanceId?: string; region?: string } = {};
    try {
      identity = JSON.parse(Buffer.from(String(doc), "base64").toString("utf8"));
    } catch {
      answer(403, "identity document is not base64 JSON");
      return;
    }
    if (typeof sig !== "string" || !/^[A-Za-z0-9+/=]+$/.test(sig)) {
      answer(403, "no identity signature");
      return;
    }
    if (identity.instanceId !== m[2] || identity.region !== this.options.region) {
      answer(403, "identity is not this instance");
      return;
    }
    if (this.terminated.has(m[2] ?? "")) {
      answer(404, "terminated");
      return;
    }
    const which = m[1] === "wireguard/config" ? "wireguard" : "kubeconfig";
    const queue = this.script[which];
    const status = (queue.length > 1 ? queue.shift() : queue[0]) ?? 500;
    answer(status, status === 200 ? this.options.bodies[which] : "not now");
  }

  /** An SNS Notification whose Message is an EC2 state-change event; `terminated` frees the instance and deletes its Node. */
  private receiveNotification(req: IncomingMessage, answer: (status: number, body?: string) => void): void {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      let event: { detail?: { "instance-id"?: unknown; state?: unknown } } = {};
      try {
        const message = JSON.parse(body) as { Type?: unknown; Message?: unknown };
        if (req.headers["x-amz-sns-message-type"] !== "Notification" || message.Type !== "Notification") {
          answer(400, "not a Notification");
          return;
        }
        event = JSON.parse(String(message.Message));
      } catch {
        answer(400, "not JSON");
        return;
      }
      const id = event.detail?.["instance-id"];
      const state = event.detail?.state;
      if (typeof id !== "string" || !/^i-[0-9a-f]{8,17}$/.test(id)) {
        answer(400, "no instance id");
        return;
      }
      if (state === "terminated") {
        this.terminated.add(id);
        const node = this.nodes.get(id);
        if (node?.providerID.endsWith(`/${id}`)) {
          this.nodes.delete(id);
          this.deletedNodes.push(id);
        }
      }
      answer(200);
    });
  }
}
