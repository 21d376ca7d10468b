// `clusterspec pin-vrids`: the migration that keeps an existing cluster's VRIDs now that they follow the address.
// It rewrites the spec in place (comments and layout kept, atomically, mode kept), refuses links and bad specs
// without touching the file, and the pinned spec gives every VIP the VRID the old positional rule gave it.
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { runCaptured } from "./capture.js";

const repo = join(import.meta.dirname, "..", "..", "..");
const pinned = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const POOL_BLOCK = /^ {2}addresses:\n(?: {4}- .*\n)+/m;

/** The bare-metal example as it was written before VRIDs followed the address: firstVrid 10, a flow list. */
const legacy = (
  pool = "  addresses: [10.118.11.20, 10.118.11.21, 10.118.11.22] # the public pool\n  firstVrid: 10\n",
) => {
  const text = pinned.replace(POOL_BLOCK, pool);
  expect(text).not.toBe(pinned);
  return text;
};

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "clusterspec-pin-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cli = (...argv: string[]) => runCaptured(argv, dir);
const specFile = () => join(dir, "cluster.yaml");
const write = (text: string) => writeFileSync(specFile(), text);
const read = () => readFileSync(specFile(), "utf8");

/** Each VIP's VRID by address, as `plan --json` resolves the spec in `dir`. */
async function vridsOf(): Promise<Record<string, number>> {
  const r = await cli("plan", "cluster.yaml", "--json");
  expect(r.code, r.stderr).toBe(0);
  const vips = JSON.parse(r.stdout).plan.vips as { address: string; vrid: number }[];
  return Object.fromEntries(vips.map((v) => [v.address, v.vrid]));
}

