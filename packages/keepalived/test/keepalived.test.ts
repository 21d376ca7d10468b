import {
  type Artifact,
  type ClusterPlan,
  checkSecretValues,
  holderMap,
  IDENTITIES_FILE,
  identitiesOf,
  loadSpread,
  resolvePlan,
  simulateFailover,
  stableJson,
  validateSpec,
  worstTwoCarrierFailure,
} from "@clusterspec/core";
import { arbPlan, buildSpec, mustResolve, mustValidate } from "@clusterspec/core/testing";
import { clusterSpecNames, exampleInput, run, specInput, toolAvailable } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KEEPALIVED_TOKEN, keepalivedComment, keepalivedToken, shellWord } from "../src/escape.js";
import { generateKeepalived } from "../src/generate.js";
import { keepalivedModule } from "../src/module.js";
import { keepalivedConfRenderer } from "../src/render.js";
import { summarizeKeepalived, worstCarrierPair } from "../src/summary.js";
import { renderKeepalivedConf } from "../src/template.js";
import { instanceName, instanceName6, toKeepalivedView, vipsOf } from "../src/view.js";
import { instancesOf, keepalivedCheck, nodeFiles, parseKeepalivedConf, tokenizeLine } from "./helpers.js";

type Loose = any;

const referenceInput = (): Loose => exampleInput();
const reference = (): ClusterPlan => mustResolve(referenceInput());

const keepalivedAvailable = (): boolean =>
  toolAvailable("keepalived", { root: true }) && toolAvailable("unshare", { root: true }) && toolAvailable("ip");

const confOf = (artifacts: readonly Artifact[], node: string): string => {
  const a = artifacts.find((x) => x.path === `nodes/${node}/etc/keepalived/keepalived.conf`);
  if (!a) throw new Error(`no keepalived.conf for ${node}`);
  return a.content;
};

/** Interfaces a keepalived.conf names (instances and `dev`). */
const interfacesOf = (conf: string): string[] => [
  ...new Set(instancesOf(parseKeepalivedConf(conf)).flatMap((i) => i.settings.get("interface") ?? [])),
];

async function expectKeepalivedAccepts(artifacts: readonly Artifact[], node: string): Promise<void> {
  const files = nodeFiles(artifacts, node);
  const r = await keepalivedCheck(files, interfacesOf(confOf(artifacts, node)));
  expect({ node, status: r.status, output: r.output }).toEqual({ node, status: 0, output: "" });
}

/** Everything the plan says about a node's instances, in the shape parsed back from its file. */
function expectedInstances(plan: ClusterPlan, node: string) {
  // a dual-stack pair is two instances, the IPv6 half right after the IPv4 one, with one VRID, priority and tracking
  // (the control-plane pair tracks both families' apiserver checks)
  return vipsOf(plan, node).flatMap((v) => {
    const instance = (name: string, address: string, prefixLength: number) => ({
      name,
      iface: v.interface,
      vrid: String(v.vrid),
      priority: String(v.priorities[v.order.indexOf(node)]),
      vips: [`${address}/${prefixLength} dev ${v.interface}`],
      track:
        v.kind === "control-plane"
          ? ["chk_apiserver", ...(v.pair6 ? ["chk_apiserver6"] : [])]
          : [...(plan.vrrp.readinessCheck ? ["chk_cilium"] : []), ...(plan.vrrp.uplinkCheck ? ["chk_uplink"] : [])],
      state: plan.vrrp.initialState,
    });
    return [
      instance(instanceName(v), v.address, v.prefixLength),
      ...(v.pair6 ? [instance(instanceName6(v) ?? "", v.pair6.address, v.pair6.prefixLength)] : []),
    ];
  });
}

function parsedInstances(conf: string) {
  return instancesOf(parseKeepalivedConf(conf)).map((i) => ({
    name: i.name,
    iface: i.settings.get("interface")?.join(" "),
    vrid: i.settings.get("virtual_router_id")?.join(" "),
    priority: i.settings.get("priority")?.join(" "),
    vips: i.vips,
    track: i.trackScripts,
    state: i.settings.get("state")?.join(" "),
  }));
}

describe("reference cluster 1", () => {
  it("rotates the pool priorities exactly as the hand-written configs do", () => {
    const artifacts = generateKeepalived(reference());
    const table = Object.fromEntries(
      ["k8s-1", "k8s-2", "k8s-3"].map((node) => [
        node,
        parsedInstances(confOf(artifacts, node)).map((i) => `${i.name}/${i.vrid}=${i.priority}`),
      ]),
    );
    expect(table).toEqual({
      "k8s-1": [
        "VI_control_plane/5=100",
        "VI_external_10_118_11_20/10=100",
        "VI_external_10_118_11_21/11=99",
        "VI_external_10_118_11_22/12=98",
      ],
      "k8s-2": [
        "VI_control_plane/5=98",
        "VI_external_10_118_11_20/10=98",
        "VI_external_10_118_11_21/11=100",
        "VI_external_10_118_11_22/12=99",
      ],
      "k8s-3": [
        "VI_control_plane/5=99",
        "VI_external_10_118_11_20/10=99",
        "VI_external_10_118_11_21/11=98",
        "VI_external_10_118_11_22/12=100",
      ],
    });
  });

  it("keeps the password out of keepalived.conf: it sits in a 0600 include", () => {
    const artifacts = generateKeepalived(reference());
    const conf = confOf(artifacts, "k8s-1");
    expect(conf).not.toContain("CHANGEME");
    expect(conf).not.toContain("auth_pass");
    const auth = artifacts.find((a) => a.path === "nodes/k8s-1/etc/keepalived/auth.conf");
    expect(auth).toMatchObject({ secret: true, mode: 0o600 });
    expect(auth?.content).toMatchInlineSnapshot(`
      "# generated by clusterspec from cluster.yaml - do not edit
      auth_pass CHANGEME
      "
    `);
    for (const i of instancesOf(parseKeepalivedConf(conf)))
      expect(Object.fromEntries(i.auth ?? [])).toEqual({
        auth_type: ["AH"],
        include: ["/etc/keepalived/auth.conf"],
      });
  });

  it("checks the node's own apiserver with a POSIX sh script", () => {
    const artifacts = generateKeepalived(reference());
    const script = artifacts.find((a) => a.path === "nodes/k8s-2/etc/keepalived/check-apiserver.sh");
    expect(script?.mode).toBe(0o755);
    expect(script?.content).toMatchInlineSnapshot(`
      "#!/bin/sh
      # generated by clusterspec from cluster.yaml - do not edit
      # keepalived vrrp_script: exits 0 while the kube-apiserver on this node answers /readyz (not /livez: /readyz
      # fails as soon as the apiserver starts shutting down, while it keeps serving for its shutdown-delay-duration).
      # Needs curl (a host dependency); the CA is the one kubeadm writes (world-readable), so the check runs as
      # keepalived's unprivileged script_user.
      exec curl --silent --fail --output /dev/null --max-time 2 --cacert '/etc/kubernetes/pki/ca.crt' 'https://10.118.12.21:6443/readyz'
      "
    `);
    if (toolAvailable("sh")) expect(run("sh", ["-n", "-c", script?.content ?? ""]).status).toBe(0);
  });

  it("passes keepalived -t on every node of every example and fixture cluster, printing nothing", async (ctx) => {
    if (!keepalivedAvailable()) return ctx.skip("needs the real tool (installed by .ci/run)");
    const specs = clusterSpecNames();
    expect(specs).toEqual(expect.arrayContaining(["bare-metal-ha", "dual-stack", "fixture:ipv6-only"]));
    for (const name of specs) {
      const input = specInput(name);
      const plan = mustResolve(input);
      const artifacts = generateKeepalived(plan);
      for (const node of plan.nodes.filter((n) => vipsOf(plan, n.name).length > 0))
        await expectKeepalivedAccepts(artifacts, node.name);
    }
  });

  it("has a keepalived -t check that fails on a broken file, a missing include or a missing interface", async (ctx) => {
    if (!keepalivedAvailable()) return ctx.skip("needs the real tool (installed by .ci/run)");
    const files = nodeFiles(generateKeepalived(reference()), "k8s-1");
    const conf = files.find((f) => f.path.endsWith("keepalived.conf"));
    if (!conf) throw new Error("no conf");
    const withConf = (content: string) => files.map((f) => (f === conf ? { ...f, content } : f));
    const badVrid = await keepalivedCheck(
      withConf(conf.content.replace("virtual_router_id 5", "virtual_router_id 256")),
      ["wan1"],
    );
    expect(badVrid.status).not.toBe(0);
    const noInclude = await keepalivedCheck(
      files.filter((f) => !f.path.endsWith("auth.conf")),
      ["wan1"],
    );
    expect(noInclude.output).not.toBe("");
    const noInterface = await keepalivedCheck(files, ["wan0"]);
    expect(noInterface.status).not.toBe(0);
  });
});

