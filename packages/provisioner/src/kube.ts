// The Kubernetes API through node:https with the pod's ServiceAccount (in-cluster: the token and CA under
// /var/run/secrets/kubernetes.io/serviceaccount) or a token and CA given explicitly: a dozen REST calls on Secrets
// and Nodes do not pay for @kubernetes/client-node and its dependencies. Every call is one the generated RBAC
// (cloud/provisioner/rbac.yaml) allows: slot Secrets of its namespace, bootstrap-token Secrets of kube-system by
// name (their ids are recorded on the slots, so it never lists kube-system), Nodes.
import { request } from "node:https";
import { BOOTSTRAP_TOKEN_TYPE } from "@clusterspec/cloud-init";
import type { PeerSecretLayout } from "@clusterspec/core";
import {
  type BootstrapToken,
  ConflictError,
  type KubeApi,
  type KubeNode,
  type SlotSecret,
  type SlotUpdate,
} from "./ports.js";
import { ANNOTATIONS } from "./service.js";

export interface KubeConnection {
  /** https://host:port */
  readonly server: string;
  readonly token: string;
  readonly caPem: string;
}

interface SecretObject {
  metadata: {
    name: string;
    resourceVersion: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  data?: Record<string, string>;
}

export class HttpKube implements KubeApi {
  constructor(
    private readonly c: KubeConnection,
    private readonly layout: PeerSecretLayout,
    private readonly cluster: string,
  ) {}