describe("clusterspec pin-vrids", () => {
  it("refuses firstVrid at its path and line, naming the command that keeps today's VRIDs", async () => {
    write(legacy());
    const r = await cli("validate", "cluster.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "✖ externalVips.firstVrid is gone: VRIDs now follow each address (its last 8 bits, or its own vrid), not its place in the list. To keep the VRIDs this spec has today, run `clusterspec pin-vrids cluster.yaml`: it writes each VIP's current VRID into the spec and removes firstVrid\n  → at externalVips.firstVrid (cluster.yaml:40:3)",
    );
    // The command as the user ran this one, quoted for the shell when it needs to be.
    write(legacy());
    writeFileSync(join(dir, "my cluster.yaml"), legacy());
    expect((await cli("plan", "my cluster.yaml")).stderr).toContain("run `clusterspec pin-vrids 'my cluster.yaml'`");
    const json = await cli("validate", "cluster.yaml", "--json");
    expect(JSON.parse(json.stdout).errors.map((e: { code: string }) => e.code)).toEqual(["removed_key"]);
  });

  it("writes the old positional VRIDs into the spec, keeping every comment and the rest of the text", async () => {
    write(legacy());
    chmodSync(specFile(), 0o640);
    const r = await cli("pin-vrids", "cluster.yaml");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        "pinned the VRIDs in cluster.yaml:",
        "  externalVips.addresses[0]: 10.118.11.20 → vrid 10",
        "  externalVips.addresses[1]: 10.118.11.21 → vrid 11",
        "  externalVips.addresses[2]: 10.118.11.22 → vrid 12",
        "  externalVips.firstVrid: 10 removed (VRIDs follow each address now)",
        "",
      ].join("\n"),
    );
    // The list is one line that pinning makes too long: it becomes a block list, its comment kept.
    expect(read()).toBe(
      pinned.replace(
        POOL_BLOCK,
        "  addresses: # the public pool\n    - { address: 10.118.11.20, vrid: 10 }\n    - { address: 10.118.11.21, vrid: 11 }\n    - { address: 10.118.11.22, vrid: 12 }\n",
      ),
    );
    expect(statSync(specFile()).mode & 0o777).toBe(0o640);
    expect(await vridsOf()).toEqual({ "10.118.12.100": 5, "10.118.11.20": 10, "10.118.11.21": 11, "10.118.11.22": 12 });
  });

  it("pins a spec that relied on positions without firstVrid: the control plane 1, the pool from 2", async () => {
    write(
      legacy("  addresses:\n    - 10.118.11.20 # web\n    - { address: 10.118.11.21 }\n    - 10.118.11.22\n").replace(
        "  vrid: 5\n",
        "",
      ),
    );
    const r = await cli("pin-vrids", "cluster.yaml");
    expect(r.code, r.stderr).toBe(0);
    expect(read()).toContain(
      "  port: 6443\n  vrid: 1\nvrrp:", // added at the end of controlPlane, in its indentation
    );
    expect(read()).toContain(
      "  addresses:\n    - { address: 10.118.11.20, vrid: 2 } # web\n    - { address: 10.118.11.21, vrid: 3 }\n    - { address: 10.118.11.22, vrid: 4 }\n",
    );
    expect(await vridsOf()).toEqual({ "10.118.12.100": 1, "10.118.11.20": 2, "10.118.11.21": 3, "10.118.11.22": 4 });
  });

  it("changes nothing when run again, and nothing on a spec that is pinned already", async () => {
    write(legacy());
    expect((await cli("pin-vrids", "cluster.yaml")).code).toBe(0);
    const once = read();
    const again = await cli("pin-vrids", "cluster.yaml");
    expect(again.code).toBe(0);
    expect(again.stdout).toBe("✔ cluster.yaml: every VRID is pinned already; nothing changed\n");
    expect(read()).toBe(once);
    write(pinned);
    expect((await cli("pin-vrids", "cluster.yaml")).code).toBe(0);
    expect(read()).toBe(pinned);
  });

  it("--dry-run prints the rewritten spec and writes nothing", async () => {
    write(legacy());
    const r = await cli("pin-vrids", "cluster.yaml", "--dry-run");
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("    - { address: 10.118.11.22, vrid: 12 }\n");
    expect(r.stderr).toContain("cluster.yaml would be rewritten (--dry-run: nothing written):\n");
    expect(read()).toBe(legacy());
  });

  it("refuses a symbolic link and leaves its target alone", async () => {
    write(legacy());
    symlinkSync(specFile(), join(dir, "link.yaml"));
    const r = await cli("pin-vrids", "link.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("link.yaml is a symbolic link: pin-vrids rewrites a spec in place and does not follow");
    expect(read()).toBe(legacy());
  });

  it("exits 2 with the problem at its line and writes nothing for a spec that is invalid", async () => {
    const bad = legacy().replace("podSubnet:", "podSubnett:");
    write(bad);
    const r = await cli("pin-vrids", "cluster.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      '✖ unknown key "podSubnett" (did you mean "podSubnet"?)\n  → at kubernetes.podSubnett (cluster.yaml:8:3)',
    );
    expect(read()).toBe(bad);
    // VRIDs that already collided under the old rule cannot be pinned either.
    const clash = legacy("  addresses: [10.118.11.20, { address: 10.118.11.21, vrid: 10 }]\n  firstVrid: 10\n");
    write(clash);
    const c = await cli("pin-vrids", "cluster.yaml");
    expect(c.code).toBe(2);
    expect(c.stderr).toContain(
      "✖ VRID 10 on wan1 is already used by externalVips.addresses[0]\n  → at externalVips.addresses[1].vrid (cluster.yaml:39:",
    );
    expect(read()).toBe(clash);
    const range = legacy("  addresses: [10.118.11.20]\n  firstVrid: 0\n");
    write(range);
    const z = await cli("pin-vrids", "cluster.yaml");
    expect(z.code).toBe(2);
    expect(z.stderr).toContain("firstVrid must be an integer in 1..255 to pin the VRIDs it gave, got 0");
    expect(read()).toBe(range);
  });

  it("refuses standard input unless it only prints", async () => {
    const r = await runCaptured(["pin-vrids", "-"], dir, { readStdin: () => legacy() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("pin-vrids rewrites a spec file: give its path, or add --dry-run");
    const d = await runCaptured(["pin-vrids", "-", "--dry-run"], dir, { readStdin: () => legacy() });
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toContain("    - { address: 10.118.11.20, vrid: 10 }\n");
  });
});

describe("VRID messages in the spec file", () => {
  it("name both paths, and the line, when an address ends in another VIP's VRID, and ask for an explicit vrid", async () => {
    write(pinned.replace("vrid: 12 }\n", "vrid: 12 }\n    - 10.118.11.5\n"));
    const r = await cli("validate", "cluster.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "✖ externalVips.addresses[3] gets VRID 5 (the last 8 bits of 10.118.11.5), which controlPlane.vrid already has on wan1 (given explicitly): ",
    );
    expect(r.stderr).toContain(
      "give one of them an explicit, unused vrid\n  → at externalVips.addresses[3] (cluster.yaml:43:7)",
    );
  });

  it("ask for an explicit vrid for an address ending in 0", async () => {
    write(pinned.replace("  vrid: 5\n", "").replace("vip: 10.118.12.100/24", "vip: 10.118.12.0/23"));
    const r = await cli("validate", "cluster.yaml");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "✖ the control-plane VIP ends in 0 (its last 8 bits), which is not a VRID: give it an explicit vrid (1-255)\n  → at controlPlane.vip (cluster.yaml:32:3)",
    );
  });
});