describe("generated configs", () => {
  it("round-trip: parsing each file gives back the plan's instances, VRIDs, priorities and VIPs", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 60 }), (plan) => {
        const artifacts = generateKeepalived(plan);
        for (const node of plan.nodes) {
          const expected = expectedInstances(plan, node.name);
          const has = artifacts.some((a) => a.path.startsWith(`nodes/${node.name}/`));
          expect(has).toBe(expected.length > 0);
          if (expected.length === 0) continue;
          const conf = confOf(artifacts, node.name);
          expect(parsedInstances(conf)).toEqual(expected);
          const router = parseKeepalivedConf(conf).find((s) => s.tokens[0] === "global_defs")?.block ?? [];
          expect(router.map((s) => s.tokens.join(" "))).toEqual([
            `router_id ${node.name}`,
            "enable_script_security",
            `script_user ${plan.vrrp.scriptUser}`,
            ...(plan.vrrp.garpRefresh > 0 ? [`vrrp_garp_master_refresh ${plan.vrrp.garpRefresh}`] : []),
            // with AH only: a master keeps its own advert timer through the replays a healed split brings
            ...(plan.vrrp.auth?.type === "AH" ? ["vrrp_lower_prio_no_advert"] : []),
          ]);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("never puts two instances with one name, or one VRID on one interface, in a file", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 120 }), (plan) => {
        for (const a of generateKeepalived(plan).filter((x) => x.path.endsWith("keepalived.conf"))) {
          const inst = instancesOf(parseKeepalivedConf(a.content));
          const names = inst.map((i) => i.name);
          // one VRID per interface and family (RFC 5798 §5.2.3): a pair's two instances share theirs
          const vrids = inst.map(
            (i) =>
              `${i.settings.get("interface")}/${i.vips[0]?.includes(":") ? 6 : 4}/${i.settings.get("virtual_router_id")}`,
          );
          expect(new Set(names).size).toBe(names.length);
          expect(new Set(vrids).size).toBe(vrids.length);
        }
      }),
      { numRuns: 60 },
    );
  });

  it("renders each keepalived.conf byte for byte as the template does instance by instance (the block reuse)", () => {
    fc.assert(
      fc.property(arbPlan({ maxPool: 60 }), fc.boolean(), (plan, unicast) => {
        // unicast peers and source differ per node: those instances are rendered whole, the others reused
        const p = unicast === plan.vrrp.unicast ? plan : { ...plan, vrrp: { ...plan.vrrp, unicast } };
        const artifacts = generateKeepalived(p);
        let checked = 0;
        for (const node of p.nodes) {
          if (vipsOf(p, node.name).length === 0) continue;
          expect(confOf(artifacts, node.name)).toBe(renderKeepalivedConf(toKeepalivedView(p, node)));
          checked++;
        }
        expect(checked).toBe(new Set(p.vips.flatMap((v) => v.order)).size);
      }),
      { numRuns: 60 },
    );
  });

  it("cuts identities.json into blocks, one per VIP, whose text is stableJson's", () => {
    fc.assert(
      fc.property(arbPlan(), (p) => {
        const file = generateKeepalived(p).find((a) => a.path === IDENTITIES_FILE);
        if (!file?.blocks) throw new Error("identities.json comes in blocks");
        expect(file.content).toBe(stableJson(identitiesOf(p.vips)));
        // what is written and what a change plan diffs are one text
        expect(file.blocks.map((b) => b.parts.join("")).join("")).toBe(file.content);
        // each block whole lines, keyed uniquely (what rollout's block delta pairs by): the head, a VIP each, the tail
        for (const b of file.blocks) for (const part of b.parts) expect(part.endsWith("\n")).toBe(true);
        expect(new Set(file.blocks.map((b) => b.key)).size).toBe(file.blocks.length);
        expect(file.blocks.map((b) => b.key)).toEqual([
          "#head",
          ...Object.keys(identitiesOf(p.vips).vips)
            .sort()
            .map((address) => `    ${JSON.stringify(address)}: [\n`),
          "#tail",
        ]);
      }),
      { numRuns: 60 },
    );
  });

  it("renders an instance whole when it differs from another node's of the same name in more than its priority", () => {
    const plan = reference();
    const node = plan.nodes.find((n) => vipsOf(plan, n.name).length > 0);
    if (!node) throw new Error("the reference plan has no VIP carrier");
    const view = toKeepalivedView(plan, node);
    const renderBlocks = keepalivedConfRenderer();
    const render = (v: typeof view): string => {
      // each instance its own shared view: the renderer compares the second node's with the first's
      const conf = renderBlocks({ ...v, instances: v.instances.map((i) => ({ shared: i, priority: i.priority })) });
      if (typeof conf === "string") throw new Error("a multicast file comes in blocks");
      // each block whole lines, keyed uniquely: what rollout's block delta relies on
      for (const b of conf) for (const p of b.parts) expect(p.endsWith("\n")).toBe(true);
      expect(new Set(conf.map((b) => b.key)).size).toBe(conf.length);
      return conf.map((b) => b.parts.join("")).join("");
    };
    expect(render(view)).toBe(renderKeepalivedConf(view));
    const first = view.instances[0];
    if (!first) throw new Error("no instance");
    // same name, another VRID and interval: the block rendered for the first view must not be reused
    const changed = {
      ...view,
      instances: [{ ...first, vrid: first.vrid + 1, advertInt: first.advertInt + 1 }, ...view.instances.slice(1)],
    };
    expect(render(changed)).toBe(renderKeepalivedConf(changed));
    expect(render(changed)).toContain(`virtual_router_id ${first.vrid + 1}\n`);
  });

  it("is deterministic and writes only LF files with one trailing newline and the right modes", () => {
    fc.assert(
      fc.property(arbClusterInputs(), (input) => {
        const a = generateKeepalived(mustResolve(input));
        const b = generateKeepalived(mustResolve(structuredClone(input)));
        expect(a).toEqual(b);
        for (const x of a) {
          expect(x.content.endsWith("\n") && !x.content.endsWith("\n\n") && !x.content.includes("\r")).toBe(true);
          if (x.path.endsWith("auth.conf")) expect(x).toMatchObject({ secret: true, mode: 0o600 });
          else if (x.path.endsWith(".sh")) expect(x.mode).toBe(0o755);
          else expect(x.mode).toBeUndefined();
        }
      }),
      { numRuns: 40 },
    );
  });

  it("moves the control-plane VIP on a failed health check, as read back from the files", () => {
    fc.assert(
      fc.property(arbOptionsSpec(), (input) => {
        const plan = mustResolve(input);
        const artifacts = generateKeepalived(plan);
        const cps = plan.nodes.filter((n) => n.controlPlane);
        const prios: number[] = [];
        let weight = Number.NaN;
        for (const n of cps) {
          const tree = parseKeepalivedConf(confOf(artifacts, n.name));
          const cp = instancesOf(tree).find((i) => i.name === "VI_control_plane");
          prios.push(Number(cp?.settings.get("priority")?.[0]));
          expect(cp?.trackScripts).toEqual(["chk_apiserver"]);
          const script = tree.find((s) => s.tokens.join(" ") === "vrrp_script chk_apiserver")?.block ?? [];
          weight = Number(script.find((s) => s.tokens[0] === "weight")?.tokens[1]);
        }
        expect(Number.isInteger(weight) && weight <= 0).toBe(true);
        if (weight === 0) return; // FAULT: the failed node leaves the election
        for (let i = 0; i < prios.length; i++)
          for (let j = 0; j < prios.length; j++)
            if (i !== j) expect(Math.max(1, (prios[i] ?? 0) + weight)).toBeLessThan(prios[j] ?? 0);
      }),
      { numRuns: 100 },
    );
  });

  it("passes keepalived -t for a sample of generated specs with every VRRP option", async (ctx) => {
    if (!keepalivedAvailable()) return ctx.skip("needs the real tool (installed by .ci/run)");
    await fc.assert(
      fc.asyncProperty(arbOptionsSpec(), async (input) => {
        const plan = mustResolve(input);
        const artifacts = generateKeepalived(plan);
        // Notify scripts are the user's own: stand-ins at the spec's paths (all under /etc/keepalived here).
        const notify = plan.vrrp.notify
          .map((n) => n.script)
          .map((p) => ({
            path: p,
            content: "#!/bin/sh\nexit 0\n",
            mode: 0o755,
          }));
        const holders = plan.nodes.filter((n) => vipsOf(plan, n.name).length > 0).map((n) => n.name);
        for (const node of new Set([holders[0], holders[holders.length - 1]]))
          if (node !== undefined) {
            const files: Pick<Artifact, "path" | "content" | "mode">[] = [...nodeFiles(artifacts, node), ...notify];
            const r = await keepalivedCheck(files, interfacesOf(confOf(artifacts, node)));
            expect({ node, status: r.status, output: r.output }).toEqual({ node, status: 0, output: "" });
          }
      }),
      { numRuns: 25 },
    );
  });

  it("passes keepalived -t for a sample of arbitrary valid plans", async (ctx) => {
    if (!keepalivedAvailable()) return ctx.skip("needs the real tool (installed by .ci/run)");
    await fc.assert(
      fc.asyncProperty(arbPlan({ maxPool: 80 }), async (plan) => {
        const artifacts = generateKeepalived(plan);
        const holders = plan.nodes.filter((n) => vipsOf(plan, n.name).length > 0).map((n) => n.name);
        for (const node of new Set([holders[0], holders[holders.length - 1]]))
          if (node !== undefined) await expectKeepalivedAccepts(artifacts, node);
      }),
      { numRuns: 15 },
    );
  });

  it("passes keepalived -t with IPv6 pool VIPs (VRRPv3, no authentication) next to the IPv4 control plane", async (ctx) => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: false }) as Loose;
    spec.network.segments[0].onLink.push("fd00:11::/64");
    spec.externalVips.addresses.push("fd00:11::20", "fd00:11::21");
    if (spec.network.segments[0].uplink) spec.network.segments[0].uplink.gateway6 = "fd00:11::1"; // replies of that family
    const plan = mustResolve(spec);
    const artifacts = generateKeepalived(plan);
    expect(parsedInstances(confOf(artifacts, "node-1")).map((i) => i.vips[0])).toEqual([
      "10.118.12.5/24 dev wan1",
      "192.168.11.2/32 dev wan1",
      "192.168.11.3/32 dev wan1",
      "fd00:11::20/128 dev wan1",
      "fd00:11::21/128 dev wan1",
    ]);
    if (!keepalivedAvailable()) return ctx.skip("needs the real tool (installed by .ci/run)");
    await expectKeepalivedAccepts(artifacts, "node-1");
  });

  it("writes unicast peers: every other holder's address on the VIP's interface", () => {
    const spec = referenceInput();
    spec.vrrp.auth.type = "PASS";
    spec.vrrp.unicast = true;
    const conf = confOf(generateKeepalived(mustResolve(spec)), "k8s-2");
    const inst = instancesOf(parseKeepalivedConf(conf));
    expect(inst.map((i) => [i.name, i.settings.get("unicast_src_ip"), [...i.unicastPeers].sort()])).toEqual(
      ["VI_control_plane", "VI_external_10_118_11_20", "VI_external_10_118_11_21", "VI_external_10_118_11_22"].map(
        (n) => [n, ["10.118.12.21"], ["10.118.12.20", "10.118.12.22"]],
      ),
    );
  });

  it("summarizes failover for PLAN.md: five carriers, one and two failures", () => {
    const plan = mustResolve(buildSpec({ controlPlanes: 3, workers: 2, poolSize: 7, cloud: false }));
    expect(summarizeKeepalived(plan)).toMatchInlineSnapshot(`
      "## keepalived (VRRP)

      Every node that holds a VIP gets \`/etc/keepalived/keepalived.conf\`: one \`vrrp_instance\` per VIP it may hold, state BACKUP, advert_int 1, multicast, no authentication. The highest priority among the live nodes holds a VIP; a VIP survives as many node failures as it has backups.

      | VIP | instance | interface | VRID | master | backups (priority) | survives |
      | --- | --- | --- | --- | --- | --- | --- |
      | 10.118.12.5/24 | VI_control_plane | wan1 | 1 | node-1 (100) | node-3 (99), node-2 (98) | 2 failures |
      | 192.168.11.2/32 | VI_external_192_168_11_2 | wan1 | 2 | node-1 (100) | node-5 (99), node-3 (98) and 2 more | 4 failures |
      | 192.168.11.3/32 | VI_external_192_168_11_3 | wan1 | 3 | node-2 (100) | node-5 (99), node-3 (98) and 2 more | 4 failures |
      | 192.168.11.4/32 | VI_external_192_168_11_4 | wan1 | 4 | node-3 (100) | node-5 (99), node-4 (98) and 2 more | 4 failures |
      | 192.168.11.5/32 | VI_external_192_168_11_5 | wan1 | 5 | node-4 (100) | node-3 (99), node-5 (98) and 2 more | 4 failures |
      | 192.168.11.6/32 | VI_external_192_168_11_6 | wan1 | 6 | node-5 (100) | node-4 (99), node-3 (98) and 2 more | 4 failures |
      | 192.168.11.7/32 | VI_external_192_168_11_7 | wan1 | 7 | node-1 (100) | node-4 (99), node-3 (98) and 2 more | 4 failures |
      | 192.168.11.8/32 | VI_external_192_168_11_8 | wan1 | 8 | node-2 (100) | node-4 (99), node-3 (98) and 2 more | 4 failures |

      Health check: \`/etc/keepalived/check-apiserver.sh\` asks the kube-apiserver on the node's own address for \`/readyz\` (curl, 2s timeout; **curl is a host dependency** of every control-plane node) every 2s. keepalived runs it as soon as it starts and counts it as passing until that first run ends (keepalived 2.2.7 ignores \`init_fail\` for a tracked script: \`alloc_track_script\` resets it), and one good run is enough; the run ends within 2s (its own limit), before the 3s down timer (3 × advert_int, plus the skew) that a node must wait out before it takes a VIP, so a node that boots or restarts while its apiserver is down does not take the control-plane VIP from a healthy node; after 2 failures the control-plane instance's priority drops by 253, below every healthy control-plane node (100 - 253 → 1, keepalived's floor, < 98); after 2 successes it recovers. With a negative weight a node alone still takes the VIP while its apiserver is down, which \`kubeadm init\` needs.

      Readiness check: \`/etc/keepalived/check-cilium.sh\` asks the Cilium agent on the node for \`http://127.0.0.1:9879/healthz\` (its health API, Helm value \`healthPort\`; curl, 2s timeout) every 2s, on every external VIP instance. After a boot keepalived starts long before containerd, the kubelet and Cilium: the check keeps the node from taking its external VIPs back and blackholing their traffic until Cilium has programmed it. keepalived runs it as soon as it starts and counts it as passing until that first run ends (keepalived 2.2.7 ignores \`init_fail\` for a tracked script: \`alloc_track_script\` resets it), and one good run is enough; the run ends within 2s (its own limit), before the 3s down timer (3 × advert_int, plus the skew) that a node must wait out before it takes a VIP, so a node that boots or restarts while Cilium is not serving does not take an external VIP from a ready carrier. After 2 failures their priority drops by 253 (keepalived stops at 1), below every healthy carrier of each VIP; after 2 successes they recover.

      Uplink check: off (\`vrrp.uplinkCheck\`): keepalived tracks only the VIP interface's link, so a node whose uplink gateway is unreachable keeps its external VIPs.

      Preemption: external VIPs after \`preempt_delay 120\` (\`vrrp.preemptDelay\`): a carrier that sees a lower-priority master (after a restart, or when its own check recovers) waits 120s before it takes the VIP, so a returning node settles first. keepalived applies the same wait when the master's readiness check fails with a negative weight (the backups then hear a lower-priority master): that VIP moves after the delay, not at once (see the takeover times); weight 0 (FAULT) moves it at once. The control-plane VIP has no preempt_delay: every kubelet reaches the apiserver through it, and a failing apiserver check must move it well inside the node-monitor grace period (nodes would go NotReady and their pods leave the endpoints); a returning control plane is kept away by its apiserver check, whose first run fails before the node's down timer ends (see the health check). After a death the backups race on skews a few milliseconds apart: should a lower backup win an external VIP on a busy node, the right one takes it only after the delay.

      Scripts: keepalived calls each check script directly (no \`/bin/sh\` in front, so \`enable_script_security\` checks the script itself) as \`script_user nobody\`, an unprivileged user (the cluster CA the apiserver check reads is world-readable); notify scripts run as that user too. A master repeats its gratuitous ARPs every 60s (\`vrrp_garp_master_refresh\`), so switches and neighbours that lost them relearn where each VIP lives.

      Authentication: none (\`vrrp.auth\` unset). RFC 3768 removed VRRP authentication: PASS sends the password in clear in every advert and only guards against misconfigured peers; AH (IP protocol 51) authenticates adverts but keepalived's man page marks it not recommended, it needs every switch and firewall on the segment to pass protocol 51, and it does not work with unicast peers. Without authentication any host on the segment can take a VIP, so keep VRRP on a segment only the nodes reach.

      ### Failover: one node down

      | failed node | VIPs taken over | external VIPs per surviving carrier |
      | --- | --- | --- |
      | node-1 | 10.118.12.5 → node-3, 192.168.11.2 → node-5, 192.168.11.7 → node-4 | node-2: 2, node-3: 1, node-4: 2, node-5: 2 |
      | node-2 | 192.168.11.3 → node-5, 192.168.11.8 → node-4 | node-1: 2, node-3: 1, node-4: 2, node-5: 2 |
      | node-3 | 192.168.11.4 → node-5 | node-1: 2, node-2: 2, node-4: 1, node-5: 2 |
      | node-4 | 192.168.11.5 → node-3 | node-1: 2, node-2: 2, node-3: 2, node-5: 1 |
      | node-5 | 192.168.11.6 → node-4 | node-1: 2, node-2: 2, node-3: 1, node-4: 2 |

      Two carriers down: the worst case is node-1 and node-2, leaving node-3: 1, node-4: 3, node-5: 3 (imbalance 2).

      <details><summary>Full priority order of every VIP</summary>

      - VI_control_plane 10.118.12.5: node-1 100, node-3 99, node-2 98
      - VI_external_192_168_11_2 192.168.11.2: node-1 100, node-5 99, node-3 98, node-2 97, node-4 96
      - VI_external_192_168_11_3 192.168.11.3: node-2 100, node-5 99, node-3 98, node-1 97, node-4 96
      - VI_external_192_168_11_4 192.168.11.4: node-3 100, node-5 99, node-4 98, node-2 97, node-1 96
      - VI_external_192_168_11_5 192.168.11.5: node-4 100, node-3 99, node-5 98, node-2 97, node-1 96
      - VI_external_192_168_11_6 192.168.11.6: node-5 100, node-4 99, node-3 98, node-2 97, node-1 96
      - VI_external_192_168_11_7 192.168.11.7: node-1 100, node-4 99, node-3 98, node-2 97, node-5 96
      - VI_external_192_168_11_8 192.168.11.8: node-2 100, node-4 99, node-3 98, node-1 97, node-5 96

      </details>

      ### Failover: apiserver check failing

      | failing node | control-plane VIP |
      | --- | --- |
      | node-1 | 10.118.12.5 → node-3 |
      | node-3 | nothing (a backup) |
      | node-2 | nothing (a backup) |

      ### Takeover times (predicted)

      | event | VIP on its new holder after | because |
      | --- | --- | --- |
      | a node dies (no goodbye advert) | 2.61s–3.63s | 3 × advert_int 1s + skew (256 − priority)/256 × advert_int, counted from the dead master's last advert |
      | the apiserver check fails on the control-plane master | 4.61s–7.61s | 2 failed checks 2s apart (no preempt_delay here), then the down timer |
      | the check recovers | 4.61s–7.61s | 2 good checks, then the down timer |
      | the readiness check fails on an external VIP's master | 124.61s–128.61s | 2 failed checks 2s apart, preempt_delay 120s, then the down timer |
      | that check recovers | 124.61s–128.61s | 2 good checks, preempt_delay 120s, then the down timer |
      | the master's apiserver shuts down (upgrade, certificate renewal) | 4.61s–7.61s | /readyz fails, it serves on: 2 × 2s + down timer 3.61s = 7.61s ≤ shutdown-delay-duration 8s |
      | a node comes back | 122.61s–128.61s after keepalived starts | checks run at once, passing until their first result (no init_fail): one good run; external VIPs: preempt_delay 120s; one down timer |
      | every node starts at once: the control-plane VIP | 4.61s–7.61s after its master's check passes | first checks fail everywhere; then 2 good checks and the down timer |
      | … the external VIPs | 124.61s–128.61s after its master's checks pass | first checks fail everywhere; then 2 good checks, preempt_delay 120s (no shorter one at startup), the down timer |

      Every node starting at once (a power loss, every keepalived restarted together): no apiserver answers yet, so every first apiserver check fails and every node runs at priority 1: the first node up claims it and keeps it (a backup takes a VIP only from a lower priority); the planned master takes the control-plane VIP once its own check passes (no preempt_delay). Cilium is not ready either, so for each external VIP every node runs at priority 1: the first node up claims it and keeps it (a backup takes a VIP only from a lower priority), or the first carrier whose checks pass; the planned master then takes it back only after preempt_delay 120s: a second move, 120s or more after the first. keepalived 2.2.7 has no shorter delay at startup: a backup starts it at the first lower-priority advert it hears (keepalived/vrrp/vrrp.c:1966) and \`vrrp_startup_delay\` only holds back the down timers (vrrp_scheduler.c:320), so avoiding the second move means \`vrrp.preemptDelay: 0\`, which also drops the wait after every other recovery.

      ### Partition: the VRRP segment split, links up

      A node that hears no peer (VRRP filtered between switches, a broken VLAN, links still up) is master of every VIP it has an instance for that is not in FAULT, whatever its priority: both sides then answer ARP for those VIPs, and the upstream neighbours follow whichever sent the last gratuitous ARP (every 60s: \`vrrp_garp_master_refresh\`). Only a check with weight 0 takes an isolated node out; a lower priority does nothing while nobody can hear it. Per check:

      - the apiserver check: once a minority control plane's etcd loses quorum its /readyz fails; with a negative weight (lower priority) it keeps the VIP at priority 1, which nobody it can hear outranks, and both sides hold it (this spec: \`vrrp.healthCheck.weight: -253\`); with weight 0 (FAULT) the isolated node goes to FAULT and leaves the VIP to the other side.
      - the readiness check does not fail on a partition (Cilium on the node is fine): every isolated carrier keeps the external VIPs it has an instance for, whatever its weight.

      The trade-off of weight 0: no node holds a VIP while its check fails everywhere (bringing a cluster up, every node restarting at once), and a failing master leaves at once, without preempt_delay's damping. After the split heals, the two masters of a VIP hear each other and the lower priority yields (no preempt_delay between masters): the plan's holders are back within two advert intervals, 2.00s: the higher master's next advert ends the clash.

      \`clusterspec simulate <spec> --down <nodes> [--unhealthy <nodes>]\` prints any other state from the same model; clusterspec's VRRP lab checks it against real keepalived daemons.

      ### Picture

      \`\`\`mermaid
      flowchart LR
        subgraph s0["segment internal: wan1 10.118.12.0/24, on-link 192.168.11.0/24"]
          n0["<b>node-1</b> (control plane, worker)<br/>wan0 198.18.11.10/24<br/>wan1 10.118.12.10/24"]
          n1["<b>node-2</b> (control plane, worker)<br/>wan0 198.18.11.11/24<br/>wan1 10.118.12.11/24"]
          n2["<b>node-3</b> (control plane, worker)<br/>wan0 198.18.11.12/24<br/>wan1 10.118.12.12/24"]
          n3["<b>node-4</b> (worker)<br/>wan0 198.18.11.13/24<br/>wan1 10.118.12.13/24"]
          n4["<b>node-5</b> (worker)<br/>wan0 198.18.11.14/24<br/>wan1 10.118.12.14/24"]
        end
        cp(["control-plane VIP<br/>10.118.12.5/24 VRID 1"])
        cp ==>|"master"| n0
        cp -.->|"backup 1"| n2
        cp -.->|"backup 2"| n1
        x0(["192.168.11.2 VRID 2<br/>then node-3, node-2, node-4"])
        x0 ==> n0
        x0 -.-> n4
        x1(["192.168.11.3 VRID 3<br/>then node-3, node-1, node-4"])
        x1 ==> n1
        x1 -.-> n4
        x2(["192.168.11.4 VRID 4<br/>then node-4, node-2, node-1"])
        x2 ==> n2
        x2 -.-> n4
        x3(["192.168.11.5 VRID 5<br/>then node-5, node-2, node-1"])
        x3 ==> n3
        x3 -.-> n2
        x4(["192.168.11.6 VRID 6<br/>then node-3, node-2, node-1"])
        x4 ==> n4
        x4 -.-> n3
        x5(["192.168.11.7 VRID 7<br/>then node-3, node-2, node-5"])
        x5 ==> n0
        x5 -.-> n3
        x6(["192.168.11.8 VRID 8<br/>then node-3, node-1, node-5"])
        x6 ==> n1
        x6 -.-> n3
      \`\`\`"
    `);
  });

  it("registers as a generator module with a PLAN.md section", () => {
    expect(keepalivedModule.name).toBe("keepalived");
    expect(
      keepalivedModule
        .summarize?.(reference(), keepalivedModule.generate(reference()))
        ?.startsWith("## keepalived (VRRP)\n"),
    ).toBe(true);
  });
});

