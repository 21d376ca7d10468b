// cloud/provisioner/openapi.yaml: valid OpenAPI 3.1 (the official schema) for every example and any cloud spec,
// and it names exactly what the join script does.
import { loadSpec, parseYamlDocuments, resolvePlan } from "@clusterspec/core";
import { arbCloudBurstSpec, arbPlan, buildSpec, mustResolve, mustValidateAny } from "@clusterspec/core/testing";
import { cloudSpecTexts, formatAjvErrors, openApi31Validator } from "@clusterspec/testkit";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CONTRACT_PATH, provisionerContract } from "../src/contract.js";
import { generateCloudInit } from "../src/generate.js";
import { IDENTITY_HEADERS, joinScript, PROVISIONER_RETRY, RETRIED_STATUSES } from "../src/join-script.js";
import { PROVISIONER_SERVICE_ACCOUNT, RBAC_PATH } from "../src/rbac.js";

const validate = openApi31Validator();
// the examples with a cloud section and the dual-stack fixtures (`fixture:<name>`)
const specs = new Map(cloudSpecTexts());
const withCloud = [...specs.keys()];

function contractText(name: string): string {
  const loaded = loadSpec(specs.get(name) ?? "");
  if (!loaded.ok) throw new Error(`example ${name} is invalid`);
  const a = generateCloudInit(resolvePlan(loaded.value)).find((x) => x.path === CONTRACT_PATH);
  if (!a) throw new Error("no contract");
  return a.content;
}

describe("provisioner contract", () => {
  it("names both addresses of a dual-stack slot, for the hub's peer and the client config", () => {
    const [doc] = parseYamlDocuments(contractText("fixture:dual-stack-cloud")) as any[];
    const x = doc["x-clusterspec"];
    expect(x.hub.tunnelAddress6).toBe("fd00:30:99::1/64");
    expect(x.slots[0]).toMatchObject({ address: "172.30.99.2/32", address6: "fd00:30:99::2/128" });
    const text = JSON.stringify(doc);
    expect(text).toContain("allowed-ips <slot address>/32,<slot IPv6 address>/128");
    expect(text).toContain("the slot's addresses as /32 and /128 (IPv4, IPv6)");
  });

  it.each(withCloud)("%s: openapi.yaml validates against the OpenAPI 3.1 schema", (name) => {
    const [doc] = parseYamlDocuments(contractText(name));
    expect(validate(doc), formatAjvErrors(validate.errors)).toBe(true);
  });

  it("validates for any cloud spec, and any cloud burst of an existing cluster (every family, pools with IPv6)", () => {
    const arbAnyPlan = fc.oneof(
      arbPlan({ cloud: true, maxWorkers: 2, maxPool: 3 }),
      arbCloudBurstSpec().map((s) => resolvePlan(mustValidateAny(s))),
    );
    fc.assert(
      fc.property(arbAnyPlan, (plan) => {
        const doc = provisionerContract(plan);
        expect(validate(doc), formatAjvErrors(validate.errors)).toBe(true);
      }),
      { numRuns: 24 },
    );
  });

  it("the schema catches a broken contract", () => {
    const doc = provisionerContract(mustResolve(buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: true })));
    expect(validate({ ...doc, openapi: "3.1" })).toBe(false);
    expect(validate({ ...doc, paths: { "/x": { get: { responses: { "200": {} } } } } })).toBe(false);
  });

  it("documents the headers, statuses and retries the join script uses", () => {
    const plan = mustResolve(buildSpec({ controlPlanes: 1, workers: 0, poolSize: 0, cloud: true }));
    const doc = provisionerContract(plan) as {
      paths: Record<string, { get?: { responses: Record<string, unknown>; description: string } }>;
    };
    const script = joinScript("marker");
    for (const h of Object.values(IDENTITY_HEADERS)) expect(script).toContain(`-H "${h}: $`);
    for (const path of ["/wireguard/config/{instanceId}", "/kubeadm/kubeconfig/{instanceId}"]) {
      const get = doc.paths[path]?.get;
      expect(Object.keys(get?.responses ?? {})).toEqual(["200", "403", "404", "429", "5XX"]);
      expect(get?.description).toContain(
        `at most ${PROVISIONER_RETRY.attempts} times, ${PROVISIONER_RETRY.delaySeconds} s apart`,
      );
      expect(script).toContain(`fetch_retry "${path.slice(1).replace("{instanceId}", "$INSTANCE_ID")}"`);
    }
    expect(script).toContain(`${RETRIED_STATUSES.join("|")}|000)`);
  });

  it("forwards only running and terminated, and has the provisioner check the instance's group before handing out anything", () => {
    fc.assert(
      fc.property(arbPlan({ cloud: true, maxWorkers: 1, maxPool: 2 }), (plan) => {
        const cloud = plan.cloud;
        if (!cloud) return;
        const doc = provisionerContract(plan) as {
          info: { description: string };
          components: { schemas: { Ec2StateChange: { properties: { detail: { properties: { state: unknown } } } } } };
        };
        expect(doc.components.schemas.Ec2StateChange.properties.detail.properties.state).toEqual({
          type: "string",
          enum: ["running", "terminated"],
        });
        const text = doc.info.description;
        expect(text).toContain("aws:autoscaling:groupName");
        expect(text).toContain("An instance of no pool gets nothing");
        for (const p of cloud.pools) expect(text).toContain(`\`${p.groupName}\` (pool ${p.name})`);
      }),
      { numRuns: 30 },
    );
  });
});

