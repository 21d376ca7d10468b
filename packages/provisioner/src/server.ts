// The HTTP(S) front of the provisioner: routes the contract's three operations to the service, with bounded request
// bodies and one JSON log line per answer. TLS directly (key and certificate given) or plain HTTP on a loopback
// address behind a reverse proxy that terminates TLS and sets X-Forwarded-For (then trustProxy).
import { createServer as createHttp, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttps } from "node:https";
import type { Logger } from "./ports.js";
import type { Kind, Provisioner, Reply } from "./service.js";

export interface ServerOptions {
  readonly tls?: { readonly key: string; readonly cert: string };
  /** Take the client address from the last X-Forwarded-For entry (the proxy's own view), not the TCP peer. */
  readonly trustProxy?: boolean;
  readonly log: Logger;
}

const MAX_BODY = 256 * 1024;
const PATHS: Record<string, Kind> = { "wireguard/config": "wireguard", "kubeadm/kubeconfig": "kubeconfig" };

function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const peer = (req.socket.remoteAddress ?? "").replace(/^::ffff:/, "");
  if (!trustProxy) return peer;
  const forwarded = String(req.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return (forwarded[forwarded.length - 1] ?? peer).replace(/^::ffff:/, "");
}

function readBody(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    let size = 0;
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        resolve(undefined);
        req.destroy();
      } else chunks.push(c);
    });
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

export function createProvisionerServer(provisioner: Provisioner, options: ServerOptions): Server {
  const notifyPath = provisioner.settings.cloud.provisioner.notifyPath;
  const headers = provisioner.settings.identityHeaders;
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const source = clientAddress(req, options.trustProxy === true);
    const path = (req.url ?? "").split("?")[0] ?? "";
    let reply: Reply;
    try {
      const m = /^\/(wireguard\/config|kubeadm\/kubeconfig)\/([^/]+)$/.exec(path);
      if (m && req.method === "GET") {
        const h = (name: string) => {
          const v = req.headers[name.toLowerCase()];
          return typeof v === "string" ? v : undefined;
        };
        reply = await provisioner.get({
          kind: PATHS[m[1] ?? ""] ?? "wireguard",
          instanceId: m[2] ?? "",
          document: h(headers.document),
          signature: h(headers.signature),
          sourceAddress: source,
        });
      } else if (path === notifyPath && req.method === "POST") {
        const body = await readBody(req);
        const type = req.headers["x-amz-sns-message-type"];
        reply =
          body === undefined
            ? { status: 413, body: "too large\n", contentType: "text/plain" }
            : await provisioner.sns(body, typeof type === "string" ? type : undefined);
      } else if (path === "/healthz" && req.method === "GET") {
        reply = { status: 200, body: "ok\n", contentType: "text/plain" };
      } else {
        reply = { status: 404, body: "no such operation\n", contentType: "text/plain" };
      }
    } catch (e) {
      options.log("error", "request failed", { path, error: (e as Error).message });
      reply = { status: 500, body: "internal error\n", contentType: "text/plain" };
    }
    // the instance id is in the path; nothing secret is
    options.log(reply.status >= 500 ? "error" : "info", "answered", {
      method: req.method,
      path,
      source,
      status: reply.status,
    });
    res.writeHead(reply.status, { "content-type": reply.contentType, "cache-control": "no-store" }).end(reply.body);
  };
  const listener = (req: IncomingMessage, res: ServerResponse) => {
    void handler(req, res);
  };
  const server = options.tls ? createHttps({ ...options.tls, minVersion: "TLSv1.2" }, listener) : createHttp(listener);
  // answer SNS within its 15 s and slow clients within the join script's 30 s
  server.requestTimeout = 20_000;
  server.headersTimeout = 10_000;
  return server;
}
