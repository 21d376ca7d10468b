import {
  type AnyPlan,
  AUTOSCALER_SCALE_FROM_ZERO_MINOR,
  type ClusterPlan,
  parseYamlDocuments,
  resolvePlan,
  SECRET_KINDS,
  stableJson,
  validateSpec,
} from "@clusterspec/core";
import {
  arbCloudBurstSpec,
  arbSpecAndPlan,
  buildSpec,
  mustResolve,
  mustValidate,
  mustValidateAny,
} from "@clusterspec/core/testing";
import {
  allStrings,
  checkBlock,
  checkTerraformJson,
  interpolations,
  type ProviderSchemaFile,
  unescapeTemplate,
} from "@clusterspec/schemas/terraform";
import { readSchema } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { tfExpr, tfLiteral } from "../src/escape.js";
import { generateAutoscalerValues, generateTerraform } from "../src/generate.js";
import { autoscalerModule, terraformModule } from "../src/module.js";
import {
  SNS_HEALTHY_RETRY_POLICY,
  SNS_MAX_RETRY_SECONDS,
  snsRetryBoundSeconds,
  snsRetryFloorSeconds,
} from "../src/resources.js";
import { summarizeTerraform } from "../src/summary.js";

const schema = readSchema("aws-provider-subset.json") as unknown as ProviderSchemaFile;
const schemaNewest = readSchema("aws-provider-subset-6.66.0.json") as unknown as ProviderSchemaFile;
const aws = schema.provider_schemas["registry.terraform.io/hashicorp/aws"];

const cloudInput = () => buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: true });
const cloudPlan = (): ClusterPlan => mustResolve(cloudInput());

function docs(plan: AnyPlan): Record<string, Record<string, unknown>> {
  return Object.fromEntries(generateTerraform(plan).map((a) => [a.path, JSON.parse(a.content)]));
}

/** `aws_x.name` and `data.aws_x.name` declared anywhere in the generated files. */
function declared(all: Record<string, Record<string, unknown>>): Set<string> {
  const out = new Set<string>();
  for (const doc of Object.values(all)) {
    for (const [type, byName] of Object.entries((doc.resource ?? {}) as Record<string, object>))
      for (const name of Object.keys(byName)) out.add(`${type}.${name}`);
    for (const [type, byName] of Object.entries((doc.data ?? {}) as Record<string, object>))
      for (const name of Object.keys(byName)) out.add(`data.${type}.${name}`);
  }
  return out;
}

/**
 * The only interpolations the generator writes on purpose: attribute references, the user-data file expression and
 * the postconditions of a pool with IPv6 on its subnets and their route tables (checkTerraformJson checks that
 * aws_subnet and aws_route_table have each attribute, and each route's attributes).
 */
const GENERATED_EXPRESSIONS = [
  /^(data\.)?aws_[a-z0-9_]+\.[A-Za-z0-9_-]+\.[a-z_]+$/,
  /^self\.ipv6_cidr_block != ""$/,
  /^self\.(ipv6_native|enable_dns64)$/,
  // each IPv6 pool subnet's route table: the subnet's explicit one, else the VPC's main one, if either is visible
  /^length\(concat\(data\.aws_route_tables\.[A-Za-z0-9_-]+_subnet\.ids, data\.aws_route_tables\.[A-Za-z0-9_-]+_main\.ids\)\) > 0 \? 1 : 0$/,
  /^concat\(data\.aws_route_tables\.[A-Za-z0-9_-]+_subnet\.ids, data\.aws_route_tables\.[A-Za-z0-9_-]+_main\.ids\)\[0\]$/,
  /^anytrue\(\[for r in self\.routes : r\.ipv6_cidr_block == "::\/0" && \(can\(regex\("\^eigw-", r\.egress_only_gateway_id\)\) \|\| can\(regex\("\^igw-", r\.gateway_id\)\) \|\| can\(regex\("\^tgw-", r\.transit_gateway_id\)\)\)\]\)$/,
  /^anytrue\(\[for r in self\.routes : r\.ipv6_cidr_block == "64:ff9b::\/96" && \(can\(regex\("\^nat-", r\.nat_gateway_id\)\) \|\| can\(regex\("\^tgw-", r\.transit_gateway_id\)\)\)\]\)$/,
  /^fileexists\("\$\{path\.module\}\/\.\.\/[a-z0-9-]+\/user-data\.gz\.b64"\) \? trimspace\(file\("\$\{path\.module\}\/\.\.\/[a-z0-9-]+\/user-data\.gz\.b64"\)\) : filebase64\("\$\{path\.module\}\/\.\.\/[a-z0-9-]+\/user-data\.yaml"\)$/,
];

