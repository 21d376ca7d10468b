// The command refuses bad configuration with exit 2 and a message naming what is wrong, before listening.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, resolvePlan } from "@clusterspec/core";
import { exampleText } from "@clusterspec/testkit";
import { afterEach, describe, expect, it, vi } from "vitest";
import { main } from "../src/bin.js";
import { SettingsError, settingsFrom, topicName } from "../src/settings.js";

afterEach(() => vi.restoreAllMocks());

function plan() {
  const loaded = loadSpec(exampleText("cloud-burst-only"));
  if (!loaded.ok) throw new Error("invalid example");
  return resolvePlan(loaded.value);
}

async function run(args: string[]): Promise<{ code: number; stderr: string }> {
  let stderr = "";
  vi.spyOn(process.stderr, "write").mockImplementation((c) => {
    stderr += String(c);
    return true;
  });
  const code = await main(args);
  return { code, stderr };
}

describe("clusterspec-provisioner", () => {
  it("exits 2 naming the missing options", async () => {
    const r = await run([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("clusterspec-provisioner: --spec, --account-id and --topic-arn are required");
  });

  it("trusts a test SNS certificate only in test mode", async () => {
    const r = await run(["--spec", "x", "--account-id", "1", "--topic-arn", "t", "--test-sns-certificate", "c.pem"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("clusterspec-provisioner: --test-sns-certificate needs --test-mode");
  });

  it("replaces a pinned region's identity certificate only in test mode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clusterspec-bin-"));
    try {
      const spec = join(dir, "cluster.yaml");
      writeFileSync(spec, exampleText("cloud-burst-only"));
      const p = plan();
      const r = await run([
        "--spec",
        spec,
        "--account-id",
        "123456789012",
        "--topic-arn",
        `arn:aws:sns:eu-central-1:123456789012:${topicName(p)}`,
        "--identity-certificate",
        join(dir, "lab.pem"),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(
        "clusterspec-provisioner: an AWS identity certificate is pinned for region eu-central-1: --identity-certificate replaces it only with --test-mode",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("exits 2 when the spec file cannot be read", async () => {
    const r = await run(["--spec", "/nonexistent/cluster.yaml", "--account-id", "123456789012", "--topic-arn", "t"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("clusterspec-provisioner: spec /nonexistent/cluster.yaml: ENOENT");
  });

  it("checks the topic ARN against the spec's region, the account and Terraform's topic name", () => {
    const p = plan();
    const arn = (region: string, account: string, name: string) => `arn:aws:sns:${region}:${account}:${name}`;
    const cases: [string, string, string][] = [
      ["123456789012", "nope", 'topic ARN "nope" is not an SNS topic ARN'],
      [
        "123456789012",
        arn("us-east-1", "123456789012", topicName(p)),
        "topic ARN region us-east-1 is not the spec's region eu-central-1",
      ],
      [
        "123456789012",
        arn("eu-central-1", "210987654321", topicName(p)),
        "topic ARN account 210987654321 is not the account 123456789012",
      ],
      [
        "123456789012",
        arn("eu-central-1", "123456789012", "other"),
        "topic ARN names topic other; Terraform creates home-ec2-state-change",
      ],
      ["12345", arn("eu-central-1", "12345", topicName(p)), "the AWS account id must be 12 digits"],
    ];
    for (const [accountId, topicArn, message] of cases)
      expect(() => settingsFrom(p, { accountId, topicArn })).toThrow(new SettingsError(message));
    expect(
      settingsFrom(p, { accountId: "123456789012", topicArn: arn("eu-central-1", "123456789012", topicName(p)) })
        .groups,
    ).toEqual(
      new Map([
        ["home-ci-arm64", "ci-arm64"],
        ["home-build-amd64", "build-amd64"],
      ]),
    );
  });
});
