// What a Gentoo/OpenRC node does at boot, replayed with the real tools on the generated files: OpenRC's sysctl
// service (boot runlevel) applies sysctl.d before net.<parent> (default runlevel) creates a VLAN, and netifrc then
// calls postup() for each interface it brings up. Also: no PLAN.md sentence renders with an empty value.

import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { arbClusterSpec, withExternalVipsOnVlan } from "@clusterspec/core/testing";
import { exampleInput, toolAvailable, withNetns } from "@clusterspec/testkit";
import { type Artifact, generate, generateChecked } from "clusterspec";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

type Loose = any;

/**
 * Reference cluster 1 with its external VIPs on a Hetzner vSwitch VLAN (wan0.4000, MTU 1400) that has an uplink
 * table, Cilium in DSR mode: the case where accept_local on the VLAN matters. No uplink.sources, no onLink: the
 * sources are derived from the external VIPs inside the subnet; no cilium.devices: the VLAN is added to them.
 */
export function vlanSpec(): Loose {
  const spec: Loose = withExternalVipsOnVlan(exampleInput());
  spec.cilium.loadBalancerMode = "dsr";
  return spec;
}

function artifactsOf(spec: Loose): readonly Artifact[] {
  const r = generate(spec);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.artifacts;
}

const fileOf = (artifacts: readonly Artifact[], path: string): string => {
  const a = artifacts.find((x) => x.path === path);
  if (!a) throw new Error(`no ${path}`);
  return a.content;
};