function checkAll(plan: AnyPlan): string[] {
  const all = docs(plan);
  const known = declared(all);
  const errors: string[] = [];
  for (const [path, doc] of Object.entries(all)) {
    for (const e of checkTerraformJson(doc, schema)) errors.push(`${path}: ${e}`);
    for (const e of checkTerraformJson(doc, schemaNewest)) errors.push(`${path} (6.66.0): ${e}`);
    for (const s of allStrings(doc))
      for (const expr of interpolations(s)) {
        if (expr.startsWith("%")) errors.push(`${path}: template directive in ${s}`);
        else if (!GENERATED_EXPRESSIONS.some((re) => re.test(expr.slice(1))))
          errors.push(`${path}: unexpected interpolation ${expr.slice(1)}`);
        for (const ref of expr.match(/\b(data\.)?aws_[a-z0-9_]+\.[A-Za-z0-9_-]+/g) ?? [])
          if (!known.has(ref)) errors.push(`${path}: ${ref} is not declared`);
      }
  }
  return errors;
}

describe("terraform files", () => {
  const plan = cloudPlan();
  const artifacts = generateTerraform(plan);

  it("are providers, events and one file per pool", () => {
    expect(artifacts.map((a) => a.path)).toEqual([
      "cloud/terraform/providers.tf.json",
      "cloud/terraform/events.tf.json",
      "cloud/terraform/iam.tf.json",
      "cloud/terraform/provisioner-iam.tf.json",
      "cloud/terraform/pool-ci-arm64.tf.json",
    ]);
  });

  it("match the AWS provider schema subset, and every reference is declared", () => {
    expect(checkAll(plan)).toEqual([]);
  });

  it("hold for any cloud spec", () => {
    fc.assert(
      fc.property(arbSpecAndPlan({ cloud: true, maxWorkers: 2, maxPool: 3 }), ({ spec, plan: p }) => {
        expect(checkAll(p)).toEqual([]);
        expect(generateTerraform(p)).toEqual(generateTerraform(resolvePlan(spec)));
      }),
      { numRuns: 30 },
    );
  });

  it("hold for any cloud burst of an existing cluster (IPv4, IPv6, dual-stack; pools with and without IPv6)", () => {
    fc.assert(
      fc.property(arbCloudBurstSpec(), (input) => {
        const spec = mustValidateAny(input);
        const p = resolvePlan(spec);
        expect(checkAll(p)).toEqual([]);
        expect(generateTerraform(p)).toEqual(generateTerraform(resolvePlan(spec)));
        // each pool's instances get the IPv6 its ipv6 asks for; IMDS answers on IPv6 on Nitro types only (m4 is Xen)
        const all = docs(p);
        for (const pool of input.cloud.pools) {
          const doc = all[`cloud/terraform/pool-${pool.name}.tf.json`] as any;
          const lt = doc.resource.aws_launch_template[pool.name];
          const ipv6 = pool.ipv6 ?? "off";
          expect(lt.network_interfaces?.[0]?.ipv6_address_count, pool.name).toBe(ipv6 === "off" ? undefined : 1);
          expect(lt.network_interfaces?.[0]?.associate_public_ip_address).toBe(ipv6 === "only" ? "false" : undefined);
          expect(lt.metadata_options[0].http_protocol_ipv6).toBe(
            ipv6 !== "off" && !pool.instanceType.startsWith("m4.") ? "enabled" : undefined,
          );
          const subnets = Object.values(doc.data?.aws_subnet ?? {}) as any[];
          expect(subnets.map((x) => x.id)).toEqual(ipv6 === "off" ? [] : pool.subnets);
          for (const x of subnets)
            expect(x.lifecycle.postcondition.map((c: any) => c.condition)).toEqual(
              ipv6 === "only" ? [`\${self.ipv6_native}`, `\${self.enable_dns64}`] : [`\${self.ipv6_cidr_block != ""}`],
            );
          // each subnet's route table (explicit, else main): ::/0 out of the VPC; NAT64 on an IPv6-only pool
          const r = /^[a-z]/.test(pool.name) ? pool.name : `pool-${pool.name}`;
          const tables = doc.data?.aws_route_table ?? {};
          expect(Object.keys(tables)).toEqual(ipv6 === "off" ? [] : pool.subnets.map((_, i) => `${r}_${i}`));
          expect(Object.keys(doc.data?.aws_route_tables ?? {}).length).toBe(2 * Object.keys(tables).length);
          pool.subnets.forEach((id, i) => {
            if (ipv6 === "off") return;
            const lookup = doc.data.aws_route_tables;
            expect(lookup[`${r}_${i}_subnet`].filter).toEqual([{ name: "association.subnet-id", values: [id] }]);
            expect(lookup[`${r}_${i}_main`].vpc_id).toBe(`\${data.aws_subnet.${r}_${i}.vpc_id}`);
            const conditions = tables[`${r}_${i}`].lifecycle.postcondition.map((c: any) => c.condition);
            expect(conditions.length).toBe(ipv6 === "only" ? 2 : 1);
            expect(conditions[0]).toContain(`r.ipv6_cidr_block == "::/0"`);
            if (ipv6 === "only") expect(conditions[1]).toContain(`r.ipv6_cidr_block == "64:ff9b::/96"`);
          });
        }
      }),
      { numRuns: 30 },
    );
  });

  it("parse back to exactly the bytes written", () => {
    for (const a of artifacts) expect(stableJson(JSON.parse(a.content))).toBe(a.content);
  });

  it("send EC2 running/terminated changes over SNS to the provisioner's /sns over https; apply waits for the provisioner to confirm", () => {
    const events = docs(plan)["cloud/terraform/events.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    const rule = events.resource.aws_cloudwatch_event_rule?.ec2_state_change;
    expect(JSON.parse(String(rule?.event_pattern))).toEqual({
      source: ["aws.ec2"],
      "detail-type": ["EC2 Instance State-change Notification"],
      // only the states the contract acts on; pool membership is the provisioner's check (the contract)
      detail: { state: ["running", "terminated"] },
    });
    const sub = events.resource.aws_sns_topic_subscription?.provisioner;
    expect(sub).toEqual({
      topic_arn: tfExpr("aws_sns_topic.ec2_state_change.arn"),
      protocol: "https",
      endpoint: "https://provisioner.example.com/sns",
      endpoint_auto_confirms: true,
      confirmation_timeout_in_minutes: 5,
      delivery_policy: JSON.stringify({ healthyRetryPolicy: SNS_HEALTHY_RETRY_POLICY }),
      redrive_policy: JSON.stringify({ deadLetterTargetArn: tfExpr("aws_sqs_queue.provisioner_dlq.arn") }),
    });
    const policy = JSON.parse(String(events.resource.aws_sns_topic_policy?.ec2_state_change?.policy));
    expect(policy.Statement[0].Principal).toEqual({ Service: "events.amazonaws.com" });
    expect(policy.Statement[0].Action).toBe("sns:Publish");
  });

  it("retry SNS deliveries far longer than the default, within SNS's hour, and dead-letter the rest into SQS", () => {
    const events = docs(plan)["cloud/terraform/events.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    const sub = events.resource.aws_sns_topic_subscription?.provisioner;
    const retry = JSON.parse(String(sub?.delivery_policy)).healthyRetryPolicy;
    // the phases add up to numRetries; SNS caps the whole schedule at 3,600 s, the default is 3 × 20 s
    expect(retry.numNoDelayRetries + retry.numMinDelayRetries + retry.numMaxDelayRetries).toBeLessThanOrEqual(
      retry.numRetries,
    );
    expect(retry.minDelayTarget).toBeGreaterThanOrEqual(1);
    expect(retry.maxDelayTarget).toBeGreaterThanOrEqual(retry.minDelayTarget);
    expect(retry.numRetries).toBeLessThanOrEqual(100);
    expect(["linear", "arithmetic", "geometric", "exponential"]).toContain(retry.backoffFunction);
    expect(snsRetryBoundSeconds(retry)).toBeLessThanOrEqual(SNS_MAX_RETRY_SECONDS);
    expect(snsRetryFloorSeconds(retry)).toBeGreaterThan(10 * 60);
    const queue = events.resource.aws_sqs_queue?.provisioner_dlq;
    expect(queue).toEqual({
      name: "prop-cluster-provisioner-dlq",
      message_retention_seconds: 1_209_600,
      sqs_managed_sse_enabled: true,
    });
    const qp = events.resource.aws_sqs_queue_policy?.provisioner_dlq;
    expect(qp?.queue_url).toBe(tfExpr("aws_sqs_queue.provisioner_dlq.id"));
    const statement = JSON.parse(String(qp?.policy)).Statement;
    expect(statement).toEqual([
      {
        Sid: "SnsDeadLettersOfTheProvisionerSubscription",
        Effect: "Allow",
        Principal: { Service: "sns.amazonaws.com" },
        Action: "sqs:SendMessage",
        Resource: tfExpr("aws_sqs_queue.provisioner_dlq.arn"),
        Condition: { ArnEquals: { "aws:SourceArn": tfExpr("aws_sns_topic.ec2_state_change.arn") } },
      },
    ]);
    const summary = terraformModule.summarize?.(plan, terraformModule.generate(plan)) ?? "";
    expect(summary).toContain("dead-letter queue `prop-cluster-provisioner-dlq`");
  });

  it("subscribe the spec's notifyPath under the provisioner URL", () => {
    const input = cloudInput() as any;
    input.cloud.provisioner.notifyPath = "/hooks/aws-sns";
    const p = mustResolve(input);
    const events = docs(p)["cloud/terraform/events.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(events.resource.aws_sns_topic_subscription?.provisioner?.endpoint).toBe(
      "https://provisioner.example.com/hooks/aws-sns",
    );
  });

  it("give Cluster Autoscaler a keyless IAM user whose writes are limited to the pools' groups by tag", () => {
    const iam = docs(plan)["cloud/terraform/iam.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    // force_destroy: the access key made by hand must not block terraform destroy
    expect(iam.resource.aws_iam_user?.cluster_autoscaler).toEqual({
      name: "prop-cluster-cluster-autoscaler",
      path: "/clusterspec/",
      force_destroy: true,
    });
    expect(Object.keys(iam.resource)).not.toContain("aws_iam_access_key");
    expect(iam.resource.aws_iam_user_policy_attachment?.cluster_autoscaler).toEqual({
      user: tfExpr("aws_iam_user.cluster_autoscaler.name"),
      policy_arn: tfExpr("aws_iam_policy.cluster_autoscaler.arn"),
    });
    const policy = JSON.parse(String(iam.resource.aws_iam_policy?.cluster_autoscaler?.policy)) as {
      Statement: { Action: string[]; Resource: string; Condition?: unknown }[];
    };
    const [describe, write] = policy.Statement;
    // every unconditioned action only reads
    expect(describe?.Action.every((a) => /^(autoscaling|ec2):(Describe|Get)/.test(a))).toBe(true);
    expect(describe?.Condition).toBeUndefined();
    expect(write?.Action).toEqual([
      "autoscaling:SetDesiredCapacity",
      "autoscaling:TerminateInstanceInAutoScalingGroup",
    ]);
    expect(write?.Condition).toEqual({
      StringEquals: { "aws:ResourceTag/k8s.io/cluster-autoscaler/prop-cluster": "owned" },
    });
    // the groups carry exactly the tag the condition names
    const pool = docs(plan)["cloud/terraform/pool-ci-arm64.tf.json"] as {
      resource: Record<string, Record<string, { tag?: { key: string; value: string }[] }>>;
    };
    expect(pool.resource.aws_autoscaling_group?.["ci-arm64"]?.tag).toContainEqual(
      expect.objectContaining({ key: "k8s.io/cluster-autoscaler/prop-cluster", value: "owned" }),
    );
  });

  it("generate a minimal instance profile for pools that name none, and use the spec's otherwise", () => {
    const lt = (p: ClusterPlan) =>
      (
        docs(p)["cloud/terraform/pool-ci-arm64.tf.json"] as {
          resource: Record<string, Record<string, Record<string, unknown>>>;
        }
      ).resource.aws_launch_template?.["ci-arm64"]?.iam_instance_profile;
    expect(lt(plan)).toEqual([{ name: tfExpr("aws_iam_instance_profile.burst_nodes.name") }]);
    const iam = docs(plan)["cloud/terraform/iam.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    const role = iam.resource.aws_iam_role?.burst_nodes;
    expect(JSON.parse(String(role?.assume_role_policy)).Statement).toEqual([
      { Effect: "Allow", Principal: { Service: "ec2.amazonaws.com" }, Action: "sts:AssumeRole" },
    ]);
    // no permissions: no policy attachment, no inline policy
    expect(Object.keys(iam.resource).filter((t) => t.startsWith("aws_iam_role_"))).toEqual([]);
    const input = cloudInput() as any;
    input.cloud.pools[0].instanceProfile = "existing-profile";
    const named = mustResolve(input);
    expect(lt(named)).toEqual([{ name: "existing-profile" }]);
    const namedIam = docs(named)["cloud/terraform/iam.tf.json"] as { resource: Record<string, unknown> };
    expect(namedIam.resource.aws_iam_instance_profile).toBeUndefined();
    expect(autoscalerModule.summarize?.(named, autoscalerModule.generate(named))).toContain(
      "names the instance profile `existing-profile`",
    );
  });

  it("write Cluster Autoscaler's values: auto-discovery, region, an image of the cluster's minor, credentials by Secret", () => {
    const [values] = generateAutoscalerValues(plan);
    expect(values?.path).toBe("cloud/cluster-autoscaler-values.yaml");
    const [doc] = parseYamlDocuments(values?.content ?? "") as Record<string, any>[];
    expect(doc?.cloudProvider).toBe("aws");
    expect(doc?.awsRegion).toBe(plan.cloud?.aws.region);
    expect(doc?.autoDiscovery).toEqual({
      clusterName: "prop-cluster",
      tags: ["k8s.io/cluster-autoscaler/enabled", "k8s.io/cluster-autoscaler/prop-cluster"],
    });
    expect(doc?.image.tag).toBe(`v1.${plan.kubernetes.version.minor}.0`);
    expect(plan.kubernetes.version.minor).toBeGreaterThanOrEqual(AUTOSCALER_SCALE_FROM_ZERO_MINOR);
    expect(doc?.envFromSecret).toBe("cluster-autoscaler-aws");
    expect(JSON.stringify(doc)).not.toMatch(/AKIA|aws_secret|SecretAccessKey"\s*:\s*"[^"]/);
    expect(autoscalerModule.summarize?.(plan, autoscalerModule.generate(plan))).not.toContain("Warning");
  });

  it("warn when the cluster's minor pairs with an autoscaler older than 1.26 (no scale-from-zero with extended resources)", () => {
    const input = cloudInput() as any;
    input.kubernetes.version = "v1.25.9";
    const p = mustResolve(input);
    const summary = autoscalerModule.summarize?.(p, autoscalerModule.generate(p)) ?? "";
    expect(summary).toContain("> **Warning:** Kubernetes 1.25 pairs with Cluster Autoscaler v1.25.0, older than 1.26");
  });

  it("warn in PLAN.md when the AMI filter names a Fedora release past its end of life, against the date passed in", () => {
    const input = cloudInput() as any;
    input.cloud.pools[0].ami = {
      lookup: { owners: ["125523088429"], name: "Fedora-Cloud-Base-AmazonEC2.aarch64-42-*" },
    };
    const p = mustResolve(input);
    const warning =
      "> **Warning:** pool ci-arm64 looks up Fedora 42 (`cloud.pools[0].ami.lookup.name`), which reached its end of life on 2026-05-28";
    expect(terraformModule.summarize?.(p, terraformModule.generate(p))).toContain(warning);
    expect(summarizeTerraform(p, "2026-05-27")).not.toContain("looks up Fedora");
    input.cloud.pools[0].ami.lookup.name = "Fedora-Cloud-Base-AmazonEC2.aarch64-43-*";
    expect(terraformModule.summarize?.(mustResolve(input), terraformModule.generate(mustResolve(input)))).not.toContain(
      "looks up Fedora",
    );
  });

  it("require IMDSv2 with hop limit 1 (no pod access by default) and upload the generated user data", () => {
    const pool = docs(plan)["cloud/terraform/pool-ci-arm64.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    const lt = pool.resource.aws_launch_template?.["ci-arm64"];
    expect(lt?.metadata_options).toEqual([
      { http_endpoint: "enabled", http_put_response_hop_limit: 1, http_tokens: "required" },
    ]);
    // the join script powers off on a fatal error: the instance terminates and the group replaces it
    expect(lt?.instance_initiated_shutdown_behavior).toBe("terminate");
    expect(lt?.user_data).toMatchInlineSnapshot(
      `"\${fileexists("\${path.module}/../ci-arm64/user-data.gz.b64") ? trimspace(file("\${path.module}/../ci-arm64/user-data.gz.b64")) : filebase64("\${path.module}/../ci-arm64/user-data.yaml")}"`,
    );
  });

  it("warn in PLAN.md when a pool has a single subnet (one availability zone), and only then", () => {
    const input = cloudInput() as any;
    input.cloud.pools[0].subnets = ["subnet-0aaaaaaaaaaaaaaaa"];
    const one = terraformModule.summarize?.(mustResolve(input), terraformModule.generate(mustResolve(input))) ?? "";
    expect(one).toContain(
      "> **Warning:** pool ci-arm64 has a single subnet (subnet-0aaaaaaaaaaaaaaaa), so a single availability zone",
    );
    input.cloud.pools[0].subnets = ["subnet-0aaaaaaaaaaaaaaaa", "subnet-0bbbbbbbbbbbbbbbb"];
    expect(terraformModule.summarize?.(mustResolve(input), terraformModule.generate(mustResolve(input)))).not.toContain(
      "has a single subnet",
    );
  });

  it("raise the hop limit to 2 only for a pool whose pods may reach IMDS, with a warning in PLAN.md", () => {
    const input = cloudInput() as any;
    input.cloud.pools[0].imds = { podAccess: true };
    const p = mustResolve(input);
    const pool = docs(p)["cloud/terraform/pool-ci-arm64.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(pool.resource.aws_launch_template?.["ci-arm64"]?.metadata_options).toEqual([
      { http_endpoint: "enabled", http_put_response_hop_limit: 2, http_tokens: "required" },
    ]);
    expect(terraformModule.summarize?.(p, terraformModule.generate(p))).toContain(
      "> **Warning:** pool ci-arm64 lets pods reach the instance metadata service (`imds.podAccess: true`, hop limit 2)",
    );
    expect(terraformModule.summarize?.(plan, terraformModule.generate(plan))).not.toContain("lets pods reach");
  });

  it("tag the group for Cluster Autoscaler auto-discovery and scale from zero", () => {
    const pool = docs(plan)["cloud/terraform/pool-ci-arm64.tf.json"] as {
      resource: Record<string, Record<string, Record<string, unknown>>>;
    };
    const asg = pool.resource.aws_autoscaling_group?.["ci-arm64"];
    expect(asg?.min_size).toBe(0);
    expect(asg?.max_size).toBe(3);
    expect(asg?.tag).toMatchInlineSnapshot(`
      [
        {
          "key": "Name",
          "propagate_at_launch": true,
          "value": "prop-cluster-ci-arm64",
        },
        {
          "key": "k8s.io/cluster-autoscaler/enabled",
          "propagate_at_launch": false,
          "value": "true",
        },
        {
          "key": "k8s.io/cluster-autoscaler/prop-cluster",
          "propagate_at_launch": false,
          "value": "owned",
        },
        {
          "key": "k8s.io/cluster-autoscaler/node-template/label/node.kubernetes.io/ci",
          "propagate_at_launch": false,
          "value": "",
        },
        {
          "key": "k8s.io/cluster-autoscaler/node-template/taint/ci",
          "propagate_at_launch": false,
          "value": "true:NoSchedule",
        },
        {
          "key": "k8s.io/cluster-autoscaler/node-template/resources/github.com/fuse",
          "propagate_at_launch": false,
          "value": "1",
        },
      ]
    `);
  });

  it("handle a fixed AMI, a pool name starting with a digit and a long cluster name", () => {
    const base = cloudInput();
    const cloud = base.cloud as { pools: Record<string, unknown>[] };
    const p = mustResolve({
      ...base,
      name: `c${"x".repeat(62)}`,
      cloud: {
        ...cloud,
        pools: cloud.pools.map((pool) => ({ ...pool, name: "1ci", ami: { id: "ami-0123456789abcdef0" } })),
      },
    });
    expect(checkAll(p)).toEqual([]);
    const all = docs(p);
    const pool = all["cloud/terraform/pool-1ci.tf.json"] as {
      data: { aws_ami: Record<string, unknown> };
      resource: { aws_launch_template: Record<string, { image_id: string }> };
    };
    expect(pool.data.aws_ami).toEqual({
      "pool-1ci": {
        filter: [
          { name: "image-id", values: ["ami-0123456789abcdef0"] },
          { name: "architecture", values: ["arm64"] },
        ],
      },
    });
    expect(pool.resource.aws_launch_template["pool-1ci"]?.image_id).toBe(tfExpr("data.aws_ami.pool-1ci.id"));
    const events = all["cloud/terraform/events.tf.json"] as {
      resource: { aws_cloudwatch_event_rule: { ec2_state_change: { name: string } } };
    };
    expect(events.resource.aws_cloudwatch_event_rule.ec2_state_change.name).toHaveLength(64);
  });

  it("generate nothing without a cloud section", () => {
    const p = mustResolve(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 3, cloud: false }));
    expect(generateTerraform(p)).toEqual([]);
    expect(terraformModule.summarize?.(p, terraformModule.generate(p))).toBeUndefined();
  });

  it("hold no secret, credential or state", () => {
    const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{6}\.[a-z0-9]{16}$/), hex, (token, key) => {
        const base = cloudInput();
        const spec = mustValidate({
          ...base,
          kubernetes: {
            ...base.kubernetes,
            secrets: { bootstrapToken: { env: "T" }, certificateKey: { env: "K" }, caCertHash: { env: "H" } },
          },
        });
        const secrets = { bootstrapToken: token, certificateKey: key, caCertHash: `sha256:${key}` };
        for (const a of generateTerraform(resolvePlan(spec, { secrets }))) {
          for (const s of Object.values(secrets)) expect(a.content).not.toContain(s);
          expect(a.content).not.toContain(SECRET_KINDS.bootstrapToken.placeholder);
          expect(a.content).not.toMatch(/"(access_key|secret_key|token|password|backend|cloud)":|PRIVATE KEY/);
          expect(a.path.endsWith(".tfstate")).toBe(false);
        }
      }),
      { numRuns: 20 },
    );
  });
});

describe("the schema checker", () => {
  it("finds unknown arguments, missing required ones, wrong types and incomplete attribute objects", () => {
    const errors: string[] = [];
    const asg = aws?.resource_schemas.aws_autoscaling_group?.block;
    const sg = aws?.resource_schemas.aws_security_group?.block;
    if (!asg || !sg) throw new Error("schema subset lacks aws_autoscaling_group / aws_security_group");
    checkBlock({ max_size: "3", min_sizes: 0, tag: [{ key: "a", value: "b" }] }, asg, "asg", errors);
    checkBlock({ ingress: [{ from_port: 443, to_port: 443, protocol: "tcp" }] }, sg, "sg", errors);
    checkBlock(
      {
        ingress: [
          {
            cidr_blocks: ["10.0.0.0/8"],
            description: null,
            from_port: 443,
            ipv6_cidr_blocks: null,
            prefix_list_ids: null,
            protocol: "tcp",
            security_groups: null,
            self: null,
            to_port: 443,
          },
        ],
      },
      sg,
      "sg-complete",
      errors,
    );
    expect(errors).toMatchInlineSnapshot(`
      [
        "asg.max_size: expected number, got "3"",
        "asg: unknown argument or block min_sizes",
        "asg.tag[0]: missing required argument propagate_at_launch",
        "asg: missing required argument min_size",
        "sg.ingress[0]: missing object key cidr_blocks",
        "sg.ingress[0]: missing object key description",
        "sg.ingress[0]: missing object key ipv6_cidr_blocks",
        "sg.ingress[0]: missing object key prefix_list_ids",
        "sg.ingress[0]: missing object key security_groups",
        "sg.ingress[0]: missing object key self",
      ]
    `);
  });

  it("checks data sources of the subset (aws_subnet, aws_ami): arguments, computed-only ones, self references", () => {
    for (const s of [schema, schemaNewest]) {
      const doc = {
        data: {
          aws_subnet: {
            a: {
              id: "subnet-0a1b2c3d4e5f60718",
              ipv6_native: true,
              lifecycle: {
                postcondition: [
                  { condition: `\${self.ipv6_native && self.ipv6_cidr_blok != ""}`, error_message: "no IPv6" },
                ],
              },
            },
            b: {
              id: "subnet-0a1b2c3d4e5f60718",
              lifecycle: {
                postcondition: [{ condition: `\${self.ipv6_native && self.enable_dns64}`, error_message: "x" }],
              },
            },
          },
          aws_ami: { c: { most_recent: "yes", owner: ["amazon"], filter: [{ name: "name" }] } },
        },
      };
      expect(checkTerraformJson(doc, s)).toEqual([
        "data.aws_subnet.a.ipv6_native: ipv6_native is computed by the provider and cannot be set",
        "data.aws_subnet.a.lifecycle.postcondition[0].condition: self.ipv6_cidr_blok is not an attribute of this data source",
        'data.aws_ami.c.most_recent: expected bool, got "yes"',
        "data.aws_ami.c: unknown argument or block owner",
        "data.aws_ami.c.filter[0]: missing required argument values",
      ]);
    }
  });
});

describe("escaping", () => {
  it("turns any string into a literal Terraform reads back unchanged, with no interpolation left", () => {
    const text = fc.string({ unit: fc.constantFrom("$", "%", "{", "}", "a", "\\", '"'), maxLength: 30 });
    fc.assert(
      fc.property(fc.oneof(text, fc.string()), (s) => {
        const escaped = tfLiteral(s);
        expect(interpolations(escaped)).toEqual([]);
        expect(unescapeTemplate(escaped)).toBe(s);
      }),
      { numRuns: 500 },
    );
  });

  it("escapes the known cases", () => {
    const cases = ["$" + "{x}", "%{if}", "$$" + "{x}", "a$b%c{"];
    expect(cases.map(tfLiteral)).toEqual(["$$" + "{x}", "%%{if}", "$$$" + "{x}", "a$b%c{"]);
    expect(tfExpr("aws_sns_topic.t.arn")).toBe("$" + "{aws_sns_topic.t.arn}");
  });

  it("never lets a template sequence from the spec reach Terraform: the URL rejects braces, tfLiteral escapes the rest", () => {
    const base = cloudInput();
    const r = validateSpec({
      ...base,
      cloud: { ...base.cloud, provisioner: { url: "https://prov.example.com/%{x}/a" } },
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.errors.map((e) => e.path.join("."))).toContain("cloud.provisioner.url");
    const plan = mustResolve(base);
    expect(checkAll(plan)).toEqual([]);
  });
});

describe("round 2 (issue 29): destroy order, AZ rebalancing, SNS signatures", () => {
  const withSubnets = (subnets: string[]): ClusterPlan => {
    const input = cloudInput() as { cloud: { pools: Record<string, unknown>[] } };
    const pools = input.cloud.pools.map((p, i) => (i === 0 ? { ...p, subnets } : p));
    return mustResolve({ ...input, cloud: { ...input.cloud, pools } });
  };
  const groupOf = (plan: ClusterPlan) => {
    const d = docs(plan);
    const pool = plan.cloud?.pools[0];
    const file = d[`cloud/terraform/pool-${pool?.name}.tf.json`] as {
      resource: { aws_autoscaling_group: Record<string, Record<string, unknown>> };
    };
    return Object.values(file.resource.aws_autoscaling_group)[0] ?? {};
  };

  it("suspends AZRebalance only on a group with more than one subnet, and the schema subset accepts it", () => {
    const two = withSubnets(["subnet-0aaaaaaaaaaaaaaa1", "subnet-0bbbbbbbbbbbbbbb2"]);
    expect(groupOf(two).suspended_processes).toEqual(["AZRebalance"]);
    expect(groupOf(withSubnets(["subnet-0aaaaaaaaaaaaaaa1"])).suspended_processes).toBeUndefined();
    for (const a of generateTerraform(two))
      for (const s of [schema, schemaNewest]) expect(checkTerraformJson(JSON.parse(a.content), s), a.path).toEqual([]);
    expect(summarizeTerraform(two)).toContain(
      "AZ rebalancing: Auto Scaling's AZRebalance process terminates instances to even out the zones, without draining them",
    );
  });

  it("makes every group depend on the whole event chain, which exists, so destroy removes the groups first", () => {
    const plan = cloudPlan();
    const d = docs(plan);
    const events = d["cloud/terraform/events.tf.json"] as { resource: Record<string, Record<string, unknown>> };
    const declared = Object.entries(events.resource).flatMap(([type, byName]) =>
      Object.keys(byName).map((n) => `${type}.${n}`),
    );
    const deps = groupOf(plan).depends_on as string[];
    // everything events.tf.json declares, and nothing else
    expect([...deps].sort()).toEqual([...declared].sort());
    expect(deps).toContain("aws_sns_topic_subscription.provisioner");
    expect(deps).toContain("aws_sqs_queue.provisioner_dlq");
    expect(summarizeTerraform(plan)).toContain("It terminates running burst nodes **without draining** them");
  });

  it("signs SNS messages with SHA256 (signature_version 2)", () => {
    const events = docs(cloudPlan())["cloud/terraform/events.tf.json"] as {
      resource: { aws_sns_topic: Record<string, Record<string, unknown>> };
    };
    expect(Object.values(events.resource.aws_sns_topic)[0]?.signature_version).toBe(2);
  });
});
