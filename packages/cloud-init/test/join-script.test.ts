// Runs the join script for real, in a private mount namespace with an overlay over /etc and tmpfs on /run, against
// a mock provisioner that enforces the contract (cloud/provisioner/openapi.yaml): HTTPS on 127.0.0.1 only, with a
// throwaway certificate, reached as provisioner.test through the namespace's /etc/hosts. Commands that would touch
// the machine (systemctl, kubeadm, ip, resolvectl, ...) and the instance metadata service are stubs; every other
// request goes through the real curl.
import { spawn } from "node:child_process";
import { createHash, X509Certificate } from "node:crypto";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { request as httpsRequest } from "node:https";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { ClusterPlan } from "@clusterspec/core";
import { parseYamlDocuments } from "@clusterspec/core";
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { hasTool, MockProvisioner, run, sh, toolAvailable } from "@clusterspec/testkit";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { provisionerContract } from "../src/contract.js";
import {
  BOOTSTRAP_TOKEN_MIN_TTL_SECONDS,
  IDENTITY_HEADERS,
  JOIN_BOUNDS,
  JOIN_ENV_PATH,
  JOIN_SCRIPT_PATH,
  joinScript,
  PACKAGE_RETRY,
  PROVISIONER_RETRY,
  REQUIRED_BINARIES,
} from "../src/join-script.js";
import { fedoraPackages, userDataObject } from "../src/user-data.js";

const INSTANCE_ID = "i-0123456789abcdef0";
const REGION = "eu-central-1";
const DOCUMENT = JSON.stringify(
  { accountId: "123456789012", instanceId: INSTANCE_ID, region: REGION, availabilityZone: `${REGION}a` },
  null,
  2,
);
// IMDS serves the PKCS7 signature as base64 in 64-character lines, without PEM armour.
const PKCS7 = "MIAGCSqGSIb3DQEHAqCAMIACAQExDzANBglghkgBZQMEAgEFADCABgkqhkiG9w0BBwGggCSABIIB\nbXkgc2lnbmF0dXJl";

const STUBS: Record<string, string> = {
  // Instance metadata (IMDSv2: a token first, then every read carries it); every other URL goes to the real curl.
  curl: `url=; token=
for a in "$@"; do case $a in http://169.254.169.254/*) url=$a;; "X-aws-ec2-metadata-token: "*) token=\${a#*: };; esac; done
if [ -z "$url" ]; then echo "curl $*" >>"$STUB_LOG"; exec "$REAL_CURL" "$@"; fi
echo "imds \${url#http://169.254.169.254/latest/}" >>"$STUB_LOG"
case $url in
  */api/token) printf TOKEN; exit 0;;
esac
[ "$token" = TOKEN ] || { echo "imds without token" >>"$STUB_LOG"; exit 22; }
case $url in
  */meta-data/instance-id) printf ${INSTANCE_ID};;
  */meta-data/placement/availability-zone) printf ${REGION}a;;
  */meta-data/placement/region) printf ${REGION};;
  */meta-data/instance-type) printf t4g.xlarge;;
  */dynamic/instance-identity/document) cat "$STUB_DIR/document";;
  */dynamic/instance-identity/pkcs7) printf '${PKCS7.replace("\n", "\\n")}\\n';;
  *) exit 22;;
esac`,
  ip: `echo "ip $*" >>"$STUB_LOG"; echo "9: wg0    inet 172.30.99.7/24 scope global wg0\\       valid_lft forever preferred_lft forever"`,
  kubeadm: `echo "kubeadm $*" >>"$STUB_LOG"
[ ! -e /etc/cni/net.d/100-crio-bridge.conflist ] || { echo "crio bridge still there" >>"$STUB_LOG"; exit 1; }
cp /etc/clusterspec/kubeadm-join.yaml "$STUB_DIR/join.yaml"`,
  systemctl: `echo "systemctl $*" >>"$STUB_LOG"
if [ "$*" = "restart systemd-resolved.service" ]; then
  mkdir -p /run/systemd/resolve
  printf 'nameserver 1.1.1.1\\nnameserver 8.8.8.8\\n%s' "\${EXTRA_NAMESERVER:+nameserver $EXTRA_NAMESERVER
}" >/run/systemd/resolve/resolv.conf
fi`,
  resolvectl: `echo "resolvectl $*" >>"$STUB_LOG"`,
  sysctl: `echo "sysctl $*" >>"$STUB_LOG"`,
  swapoff: `echo "swapoff $*" >>"$STUB_LOG"`,
  logger: `cat >/dev/null 2>&1 || true`,
  sleep: `echo "sleep $*" >>"$STUB_LOG"`,
  // the package install: fails while DNF_FAILS is set
  dnf: `echo "dnf $*" >>"$STUB_LOG"; [ -z "\${DNF_FAILS:-}" ]`,
  kubelet: `echo "kubelet $*" >>"$STUB_LOG"; [ "$1" != --version ] || echo "Kubernetes $KUBELET_VERSION_STUB"`,
  crictl: `echo "crictl $*" >>"$STUB_LOG"`,
  wg: `echo "wg $*" >>"$STUB_LOG"`,
  poweroff: `echo "poweroff $*" >>"$STUB_LOG"`,
  timeout: `echo "timeout $*" >>"$STUB_LOG"; shift 2; exec "$@"`,
};

