// The burst lab's IMDSv2 stand-in, run inside a burst node's network namespace on 169.254.169.254:80 by
// packages/testkit/src/burst-lab.ts: PUT /latest/api/token (with X-aws-ec2-metadata-token-ttl-seconds) gives a
// token; every GET must carry it (X-aws-ec2-metadata-token) or gets 401, as IMDSv2 answers. It serves the
// instance's metadata and its identity document with the PKCS7 signature the lab made with its test "AWS" key.
import { randomBytes } from "node:crypto";
import { appendFileSync, readFileSync } from "node:fs";
import { createServer } from "node:http";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const tokens = new Set();
const paths = {
  "/latest/meta-data/instance-id": cfg.instanceId,
  "/latest/meta-data/instance-type": cfg.instanceType,
  "/latest/meta-data/placement/availability-zone": cfg.availabilityZone,
  "/latest/meta-data/placement/region": cfg.region,
  "/latest/dynamic/instance-identity/document": cfg.document,
  "/latest/dynamic/instance-identity/pkcs7": cfg.pkcs7,
};

createServer((req, res) => {
  const answer = (status, body) => {
    appendFileSync(cfg.log, `${req.method} ${req.url} ${status}\n`);
    res.writeHead(status, { "content-type": "text/plain" }).end(body);
  };
  if (req.method === "PUT" && req.url === "/latest/api/token") {
    const ttl = Number(req.headers["x-aws-ec2-metadata-token-ttl-seconds"]);
    if (!Number.isInteger(ttl) || ttl < 1 || ttl > 21600) return answer(400, "");
    const t = randomBytes(24).toString("base64");
    tokens.add(t);
    return answer(200, t);
  }
  if (req.method !== "GET") return answer(405, "");
  if (!tokens.has(String(req.headers["x-aws-ec2-metadata-token"] ?? ""))) return answer(401, "");
  const body = paths[req.url];
  return body === undefined ? answer(404, "") : answer(200, body);
}).listen(80, "169.254.169.254", () => process.stdout.write("ready\n"));
