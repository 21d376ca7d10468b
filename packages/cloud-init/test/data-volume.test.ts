// A pool's data volume (issue 29 item 14): cloud-init partitions, formats and mounts it for /var/lib/kubelet and
// /var/lib/containers, the kubelet keeps local storage capacity isolation on there, and the user data stays valid
// cloud-config (the installed cloud-init and the upstream schema) and within EC2's limit.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ClusterPlan, parseYamlDocuments } from "@clusterspec/core";
import { buildSpec, mustResolve } from "@clusterspec/core/testing";
import { ajv04, formatAjvErrors, readSchema, run, toolAvailable } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateCloudInit } from "../src/generate.js";
import { planUserData, USER_DATA_LIMIT } from "../src/limit.js";
import { burstKubeletSettings, dataVolumeConfig, joinConfiguration } from "../src/user-data.js";

function planWith(dataVolume: Record<string, unknown> | undefined, minor = 34): ClusterPlan {
  const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true }, { minor }) as any;
  if (dataVolume !== undefined) spec.cloud.pools[0].dataVolume = dataVolume;
  return mustResolve(spec);
}

const poolOf = (plan: ClusterPlan) => {
  const p = plan.cloud?.pools[0];
  if (!p) throw new Error("no pool");
  return p;
};

describe("a pool's data volume", () => {
  const plan = planWith({ sizeGiB: 100, filesystem: "ext4" });
  const text = generateCloudInit(plan)[0]?.content ?? "";

  it("is partitioned, formatted and mounted by label, never over what exists", () => {
    expect(dataVolumeConfig(poolOf(plan))).toEqual({
      disk_setup: { "/dev/nvme1n1": { table_type: "gpt", layout: [50, 50], overwrite: false } },
      fs_setup: [
        { label: "cs-kubelet", filesystem: "ext4", device: "/dev/nvme1n1.1", overwrite: false },
        { label: "cs-containers", filesystem: "ext4", device: "/dev/nvme1n1.2", overwrite: false },
      ],
      mounts: [
        ["LABEL=cs-kubelet", "/var/lib/kubelet", "ext4", "defaults,nofail", "0", "2"],
        ["LABEL=cs-containers", "/var/lib/containers", "ext4", "defaults,nofail", "0", "2"],
      ],
    });
    expect(dataVolumeConfig(poolOf(planWith(undefined)))).toEqual({});
  });

  it("keeps local storage capacity isolation on (btrfs root without it: off), by patch from 1.25, by no flag before", () => {
    expect(burstKubeletSettings(plan, poolOf(plan))).toEqual({ patch: { cgroupDriver: "systemd" }, flags: {} });
    const without = planWith(undefined);
    expect(burstKubeletSettings(without, poolOf(without)).patch).toEqual({
      cgroupDriver: "systemd",
      localStorageCapacityIsolation: false,
    });
    const old = planWith({ sizeGiB: 50 }, 24);
    expect(burstKubeletSettings(old, poolOf(old))).toEqual({ patch: undefined, flags: { "cgroup-driver": "systemd" } });
    expect(JSON.stringify(joinConfiguration(old, poolOf(old)))).not.toContain("LocalStorageCapacityIsolation");
    expect(JSON.stringify(joinConfiguration(old, poolOf(old)))).not.toContain("patches");
  });

  it("is accepted by the installed cloud-init", (ctx) => {
    if (!toolAvailable("cloud-init")) return ctx.skip("needs the real tool (installed by .ci/run)");
    const dir = mkdtempSync(join(tmpdir(), "cs-cloud-init-"));
    try {
      const file = join(dir, "user-data.yaml");
      writeFileSync(file, text);
      const r = run("cloud-init", ["schema", "--config-file", file]);
      expect(`${r.status} ${r.stdout}${r.stderr}`).toMatch(/^0 Valid cloud-config/);
      // and the same check fails on a broken fs_setup (so it can fail)
      writeFileSync(file, text.replace("table_type: gpt", "table_type: zfs"));
      expect(run("cloud-init", ["schema", "--config-file", file]).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is accepted by the upstream cloud-config schema and Debian's copy (ajv, draft-04)", () => {
    const doc = parseYamlDocuments(text)[0];
    for (const path of [
      "cloud-init/schema-cloud-config-v1.json",
      "cloud-init/debian-22.4.2/schema-cloud-config-v1.json",
    ]) {
      const validate = ajv04().compile(readSchema(path));
      expect(validate(doc), `${path}: ${formatAjvErrors(validate.errors)}`).toBe(true);
    }
  });

  it("costs a few hundred bytes of user data, which stays within EC2's limit (measured)", () => {
    const bytes = (p: ClusterPlan) => planUserData(p, poolOf(p));
    const before = bytes(planWith(undefined));
    const after = bytes(plan);
    expect(after.bytes - before.bytes).toBeGreaterThan(0);
    expect(after.bytes - before.bytes).toBeLessThan(600); // measured: 15,606 → 16,103 bytes (buildSpec's pool)
    // gzipped (then base64) only beyond the limit: what ships fits either way
    expect(after.gzipBase64 === undefined ? after.bytes : after.gzipBase64.length - 1).toBeLessThanOrEqual(
      USER_DATA_LIMIT,
    );
  });
});