  private call(method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
    const url = new URL(path, this.c.server);
    const payload = body === undefined ? undefined : JSON.stringify(body);
    return new Promise((resolve, reject) => {
      const req = request(
        url,
        {
          method,
          ca: this.c.caPem,
          timeout: 8000,
          headers: {
            authorization: `Bearer ${this.c.token}`,
            accept: "application/json",
            ...(payload === undefined ? {} : { "content-type": "application/json" }),
          },
        },
        (res) => {
          let text = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            text += c;
          });
          res.on("end", () => {
            let json: unknown;
            try {
              json = text === "" ? undefined : JSON.parse(text);
            } catch {
              json = undefined;
            }
            resolve({ status: res.statusCode ?? 0, json });
          });
        },
      );
      req.on("timeout", () => req.destroy(new Error(`${method} ${path}: timeout`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  private async ok(method: string, path: string, body?: unknown, allow: number[] = []): Promise<unknown> {
    const r = await this.call(method, path, body);
    if (r.status === 409) throw new ConflictError(`${method} ${path}: conflict`);
    if ((r.status < 200 || r.status > 299) && !allow.includes(r.status))
      throw new Error(`${method} ${path}: HTTP ${r.status}`);
    return r.status === 404 ? undefined : r.json;
  }

  private get secretsPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.layout.namespace)}/secrets`;
  }

  async listSlots(): Promise<SlotSecret[]> {
    const l = this.layout.labels;
    const selector = encodeURIComponent(`${l.cluster}=${this.cluster}`);
    const list = (await this.ok("GET", `${this.secretsPath}?labelSelector=${selector}`)) as { items: SecretObject[] };
    return list.items
      .filter((s) => s.metadata.labels?.[l.pool] !== undefined && s.metadata.labels?.[l.slot] !== undefined)
      .map((s) => {
        const config = s.data?.[this.layout.dataKey];
        return {
          name: s.metadata.name,
          pool: s.metadata.labels?.[l.pool] ?? "",
          index: Number(s.metadata.labels?.[l.slot]),
          instanceId: s.metadata.labels?.[l.instanceId],
          annotations: Object.fromEntries(
            Object.entries(s.metadata.annotations ?? {}).filter(([k]) => k.startsWith("clusterspec.dev/")),
          ),
          config: config === undefined ? undefined : Buffer.from(config, "base64").toString("utf8"),
          resourceVersion: s.metadata.resourceVersion,
        };
      });
  }

  async updateSlot(slot: SlotSecret, u: SlotUpdate): Promise<void> {
    const current = (await this.ok("GET", `${this.secretsPath}/${encodeURIComponent(slot.name)}`)) as SecretObject;
    if (current.metadata.resourceVersion !== slot.resourceVersion) throw new ConflictError(slot.name);
    const labels = { ...(current.metadata.labels ?? {}) };
    if (u.instanceId === undefined) delete labels[this.layout.labels.instanceId];
    else labels[this.layout.labels.instanceId] = u.instanceId;
    const annotations = Object.fromEntries(
      Object.entries(current.metadata.annotations ?? {}).filter(([k]) => !k.startsWith("clusterspec.dev/")),
    );
    const data = { ...(current.data ?? {}) };
    if (u.config === undefined) delete data[this.layout.dataKey];
    else data[this.layout.dataKey] = Buffer.from(u.config).toString("base64");
    // PUT with the resourceVersion read: the API server answers 409 when the Secret changed since
    await this.ok("PUT", `${this.secretsPath}/${encodeURIComponent(slot.name)}`, {
      ...current,
      metadata: { ...current.metadata, labels, annotations: { ...annotations, ...u.annotations } },
      data,
    });
  }

  async createBootstrapToken(t: Required<BootstrapToken> & { readonly description: string }): Promise<void> {
    const b64 = (s: string) => Buffer.from(s).toString("base64");
    await this.ok("POST", "/api/v1/namespaces/kube-system/secrets", {
      apiVersion: "v1",
      kind: "Secret",
      type: BOOTSTRAP_TOKEN_TYPE,
      metadata: {
        name: `bootstrap-token-${t.id}`,
        namespace: "kube-system",
        labels: { [this.layout.labels.cluster]: this.cluster, [this.layout.labels.instanceId]: t.instanceId },
      },
      data: {
        "token-id": b64(t.id),
        "token-secret": b64(t.secret),
        expiration: b64(t.expiration),
        description: b64(t.description),
        "usage-bootstrap-authentication": b64("true"),
        "usage-bootstrap-signing": b64("true"),
        "auth-extra-groups": b64("system:bootstrappers:kubeadm:default-node-token"),
      },
    });
  }

  /** The tokens the slots record (the RBAC grants no list in kube-system); expired ones the token cleaner removes. */
  async listBootstrapTokens(): Promise<BootstrapToken[]> {
    return (await this.listSlots()).flatMap((s) => {
      const id = s.annotations[ANNOTATIONS.tokenId];
      const expiration = s.annotations[ANNOTATIONS.tokenExpiration];
      return id === undefined ? [] : [{ id, instanceId: s.instanceId, expiration: expiration ?? "" }];
    });
  }

  async deleteBootstrapToken(id: string): Promise<void> {
    if (!/^[a-z0-9]{6}$/.test(id)) throw new Error("not a bootstrap token id");
    await this.ok("DELETE", `/api/v1/namespaces/kube-system/secrets/bootstrap-token-${id}`, undefined, [404]);
  }

  async getNode(name: string): Promise<KubeNode | undefined> {
    const n = (await this.ok("GET", `/api/v1/nodes/${encodeURIComponent(name)}`, undefined, [404])) as
      | { metadata: { name: string }; spec?: { providerID?: string } }
      | undefined;
    return n && { name: n.metadata.name, providerID: n.spec?.providerID };
  }

  async listNodes(): Promise<KubeNode[]> {
    const l = (await this.ok("GET", "/api/v1/nodes")) as {
      items: { metadata: { name: string }; spec?: { providerID?: string } }[];
    };
    return l.items.map((n) => ({ name: n.metadata.name, providerID: n.spec?.providerID }));
  }

  async deleteNode(name: string): Promise<void> {
    await this.ok("DELETE", `/api/v1/nodes/${encodeURIComponent(name)}`, undefined, [404]);
  }

  async clusterCaPem(): Promise<string> {
    return this.c.caPem;
  }
}