/** Valid specs from the shared arbitrary, as inputs (so determinism can re-resolve them). */
function arbClusterInputs(): fc.Arbitrary<Loose> {
  return fc
    .record({
      controlPlanes: fc.constantFrom(1 as const, 3 as const, 5 as const),
      workers: fc.integer({ min: 0, max: 6 }),
      poolSize: fc.integer({ min: 0, max: 30 }),
      carriers: fc.array(fc.boolean(), { minLength: 11, maxLength: 11 }),
      auth: fc.constantFrom("AH" as const, "PASS" as const, "none" as const),
    })
    .map((r) =>
      buildSpec({ controlPlanes: r.controlPlanes, workers: r.workers, poolSize: r.poolSize, cloud: false }, r),
    )
    .filter((s) => validateSpec(s).ok);
}

/** Specs that also vary every vrrp option the generator reads. */
function arbOptionsSpec(): fc.Arbitrary<Loose> {
  return fc
    .record({
      base: arbClusterInputs(),
      unicast: fc.boolean(),
      nopreempt: fc.boolean(),
      initialState: fc.constantFrom("BACKUP" as const, "MASTER" as const),
      weight: fc.option(fc.integer({ min: -253, max: 0 }), { nil: undefined }),
      interval: fc.integer({ min: 1, max: 60 }),
      timeout: fc.integer({ min: 1, max: 30 }),
      fall: fc.integer({ min: 1, max: 10 }),
      rise: fc.integer({ min: 1, max: 10 }),
      advertInterval: fc.integer({ min: 1, max: 255 }),
      basePriority: fc.integer({ min: 6, max: 254 }),
      notify: fc.subarray(["master", "backup", "fault"] as const),
    })
    .map((r) => {
      const spec = structuredClone(r.base);
      spec.vrrp = {
        ...spec.vrrp,
        unicast: r.unicast,
        nopreempt: r.nopreempt && r.initialState === "BACKUP",
        initialState: r.initialState,
        advertInterval: r.advertInterval,
        basePriority: r.basePriority,
        healthCheck: {
          interval: r.interval,
          timeout: r.timeout,
          fall: r.fall,
          rise: r.rise,
          ...(r.weight === undefined ? {} : { weight: r.weight }),
        },
        ...(r.notify.length === 0
          ? {}
          : { notify: Object.fromEntries(r.notify.map((k) => [k, `/etc/keepalived/notify-${k}.sh`])) }),
      };
      if (r.unicast && spec.vrrp.auth?.type === "AH") spec.vrrp.auth.type = "PASS";
      return spec;
    })
    .filter((s) => validateSpec(s).ok);
}