// a served MTU (here the EC2 interface's 8921) is replaced by the plan's
const WG_CONFIG =
  "[Interface]\nPrivateKey = test\nAddress = 172.30.99.7/32\nMTU = 8921\nDNS = 10.0.0.53, 10.0.0.54\n\n[Peer]\n";
/** A discovery kubeconfig whose cluster CA is the PEM certificate given. */
const kubeconfigWithCa = (pem: string): string =>
  `apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    certificate-authority-data: ${Buffer.from(pem).toString("base64")}\n    server: https://api.test:6443\n`;

/** kubeadm's CA pin, computed apart from the script: sha256 of the DER SubjectPublicKeyInfo. */
const caHashOf = (pem: string): string =>
  `sha256:${createHash("sha256")
    .update(new X509Certificate(pem).publicKey.export({ type: "spki", format: "der" }))
    .digest("hex")}`;

function runAsync(cmd: string, args: string[], timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { stdio: "ignore" });
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve(code ?? -1);
    });
  });
}

/** What a failed join says: the instance stays up for Cluster Autoscaler to delete, it never powers off. */
const STAYS_UP =
  "the join failed; this instance stays up, unjoined, until Cluster Autoscaler deletes it (max-node-provision-time 900s) and backs the group off";

/** A failed join: status 1, no power-off (the group would replace the instance at once), the kubelet stopped. */
function expectStaysUp(r: { status: number; log: string; stderr: string }): void {
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(`clusterspec-join: exit status 1: ${STAYS_UP}`);
  expect(r.log).not.toContain("poweroff");
  expect(r.log).toContain("systemctl disable --now kubelet.service");
}

const canRun = (): boolean =>
  toolAvailable("unshare", { root: true }) && toolAvailable("curl") && toolAvailable("openssl");

