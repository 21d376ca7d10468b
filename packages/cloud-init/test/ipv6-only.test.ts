// Issue 30 item 6: an IPv6-only pool's instances (cloud.pools[].ipv6: only) have no IPv4 address, so their join
// script reads IMDS at [fd00:ec2::254] (Nitro, http_protocol_ipv6). Its IMDS functions, as they ship in the user
// data, run with the real curl in a network namespace that has no IPv4 address at all, against an IMDSv2 stand-in
// (token by PUT, then reads that carry it) listening on fd00:ec2::254; the other pools' scripts are unchanged.
import { loadSpec, parseYamlDocuments, resolvePlan } from "@clusterspec/core";
import { fixtureText, hasTool, run, toolAvailable, withNetns } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateCloudInit } from "../src/generate.js";
import { IMDS_URLS, JOIN_SCRIPT_PATH, joinScript } from "../src/join-script.js";
import { summarizeCloudInit } from "../src/summary.js";

function userData(name: string): Record<string, { write_files: { path: string; content: string }[] }> {
  const loaded = loadSpec(fixtureText(name));
  if (!loaded.ok) throw new Error(`fixture ${name} is invalid`);
  return Object.fromEntries(
    generateCloudInit(resolvePlan(loaded.value))
      .filter((a) => a.path.endsWith("/user-data.yaml"))
      .map((a) => [a.path.split("/")[1], parseYamlDocuments(a.content)[0] as any]),
  );
}

const scriptOf = (doc: { write_files: { path: string; content: string }[] }): string =>
  doc.write_files.find((f) => f.path === JOIN_SCRIPT_PATH)?.content ?? "";

function shellFunction(script: string, name: string): string {
  const m = new RegExp(`^${name}\\(\\) \\{\\n[\\s\\S]*?\\n\\}\\n`, "m").exec(script);
  if (!m) throw new Error(`no ${name} in the script`);
  return m[0];
}

// IMDSv2 in miniature: PUT /latest/api/token returns a token, a GET without it is refused (401), with it answered.
const IMDS_STAND_IN = `
import http.server, socket, sys
class H(http.server.BaseHTTPRequestHandler):
    def reply(self, code, body):
        self.send_response(code); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    def do_PUT(self):
        ok = self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds")
        self.reply(200 if ok else 400, b"TOKEN6" if ok else b"")
    def do_GET(self):
        if self.headers.get("X-aws-ec2-metadata-token") != "TOKEN6": return self.reply(401, b"")
        data = {"/latest/meta-data/instance-id": b"i-0123456789abcdef0", "/latest/dynamic/instance-identity/document": b"{}"}
        self.reply(200, data[self.path]) if self.path in data else self.reply(404, b"")
    def log_message(self, *a): pass
class S(http.server.HTTPServer): address_family = socket.AF_INET6
S(("fd00:ec2::254", 80), H).serve_forever()
`;

describe("IPv6-only pools' join script", () => {
  const docs = userData("ipv6-only-cloud-burst-only");

  it("reads IMDS at [fd00:ec2::254] on the IPv6-only pool only; nothing else differs, and it parses", () => {
    const only = scriptOf(docs["ci-arm64"] ?? { write_files: [] });
    const dual = scriptOf(docs["build-amd64"] ?? { write_files: [] });
    expect(only).toContain(`readonly IMDS=${IMDS_URLS.ipv6}\n`);
    expect(only).not.toContain("169.254.169.254");
    expect(dual).toContain(`readonly IMDS=${IMDS_URLS.ipv4}\n`);
    const changed = only.split("\n").filter((l) => !dual.split("\n").includes(l));
    expect(changed).toEqual([`readonly IMDS=${IMDS_URLS.ipv6}`]);
    expect(run("bash", ["-n", "-c", only]).status).toBe(0);
    // the IPv4 script is the one every other pool ships
    expect(joinScript("m", [6], "ipv4")).toBe(joinScript("m", [6]));
  });

  it("explains the tunnel MTU in PLAN.md by the IPv6-only pool, without advising an IPv4 endpoint it cannot reach", () => {
    const loaded = loadSpec(fixtureText("ipv6-only-cloud-burst-only"));
    if (!loaded.ok) throw new Error("invalid fixture");
    const plan = resolvePlan(loaded.value);
    const md = summarizeCloudInit(plan, generateCloudInit(plan)) ?? "";
    expect(md).toContain(
      "Tunnel MTU 1420 = underlay 1500 − 80: pool ci-arm64 is IPv6-only (`ipv6: only`), so the path is IPv6: outer IPv6 (40) + UDP (8) + WireGuard (32).",
    );
    expect(md).not.toContain("give an IPv4 literal");
    // the VPC resolver those instances lose with the tunnel is the IPv6 one (Route 53 Resolver at fd00:ec2::253)
    expect(md).toContain("169.254.169.253; fd00:ec2::253 on the IPv6-only pools' instances)");
  });

  it("reaches an IMDSv2 stand-in on fd00:ec2::254 with the real curl, in a namespace without IPv4", async (ctx) => {
    if (
      !toolAvailable("ip") ||
      !hasTool("unshare") ||
      !hasTool("curl") ||
      !hasTool("python3") ||
      process.getuid?.() !== 0
    )
      return ctx.skip("needs root, iproute2, curl and python3 (installed by .ci/run)");
    const script = scriptOf(docs["ci-arm64"] ?? { write_files: [] });
    const fns = ["imds_token", "imds_get", "imds_dynamic"].map((f) => shellFunction(script, f)).join("");
    await withNetns([], async (ns) => {
      // no IPv4 address anywhere (lo's 127.0.0.1 removed): only the IPv6 IMDS address
      ns.must("ip", ["-4", "address", "flush", "dev", "lo"]);
      ns.must("ip", ["-6", "address", "add", "fd00:ec2::254/128", "dev", "lo", "nodad"]);
      expect(ns.must("ip", ["-4", "-o", "address"]).trim()).toBe("");
      const server = ns.exec("bash", [
        "-c",
        `python3 -c '${IMDS_STAND_IN.replaceAll("'", "'\\''")}' </dev/null >/dev/null 2>&1 & echo $! ; for i in $(seq 50); do (exec 3<>/dev/tcp/fd00:ec2::254/80) 2>/dev/null && exit 0; sleep 0.1; done; exit 1`,
      ]);
      expect(server.status, server.stderr).toBe(0);
      const pid = server.stdout.trim();
      try {
        const prelude = `set -euo pipefail\n${script.split("\n").find((l) => l.startsWith("readonly IMDS="))}\n${fns}`;
        const out = ns.must("bash", [
          "-c",
          `${prelude}\nIMDS_TOKEN=$(imds_token); echo "$IMDS_TOKEN"; imds_get instance-id; echo; imds_dynamic instance-identity/document`,
        ]);
        expect(out.trim().split("\n")).toEqual(["TOKEN6", "i-0123456789abcdef0", "{}"]);
        // the IPv4 endpoint is unreachable there: what the pool's instances would face with the IPv4 script
        const v4 = ns.exec("bash", ["-c", `readonly IMDS=${IMDS_URLS.ipv4}\n${fns}\nimds_token`]);
        expect(v4.status).not.toBe(0);
      } finally {
        run("kill", [pid]);
      }
    });
  });
});
