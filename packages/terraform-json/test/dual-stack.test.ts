// Issue 30 item 6: dual-stack pools get an IPv6 address on the launch template's interface (the security groups move
// onto it), IMDS over IPv6 only on Nitro types, and a data "aws_subnet" postcondition per subnet, so `terraform plan`
// stops on a subnet without an IPv6 CIDR before any instance launches. Pools without ipv6 are unchanged.
import { loadSpec, resolvePlan } from "@clusterspec/core";
import { checkTerraformJson, type ProviderSchemaFile } from "@clusterspec/schemas/terraform";
import { exampleText, fixtureText, readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";

function poolFiles(text: string): Record<string, any> {
  const loaded = loadSpec(text);
  if (!loaded.ok) throw new Error("invalid spec");
  return Object.fromEntries(
    generateTerraform(resolvePlan(loaded.value))
      .filter((a) => /pool-.*\.tf\.json$/.test(a.path))
      .map((a) => [a.path.replace(/^.*pool-|\.tf\.json$/g, ""), JSON.parse(a.content)]),
  );
}

describe("dual-stack pools", () => {
  const files = poolFiles(fixtureText("dual-stack-cloud"));

  it("assigns one IPv6 address on the primary interface, which carries the security groups", () => {
    for (const [pool, doc] of Object.entries(files)) {
      const lt = doc.resource.aws_launch_template[pool];
      expect(lt.vpc_security_group_ids, pool).toBeUndefined();
      expect(lt.network_interfaces).toEqual([
        {
          device_index: 0,
          ipv6_address_count: 1,
          security_groups: ["sg-0a1b2c3d4e5f60718"],
          delete_on_termination: "true",
        },
      ]);
    }
  });

  it("enables IMDS over IPv6 on the Nitro type only", () => {
    expect(files["ci-arm64"].resource.aws_launch_template["ci-arm64"].metadata_options[0].http_protocol_ipv6).toBe(
      "enabled",
    );
    expect(files.legacy.resource.aws_launch_template.legacy.metadata_options[0]).not.toHaveProperty(
      "http_protocol_ipv6",
    );
  });

  it("checks every subnet of the pool for an IPv6 CIDR at plan time, naming the subnet, the pool and the fix", () => {
    const subnets = files["ci-arm64"].data.aws_subnet;
    expect(Object.values(subnets).map((s: any) => s.id)).toEqual([
      "subnet-0a1b2c3d4e5f60718",
      "subnet-0a1b2c3d4e5f60719",
    ]);
    for (const s of Object.values(subnets) as any[]) {
      const [post] = s.lifecycle.postcondition;
      expect(post.condition).toBe(`\${self.ipv6_cidr_block != ""}`);
      expect(post.error_message).toContain(`Subnet ${s.id} of pool ci-arm64`);
      expect(post.error_message).toContain("egress-only internet gateway");
    }
  });

  it("passes both AWS provider schema subsets", () => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      for (const doc of Object.values(files)) expect(checkTerraformJson(doc, schema)).toEqual([]);
    }
  });

  it("leaves an IPv4 pool's launch template as it was", () => {
    const ipv4 = poolFiles(exampleText("hybrid-cloud-burst"));
    for (const [pool, doc] of Object.entries(ipv4)) {
      const lt = doc.resource.aws_launch_template[pool];
      expect(lt.vpc_security_group_ids).toBeDefined();
      expect(lt.network_interfaces).toBeUndefined();
      expect(lt.metadata_options[0]).not.toHaveProperty("http_protocol_ipv6");
      expect(doc.data.aws_subnet).toBeUndefined();
    }
  });
});
