// Issue 30 item 6: IPv6-only pools (ipv6: only). The launch template asks for one IPv6 address and no public IPv4,
// resource-name hostnames (AWS's only kind in IPv6-only subnets) and IMDS over IPv6; each subnet's data "aws_subnet"
// postconditions stop `terraform plan` unless it is IPv6-only (ipv6_native) with DNS64, and its route table's unless
// it routes ::/0 out of the VPC and 64:ff9b::/96 to NAT64. Both AWS provider subsets accept every document, their
// data sources included (the attributes the conditions and references read exist).
import { loadSpec, resolvePlan } from "@clusterspec/core";
import { checkTerraformJson, type ProviderSchemaFile } from "@clusterspec/schemas/terraform";
import { fixtureText, readSchema } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { generateTerraform } from "../src/generate.js";
import { summarizeTerraform } from "../src/summary.js";

function load() {
  const loaded = loadSpec(fixtureText("ipv6-only-cloud-burst-only"));
  if (!loaded.ok) throw new Error("invalid fixture");
  return resolvePlan(loaded.value);
}

describe("IPv6-only pools", () => {
  const plan = load();
  const docs = Object.fromEntries(
    generateTerraform(plan)
      .filter((a) => a.path.endsWith(".tf.json"))
      .map((a) => [a.path.replace(/^.*\//, ""), JSON.parse(a.content)]),
  );
  const only = docs["pool-ci-arm64.tf.json"];
  const dual = docs["pool-build-amd64.tf.json"];

  it("ask for one IPv6 address, no public IPv4, resource-name hostnames and IMDS over IPv6", () => {
    const lt = only.resource.aws_launch_template["ci-arm64"];
    expect(lt.vpc_security_group_ids).toBeUndefined();
    expect(lt.network_interfaces).toEqual([
      {
        device_index: 0,
        ipv6_address_count: 1,
        security_groups: ["sg-0a1b2c3d4e5f60718"],
        delete_on_termination: "true",
        associate_public_ip_address: "false",
      },
    ]);
    expect(lt.private_dns_name_options).toEqual([
      {
        hostname_type: "resource-name",
        enable_resource_name_dns_a_record: false,
        enable_resource_name_dns_aaaa_record: true,
      },
    ]);
    expect(lt.metadata_options[0].http_protocol_ipv6).toBe("enabled");
    // the dual-stack pool beside it keeps its IPv4 (no public-IP or hostname settings)
    const dl = dual.resource.aws_launch_template["build-amd64"];
    expect(dl.network_interfaces[0]).not.toHaveProperty("associate_public_ip_address");
    expect(dl.private_dns_name_options).toBeUndefined();
  });

  it("stop terraform plan unless each subnet is IPv6-only with DNS64, naming the subnet, the pool and the fix", () => {
    const subnets = Object.values(only.data.aws_subnet) as any[];
    expect(subnets.map((s) => s.id)).toEqual(["subnet-0a1b2c3d4e5f60718", "subnet-0a1b2c3d4e5f60719"]);
    for (const s of subnets) {
      const [native, dns64] = s.lifecycle.postcondition;
      expect(native.condition).toBe(`\${self.ipv6_native}`);
      expect(native.error_message).toContain(
        `Subnet ${s.id} of pool ci-arm64 (cloud.pools[].ipv6: only) is not IPv6-only`,
      );
      expect(dns64.condition).toBe(`\${self.enable_dns64}`);
      expect(dns64.error_message).toContain("64:ff9b::/96");
    }
    const [check] = (Object.values(dual.data.aws_subnet) as any[])[0].lifecycle.postcondition;
    expect(check.condition).toBe(`\${self.ipv6_cidr_block != ""}`);
  });

  it("pass both AWS provider subsets; a condition on an attribute aws_subnet lacks would not", () => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      for (const [name, doc] of Object.entries(docs)) expect(checkTerraformJson(doc, schema), name).toEqual([]);
      const broken = structuredClone(only);
      (Object.values(broken.data.aws_subnet)[0] as any).lifecycle.postcondition[0].condition = `\${self.ipv6_only}`;
      expect(checkTerraformJson(broken, schema)).toEqual([
        "data.aws_subnet.ci-arm64_0.lifecycle.postcondition[0].condition: self.ipv6_only is not an attribute of this data source",
      ]);
    }
  });

  it("look up each subnet's route table (explicit association, else the VPC's main table) and check its routes", () => {
    const lookups = only.data.aws_route_tables;
    const tables = only.data.aws_route_table;
    expect(Object.keys(tables)).toEqual(["ci-arm64_0", "ci-arm64_1"]);
    expect(lookups["ci-arm64_1_subnet"]).toEqual({
      filter: [{ name: "association.subnet-id", values: ["subnet-0a1b2c3d4e5f60719"] }],
    });
    expect(lookups["ci-arm64_1_main"]).toEqual({
      vpc_id: `\${data.aws_subnet.ci-arm64_1.vpc_id}`,
      filter: [{ name: "association.main", values: ["true"] }],
    });
    const ids = "concat(data.aws_route_tables.ci-arm64_1_subnet.ids, data.aws_route_tables.ci-arm64_1_main.ids)";
    const t = tables["ci-arm64_1"];
    // read only when one of them is visible: none is in a shared VPC's participant account (skipped, not failed)
    expect(t.count).toBe(`\${length(${ids}) > 0 ? 1 : 0}`);
    expect(t.route_table_id).toBe(`\${${ids}[0]}`);
    const [egress, nat64] = t.lifecycle.postcondition;
    expect(egress.condition).toBe(
      `\${anytrue([for r in self.routes : r.ipv6_cidr_block == "::/0" && (can(regex("^eigw-", r.egress_only_gateway_id)) || can(regex("^igw-", r.gateway_id)) || can(regex("^tgw-", r.transit_gateway_id)))])}`,
    );
    expect(egress.error_message).toContain(
      "subnet subnet-0a1b2c3d4e5f60719 of pool ci-arm64 (cloud.pools[].ipv6: only)",
    );
    expect(nat64.condition).toBe(
      `\${anytrue([for r in self.routes : r.ipv6_cidr_block == "64:ff9b::/96" && (can(regex("^nat-", r.nat_gateway_id)) || can(regex("^tgw-", r.transit_gateway_id)))])}`,
    );
    // the dual-stack pool: ::/0 only (its instances keep IPv4, no NAT64 needed)
    const dualChecks = (Object.values(dual.data.aws_route_table)[0] as any).lifecycle.postcondition;
    expect(dualChecks.map((c: any) => c.condition)).toEqual([egress.condition]);
    expect(dualChecks[0].error_message).toContain("(cloud.pools[].ipv6: dual-stack)");
  });

  it("are checked name by name: a misspelt route attribute, data source attribute or reference fails", () => {
    for (const file of ["aws-provider-subset.json", "aws-provider-subset-6.66.0.json"]) {
      const schema = readSchema(file) as unknown as ProviderSchemaFile;
      expect(checkTerraformJson(only, schema)).toEqual([]);
      // one name off in each kind of reference the generated file makes: the checker finds every one
      const mutated = JSON.parse(
        JSON.stringify(only)
          .replaceAll("r.egress_only_gateway_id", "r.egress_only_gw_id")
          .replaceAll("self.routes", "self.route")
          .replaceAll(".vpc_id}", ".vpcid}")
          .replaceAll("_main.ids)", "_main.idz)"),
      );
      const errors = checkTerraformJson(mutated, schema);
      expect(errors).toContain(
        "data.aws_route_table.ci-arm64_0.lifecycle.postcondition[0].condition: self.route is not an attribute of this data source",
      );
      expect(errors).toContain(
        "data.aws_route_tables.ci-arm64_0_main.vpc_id: data.aws_subnet.ci-arm64_0.vpcid is not an attribute of data source aws_subnet",
      );
      expect(errors).toContain(
        "data.aws_route_table.ci-arm64_0.route_table_id: data.aws_route_tables.ci-arm64_0_main.idz is not an attribute of data source aws_route_tables",
      );
      // each route's attributes are checked once the list is named right
      const route = JSON.parse(JSON.stringify(mutated).replaceAll("self.route ", "self.routes "));
      expect(checkTerraformJson(route, schema)).toContain(
        "data.aws_route_table.ci-arm64_0.lifecycle.postcondition[0].condition: r.egress_only_gw_id is not an attribute of the objects of self.routes",
      );
    }
  });

  it("say in PLAN.md what the VPC needs: IPv6-only subnets with DNS64, NAT64 and the egress-only gateway", () => {
    const md = summarizeTerraform(plan) ?? "";
    expect(md).toContain("IPv6-only subnets for the pool ci-arm64 (`ipv6: only`");
    expect(md).toContain("`64:ff9b::/96` route to a NAT gateway");
    expect(md).toContain("MTU 1420");
    expect(md).toContain("IPv6 for the dual-stack pool build-amd64");
    // the routes are checked by the plan, for both kinds of pool, with what the check accepts and cannot see
    const routeChecks = md.match(
      /`terraform plan` fails on a `data "aws_route_table"` postcondition|which `terraform plan` checks too \(a `data "aws_route_table"` postcondition each/g,
    );
    expect(routeChecks?.length).toBe(2);
    expect(md).toContain("the check is skipped, not failed");
    expect(md).toContain("need `ec2:DescribeRouteTables`");
  });
});
