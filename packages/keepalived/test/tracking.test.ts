// Issue 18: VIPs that wait for their services (init_fail, /readyz, the Cilium readiness and uplink checks,
// preempt_delay, scripts called directly as an unprivileged user) and VRRP authentication that fails loudly.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterPlan, holderMap, simulateFailover, validateSpec } from "@clusterspec/core";
import { arbClusterSpec, mustResolve } from "@clusterspec/core/testing";
import { exampleInput, run, toolAvailable } from "@clusterspec/testkit";
import { runCli } from "clusterspec/cli";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { generateKeepalived } from "../src/generate.js";
import { summarizeKeepalived } from "../src/summary.js";
import { instanceName, instanceName6, OPENRC_CONF, vipsOf } from "../src/view.js";
import { instancesOf, keepalivedCheck, nodeFiles, parseKeepalivedConf, type Statement } from "./helpers.js";

type Loose = any;

/** The new VRRP fields, drawn independently (some combinations are invalid on purpose). */
const arbTracking = fc.record({
  preemptDelay: fc.option(fc.integer({ min: 0, max: 1000 }), { nil: undefined }),
  nopreempt: fc.boolean(),
  initialState: fc.constantFrom("BACKUP", "BACKUP", "MASTER"),
  garpRefresh: fc.option(fc.integer({ min: 0, max: 3600 }), { nil: undefined }),
  uplinkCheck: fc.boolean(),
  readinessCheck: fc.record(
    {
      enabled: fc.boolean(),
      weight: fc.integer({ min: -20, max: 0 }),
      rise: fc.integer({ min: 1, max: 10 }),
      interval: fc.integer({ min: 1, max: 60 }),
    },
    { requiredKeys: [] },
  ),
});

const withTracking = (spec: Loose, t: Loose): Loose => {
  const vrrp = { ...spec.vrrp, nopreempt: t.nopreempt, initialState: t.initialState, uplinkCheck: t.uplinkCheck };
  if (t.preemptDelay !== undefined) vrrp.preemptDelay = t.preemptDelay;
  if (t.garpRefresh !== undefined) vrrp.garpRefresh = t.garpRefresh;
  vrrp.readinessCheck = t.readinessCheck;
  // MASTER with AH is refused for its own reason; keep these samples about the new fields.
  if (t.initialState === "MASTER") delete vrrp.auth;
  return { ...spec, vrrp };
};

const block = (tree: readonly Statement[], name: string, arg?: string): readonly Statement[] | undefined =>
  tree.find((s) => s.tokens[0] === name && (arg === undefined || s.tokens[1] === arg) && s.block)?.block;
const setting = (b: readonly Statement[] | undefined, key: string): string[] | undefined =>
  b?.find((s) => s.tokens[0] === key && !s.block)?.tokens.slice(1) as string[] | undefined;

