// The generated cloud/provisioner/rbac.yaml against the Kubernetes API definitions (the OpenAPI v3 subset in
// data/kubernetes, see PROVENANCE.md): every document of every example that has one, and mutations that must fail.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { checkKubernetesApiObjects, kubernetesApiKinds } from "../src/kubernetes.js";

// the examples' folder (this package cannot import @clusterspec/testkit, which depends on it)
const examplesDir = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..", "examples");
const rbacFiles = readdirSync(examplesDir)
  .sort()
  .map((name) => join(examplesDir, name, "generated", "cloud", "provisioner", "rbac.yaml"))
  .filter((f) => existsSync(f));

const docsOf = (file: string) => parseAllDocuments(readFileSync(file, "utf8")).map((d) => d.toJS());

describe("cloud/provisioner/rbac.yaml against the Kubernetes API definitions", () => {
  it("covers the kinds the RBAC file uses", () => {
    expect(kubernetesApiKinds()).toEqual(
      expect.arrayContaining([
        "v1/Namespace",
        "v1/ServiceAccount",
        "rbac.authorization.k8s.io/v1/ClusterRole",
        "rbac.authorization.k8s.io/v1/ClusterRoleBinding",
        "rbac.authorization.k8s.io/v1/Role",
        "rbac.authorization.k8s.io/v1/RoleBinding",
        "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicy",
        "admissionregistration.k8s.io/v1/ValidatingAdmissionPolicyBinding",
      ]),
    );
    expect(rbacFiles.length).toBeGreaterThanOrEqual(2);
  });

  for (const file of rbacFiles)
    it(`validates ${file.slice(examplesDir.length + 1)}`, () => {
      const docs = docsOf(file);
      expect(docs.map((d) => d.kind)).toEqual(
        expect.arrayContaining([
          "Namespace",
          "ClusterRole",
          "RoleBinding",
          "ValidatingAdmissionPolicy",
          "ValidatingAdmissionPolicyBinding",
        ]),
      );
      expect(checkKubernetesApiObjects(docs)).toEqual([]);
    });

  it("refuses what the API server would: a missing required field, an unknown field, a wrong type, an unknown kind", () => {
    const docs = docsOf(rbacFiles[0] as string);
    const at = (kind: string) => docs.findIndex((d) => d.kind === kind);
    const mutate = (kind: string, f: (d: Record<string, any>) => void) => {
      const copy = structuredClone(docs);
      f(copy[at(kind)]);
      return checkKubernetesApiObjects(copy);
    };
    expect(mutate("ClusterRoleBinding", (d) => delete d.roleRef)).toEqual([
      { document: at("ClusterRoleBinding"), pointer: [], message: "must have required property 'roleRef'" },
    ]);
    expect(mutate("Role", (d) => (d.rules[0].verb = ["get"]))).toContainEqual({
      document: at("Role"),
      pointer: ["rules", "0", "verb"],
      message: "unknown field verb",
    });
    expect(mutate("ValidatingAdmissionPolicy", (d) => (d.spec.validations[0].expression = 1))).toContainEqual({
      document: at("ValidatingAdmissionPolicy"),
      pointer: ["spec", "validations", "0", "expression"],
      message: "must be string",
    });
    expect(mutate("ValidatingAdmissionPolicy", (d) => delete d.spec.matchConditions[0].name)).toContainEqual({
      document: at("ValidatingAdmissionPolicy"),
      pointer: ["spec", "matchConditions", "0"],
      message: "must have required property 'name'",
    });
    expect(mutate("Namespace", (d) => (d.kind = "Namespaces"))).toEqual([
      { document: at("Namespace"), pointer: ["kind"], message: "v1 Namespaces is not a kind of the API subset" },
    ]);
  });
});