const SPECIALS = [" ", "\t", "\n", "\r", "{", "}", '"', "'", "#", "!", "$", "~", "@", "\\", ";", "`", "\0"];
const arbNasty = (): fc.Arbitrary<string> =>
  fc
    .array(fc.oneof(fc.constantFrom(...SPECIALS), fc.constantFrom("a", "b", "1", "-", ".", "/", "_")), {
      minLength: 1,
      maxLength: 12,
    })
    .map((xs) => xs.join(""))
    .filter((s) => SPECIALS.some((c) => s.includes(c)));

describe("injection", () => {
  it("keepalivedToken throws on anything that is not exactly one plain token", () => {
    fc.assert(
      fc.property(fc.oneof(arbNasty(), fc.string(), fc.string({ unit: "binary" })), (s) => {
        let out: string | undefined;
        try {
          out = keepalivedToken(s);
        } catch {
          expect(KEEPALIVED_TOKEN.test(s)).toBe(false);
          return;
        }
        expect(out).toBe(s);
        expect(tokenizeLine(`key ${out}`)).toEqual(["key", s]);
      }),
      { numRuns: 500 },
    );
    expect(() => keepalivedToken("a b")).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: keepalived value "a b" is not a single plain token]`,
    );
    expect(() => keepalivedToken('x"}\nvrrp_instance')).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: keepalived value "x\\"}\\nvrrp_instance" is not a single plain token]`,
    );
    expect(() => keepalivedToken(1.5)).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: keepalived value 1.5 is not an integer]`,
    );
    expect(() => keepalivedComment("a\nb")).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: comment "a\\nb" contains a control character]`,
    );
    expect(() => shellWord({})).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: shell value must be a string or integer, got object]`,
    );
  });

  it("the schema rejects every nasty string in a field that reaches keepalived.conf", () => {
    // Each edit names the path its error must point at, so a rejection for an unrelated reason does not count.
    const setters: [readonly (string | number)[], (spec: Loose, s: string) => void][] = [
      [["nodes", 0, "name"], (spec, s) => (spec.nodes[0].name = s)],
      [["network", "segments", 0, "interface"], (spec, s) => (spec.network.segments[0].interface = s)],
      [["controlPlane", "interface"], (spec, s) => (spec.controlPlane.interface = s)],
      [["externalVips", "interface"], (spec, s) => (spec.externalVips.interface = s)],
      [["nodes", 0, "interfaces"], (spec, s) => (spec.nodes[0].interfaces[s] = { mac: "52:54:00:99:99:99" })],
      [["vrrp", "scriptUser"], (spec, s) => (spec.vrrp.scriptUser = s)],
      [["vrrp", "notify", "master"], (spec, s) => (spec.vrrp.notify = { master: `/etc/keepalived/${s}` })],
      [["vrrp", "notify", "fault"], (spec, s) => (spec.vrrp.notify = { fault: s })],
      [["controlPlane", "vip"], (spec, s) => (spec.controlPlane.vip = `10.118.12.5/24${s}`)],
      [["externalVips", "addresses", 0], (spec, s) => (spec.externalVips.addresses[0] = `192.168.11.2${s}`)],
    ];
    fc.assert(
      fc.property(fc.constantFrom(...setters), arbNasty(), ([path, set], s) => {
        const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: false }) as Loose;
        set(spec, s);
        const r = validateSpec(spec);
        expect(r.ok).toBe(false);
        const at = r.ok ? [] : r.errors.filter((e) => path.every((p, i) => e.path[i] === p));
        expect(at.length, `${JSON.stringify(s)} at ${path.join(".")}`).toBeGreaterThan(0);
      }),
      { numRuns: 400 },
    );
  });

  it("a resolved VRRP password is either rejected or stays one token of auth.conf", () => {
    const spec = mustValidate(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: false }, { auth: "PASS" }));
    fc.assert(
      // Half the samples are passwords of the allowed alphabet, so the round trip is exercised, not only the rejection.
      fc.property(
        fc.oneof(
          arbNasty(),
          fc.string({ minLength: 1, maxLength: 8 }),
          fc.stringMatching(/^[A-Za-z0-9_.:/+=,%-]{1,8}$/),
        ),
        (pw) => {
          if (checkSecretValues({ vrrpPassword: pw }).length > 0) return;
          const plan = resolvePlan(spec, { secrets: { vrrpPassword: pw } });
          const auth = generateKeepalived(plan).find((a) => a.path.endsWith("auth.conf"));
          const tokens = (auth?.content ?? "")
            .split("\n")
            .map(tokenizeLine)
            .filter((t) => t.length > 0);
          expect(tokens).toEqual([["auth_pass", pw]]);
        },
      ),
      { numRuns: 500 },
    );
    expect(() =>
      generateKeepalived(resolvePlan(spec, { secrets: { vrrpPassword: "Zq9#xW2!" } })),
    ).toThrowErrorMatchingInlineSnapshot(
      `[InternalError: the VRRP password is not a single plain keepalived token (value withheld); see checkSecretValues]`,
    );
    expect(checkSecretValues({ vrrpPassword: "a#b" })).toHaveLength(1);
    expect(checkSecretValues({ vrrpPassword: "a}b" })).toHaveLength(1);
  });
});

describe("PLAN.md's two-carrier case agrees with core's failover model", () => {
  const check = (plan: ClusterPlan) => {
    const carriers = plan.nodes.filter((n) => n.carriesExternalVips).map((n) => n.name);
    const pool = plan.vips.filter((v) => v.kind === "external");
    const reference = worstTwoCarrierFailure(plan);
    if (pool.length === 0 || carriers.length < 3) {
      expect(reference).toBeUndefined();
      return;
    }
    const pair = worstCarrierPair(carriers, pool);
    // the lab kills the pair core names; PLAN.md must name that same pair, with the same figures
    expect(pair.down).toEqual(reference?.down);
    const sim = simulateFailover(plan, { down: pair.down, unhealthy: [] });
    expect(pair.spread).toBe(loadSpread(sim, carriers));
    expect(pair.lost).toBe(sim.holdings.filter((h) => h.vip.kind === "external" && h.holder === undefined).length);
  };

  it("on random plans", () => {
    fc.assert(fc.property(arbPlan({ maxPool: 40 }), check), { numRuns: 80 });
  });

  it("with externalVips.replicas 2 and 3", () => {
    for (const [carriers, pool, replicas] of [
      [5, 7, 2],
      [8, 20, 2],
      [9, 30, 3],
      [12, 14, 2],
    ] as const) {
      const spec: Loose = buildSpec({ controlPlanes: 3, workers: carriers - 3, poolSize: pool, cloud: false });
      spec.externalVips.replicas = replicas;
      check(mustResolve(spec));
    }
  });
});

describe("externalVips.replicas", () => {
  const replicated = (carriers: number, pool: number, replicas: number, unicast = false): ClusterPlan => {
    const spec: Loose = buildSpec({ controlPlanes: 3, workers: carriers - 3, poolSize: pool, cloud: false });
    spec.externalVips.replicas = replicas;
    if (unicast) spec.vrrp.unicast = true;
    spec.vrrp.basePriority = 254;
    return mustResolve(spec);
  };

  it("writes V × replicas external instances in all, each with its own carriers as unicast peers", () => {
    const plan = replicated(10, 40, 3, true);
    const files = generateKeepalived(plan).filter((a) => a.path.endsWith("keepalived.conf"));
    const external = files.flatMap((f) =>
      instancesOf(parseKeepalivedConf(f.content)).filter((i) => i.name.startsWith("VI_external_")),
    );
    expect(external).toHaveLength(40 * 3);
    for (const i of external) expect(i.unicastPeers).toHaveLength(2);
    for (const f of files)
      expect(parsedInstances(f.content)).toEqual(expectedInstances(plan, f.path.split("/")[1] ?? ""));
  });

  it("summarizes twelve carriers for PLAN.md with ranges, what each VIP survives and the VIPs two failures lose", () => {
    const summary = summarizeKeepalived(replicated(12, 14, 2));
    expect(summary).toMatchInlineSnapshot(`
      "## keepalived (VRRP)

      Every node that holds a VIP gets \`/etc/keepalived/keepalived.conf\`: one \`vrrp_instance\` per VIP it may hold, state BACKUP, advert_int 1, multicast, no authentication. The highest priority among the live nodes holds a VIP; a VIP survives as many node failures as it has backups.

      Each external VIP is held by 2 of the 12 carriers (\`externalVips.replicas\`), so it survives any 1 failure and is lost only when both of its carriers are down. A VIP's carriers depend only on its place in the pool: appending an address moves no existing VIP.

      | VIP | instance | interface | VRID | master | backups (priority) | survives |
      | --- | --- | --- | --- | --- | --- | --- |
      | 10.118.12.5/24 | VI_control_plane | wan1 | 1 | node-1 (254) | node-3 (253), node-2 (252) | 2 failures |
      | 192.168.11.2/32 | VI_external_192_168_11_2 | wan1 | 2 | node-1 (254) | node-12 (253) | 1 failure |
      | 192.168.11.3/32 | VI_external_192_168_11_3 | wan1 | 3 | node-2 (254) | node-1 (253) | 1 failure |
      | 192.168.11.4/32 | VI_external_192_168_11_4 | wan1 | 4 | node-3 (254) | node-2 (253) | 1 failure |
      | 192.168.11.5/32 | VI_external_192_168_11_5 | wan1 | 5 | node-4 (254) | node-3 (253) | 1 failure |
      | 192.168.11.6/32 | VI_external_192_168_11_6 | wan1 | 6 | node-5 (254) | node-4 (253) | 1 failure |
      | 192.168.11.7/32 | VI_external_192_168_11_7 | wan1 | 7 | node-6 (254) | node-5 (253) | 1 failure |
      | 192.168.11.8/32 | VI_external_192_168_11_8 | wan1 | 8 | node-7 (254) | node-6 (253) | 1 failure |
      | 192.168.11.9/32 | VI_external_192_168_11_9 | wan1 | 9 | node-8 (254) | node-7 (253) | 1 failure |
      | 192.168.11.10/32 | VI_external_192_168_11_10 | wan1 | 10 | node-9 (254) | node-8 (253) | 1 failure |
      | 192.168.11.11/32 | VI_external_192_168_11_11 | wan1 | 11 | node-10 (254) | node-9 (253) | 1 failure |
      | 192.168.11.12/32 | VI_external_192_168_11_12 | wan1 | 12 | node-11 (254) | node-10 (253) | 1 failure |
      | 192.168.11.13/32 | VI_external_192_168_11_13 | wan1 | 13 | node-12 (254) | node-11 (253) | 1 failure |
      | 192.168.11.14/32 | VI_external_192_168_11_14 | wan1 | 14 | node-1 (254) | node-11 (253) | 1 failure |
      | 192.168.11.15/32 | VI_external_192_168_11_15 | wan1 | 15 | node-2 (254) | node-12 (253) | 1 failure |

      Health check: \`/etc/keepalived/check-apiserver.sh\` asks the kube-apiserver on the node's own address for \`/readyz\` (curl, 2s timeout; **curl is a host dependency** of every control-plane node) every 2s. keepalived runs it as soon as it starts and counts it as passing until that first run ends (keepalived 2.2.7 ignores \`init_fail\` for a tracked script: \`alloc_track_script\` resets it), and one good run is enough; the run ends within 2s (its own limit), before the 3s down timer (3 × advert_int, plus the skew) that a node must wait out before it takes a VIP, so a node that boots or restarts while its apiserver is down does not take the control-plane VIP from a healthy node; after 2 failures the control-plane instance's priority drops by 253, below every healthy control-plane node (254 - 253 = 1 < 252); after 2 successes it recovers. With a negative weight a node alone still takes the VIP while its apiserver is down, which \`kubeadm init\` needs.

      Readiness check: \`/etc/keepalived/check-cilium.sh\` asks the Cilium agent on the node for \`http://127.0.0.1:9879/healthz\` (its health API, Helm value \`healthPort\`; curl, 2s timeout) every 2s, on every external VIP instance. After a boot keepalived starts long before containerd, the kubelet and Cilium: the check keeps the node from taking its external VIPs back and blackholing their traffic until Cilium has programmed it. keepalived runs it as soon as it starts and counts it as passing until that first run ends (keepalived 2.2.7 ignores \`init_fail\` for a tracked script: \`alloc_track_script\` resets it), and one good run is enough; the run ends within 2s (its own limit), before the 3s down timer (3 × advert_int, plus the skew) that a node must wait out before it takes a VIP, so a node that boots or restarts while Cilium is not serving does not take an external VIP from a ready carrier. After 2 failures their priority drops by 253 (keepalived stops at 1), below every healthy carrier of each VIP; after 2 successes they recover.

      Uplink check: off (\`vrrp.uplinkCheck\`): keepalived tracks only the VIP interface's link, so a node whose uplink gateway is unreachable keeps its external VIPs.

      Preemption: external VIPs after \`preempt_delay 120\` (\`vrrp.preemptDelay\`): a carrier that sees a lower-priority master (after a restart, or when its own check recovers) waits 120s before it takes the VIP, so a returning node settles first. keepalived applies the same wait when the master's readiness check fails with a negative weight (the backups then hear a lower-priority master): that VIP moves after the delay, not at once (see the takeover times); weight 0 (FAULT) moves it at once. The control-plane VIP has no preempt_delay: every kubelet reaches the apiserver through it, and a failing apiserver check must move it well inside the node-monitor grace period (nodes would go NotReady and their pods leave the endpoints); a returning control plane is kept away by its apiserver check, whose first run fails before the node's down timer ends (see the health check). After a death the backups race on skews a few milliseconds apart: should a lower backup win an external VIP on a busy node, the right one takes it only after the delay.

      Scripts: keepalived calls each check script directly (no \`/bin/sh\` in front, so \`enable_script_security\` checks the script itself) as \`script_user nobody\`, an unprivileged user (the cluster CA the apiserver check reads is world-readable); notify scripts run as that user too. A master repeats its gratuitous ARPs every 60s (\`vrrp_garp_master_refresh\`), so switches and neighbours that lost them relearn where each VIP lives.

      Authentication: none (\`vrrp.auth\` unset). RFC 3768 removed VRRP authentication: PASS sends the password in clear in every advert and only guards against misconfigured peers; AH (IP protocol 51) authenticates adverts but keepalived's man page marks it not recommended, it needs every switch and firewall on the segment to pass protocol 51, and it does not work with unicast peers. Without authentication any host on the segment can take a VIP, so keep VRRP on a segment only the nodes reach.

      ### Failover: one node down

      | failed node | VIPs taken over | external VIPs per surviving carrier |
      | --- | --- | --- |
      | node-1 | 10.118.12.5 → node-3, 192.168.11.2 → node-12, 192.168.11.14 → node-11 | 1 to 2 on each carrier (spread 1) |
      | node-2 | 192.168.11.3 → node-1, 192.168.11.15 → node-12 | 1 to 3 on each carrier (spread 2) |
      | node-3 | 192.168.11.4 → node-2 | 1 to 3 on each carrier (spread 2) |
      | node-4 | 192.168.11.5 → node-3 | 1 to 2 on each carrier (spread 1) |
      | node-5 | 192.168.11.6 → node-4 | 1 to 2 on each carrier (spread 1) |
      | node-6 | 192.168.11.7 → node-5 | 1 to 2 on each carrier (spread 1) |
      | node-7 | 192.168.11.8 → node-6 | 1 to 2 on each carrier (spread 1) |
      | node-8 | 192.168.11.9 → node-7 | 1 to 2 on each carrier (spread 1) |
      | node-9 | 192.168.11.10 → node-8 | 1 to 2 on each carrier (spread 1) |
      | node-10 | 192.168.11.11 → node-9 | 1 to 2 on each carrier (spread 1) |
      | node-11 | 192.168.11.12 → node-10 | 1 to 2 on each carrier (spread 1) |
      | node-12 | 192.168.11.13 → node-11 | 1 to 2 on each carrier (spread 1) |

      Two carriers down: the worst case is node-1 and node-2, leaving 1 to 3 on each carrier (imbalance 2; 1 VIP held by nobody).

      ### Failover: apiserver check failing

      | failing node | control-plane VIP |
      | --- | --- |
      | node-1 | 10.118.12.5 → node-3 |
      | node-3 | nothing (a backup) |
      | node-2 | nothing (a backup) |

      ### Takeover times (predicted)

      | event | VIP on its new holder after | because |
      | --- | --- | --- |
      | a node dies (no goodbye advert) | 2.01s–3.02s | 3 × advert_int 1s + skew (256 − priority)/256 × advert_int, counted from the dead master's last advert |
      | the apiserver check fails on the control-plane master | 4.01s–7.01s | 2 failed checks 2s apart (no preempt_delay here), then the down timer |
      | the check recovers | 4.01s–7.01s | 2 good checks, then the down timer |
      | the readiness check fails on an external VIP's master | 124.01s–128.01s | 2 failed checks 2s apart, preempt_delay 120s, then the down timer |
      | that check recovers | 124.01s–128.01s | 2 good checks, preempt_delay 120s, then the down timer |
      | the master's apiserver shuts down (upgrade, certificate renewal) | 4.01s–7.01s | /readyz fails, it serves on: 2 × 2s + down timer 3.01s = 7.01s ≤ shutdown-delay-duration 8s |
      | a node comes back | 122.01s–128.01s after keepalived starts | checks run at once, passing until their first result (no init_fail): one good run; external VIPs: preempt_delay 120s; one down timer |
      | every node starts at once: the control-plane VIP | 4.01s–7.01s after its master's check passes | first checks fail everywhere; then 2 good checks and the down timer |
      | … the external VIPs | 124.01s–128.01s after its master's checks pass | first checks fail everywhere; then 2 good checks, preempt_delay 120s (no shorter one at startup), the down timer |

      Every node starting at once (a power loss, every keepalived restarted together): no apiserver answers yet, so every first apiserver check fails and every node runs at priority 1: the first node up claims it and keeps it (a backup takes a VIP only from a lower priority); the planned master takes the control-plane VIP once its own check passes (no preempt_delay). Cilium is not ready either, so for each external VIP every node runs at priority 1: the first node up claims it and keeps it (a backup takes a VIP only from a lower priority), or the first carrier whose checks pass; the planned master then takes it back only after preempt_delay 120s: a second move, 120s or more after the first. keepalived 2.2.7 has no shorter delay at startup: a backup starts it at the first lower-priority advert it hears (keepalived/vrrp/vrrp.c:1966) and \`vrrp_startup_delay\` only holds back the down timers (vrrp_scheduler.c:320), so avoiding the second move means \`vrrp.preemptDelay: 0\`, which also drops the wait after every other recovery.

      ### Partition: the VRRP segment split, links up

      A node that hears no peer (VRRP filtered between switches, a broken VLAN, links still up) is master of every VIP it has an instance for that is not in FAULT, whatever its priority: both sides then answer ARP for those VIPs, and the upstream neighbours follow whichever sent the last gratuitous ARP (every 60s: \`vrrp_garp_master_refresh\`). Only a check with weight 0 takes an isolated node out; a lower priority does nothing while nobody can hear it. Per check:

      - the apiserver check: once a minority control plane's etcd loses quorum its /readyz fails; with a negative weight (lower priority) it keeps the VIP at priority 1, which nobody it can hear outranks, and both sides hold it (this spec: \`vrrp.healthCheck.weight: -253\`); with weight 0 (FAULT) the isolated node goes to FAULT and leaves the VIP to the other side.
      - the readiness check does not fail on a partition (Cilium on the node is fine): every isolated carrier keeps the external VIPs it has an instance for, whatever its weight.

      The trade-off of weight 0: no node holds a VIP while its check fails everywhere (bringing a cluster up, every node restarting at once), and a failing master leaves at once, without preempt_delay's damping. After the split heals, the two masters of a VIP hear each other and the lower priority yields (no preempt_delay between masters): the plan's holders are back within two advert intervals, 2.00s: the higher master's next advert ends the clash.

      \`clusterspec simulate <spec> --down <nodes> [--unhealthy <nodes>]\` prints any other state from the same model; clusterspec's VRRP lab checks it against real keepalived daemons.

      ### Picture

      \`\`\`mermaid
      flowchart LR
        subgraph s0["segment internal: wan1 10.118.12.0/24, on-link 192.168.11.0/24"]
          n0["<b>node-1</b> (control plane, worker)<br/>wan0 198.18.11.10/24<br/>wan1 10.118.12.10/24"]
          n1["<b>node-2</b> (control plane, worker)<br/>wan0 198.18.11.11/24<br/>wan1 10.118.12.11/24"]
          n2["<b>node-3</b> (control plane, worker)<br/>wan0 198.18.11.12/24<br/>wan1 10.118.12.12/24"]
          n3["<b>node-4</b> (worker)<br/>wan0 198.18.11.13/24<br/>wan1 10.118.12.13/24"]
          n4["<b>node-5</b> (worker)<br/>wan0 198.18.11.14/24<br/>wan1 10.118.12.14/24"]
          n5["<b>node-6</b> (worker)<br/>wan0 198.18.11.15/24<br/>wan1 10.118.12.15/24"]
          n6["<b>node-7</b> (worker)<br/>wan0 198.18.11.16/24<br/>wan1 10.118.12.16/24"]
          n7["<b>node-8</b> (worker)<br/>wan0 198.18.11.17/24<br/>wan1 10.118.12.17/24"]
          n8["<b>node-9</b> (worker)<br/>wan0 198.18.11.18/24<br/>wan1 10.118.12.18/24"]
          n9["<b>node-10</b> (worker)<br/>wan0 198.18.11.19/24<br/>wan1 10.118.12.19/24"]
          n10["<b>node-11</b> (worker)<br/>wan0 198.18.11.20/24<br/>wan1 10.118.12.20/24"]
          n11["<b>node-12</b> (worker)<br/>wan0 198.18.11.21/24<br/>wan1 10.118.12.21/24"]
        end
        cp(["control-plane VIP<br/>10.118.12.5/24 VRID 1"])
        cp ==>|"master"| n0
        cp -.->|"backup 1"| n2
        cp -.->|"backup 2"| n1
        g0(["2 external VIP(s): 192.168.11.2 and 1 more<br/>first backups on 2 node(s)"])
        g0 ==> n0
        g1(["2 external VIP(s): 192.168.11.3 and 1 more<br/>first backups on 2 node(s)"])
        g1 ==> n1
        g2(["1 external VIP(s): 192.168.11.4<br/>first backups on 1 node(s)"])
        g2 ==> n2
        g3(["1 external VIP(s): 192.168.11.5<br/>first backups on 1 node(s)"])
        g3 ==> n3
        g4(["1 external VIP(s): 192.168.11.6<br/>first backups on 1 node(s)"])
        g4 ==> n4
        g5(["1 external VIP(s): 192.168.11.7<br/>first backups on 1 node(s)"])
        g5 ==> n5
        g6(["1 external VIP(s): 192.168.11.8<br/>first backups on 1 node(s)"])
        g6 ==> n6
        g7(["1 external VIP(s): 192.168.11.9<br/>first backups on 1 node(s)"])
        g7 ==> n7
        g8(["1 external VIP(s): 192.168.11.10<br/>first backups on 1 node(s)"])
        g8 ==> n8
        g9(["1 external VIP(s): 192.168.11.11<br/>first backups on 1 node(s)"])
        g9 ==> n9
        g10(["1 external VIP(s): 192.168.11.12<br/>first backups on 1 node(s)"])
        g10 ==> n10
        g11(["1 external VIP(s): 192.168.11.13<br/>first backups on 1 node(s)"])
        g11 ==> n11
      \`\`\`"
    `);
  });

  it("keeps PLAN.md's keepalived section proportional: 240 carriers × 240 VIPs under 2 MB, every row short", () => {
    const summary = summarizeKeepalived(replicated(240, 240, 240));
    expect(summary.length).toBeLessThan(2_000_000);
    const tableRows = summary.split("\n").filter((l) => l.startsWith("| "));
    const longest = tableRows.reduce((a, b) => (b.length > a.length ? b : a), "");
    expect(longest.length, longest).toBeLessThan(200);
  });
});