describe("checks and preemption in keepalived.conf", () => {
  it("for any spec and any new VRRP field: valid exactly when keepalived honours it, and every file says what the plan says", () => {
    let valid = 0;
    fc.assert(
      fc.property(arbClusterSpec({ maxPool: 8 }), arbTracking, (base, t) => {
        const spec = withTracking(base, t);
        const r = validateSpec(spec);
        const conflicting = (t.preemptDelay ?? 0) > 0 && (t.nopreempt || t.initialState !== "BACKUP");
        if (conflicting) {
          expect(r.ok).toBe(false);
          if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain("vrrp.preemptDelay");
          return;
        }
        if (!r.ok) {
          // Anything else refused is about the checks' weight or margin, never about preempt_delay.
          for (const e of r.errors)
            expect(["vrrp.readinessCheck.weight", "vrrp.basePriority", "vrrp.nopreempt"]).toContain(e.path.join("."));
          return;
        }
        valid++;
        const plan = mustResolve(spec);
        const d = plan.vrrp.preemptDelay;
        expect(d).toBe(t.nopreempt || t.initialState !== "BACKUP" ? (t.preemptDelay ?? 0) : (t.preemptDelay ?? 120));
        const artifacts = generateKeepalived(plan);
        for (const node of plan.nodes) {
          const vips = vipsOf(plan, node.name);
          if (vips.length === 0) continue;
          const conf = artifacts.find((a) => a.path === `nodes/${node.name}/etc/keepalived/keepalived.conf`);
          const tree = parseKeepalivedConf(conf?.content ?? "");
          const global = block(tree, "global_defs");
          expect(setting(global, "script_user")).toEqual([plan.vrrp.scriptUser]);
          expect(setting(global, "vrrp_garp_master_refresh")).toEqual(
            plan.vrrp.garpRefresh > 0 ? [String(plan.vrrp.garpRefresh)] : undefined,
          );
          const scripts = tree.filter((s) => s.tokens[0] === "vrrp_script");
          for (const s of scripts) {
            // no init_fail (keepalived 2.2.7 ignores it for a tracked script: alloc_track_script resets the start
            // state), and the script itself as the only word (no interpreter in front)
            expect(setting(s.block, "init_fail")).toBeUndefined();
            const words = setting(s.block, "script") ?? [];
            expect(words).toHaveLength(1);
            // check-apiserver6.sh asks the apiserver on the node's IPv6 address (a dual-stack control-plane VIP)
            expect(words[0]).toMatch(/^\/etc\/keepalived\/check-[a-z]+6?\.sh$/);
            const file = artifacts.find((a) => a.path === `nodes/${node.name}${words[0]}`);
            expect(file?.mode).toBe(0o755);
            expect(file?.content.startsWith("#!/bin/sh\n")).toBe(true);
          }
          for (const i of instancesOf(tree)) {
            // the IPv6 half of a dual-stack pair waits and tracks as its IPv4 half does
            const vip = vips.find((v) => instanceName(v) === i.name || instanceName6(v) === i.name);
            // only external VIPs wait; the control-plane VIP's failover must beat the node-monitor grace period
            const wait = vip?.kind === "control-plane" ? 0 : d;
            expect(i.settings.get("preempt_delay")).toEqual(wait > 0 ? [String(wait)] : undefined);
            if (wait > 0) {
              expect(i.settings.get("state")).toEqual(["BACKUP"]);
              expect(i.settings.has("nopreempt")).toBe(false);
            }
            const want =
              vip?.kind === "control-plane"
                ? ["chk_apiserver", ...(vip.pair6 ? ["chk_apiserver6"] : [])]
                : [
                    ...(plan.vrrp.readinessCheck ? ["chk_cilium"] : []),
                    ...(plan.vrrp.uplinkCheck ? ["chk_uplink"] : []),
                  ];
            expect(i.trackScripts).toEqual(want);
            for (const name of want)
              expect(
                scripts.map((s) => s.tokens[1]),
                `${name} is defined where it is tracked`,
              ).toContain(name);
          }
        }
      }),
      { numRuns: 150 },
    );
    expect(valid).toBeGreaterThan(20);
  });

  it("the readiness check's weight, default or accepted, moves every external VIP off a failing master", () => {
    fc.assert(
      fc.property(
        arbClusterSpec({ maxPool: 12 }),
        fc.option(fc.integer({ min: -30, max: -1 }), { nil: undefined }),
        (base, weight) => {
          const spec: Loose = structuredClone(base);
          if (!spec.externalVips) return;
          spec.vrrp.readinessCheck = weight === undefined ? {} : { weight };
          const r = validateSpec(spec);
          if (!r.ok) {
            // refused only for a weight too small for the VIP's carriers, or a base priority too low for it
            expect(
              r.errors.every((e) => ["vrrp.readinessCheck.weight", "vrrp.basePriority"].includes(e.path.join("."))),
            );
            return;
          }
          const plan = mustResolve(spec);
          const rest = holderMap(simulateFailover(plan, { down: [], unhealthy: [] }));
          for (const vip of plan.vips.filter((v) => v.kind === "external" && v.order.length > 1)) {
            const master = rest.get(vip.key);
            if (master === undefined) continue;
            const moved = holderMap(simulateFailover(plan, { down: [], unhealthy: [], notReady: [master] }, rest));
            // the failing master's priority is below every other carrier's: the first backup takes over
            expect(moved.get(vip.key)).toBe(vip.order[1]);
            // and with every carrier failing the holder keeps it (nobody flaps): a uniform drop keeps the order, and
            // where keepalived's floor makes priorities tie (the default weight, -253, puts all at 1) no backup
            // outranks the live holder
            const all = holderMap(simulateFailover(plan, { down: [], unhealthy: [], notReady: vip.order }, rest));
            expect(all.get(vip.key)).toBe(vip.order[0]);
          }
        },
      ),
      { numRuns: 80 },
    );
  });

  it("tracks Cilium's health port from cilium.values, and the uplink gateway of the external segment", () => {
    const spec: Loose = exampleInput();
    spec.cilium.values = { ...spec.cilium.values, healthPort: 9899 };
    spec.vrrp.uplinkCheck = true;
    const plan = mustResolve(spec);
    const files = nodeFiles(generateKeepalived(plan), "k8s-2");
    const cilium = files.find((f) => f.path.endsWith("check-cilium.sh"));
    const uplink = files.find((f) => f.path.endsWith("check-uplink.sh"));
    expect(cilium?.content).toContain("'http://127.0.0.1:9899/healthz'");
    expect(uplink?.content).toMatchInlineSnapshot(`
      "#!/bin/sh
      # generated by clusterspec from cluster.yaml - do not edit
      # keepalived vrrp_script: exits 0 while the uplink gateway answers one ping on the external VIPs' interface,
      # so external VIPs leave a node that cannot route their replies. ping must work for keepalived's script_user
      # (iputils installs it with cap_net_raw, or set net.ipv4.ping_group_range).
      exec ping -n -q -c 1 -W 2 -I 'wan1' '10.118.11.1'
      "
    `);
    for (const f of [cilium, uplink])
      if (toolAvailable("sh")) expect(run("sh", ["-n", "-c", f?.content ?? ""]).status).toBe(0);
  });

  it("passes keepalived -t with the readiness and uplink checks, no readiness check, and no preempt_delay", async (ctx) => {
    if (!toolAvailable("keepalived", { root: true }) || !toolAvailable("unshare", { root: true }))
      return ctx.skip("needs the real tool (installed by .ci/run)");
    const variants: Loose[] = [
      { uplinkCheck: true, garpRefresh: 0 },
      { readinessCheck: { enabled: false }, preemptDelay: 0 },
      { nopreempt: true, healthCheck: { weight: 0 }, readinessCheck: { weight: 0 } },
    ];
    for (const v of variants) {
      const spec: Loose = exampleInput();
      spec.vrrp = { ...spec.vrrp, ...v };
      const plan: ClusterPlan = mustResolve(spec);
      const artifacts = generateKeepalived(plan);
      for (const node of plan.nodes) {
        const r = await keepalivedCheck(nodeFiles(artifacts, node.name), ["wan1"]);
        expect({ v, node: node.name, status: r.status, output: r.output }).toEqual({
          v,
          node: node.name,
          status: 0,
          output: "",
        });
      }
    }
  });
});

