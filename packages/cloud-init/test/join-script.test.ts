// Runs the join script for real, in a private mount namespace with an overlay over /etc and tmpfs on /run, and with
// stubs for the commands that would touch the machine (curl, systemctl, kubeadm, ip, resolvectl, ...).
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildSpec, mustResolve, parseYamlDocuments } from "@clusterspec/core/testing";
import { run, toolAvailable } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { JOIN_SCRIPT_PATH, userDataObject } from "../src/index.js";

const plan = mustResolve(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true }));
const pool = plan.cloud?.pools[0];

const STUBS: Record<string, string> = {
  curl: `out=; url=
while [ $# -gt 0 ]; do case $1 in --output) out=$2; shift 2;; -H|-X|--max-time|--proto) shift 2;; -*) shift;; *) url=$1; shift;; esac; done
echo "curl $url" >>"$STUB_LOG"
case $url in
  */api/token) printf TOKEN;;
  */meta-data/instance-id) printf i-0123456789abcdef0;;
  */meta-data/placement/availability-zone) printf eu-central-1a;;
  */wireguard/config/*) [ -z "\${FAIL_PROVISIONER:-}" ] || exit 22; printf '[Interface]\\nPrivateKey = test\\n' >"$out";;
  */kubeadm/kubeconfig/*) [ -z "\${FAIL_PROVISIONER:-}" ] || exit 22; printf 'apiVersion: v1\\nkind: Config\\n' >"$out";;
  *) exit 22;;
esac`,
  ip: `echo "ip $*" >>"$STUB_LOG"; echo "9: wg0    inet 172.30.99.7/24 scope global wg0\\       valid_lft forever preferred_lft forever"`,
  kubeadm: `echo "kubeadm $*" >>"$STUB_LOG"
[ ! -e /etc/cni/net.d/100-crio-bridge.conflist ] || { echo "crio bridge still there" >>"$STUB_LOG"; exit 1; }
cp /etc/clusterspec/kubeadm-join.yaml "$STUB_DIR/join.yaml"`,
  systemctl: `echo "systemctl $*" >>"$STUB_LOG"
if [ "$*" = "restart systemd-resolved.service" ]; then mkdir -p /run/systemd/resolve; printf 'nameserver 1.1.1.1\\nnameserver 8.8.8.8\\n' >/run/systemd/resolve/resolv.conf; fi`,
  resolvectl: `echo "resolvectl $*" >>"$STUB_LOG"`,
  sysctl: `echo "sysctl $*" >>"$STUB_LOG"`,
  swapoff: `echo "swapoff $*" >>"$STUB_LOG"`,
  logger: `cat >/dev/null 2>&1 || true`,
  sleep: `echo "sleep $*" >>"$STUB_LOG"`,
};

function runJoin(env: Record<string, string> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "cs-join-"));
  try {
    const root = join(dir, "root");
    const stubs = join(dir, "bin");
    mkdirSync(stubs);
    for (const [name, body] of Object.entries(STUBS)) {
      writeFileSync(join(stubs, name), `#!/bin/bash\n${body}\n`);
      chmodSync(join(stubs, name), 0o755);
    }
    if (!pool) throw new Error("no pool");
    const files = (userDataObject(plan, pool) as { write_files: { path: string; content: string }[] }).write_files;
    for (const f of files) {
      mkdirSync(join(root, dirname(f.path)), { recursive: true });
      writeFileSync(join(root, f.path), f.content);
    }
    mkdirSync(join(root, "etc/cni/net.d"), { recursive: true });
    writeFileSync(join(root, "etc/cni/net.d/100-crio-bridge.conflist"), "{}");
    const inner = [
      "set -e",
      // an overlay keeps the host's /etc (alternatives such as awk) and catches every write
      `mkdir -p "$STUB_DIR/upper" "$STUB_DIR/work"`,
      `mount -t overlay overlay -o "lowerdir=/etc,upperdir=$STUB_DIR/upper,workdir=$STUB_DIR/work" /etc`,
      "mount -t tmpfs none /run",
      `cp -a "$ROOT/etc/." /etc/`,
      `set +e; PATH="$STUBS:$PATH" bash "$ROOT${JOIN_SCRIPT_PATH}" 2>"$STUB_DIR/stderr"; status=$?; set -e`,
      `stat -c '%n %a' /etc/wireguard/wg0.conf /etc/clusterspec/discovery.kubeconfig >"$STUB_DIR/modes" 2>/dev/null || true`,
      `ls /etc/cni/net.d >"$STUB_DIR/cni"`,
      "exit $status",
    ].join("\n");
    const r = run("env", [
      `ROOT=${root}`,
      `STUBS=${stubs}`,
      `STUB_DIR=${dir}`,
      `STUB_LOG=${join(dir, "log")}`,
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      "unshare",
      "--mount",
      "--propagation",
      "private",
      "bash",
      "-c",
      inner,
    ]);
    const read = (f: string) => {
      try {
        return readFileSync(join(dir, f), "utf8");
      } catch {
        return "";
      }
    };
    return {
      status: r.status,
      log: read("log"),
      stderr: read("stderr"),
      modes: read("modes"),
      join: read("join.yaml"),
      cni: read("cni"),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("join script", () => {
  it("fetches the tunnel config and kubeconfig 0600, drops the crio bridge and joins with the runtime values", (ctx) => {
    if (!toolAvailable("unshare", { root: true })) return ctx.skip("needs the real tool (installed by .ci/run)");
    const r = runJoin();
    expect(r.stderr).toContain("clusterspec-join: joined the cluster as 172.30.99.7");
    expect(r.status).toBe(0);
    expect(r.modes).toBe("/etc/wireguard/wg0.conf 600\n/etc/clusterspec/discovery.kubeconfig 600\n");
    expect(r.cni).toBe("");
    const [doc] = parseYamlDocuments(r.join) as { nodeRegistration: { kubeletExtraArgs: unknown } }[];
    expect(doc?.nodeRegistration.kubeletExtraArgs).toEqual([
      { name: "node-ip", value: "172.30.99.7" },
      { name: "node-labels", value: "node.kubernetes.io/ci=" },
      { name: "provider-id", value: "aws:///eu-central-1a/i-0123456789abcdef0" },
    ]);
    const steps = r.log
      .split("\n")
      .filter((l) => /^(curl https|systemctl (enable|restart systemd-resolved)|kubeadm join|ip link set)/.test(l));
    expect(steps).toEqual([
      "curl https://provisioner.example.com/wireguard/config/i-0123456789abcdef0",
      "curl https://provisioner.example.com/kubeadm/kubeconfig/i-0123456789abcdef0",
      "systemctl enable --now wg-quick@wg0.service",
      "ip link set dev wg0 mtu 1440",
      "systemctl restart systemd-resolved.service",
      "systemctl enable --now crio.service",
      "systemctl enable kubelet.service",
      "kubeadm join --config /etc/clusterspec/kubeadm-join.yaml",
    ]);
  });

  it("retries a failing provisioner a bounded number of times, then stops with a clear message", (ctx) => {
    if (!toolAvailable("unshare", { root: true })) return ctx.skip("needs the real tool (installed by .ci/run)");
    const r = runJoin({ FAIL_PROVISIONER: "1" });
    expect(r.status).toBe(1);
    expect(r.log.split("\n").filter((l) => l.startsWith("sleep 10"))).toHaveLength(29);
    expect(r.stderr).toContain("clusterspec-join: FAILED: no WireGuard config from the provisioner");
    expect(r.log).not.toContain("kubeadm join");
  });
});