describe("provisioner RBAC (node lifecycle)", () => {
  it("grants the provisioner's ServiceAccount what it needs, limits Node deletes and kube-system Secrets by policy, and the contract names it", () => {
    const plan = mustResolve(buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: true }));
    const a = generateCloudInit(plan).find((x) => x.path === RBAC_PATH);
    const docs = parseYamlDocuments(a?.content ?? "") as {
      kind: string;
      metadata: { name: string; namespace?: string };
      rules?: unknown;
      roleRef?: { name: string; kind: string };
      subjects?: { kind: string; name: string; namespace: string }[];
      spec?: {
        policyName?: string;
        matchConditions?: { expression: string }[];
        validations?: { expression: string }[];
        matchResources?: unknown;
      };
    }[];
    expect(docs.map((d) => d.kind)).toEqual([
      "Namespace",
      "ServiceAccount",
      "ClusterRole",
      "ClusterRoleBinding",
      "Role",
      "RoleBinding",
      "Role",
      "RoleBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
      "ValidatingAdmissionPolicy",
      "ValidatingAdmissionPolicyBinding",
    ]);
    const ns = plan.cloud?.provisioner.namespace;
    const [namespace, sa, role, binding, slotRole, , tokenRole, , nodePolicy, nodeBinding, tokenPolicy, tokenBinding] =
      docs;
    expect(namespace?.metadata.name).toBe(ns);
    expect(sa?.metadata).toMatchObject({ name: PROVISIONER_SERVICE_ACCOUNT, namespace: ns });
    expect(role?.rules).toEqual([{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "delete"] }]);
    expect(slotRole?.metadata.namespace).toBe(ns);
    expect(slotRole?.rules).toEqual([
      { apiGroups: [""], resources: ["secrets"], verbs: ["get", "list", "update", "patch"] },
    ]);
    expect(tokenRole?.metadata.namespace).toBe("kube-system");
    expect(tokenRole?.rules).toEqual([{ apiGroups: [""], resources: ["secrets"], verbs: ["create", "delete"] }]);
    expect(binding?.roleRef?.name).toBe(role?.metadata.name);
    for (const b of docs.filter((d) => d.kind.endsWith("Binding") && d.subjects))
      expect(b.subjects).toEqual([{ kind: "ServiceAccount", name: PROVISIONER_SERVICE_ACCOUNT, namespace: ns }]);
    expect(nodePolicy?.spec?.matchConditions?.[0]?.expression).toBe(
      `request.userInfo.username == 'system:serviceaccount:${ns}:${PROVISIONER_SERVICE_ACCOUNT}'`,
    );
    expect(nodePolicy?.spec?.validations?.[0]?.expression).toBe(
      "has(oldObject.spec.providerID) && oldObject.spec.providerID.startsWith('aws:///')",
    );
    expect(nodeBinding?.spec?.policyName).toBe(nodePolicy?.metadata.name);
    expect(tokenPolicy?.spec?.validations?.[0]?.expression).toContain("== 'bootstrap.kubernetes.io/token'");
    expect(tokenBinding?.spec?.matchResources).toEqual({
      namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": "kube-system" } },
    });
    const contract = provisionerContract(plan) as {
      info: { description: string };
      "x-clusterspec": { nodeLifecycle: { clusterRole: string; verbs: string[]; deleteNodeOn: string } };
    };
    expect(contract["x-clusterspec"].nodeLifecycle).toMatchObject({
      clusterRole: role?.metadata.name,
      verbs: ["get", "list", "delete"],
      deleteNodeOn: "terminated",
    });
    expect(contract.info.description).toContain("Also on `terminated`: delete the instance's Node");
  });
});