/** PLAN.md's post-reboot check: every `| \`key\` | value | set by |` row of the host section. */
function checkRows(plan: string): { key: string; value: string; setBy: string }[] {
  const host = plan.slice(plan.indexOf("**Check the kernel settings after a reboot**"));
  const table = host.slice(0, host.indexOf("\n\n", host.indexOf("| key |")));
  return [...table.matchAll(/^\| `([^`]+)` \| (\S+) \| (.+) \|$/gm)].map((m) => ({
    key: m[1] ?? "",
    value: m[2] ?? "",
    setBy: m[3] ?? "",
  }));
}

describe("per-interface kernel settings survive the boot order (sysctl service, then netifrc)", () => {
  const artifacts = artifactsOf(vlanSpec());
  const node = "k8s-1";
  const sysctlD = fileOf(artifacts, `nodes/${node}/etc/sysctl.d/90-kubernetes.conf`);
  const confdNet = fileOf(artifacts, `nodes/${node}/etc/conf.d/net`);
  const plan = fileOf(artifacts, "PLAN.md");

  it("PLAN.md's post-reboot check lists every key clusterspec sets on the node, per-interface ones with netifrc as the setter", () => {
    const rows = checkRows(plan);
    expect(rows.map((r) => `${r.key} = ${r.value}`)).toEqual([
      "net.ipv4.ip_forward = 1",
      "net.ipv4.ip_nonlocal_bind = 1",
      "net.ipv6.ip_nonlocal_bind = 1",
      "net.ipv4.conf.all.rp_filter = 0",
      "net.ipv4.conf.default.rp_filter = 2",
      "net.ipv4.conf.wan1.rp_filter = 2",
      "net/ipv4/conf/wan0.4000/rp_filter = 2",
      "net/ipv4/conf/wan0.4000/accept_local = 1",
    ]);
    for (const r of rows.filter((x) => x.key.includes("wan")))
      expect(r.setBy).toMatch(/^`postup\(\)` in \/etc\/conf\.d\/net when net\.wan[0-9.]+ comes up$/);
    // every sysctl.d key is in the check with its value
    for (const line of sysctlD.split("\n").filter((l) => l && !l.startsWith("#")))
      expect(rows.map((r) => `${r.key} = ${r.value}`)).toContain(line);
  });

  it("sysctl -p applies the sysctl.d file cleanly before the VLAN exists, and the generated postup() sets the VLAN's keys once netifrc has created it", async (ctx) => {
    if (!toolAvailable("sysctl", { root: true }) || !toolAvailable("ip", { root: true }) || !toolAvailable("sh"))
      return ctx.skip("needs the real tool (installed by .ci/run)");
    const dir = mkdtempSync(join(tmpdir(), "cs-boot-order-"));
    try {
      writeFileSync(join(dir, "90-kubernetes.conf"), sysctlD);
      writeFileSync(join(dir, "net"), confdNet);
      // the old way, a VLAN's key in sysctl.d: "cannot stat", exit non-zero, the value never set
      writeFileSync(join(dir, "old.conf"), "net/ipv4/conf/wan0.4000/accept_local = 1\n");
      await withNetns(["wan0", "wan1"], (ns) => {
        const old = ns.exec("sysctl", ["-p", join(dir, "old.conf")]);
        expect(old.status).not.toBe(0);
        expect(old.stderr).toMatch(/cannot stat .*wan0\.4000\/accept_local/);

        // boot runlevel: OpenRC's sysctl service
        const boot = ns.exec("sysctl", ["-p", join(dir, "90-kubernetes.conf")]);
        expect(boot.stderr).toBe("");
        expect(boot.status).toBe(0);

        // default runlevel: net.wan0 creates its VLAN (netifrc net/vlan.sh: `ip link add link wan0 name wan0.4000
        // type vlan id 4000`); this kernel may lack 8021q, where a veth of that name stands in
        const vlan = ns.exec("ip", ["link", "add", "link", "wan0", "name", "wan0.4000", "type", "vlan", "id", "4000"]);
        if (vlan.status !== 0) ns.must("ip", ["link", "add", "wan0.4000", "type", "veth", "peer", "name", "v4000"]);
        ns.must("ip", ["link", "set", "wan0.4000", "up"]);
        // the interface appeared with the kernel's accept_local (0) and default's rp_filter (2)
        expect(ns.must("sysctl", ["-n", "net/ipv4/conf/wan0.4000/accept_local"])).toBe("0\n");

        // netifrc calls postup() with IFACE set for each interface it brings up: the VLAN first (from within
        // net.wan0's vlan_post_start), then wan0 itself, and wan1. ewarn is OpenRC's; here it fails the test.
        for (const iface of ["wan0.4000", "wan0", "wan1"]) {
          const r = ns.exec("sh", [
            "-c",
            'ewarn() { echo "ewarn: $*" >&2; }; . "$1"; IFACE="$2"; postup',
            "sh",
            join(dir, "net"),
            iface,
          ]);
          expect(r.stderr).toBe("");
          expect(r.status).toBe(0);
        }
        const keys = checkRows(plan).map((r) => r.key);
        const printed = ns
          .must("sysctl", ["-n", ...keys])
          .split("\n")
          .slice(0, -1);
        expect(printed).toEqual(checkRows(plan).map((r) => r.value));
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("PLAN.md renders no sentence with an empty value", () => {
  /** Prose and table lines (not code blocks) with a hole where a value was interpolated. */
  function holes(plan: string): string[] {
    const out: string[] = [];
    let code = false;
    for (const line of plan.split("\n")) {
      if (line.trimStart().startsWith("```")) {
        code = !code;
        continue;
      }
      if (code) continue;
      const text = line.replace(/`[^`]+`/g, "`x`");
      if (/\bundefined\b|\bNaN\b|\[object Object\]|\bnull\b/.test(line)) out.push(line);
      else if (/``/.test(text))
        out.push(line); // an empty code span
      else if (/[^\s|] {2,}[^\s|]/.test(text))
        out.push(line); // two blanks between words: a value was empty
      else if (/ [,.;:]( |$)/.test(text))
        out.push(line); // a blank before punctuation
      else if (/(^|[^\w`)])\(\s*\)/.test(text))
        out.push(line); // empty parentheses
      else if (/\| +\|/.test(text) && !/^\| ?-/.test(text)) out.push(line); // an empty table cell
    }
    return out;
  }

  it("in the examples and the VLAN/DSR variant", async () => {
    const root = import.meta.dirname;
    const specs: [string, Loose][] = readdirSync(root)
      .filter((d) => {
        try {
          readFileSync(join(root, d, "cluster.yaml"));
          return true;
        } catch {
          return false;
        }
      })
      .map((d) => [d, readFileSync(join(root, d, "cluster.yaml"), "utf8")]);
    specs.push(["vlan", vlanSpec()]);
    for (const [name, spec] of specs) {
      const r = await generateChecked(spec, { sourceName: "cluster.yaml" });
      if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.errors)}`);
      expect(holes(fileOf(r.artifacts, "PLAN.md")), name).toEqual([]);
    }
  });

  it("in random specs", () => {
    fc.assert(
      fc.property(arbClusterSpec({ maxWorkers: 3, maxPool: 6 }), (spec) => {
        const r = generate(spec);
        if (!r.ok) throw new Error(JSON.stringify(r.errors));
        expect(holes(fileOf(r.artifacts, "PLAN.md"))).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('finds the hole issue 33 reported ("replies from  leave through the uplink gateway")', () => {
    expect(
      holes("Table `vswitch` (id 1) on wan1: replies from  leave through the uplink gateway 10.0.0.1."),
    ).toHaveLength(1);
    expect(holes("the external VIPs : their Services")).toHaveLength(1);
    expect(holes("| wan0 |  | no NodePorts |")).toHaveLength(1);
    expect(holes("set by `postup()` in /etc/conf.d/net (k8s-1, k8s-2)")).toEqual([]);
  });
});