describe("dual-stack VIP pairs", () => {
  /** The dual-stack example with n nodes (3 control planes), a drawn pool of IPv4, IPv6 and paired VIPs, and options. */
  const arbDualSpec = fc
    .record({
      n: fc.integer({ min: 3, max: 6 }),
      vip6: fc.boolean(),
      unicast: fc.boolean(),
      fault: fc.boolean(),
      pool: fc.uniqueArray(
        fc.record({ host: fc.integer({ min: 30, max: 250 }), family: fc.constantFrom("v4", "pair", "v6") }),
        { minLength: 1, maxLength: 8, selector: (e) => e.host },
      ),
    })
    .map((r) => {
      const s = exampleInput("dual-stack");
      if (!r.vip6) delete s.controlPlane.vip6;
      s.vrrp = { unicast: r.unicast, ...(r.fault ? { healthCheck: { weight: 0 } } : {}) };
      s.externalVips.addresses = r.pool.map((e) =>
        e.family === "v6"
          ? `fd00:118:11::${e.host.toString(16)}`
          : e.family === "pair"
            ? { address: `10.118.11.${e.host}`, address6: `fd00:118:11::${e.host.toString(16)}` }
            : `10.118.11.${e.host}`,
      );
      const template = s.nodes[0];
      s.nodes = Array.from({ length: r.n }, (_, i) => ({
        ...structuredClone(template),
        name: `k8s-${i + 1}`,
        roles: i < 3 ? ["control-plane", "worker"] : ["worker"],
        interfaces: {
          wan0: {
            mac: `52:54:00:12:34:${(0x10 + i).toString(16)}`,
            address: `10.118.10.${20 + i}/24`,
            gateway: "10.118.10.1",
          },
          wan1: {
            mac: `52:54:00:12:35:${(0x10 + i).toString(16)}`,
            address: `10.118.12.${20 + i}/24`,
            address6: `fd00:118:12::${(0x20 + i).toString(16)}/64`,
          },
        },
      }));
      return s;
    });

  /** Every node's parsed instances and scripts, and its sync groups. */
  function parsedNodes(plan: ClusterPlan) {
    const artifacts = generateKeepalived(plan);
    return plan.nodes.flatMap((node) => {
      const conf = artifacts.find((a) => a.path === `nodes/${node.name}/etc/keepalived/keepalived.conf`);
      if (!conf) return [];
      const tree = parseKeepalivedConf(conf.content);
      const weights = new Map(
        tree
          .filter((s) => s.tokens[0] === "vrrp_script")
          .map((s) => [s.tokens[1] ?? "", Number(s.block?.find((x) => x.tokens[0] === "weight")?.tokens[1])]),
      );
      const groups = tree
        .filter((s) => s.tokens[0] === "vrrp_sync_group")
        .map((s) => ({
          members: (s.block?.find((x) => x.tokens[0] === "group")?.block ?? []).map((x) => x.tokens[0] ?? ""),
          trackingWeight: s.block?.some((x) => x.tokens[0] === "sync_group_tracking_weight") ?? false,
        }));
      return [{ node: node.name, instances: instancesOf(tree), weights, groups }];
    });
  }

  it("writes each pair as two single-family instances in one sync group, with one VRID, priority, interface and checks on every node", () => {
    fc.assert(
      fc.property(arbDualSpec, (input) => {
        const plan = mustResolve(input);
        const pairs = plan.vips.filter((v) => v.pair6);
        for (const { node, instances, groups } of parsedNodes(plan)) {
          const held = vipsOf(plan, node).filter((v) => v.pair6);
          expect(groups.length).toBe(held.length);
          for (const g of groups) {
            expect(g.trackingWeight).toBe(true);
            const [a, b] = g.members.map((m) => instances.find((i) => i.name === m));
            expect(a && b).toBeTruthy();
            if (!a || !b) continue;
            for (const key of ["virtual_router_id", "priority", "interface", "state", "advert_int"])
              expect(b.settings.get(key), `${node} ${g.members.join("/")} ${key}`).toEqual(a.settings.get(key));
            expect(b.trackScripts).toEqual(a.trackScripts);
            // One family per instance: the IPv4 half with IPv4 VIPs and peers, the IPv6 half VRRPv3 with IPv6 ones.
            expect(a.settings.get("version")).toBeUndefined();
            expect(b.settings.get("version")).toEqual(["3"]);
            expect(a.vips.every((v) => !v.includes(":"))).toBe(true);
            expect(b.vips.every((v) => v.includes(":"))).toBe(true);
            expect(a.unicastPeers.every((p) => !p.includes(":"))).toBe(true);
            expect(b.unicastPeers.every((p) => p.includes(":"))).toBe(true);
            expect(b.unicastPeers.length).toBe(a.unicastPeers.length);
          }
        }
        expect(pairs.length).toBe(plan.vips.filter((v) => v.pair6).length);
      }),
      { numRuns: 40 },
    );
  });

  it("never splits a pair under any single or double node failure or failing apiserver check, as elected from the files", () => {
    fc.assert(
      fc.property(arbDualSpec, (input) => {
        const plan = mustResolve(input);
        const nodes = parsedNodes(plan);
        const names = nodes.map((n) => n.node);
        const states = [
          { down: [], unhealthy: [] },
          ...names.flatMap((a, i) => [
            { down: [a], unhealthy: [] },
            { down: [], unhealthy: [a] },
            ...names.slice(i + 1).flatMap((b) => [
              { down: [a, b], unhealthy: [] },
              { down: [], unhealthy: [a, b] },
              { down: [a], unhealthy: [b] },
              { down: [b], unhealthy: [a] },
            ]),
          ]),
        ];
        const controlPlanes = new Set(plan.nodes.filter((n) => n.controlPlane).map((n) => n.name));
        // The winner of one instance from the files: highest priority after the failing checks' weights (keepalived
        // clamps at 1; weight 0 is FAULT); undefined on a tie (VRRP then compares addresses, per family).
        const winner = (name: string, state: { down: string[]; unhealthy: string[] }) => {
          const bids = nodes.flatMap(({ node, instances, weights }) => {
            const inst = instances.find((i) => i.name === name);
            if (!inst || state.down.includes(node)) return [];
            const failing = inst.trackScripts.filter(
              (t) => t.startsWith("chk_apiserver") && state.unhealthy.includes(node) && controlPlanes.has(node),
            );
            if (failing.some((t) => weights.get(t) === 0)) return [];
            const p =
              Number(inst.settings.get("priority")?.[0]) + failing.reduce((s, t) => s + (weights.get(t) ?? 0), 0);
            return [{ node, p: Math.max(1, p) }];
          });
          const top = Math.max(...bids.map((b) => b.p));
          const best = bids.filter((b) => b.p === top);
          return best.length === 1 ? best[0]?.node : best.length === 0 ? null : undefined;
        };
        for (const state of states) {
          const model = holderMap(simulateFailover(plan, state));
          for (const vip of plan.vips.filter((v) => v.pair6)) {
            const [v4, v6] = [instanceName(vip), instanceName6(vip) ?? ""];
            const w4 = winner(v4, state);
            const w6 = winner(v6, state);
            expect(w6, `${vip.key} ${JSON.stringify(state)}`).toBe(w4);
            if (w4 !== undefined)
              expect(w4 ?? undefined, `${vip.key} ${JSON.stringify(state)}`).toBe(model.get(vip.key));
          }
        }
      }),
      { numRuns: 25 },
    );
  });

  it("passes keepalived -t with pairs, IPv6-only VIPs and unicast peers per family", async (ctx) => {
    if (!keepalivedAvailable()) return ctx.skip("needs keepalived, unshare and root");
    for (const input of fc.sample(arbDualSpec, { numRuns: 3, seed: 30 })) {
      input.vrrp.unicast = true;
      const artifacts = generateKeepalived(mustResolve(input));
      for (const node of ["k8s-1", "k8s-3"]) await expectKeepalivedAccepts(artifacts, node);
    }
  });
});