describe("VRRP authentication that fails loudly", () => {
  const scratch = mkdtempSync(join(tmpdir(), "cs-openrc-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /** Sources the generated conf.d file in sh, as openrc-run does, and runs start_pre (or reload_pre) with /etc/keepalived as `dir`. */
  function startPre(conf: string, dir: string, hook = "start_pre"): { status: number; output: string } {
    const file = join(scratch, "keepalived.confd");
    writeFileSync(file, conf);
    const r = run("unshare", [
      "-m",
      "--propagation",
      "private",
      "sh",
      "-c",
      'mount --bind "$1" /etc/keepalived && eerror() { echo "ERROR: $*" >&2; } && . "$2" && "$3"',
      "sh",
      dir,
      file,
      hook,
    ]);
    return { status: r.status, output: r.stdout + r.stderr };
  }

  it("writes an OpenRC start_pre that refuses to start keepalived without its password include", (ctx) => {
    const plan = mustResolve(exampleInput());
    const artifacts = generateKeepalived(plan);
    const conf = artifacts.find((a) => a.path === `nodes/k8s-1${OPENRC_CONF}`);
    expect(conf?.mode).toBeUndefined();
    expect(conf?.content).toMatchInlineSnapshot(`
      "# generated by clusterspec from cluster.yaml - do not edit
      # keepalived ignores an include whose file is missing, so a node without its VRRP password would run with
      # other authentication than its peers: refuse to start instead, and refuse to reload (SIGHUP re-reads the include).
      start_pre() {
      	if ! grep -q '^auth_pass [^[:space:]]' '/etc/keepalived/auth.conf' 2>/dev/null; then
      		eerror '/etc/keepalived/auth.conf is missing, unreadable or has no auth_pass: keepalived would not use the VRRP password of its peers'
      		return 1
      	fi
      }

      reload_pre() {
      	start_pre
      }
      "
    `);
    // Without authentication there is nothing to guard: no conf.d file.
    const none: Loose = exampleInput();
    delete none.vrrp.auth;
    expect(generateKeepalived(mustResolve(none)).some((a) => a.path.endsWith(OPENRC_CONF))).toBe(false);
    if (!toolAvailable("unshare", { root: true }) || !existsSync("/etc/keepalived"))
      return ctx.skip("needs root and /etc/keepalived (installed by .ci/run)");
    const dir = join(scratch, "etc");
    rmSync(dir, { recursive: true, force: true });
    run("mkdir", ["-p", dir]);
    const missing = startPre(conf?.content ?? "", dir);
    expect(missing.status).toBe(1);
    expect(missing.output).toContain("ERROR: /etc/keepalived/auth.conf is missing, unreadable or has no auth_pass");
    // `rc-service keepalived reload` (SIGHUP, which re-reads the include) is refused the same way.
    const reload = startPre(conf?.content ?? "", dir, "reload_pre");
    expect(reload.status).toBe(1);
    expect(reload.output).toContain("ERROR: /etc/keepalived/auth.conf is missing, unreadable or has no auth_pass");
    writeFileSync(join(dir, "auth.conf"), "");
    expect(startPre(conf?.content ?? "", dir).status).toBe(1);
    writeFileSync(join(dir, "auth.conf"), "# generated\nauth_pass\n");
    expect(startPre(conf?.content ?? "", dir).status).toBe(1);
    writeFileSync(join(dir, "auth.conf"), "# generated\nauth_pass s3cret\n");
    expect(startPre(conf?.content ?? "", dir)).toEqual({ status: 0, output: "" });
    expect(startPre(conf?.content ?? "", dir, "reload_pre")).toEqual({ status: 0, output: "" });
  });
});

describe("messages for the new fields", () => {
  it("names the field and the YAML line, exits 2 and writes nothing", async () => {
    const work = mkdtempSync(join(tmpdir(), "cs-vrrp-msg-"));
    try {
      const spec: Loose = exampleInput();
      spec.vrrp = { ...spec.vrrp, nopreempt: true, preemptDelay: 30 };
      writeFileSync(join(work, "cluster.yaml"), stringify(spec));
      let stderr = "";
      const code = await runCli(["generate", join(work, "cluster.yaml"), "-o", join(work, "out")], {
        cwd: work,
        env: {},
        stdout: () => undefined,
        stderr: (t) => (stderr += t),
        version: "0.0.0-test",
      });
      expect(code).toBe(2);
      expect(stderr).toMatch(
        /preemptDelay 30 does nothing with nopreempt \(keepalived resets preempt_delay\); drop one of them\n {2}→ at vrrp\.preemptDelay \(cluster\.yaml:\d+:\d+\)/,
      );
      expect(existsSync(join(work, "out"))).toBe(false);
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  });
});

describe("what keeps a restarted node off its VIPs (issue 33: keepalived 2.2.7 ignores init_fail)", () => {
  const warningsOf = (vrrp: Record<string, unknown>) => {
    const spec: Loose = exampleInput();
    spec.vrrp = { ...spec.vrrp, ...vrrp };
    const r = validateSpec(spec);
    expect(r.ok).toBe(true);
    return r.warnings.filter((w) => w.path.join(".").endsWith(".timeout")).map((w) => [w.path.join("."), w.message]);
  };

  it("warns when a check's timeout is not below the down timer, for the apiserver and the readiness check", () => {
    expect(warningsOf({ healthCheck: { timeout: 3 }, readinessCheck: { timeout: 4 } })).toEqual([
      [
        "vrrp.healthCheck.timeout",
        "timeout 3s is not below the down timer (3 × advertInterval = 3s): keepalived counts a check as passing until its first run at start ends, so a node that restarts while its apiserver hangs can take a VIP before that run fails; use a timeout below 3s or weight 0",
      ],
      [
        "vrrp.readinessCheck.timeout",
        "timeout 4s is not below the down timer (3 × advertInterval = 3s): keepalived counts a check as passing until its first run at start ends, so a node that restarts while its Cilium (or uplink) hangs can take a VIP before that run fails; use a timeout below 3s or weight 0",
      ],
    ]);
  });

  it("is quiet below the down timer, with a longer advert interval, and with weight 0 (INIT until the first result)", () => {
    expect(warningsOf({})).toEqual([]);
    expect(warningsOf({ advertInterval: 2, healthCheck: { timeout: 5 } })).toEqual([]);
    expect(warningsOf({ healthCheck: { timeout: 5, weight: 0 } })).toEqual([]);
  });

  it("says so in keepalived.conf: no init_fail, and the bound in each check's comment", () => {
    const plan = mustResolve(exampleInput());
    const conf = generateKeepalived(plan).find((a) => a.path.endsWith("keepalived.conf"))?.content ?? "";
    expect(conf).not.toContain("\n    init_fail");
    expect(conf).toContain(
      "# kube-apiserver /readyz on this node; keepalived runs it at start and counts it passing until its first result (it ignores init_fail), which the 2s limit brings before the 3s down timer;",
    );
    const slow = mustResolve({ ...exampleInput(), vrrp: { ...exampleInput().vrrp, healthCheck: { timeout: 3 } } });
    const slowConf = generateKeepalived(slow).find((a) => a.path.endsWith("keepalived.conf"))?.content ?? "";
    expect(slowConf).toContain("which the 3s limit may bring only after the 3s down timer");
    const faulting = mustResolve({ ...exampleInput(), vrrp: { ...exampleInput().vrrp, healthCheck: { weight: 0 } } });
    const faultConf = generateKeepalived(faulting).find((a) => a.path.endsWith("keepalived.conf"))?.content ?? "";
    expect(faultConf).toContain("keepalived runs it at start and keeps the instance in INIT until its first result");
  });
});

describe("PLAN.md with vrrp.uplinkCheck on (issue 33 item 9)", () => {
  it("states the bound two negative-weight checks give, and what the uplink check does on a partition", () => {
    const input = exampleInput();
    const plan = mustResolve({ ...input, vrrp: { ...input.vrrp, uplinkCheck: true } });
    const md = summarizeKeepalived(plan);
    expect(md).toContain(
      "Both checks failing on one carrier: keepalived subtracts the weight once per failing check, and clamps at 1. The bound that holds is that a carrier with any failing check runs below every carrier whose checks pass; between carriers that each fail a check it promises no order (each failure costs 253 and the priority stops at 1, where every failing carrier lands with the default -253, and a holder keeps a tie), so a master whose readiness and uplink checks both fail can keep its VIP while a backup with one failing check waits. Weight 0 (FAULT) takes any carrier with a failing check out.",
    );
    expect(md).toContain(
      "- the uplink check: it fails where the split also cuts the node from its uplink gateway (where the gateway is still reachable it passes and changes nothing); with a negative weight (lower priority) it keeps the VIP at priority 1, which nobody it can hear outranks, and both sides hold it (this spec: `vrrp.readinessCheck.weight: -253`); with weight 0 (FAULT) the isolated node goes to FAULT and leaves the VIP to the other side.",
    );
    // the model agrees: with every carrier failing a check they all run at keepalived's floor, and the holder keeps
    // the tie however many of its checks fail
    const vip = plan.vips.find((v) => v.kind === "external");
    const master = vip?.order[0];
    if (!vip || !master) throw new Error("unexpected example shape");
    const failing = { down: [], unhealthy: [], notReady: [...vip.order] };
    expect(holderMap(simulateFailover(plan, failing, new Map([[vip.key, master]]))).get(vip.key)).toBe(master);
    // with weight 0 the sentence is not there: any failing check is FAULT
    const fault = mustResolve({ ...input, vrrp: { ...input.vrrp, uplinkCheck: true, readinessCheck: { weight: 0 } } });
    expect(summarizeKeepalived(fault)).not.toContain("Both checks failing on one carrier");
  });
});