describe("join script against the mock provisioner", () => {
  const work = mkdtempSync(join(tmpdir(), "cs-join-"));
  // the mock serves these: a test may swap them (and puts them back)
  const bodies = { wireguard: WG_CONFIG, kubeconfig: "" };
  const provisioner = new MockProvisioner({ identityHeaders: IDENTITY_HEADERS, region: REGION, bodies });
  let plan: ClusterPlan;
  let clusterCa = "";
  let otherCa = "";

  beforeAll(async () => {
    if (!hasTool("openssl") || !hasTool("curl")) return;
    sh(
      `cd '${work}' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -keyout key.pem -out cert.pem -subj /CN=provisioner.test -addext subjectAltName=DNS:provisioner.test 2>/dev/null`,
    );
    // the cluster's CA, and another that a forged kubeconfig would carry
    for (const name of ["cluster-ca", "other-ca"])
      sh(
        `cd '${work}' && openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 -keyout ${name}.key -out ${name}.pem -subj /CN=kubernetes 2>/dev/null`,
      );
    clusterCa = readFileSync(join(work, "cluster-ca.pem"), "utf8");
    otherCa = readFileSync(join(work, "other-ca.pem"), "utf8");
    bodies.kubeconfig = kubeconfigWithCa(clusterCa);
    const port = await provisioner.start(
      readFileSync(join(work, "key.pem"), "utf8"),
      readFileSync(join(work, "cert.pem"), "utf8"),
    );
    const input = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true });
    plan = mustResolve({
      ...input,
      cloud: { ...input.cloud, provisioner: { url: `https://provisioner.test:${port}` } },
    });
  });
  afterAll(async () => {
    await provisioner.stop();
    rmSync(work, { recursive: true, force: true });
  });

  async function runJoin(
    script: MockProvisioner["script"],
    env: Record<string, string> = {},
    opts: { uptime?: number; caHash?: string } = {},
  ) {
    provisioner.seen.length = 0;
    provisioner.script = script;
    const dir = mkdtempSync(join(work, "run-"));
    const root = join(dir, "root");
    const stubs = join(dir, "bin");
    mkdirSync(stubs);
    for (const [name, body] of Object.entries(STUBS)) {
      writeFileSync(join(stubs, name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(stubs, name), 0o755);
    }
    writeFileSync(join(dir, "document"), DOCUMENT);
    const pool = plan.cloud?.pools[0];
    if (!pool) throw new Error("no pool");
    const files = (userDataObject(plan, pool) as { write_files: { path: string; content: string }[] }).write_files;
    for (const f of files) {
      mkdirSync(join(root, dirname(f.path)), { recursive: true });
      // the cluster's CA hash: the test CA's (a review plan carries a placeholder)
      const content =
        f.path === JOIN_ENV_PATH
          ? f.content.replace(/^CA_CERT_HASH=.*$/m, `CA_CERT_HASH='${opts.caHash ?? caHashOf(clusterCa)}'`)
          : f.content;
      writeFileSync(join(root, f.path), content);
    }
    writeFileSync(join(dir, "uptime"), `${opts.uptime ?? 120}.25 200.50\n`);
    mkdirSync(join(root, "etc/cni/net.d"), { recursive: true });
    writeFileSync(join(root, "etc/cni/net.d/100-crio-bridge.conflist"), "{}");
    const inner = [
      "set -e",
      // an overlay keeps the host's /etc (alternatives such as awk, the CA store) and catches every write
      `mkdir -p "$STUB_DIR/upper" "$STUB_DIR/work"`,
      `mount -t overlay overlay -o "lowerdir=/etc,upperdir=$STUB_DIR/upper,workdir=$STUB_DIR/work" /etc`,
      "mount -t tmpfs none /run",
      // seconds since boot, as the script reads them against its deadline
      `mount --bind "$STUB_DIR/uptime" /proc/uptime`,
      `cp -a "$ROOT/etc/." /etc/`,
      "echo '127.0.0.1 provisioner.test' >>/etc/hosts",
      `set +e; PATH="$STUBS:$PATH" bash "$ROOT${JOIN_SCRIPT_PATH}" 2>"$STUB_DIR/stderr"; status=$?; set -e`,
      `stat -c '%n %a' /etc/wireguard/wg0.conf /etc/clusterspec/discovery.kubeconfig >"$STUB_DIR/modes" 2>/dev/null || true`,
      `cp /etc/wireguard/wg0.conf "$STUB_DIR/wg0.conf" 2>/dev/null || true`,
      `ls /etc/cni/net.d >"$STUB_DIR/cni"`,
      "exit $status",
    ].join("\n");
    const realCurl = run("sh", ["-c", "command -v curl"]).stdout.trim();
    const status = await runAsync(
      "env",
      [
        `ROOT=${root}`,
        `STUBS=${stubs}`,
        `STUB_DIR=${dir}`,
        `STUB_LOG=${join(dir, "log")}`,
        `REAL_CURL=${realCurl}`,
        `KUBELET_VERSION_STUB=${plan.kubernetes.versionText}`,
        `CURL_CA_BUNDLE=${join(work, "cert.pem")}`,
        ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "bash",
        "-c",
        inner,
      ],
      120_000,
    );
    const read = (f: string) => {
      try {
        return readFileSync(join(dir, f), "utf8");
      } catch {
        return "";
      }
    };
    return {
      status,
      log: read("log"),
      stderr: read("stderr"),
      modes: read("modes"),
      wg: read("wg0.conf"),
      join: read("join.yaml"),
      cni: read("cni"),
      seen: [...provisioner.seen],
    };
  }

  it("waits out a 404 and a 503, sends the signed identity, drops the served DNS= and joins", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [404, 503, 200], kubeconfig: [200] });
    expect(r.stderr).toContain(`clusterspec-join: joined the cluster as node ${INSTANCE_ID} at 172.30.99.7`);
    expect(r.status).toBe(0);
    // every request passed the mock's identity checks: it answered only from the script
    expect(r.seen.map((s) => `${s.method} ${s.path} ${s.status}`)).toEqual([
      `GET /wireguard/config/${INSTANCE_ID} 404`,
      `GET /wireguard/config/${INSTANCE_ID} 503`,
      `GET /wireguard/config/${INSTANCE_ID} 200`,
      `GET /kubeadm/kubeconfig/${INSTANCE_ID} 200`,
    ]);
    expect(r.log.split("\n").filter((l) => l.startsWith("sleep 10"))).toHaveLength(2);
    expect(r.stderr).toContain("GET /wireguard/config/i-0123456789abcdef0: HTTP 404");
    expect(r.modes).toBe("/etc/wireguard/wg0.conf 600\n/etc/clusterspec/discovery.kubeconfig 600\n");
    // the plan's tunnel MTU is persisted in the config (wg-quick sets it again after a reboot); the served MTU is replaced
    // (no IPv4 literal endpoint in this spec: 1500 - 80)
    expect(plan.cloud?.tunnelMtu).toBe(1420);
    expect(r.wg).toBe("[Interface]\nMTU = 1420\nPrivateKey = test\nAddress = 172.30.99.7/32\n\n[Peer]\n");
    expect(r.log).not.toContain("ip link set");
    expect(r.log).not.toContain("poweroff");
    expect(r.cni).toBe("");
    expect(r.log).not.toContain("imds without token");
    const [doc] = parseYamlDocuments(r.join) as { nodeRegistration: { name: string; kubeletExtraArgs: unknown } }[];
    // named by its instance id, never the recyclable ip-a-b-c-d host name
    expect(doc?.nodeRegistration.name).toBe(INSTANCE_ID);
    expect(doc?.nodeRegistration.kubeletExtraArgs).toEqual([
      { name: "node-ip", value: "172.30.99.7" },
      {
        name: "node-labels",
        value: `node.kubernetes.io/ci=,node.kubernetes.io/instance-type=t4g.xlarge,topology.kubernetes.io/region=${REGION},topology.kubernetes.io/zone=${REGION}a`,
      },
      { name: "provider-id", value: `aws:///${REGION}a/${INSTANCE_ID}` },
    ]);
    const steps = r.log
      .split("\n")
      .filter((l) => /^(dnf|systemctl (enable|restart systemd-resolved)|kubeadm join|ip link set)/.test(l));
    expect(steps).toEqual([
      `dnf install -y ${fedoraPackages(plan.cloud as NonNullable<ClusterPlan["cloud"]>).join(" ")}`,
      "systemctl enable --now wg-quick@wg0.service",
      "systemctl restart systemd-resolved.service",
      "systemctl enable --now crio.service",
      "systemctl enable kubelet.service",
      "kubeadm join --config /etc/clusterspec/kubeadm-join.yaml",
    ]);
  });

  it("the Node joins under its instance id and the provisioner deletes it on terminated, then answers 404", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [200], kubeconfig: [200] });
    expect(r.status).toBe(0);
    const [doc] = parseYamlDocuments(r.join) as {
      nodeRegistration: { name: string; kubeletExtraArgs: { name: string; value: string }[] };
    }[];
    const name = doc?.nodeRegistration.name ?? "";
    const providerID = doc?.nodeRegistration.kubeletExtraArgs.find((a) => a.name === "provider-id")?.value ?? "";
    // what the kubelet registers, and a stale Node of another instance that must survive
    provisioner.nodes.set(name, { name, providerID });
    provisioner.nodes.set("i-0fffffffffffffff0", {
      name: "i-0fffffffffffffff0",
      providerID: `aws:///${REGION}b/i-0aaaaaaaaaaaaaaa0`,
    });
    provisioner.deletedNodes.length = 0;
    const notify = (state: string, id: string) =>
      new Promise<number>((resolve, reject) => {
        const url = new URL(plan.cloud?.snsEndpoint ?? "");
        const body = JSON.stringify({
          Type: "Notification",
          Message: JSON.stringify({
            source: "aws.ec2",
            "detail-type": "EC2 Instance State-change Notification",
            detail: { "instance-id": id, state },
          }),
        });
        const req = httpsRequest(
          {
            host: "127.0.0.1",
            port: url.port,
            path: url.pathname,
            method: "POST",
            servername: "provisioner.test",
            ca: readFileSync(join(work, "cert.pem")),
            headers: { "x-amz-sns-message-type": "Notification", "content-type": "text/plain" },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          },
        );
        req.on("error", reject);
        req.end(body);
      });
    expect(await notify("terminated", INSTANCE_ID)).toBe(200);
    expect(await notify("terminated", "i-0fffffffffffffff0")).toBe(200);
    expect(provisioner.deletedNodes).toEqual([INSTANCE_ID]);
    expect([...provisioner.nodes.keys()]).toEqual(["i-0fffffffffffffff0"]);
    // terminated is final: a late boot of the same id gets 404, retried within the bounds, and gives up (stays up)
    const late = await runJoin({ wireguard: [200], kubeconfig: [200] });
    expect(late.seen.map((x) => x.status)).toEqual(Array(PROVISIONER_RETRY.attempts).fill(404));
    expectStaysUp(late);
    provisioner.terminated.clear();
    provisioner.nodes.clear();
  });

  it("accepts a newer patch of the cluster's minor, and stops (staying up) on another minor before contacting the provisioner", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const { major, minor, patch } = plan.kubernetes.version;
    const newer = await runJoin(
      { wireguard: [200], kubeconfig: [200] },
      { KUBELET_VERSION_STUB: `v${major}.${minor}.${patch + 3}` },
    );
    expect(newer.status).toBe(0);
    expect(newer.stderr).toContain(
      `kubelet v${major}.${minor}.${patch + 3}; the cluster runs ${plan.kubernetes.versionText}`,
    );
    const other = await runJoin(
      { wireguard: [200], kubeconfig: [200] },
      { KUBELET_VERSION_STUB: `v${major}.${minor + 1}.0` },
    );
    expectStaysUp(other);
    expect(other.stderr).toContain(
      `FAILED: kubelet v${major}.${minor + 1}.0 is not of the cluster's minor v${major}.${minor}`,
    );
    expect(other.seen).toEqual([]);
  });

  it("retries a failed package install, then stops (staying up) without contacting the provisioner", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [200], kubeconfig: [200] }, { DNF_FAILS: "1" });
    expectStaysUp(r);
    expect(r.log.split("\n").filter((l) => l.startsWith("dnf install -y "))).toHaveLength(PACKAGE_RETRY.attempts);
    expect(r.log.split("\n").filter((l) => l === `sleep ${PACKAGE_RETRY.delaySeconds}`)).toHaveLength(
      PACKAGE_RETRY.attempts - 1,
    );
    expect(r.stderr).toContain("clusterspec-join: FAILED: the package install failed");
    expect(r.seen).toEqual([]);
    expect(r.log).not.toContain("kubeadm join");
  });

  it("gives up after the contract's bounded retries when the kubeconfig stays 404, and stays up", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [200], kubeconfig: [404] });
    expectStaysUp(r);
    expect(r.seen.filter((s) => s.path.startsWith("/kubeadm/"))).toHaveLength(30);
    expect(r.log.split("\n").filter((l) => l.startsWith("sleep 10"))).toHaveLength(29);
    expect(r.stderr).toContain("clusterspec-join: FAILED: no discovery kubeconfig from the provisioner");
    expect(r.log).not.toContain("kubeadm join");
  });

  it("stops at once on a refusal (403), without retrying", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [403], kubeconfig: [200] });
    expect(r.status).toBe(1);
    expect(r.seen).toEqual([{ method: "GET", path: `/wireguard/config/${INSTANCE_ID}`, status: 403 }]);
    expect(r.log).not.toContain("sleep 10");
    expect(r.stderr).toContain("HTTP 403, not retried");
    expect(r.stderr).toContain("clusterspec-join: FAILED: no WireGuard config from the provisioner");
  });

  it("stops retrying at its deadline of uptime, before Cluster Autoscaler's max-node-provision-time", async (ctx) => {
    if (!canRun()) return ctx.skip();
    expect(JOIN_BOUNDS.deadlineSeconds + JOIN_BOUNDS.marginSeconds).toBe(900);
    const late = await runJoin(
      { wireguard: [200], kubeconfig: [404] },
      {},
      { uptime: JOIN_BOUNDS.deadlineSeconds + 5 },
    );
    expectStaysUp(late);
    expect(late.seen.filter((x) => x.path.startsWith("/kubeadm/"))).toHaveLength(1);
    expect(late.stderr).toContain(
      `GET /kubeadm/kubeconfig/${INSTANCE_ID} failed 1 times and the join's deadline (${JOIN_BOUNDS.deadlineSeconds}s of uptime) has passed, giving up`,
    );
    // kubeadm join gets what is left of the deadline
    const ok = await runJoin({ wireguard: [200], kubeconfig: [200] }, {}, { uptime: 300 });
    expect(ok.status).toBe(0);
    expect(ok.log).toContain(`timeout --kill-after=10 ${JOIN_BOUNDS.deadlineSeconds - 300} kubeadm join`);
    // the token outlives the deadline by the margin
    expect(BOOTSTRAP_TOKEN_MIN_TTL_SECONDS).toBe(JOIN_BOUNDS.deadlineSeconds + JOIN_BOUNDS.marginSeconds);
  });

  it("refuses a served WireGuard config with keys wg-quick would run or apply (PostUp, Table, ...)", async (ctx) => {
    if (!canRun() || !hasTool("wg-quick")) return ctx.skip();
    const forbidden = [
      "PreUp = touch /tmp/owned",
      "PostUp = touch /tmp/owned",
      "PreDown = touch /tmp/owned",
      "PostDown = touch /tmp/owned",
      "Table = off",
      "SaveConfig = true",
    ];
    try {
      for (const line of forbidden) {
        const key = line.split(" ")[0] ?? "";
        const config = WG_CONFIG.replace("DNS = ", `${line}\nDNS = `);
        // wg-quick itself takes this key as its own (it never reaches wg setconf): it would run or apply it
        const conf = join(work, "wg0.conf");
        writeFileSync(conf, config, { mode: 0o600 });
        const stripped = run("wg-quick", ["strip", conf]);
        expect(stripped.status).toBe(0);
        expect(stripped.stdout).not.toContain(key);
        bodies.wireguard = config;
        const r = await runJoin({ wireguard: [200], kubeconfig: [200] });
        expectStaysUp(r);
        expect(r.stderr).toContain(
          `the served WireGuard config sets ${key} (line 5, [Interface]), which a burst node does not accept (keys as wg reads them: [Interface] privatekey, address, dns, mtu; [Peer] publickey, presharedkey, allowedips, endpoint, persistentkeepalive)`,
        );
        expect(r.stderr).toContain("FAILED: refusing the served WireGuard config");
        expect(r.log).not.toContain("wg-quick@");
        expect(r.wg).toBe("");
      }
      // other sections, any case, keys before a section, junk lines
      for (const [config, message] of [
        [`${WG_CONFIG}[Foo]\n`, "has a section [Foo] (line 8)"],
        [WG_CONFIG.replace("DNS = ", "postup = id\nDNS = "), "sets postup (line 5, [Interface])"],
        [`FwMark = 1\n${WG_CONFIG}`, "sets FwMark (line 1)"],
        [
          WG_CONFIG.replace("[Peer]\n", "[Peer]\n!bang\n"),
          "line 8 of the served WireGuard config is not a section or a key = value",
        ],
      ] as const) {
        bodies.wireguard = config;
        const r = await runJoin({ wireguard: [200], kubeconfig: [200] });
        expectStaysUp(r);
        expect(r.stderr).toContain(message);
      }
      // what is accepted is a config wg-quick reads without running anything
      bodies.wireguard = `${WG_CONFIG}PublicKey = ${"A".repeat(43)}=\nEndpoint = 192.0.2.1:51820\nAllowedIPs = 10.0.0.0/8 # routed\nPersistentKeepalive = 25\n`;
      const ok = await runJoin({ wireguard: [200], kubeconfig: [200] });
      expect(ok.status).toBe(0);
      const conf = join(work, "wg0.conf");
      writeFileSync(conf, ok.wg, { mode: 0o600 });
      const stripped = run("wg-quick", ["strip", conf]);
      expect(stripped.status).toBe(0);
      expect(stripped.stdout).toContain("PrivateKey = test");
      expect(stripped.stdout).not.toMatch(/^(MTU|Address|DNS)/m);
    } finally {
      bodies.wireguard = WG_CONFIG;
    }
  });

  it("checks the served kubeconfig's CA against caCertHash before kubeadm join", async (ctx) => {
    if (!canRun()) return ctx.skip();
    try {
      bodies.kubeconfig = kubeconfigWithCa(otherCa);
      const r = await runJoin({ wireguard: [200], kubeconfig: [200] });
      expectStaysUp(r);
      expect(r.stderr).toContain(
        `the served kubeconfig's CA hashes to ${caHashOf(otherCa)}, not the cluster's ${caHashOf(clusterCa)}`,
      );
      expect(r.stderr).toContain("FAILED: refusing the served discovery kubeconfig");
      expect(r.log).not.toContain("kubeadm join");
      // two clusters (two CAs): which one kubeadm would use is not checked, so refused
      bodies.kubeconfig = kubeconfigWithCa(clusterCa) + kubeconfigWithCa(otherCa).split("clusters:\n")[1];
      const two = await runJoin({ wireguard: [200], kubeconfig: [200] });
      expectStaysUp(two);
      expect(two.stderr).toContain("the served kubeconfig must carry exactly one certificate-authority-data");
      // a review tree's placeholder hash verifies nothing: refused
      bodies.kubeconfig = kubeconfigWithCa(clusterCa);
      const unset = await runJoin({ wireguard: [200], kubeconfig: [200] }, {}, { caHash: "sha256:UNSET" });
      expectStaysUp(unset);
      expect(unset.stderr).toContain("CA_CERT_HASH in /etc/clusterspec/join.env is not sha256:<64 hex digits>");
    } finally {
      bodies.kubeconfig = kubeconfigWithCa(clusterCa);
    }
  });

  it("refuses to join while a nameserver other than the on-prem ones (the AWS resolver) remains", async (ctx) => {
    if (!canRun()) return ctx.skip();
    const r = await runJoin({ wireguard: [200], kubeconfig: [200] }, { EXTRA_NAMESERVER: "172.24.0.2" });
    expect(r.status).toBe(1);
    expect(r.stderr).toContain("FAILED: nameserver 172.24.0.2 is not one of the on-prem nameservers");
    expect(r.log).not.toContain("kubeadm join");
  });

  it("the mock refuses a request without a verifiable identity, as the contract asks", async (ctx) => {
    if (!canRun()) return ctx.skip();
    provisioner.seen.length = 0;
    const url = `${plan.cloud?.provisioner.url}/wireguard/config/${INSTANCE_ID}`;
    const port = new URL(url).port;
    const curl = (headers: string[]) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn("curl", [
          "--silent",
          "--output",
          "/dev/null",
          "--write-out",
          "%{http_code}",
          "--max-time",
          "10",
          "--cacert",
          join(work, "cert.pem"),
          "--resolve",
          `provisioner.test:${port}:127.0.0.1`,
          ...headers.flatMap((h) => ["-H", h]),
          url,
        ]);
        let out = "";
        child.stdout.on("data", (d) => {
          out += String(d);
        });
        child.on("error", reject);
        child.on("exit", () => resolve(out));
      });
    const doc = (id: string) => Buffer.from(JSON.stringify({ instanceId: id, region: REGION })).toString("base64");
    expect(await curl([])).toBe("403");
    expect(await curl([`${IDENTITY_HEADERS.document}: ${doc(INSTANCE_ID)}`])).toBe("403");
    expect(
      await curl([
        `${IDENTITY_HEADERS.document}: ${doc("i-0fffffffffffffff0")}`,
        `${IDENTITY_HEADERS.signature}: c2ln`,
      ]),
    ).toBe("403");
    expect(
      await curl([`${IDENTITY_HEADERS.document}: ${doc(INSTANCE_ID)}`, `${IDENTITY_HEADERS.signature}: c2ln`]),
    ).toBe("200");
  });

  it("checks every binary it needs after the install", () => {
    const script = joinScript("marker");
    expect(REQUIRED_BINARIES).toEqual(["kubeadm", "kubelet", "crictl", "wg", "openssl"]);
    expect(script).toContain(`for bin in ${REQUIRED_BINARIES.join(" ")}; do`);
    expect(script).toContain("trap stay_unjoined_on_failure EXIT");
    expect(script).not.toMatch(/poweroff|shutdown|halt\b/);
  });

  it("calls exactly the paths and headers the contract names", () => {
    const contract = provisionerContract(plan) as {
      paths: Record<string, unknown>;
      components: { securitySchemes: Record<string, { name: string }> };
    };
    expect(Object.keys(contract.paths)).toEqual([
      "/wireguard/config/{instanceId}",
      "/kubeadm/kubeconfig/{instanceId}",
      "/sns",
    ]);
    expect(Object.values(contract.components.securitySchemes).map((s) => s.name)).toEqual([
      IDENTITY_HEADERS.document,
      IDENTITY_HEADERS.signature,
    ]);
  });
});
