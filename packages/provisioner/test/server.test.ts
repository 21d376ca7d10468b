// The HTTPS front over a real socket: the contract's paths, the identity headers as the join script sends them, the
// client address from the TCP peer (or the trusted proxy's X-Forwarded-For), SNS over POST.
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createProvisionerServer } from "../src/server.js";
import { type World, world } from "./support.js";

const ID = "i-0123456789abcdef0";
let w: World;
let close: () => Promise<void> = async () => {};
afterEach(async () => {
  await close();
  w.cleanup();
});

async function serve(trustProxy = false): Promise<number> {
  const tls = (await import("./support.js")).makeCertificate(w.dir, "server");
  const { readFileSync } = await import("node:fs");
  const server = createProvisionerServer(w.provisioner, {
    tls: { key: readFileSync(tls.key, "utf8"), cert: tls.certPem },
    trustProxy,
    log: () => {},
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  close = () => new Promise((r) => server.close(() => r()));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string, path: string, headers: Record<string, string>, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path, headers, rejectUnauthorized: false }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (c: string) => {
        text += c;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe("provisioner server", () => {
  it("serves the contract's paths to the instance at its address, once", async () => {
    w = world("cloud-burst-only");
    const port = await serve();
    w.aws.launch(ID, "home-ci-arm64", "127.0.0.1");
    const sns = await call(
      port,
      "POST",
      "/sns",
      { "x-amz-sns-message-type": "Notification" },
      JSON.stringify(w.sns.event(ID, "running")),
    );
    expect(sns.status).toBe(200);
    const id = w.identity(ID);
    const headers = {
      "X-Clusterspec-Identity-Document": id.document,
      "X-Clusterspec-Identity-Signature": id.signature,
    };
    const wg = await call(port, "GET", `/wireguard/config/${ID}`, headers);
    expect(wg.status).toBe(200);
    expect(wg.body).toContain("[Interface]");
    expect((await call(port, "GET", `/wireguard/config/${ID}`, headers)).status).toBe(403);
    expect((await call(port, "GET", `/kubeadm/kubeconfig/${ID}`, headers)).status).toBe(200);
    expect((await call(port, "GET", "/nothing", {})).status).toBe(404);
  });

  it("takes the client address from X-Forwarded-For only when the proxy is trusted", async () => {
    w = world("cloud-burst-only");
    const port = await serve(true);
    w.aws.launch(ID, "home-ci-arm64", "203.0.113.9");
    await w.provisioner.syncInstance(ID);
    const id = w.identity(ID);
    const headers = {
      "X-Clusterspec-Identity-Document": id.document,
      "X-Clusterspec-Identity-Signature": id.signature,
    };
    expect((await call(port, "GET", `/wireguard/config/${ID}`, headers)).status).toBe(403);
    expect(
      (await call(port, "GET", `/wireguard/config/${ID}`, { ...headers, "X-Forwarded-For": "203.0.113.9" })).status,
    ).toBe(200);
  });
});
