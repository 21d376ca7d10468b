// One known example for every code of the error catalog, run the way a user meets it (mostly `--json` through
// runCli, checked against docs/cli-json.schema.json), and every issue the example specs and fixtures produce: each
// code is a catalog code, and each catalog code is produced by something.
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ERROR_CATALOG,
  exitCodeOf,
  ISSUE_CODES,
  type IssueCode,
  isIssueCode,
  loadSpec,
  OutputLimitError,
} from "@clusterspec/core";
import Ajv2020 from "ajv/dist/2020.js";
import { generate, generateChecked, validateSpec } from "clusterspec";
import { acquireOutputLock, CliError, type CliIO, nodeFileSystem, nodeLockProcess, runCli } from "clusterspec/cli";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const repo = join(import.meta.dirname, "..", "..", "..");
const bare = readFileSync(join(repo, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");
const ajv = new Ajv2020.default({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true });
const validateJson = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "cli-json.schema.json"), "utf8")));

let root: string;
let n = 0;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "clusterspec-codes-"));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

interface Produced {
  readonly codes: readonly string[];
  readonly exit: number;
}

/** A fresh folder holding `cluster.yaml`; runs the command line there with --json. */
async function cliJson(spec: string, argv: string[], opts: { env?: Record<string, string>; stdin?: boolean } = {}) {
  const work = join(root, String(n++));
  mkdirSync(work);
  writeFileSync(join(work, "cluster.yaml"), spec);
  let stdout = "";
  const io: CliIO = {
    cwd: work,
    env: opts.env ?? {},
    stdout: (t) => {
      stdout += t;
    },
    stderr: () => {},
    version: "0.0.0-test",
    ...(opts.stdin === false ? {} : { readStdin: () => spec }),
  };
  const exit = await runCli([...argv, "--json"], io);
  const doc = JSON.parse(stdout);
  expect(validateJson(doc) ? [] : validateJson.errors, stdout.slice(0, 400)).toEqual([]);
  const issues = [...(doc.errors ?? []), ...(doc.warnings ?? [])] as { code: string }[];
  return { work, exit, codes: issues.map((i) => i.code) };
}

const validate = (spec: string) => cliJson(spec, ["validate", "cluster.yaml"]);

const validateChanges = ajv.compile(JSON.parse(readFileSync(join(repo, "docs", "changes.schema.json"), "utf8")));

/** `changes old.yaml cluster.yaml --json` from the bare-metal example to `spec`, checked against docs/changes.schema.json. */
async function changesJson(spec: string): Promise<Produced> {
  const work = join(root, String(n++));
  mkdirSync(work);
  writeFileSync(join(work, "old.yaml"), bare);
  writeFileSync(join(work, "cluster.yaml"), spec);
  let stdout = "";
  const io: CliIO = { cwd: work, env: {}, stdout: (t) => (stdout += t), stderr: () => {}, version: "0.0.0-test" };
  const exit = await runCli(["changes", "old.yaml", "cluster.yaml", "--json"], io);
  const doc = JSON.parse(stdout);
  expect(validateChanges(doc) ? [] : validateChanges.errors, stdout.slice(0, 400)).toEqual([]);
  return { exit, codes: [...doc.errors, ...doc.warnings].map((i: { code: string }) => i.code) };
}
const generateTo = (spec: string, ...more: string[]) =>
  cliJson(spec, ["generate", "cluster.yaml", "-o", "out", ...more]);

/** Replaces the first match of `from`, which must exist. */
function edit(text: string, from: string | RegExp, to: string): string {
  const changed = text.replace(from, to);
  expect(changed, `${from} not found`).not.toBe(text);
  return changed;
}

const overlay = (yaml: string) => `${bare}overlays:\n${yaml}`;
const ALL_SECRETS = {
  KUBEADM_TOKEN: "abcdef.0123456789abcdef",
  KUBEADM_CERT_KEY: "0".repeat(64),
  KUBEADM_CA_HASH: `sha256:${"0".repeat(64)}`,
  VRRP_AUTH_PASS: "secret12",
};

/** How each code is met. Typed as a record of every catalog code, so a code without an example does not compile. */
const EXAMPLES: Record<IssueCode, () => Promise<Produced>> = {
  yaml_syntax: () => validate("name: [unclosed\n"),
  yaml_duplicate_key: () => validate(`${bare}name: again\n`),
  yaml_key_not_string: () => validate("name: x\n? [a, b]\n: 1\n"),
  empty_spec: () => validate(""),
  missing_key: () => validate(edit(bare, "  podSubnet: 10.244.0.0/16\n", "")),
  unknown_key: () => validate(edit(bare, "podSubnet:", "podSubnett:")),
  removed_key: () => validate(edit(bare, /^externalVips:\n/m, "externalVips:\n  firstVrid: 10\n")),
  invalid_type: () => validate(edit(bare, "nodeCidrMaskSize: 24", "nodeCidrMaskSize: [24]")),
  // zod's own `custom` issues (a schema's refinement, here the supported versions) are invalid_value
  invalid_value: () => validate(edit(bare, "version: v1.34.2", "version: v1.21.0")),
  invalid_format: () => validate(edit(bare, "monitorPeriod: 2s", "monitorPeriod: two seconds")),
  invalid_key: () => validate(edit(bare, "      wan0: {", '      "wan 0": {')),
  out_of_range: () => validate(edit(bare, "nodeCidrMaskSize: 24", "nodeCidrMaskSize: 200")),
  reference_cycle: () => validate(edit(bare, /^kubernetes:\n/m, "kubernetes: &k\n  self: *k\n")),
  rule: () => validate(edit(bare, "- name: k8s-2", "- name: k8s-1")),
  secret: () => generateTo(bare, "--with-secrets"),
  overlay: () => generateTo(overlay("  - target: nowhere/*.yaml\n    patch: { a: 1 }\n")),
  upstream_schema: () =>
    generateTo(
      overlay(
        "  - target: nodes/k8s-1/kubeadm.yaml\n    document: ClusterConfiguration\n    patch: { notAField: 1 }\n",
      ),
    ),
  output_limit: async () => {
    const tooBig = {
      name: "too-big",
      generate: () => {
        throw new OutputLimitError(["cloud", "pools", 0], "user data of pool ci is 20000 bytes; EC2 accepts 16384");
      },
    };
    const r = generate(bare, { modules: [tooBig] });
    return { codes: r.ok ? [] : r.errors.map((e) => e.code), exit: r.ok ? 0 : exitCodeOf("output_limit") };
  },
  filesystem: () => cliJson(bare, ["validate", "nosuch.yaml"]),
  missing_output: () => cliJson(bare, ["generate", "cluster.yaml", "--check"]),
  refused: async () => {
    const first = await generateTo(bare);
    expect(first.exit).toBe(0);
    rmSync(join(first.work, "out", "PLAN.md"));
    mkdirSync(join(first.work, "out", "PLAN.md"));
    return cliJson(bare, ["generate", join(first.work, "cluster.yaml"), "-o", join(first.work, "out")]);
  },
  locked: async () => {
    const first = await generateTo(bare);
    const release = acquireOutputLock(nodeFileSystem, join(first.work, "out"), nodeLockProcess);
    try {
      return await cliJson(bare, ["generate", join(first.work, "cluster.yaml"), "-o", join(first.work, "out")]);
    } finally {
      release();
    }
  },
  identities: async () => {
    const first = await generateTo(bare);
    expect(first.exit).toBe(0);
    writeFileSync(join(first.work, "out", "identities.json"), '{"schemaVersion":1,"vips":{"10.118.11.20":"k8s-1"}}\n');
    return cliJson(bare, ["generate", join(first.work, "cluster.yaml"), "-o", join(first.work, "out")]);
  },
  usage: () => cliJson(bare, ["validate", "-"], { stdin: false }),
  // a warning beside a refusal: the refused VIP makes the run exit 2, the new pod network is reported with it
  change_not_in_place: () =>
    changesJson(
      edit(
        edit(bare, "podSubnet: 10.244.0.0/16", "podSubnet: 10.245.0.0/16"),
        "vip: 10.118.12.100/24",
        "vip: 10.118.12.101/24",
      ),
    ),
  change_refused: () => changesJson(edit(bare, "vip: 10.118.12.100/24", "vip: 10.118.12.101/24")),
  too_deep: () => validate(`${bare}deep: ${"[".repeat(70)}${"]".repeat(70)}\n`),
  // Only a JS value holds what YAML cannot: the library's validateSpec, whose errors the CLI would exit 2 with.
  not_plain_data: async () => {
    const spec = parse(bare);
    spec.name = new Date(0);
    const r = validateSpec(spec);
    return { exit: r.ok ? 0 : 2, codes: r.ok ? [] : r.errors.map((e) => e.code) };
  },
  cli: async () => {
    // a review tree with placeholders, then resolved secrets into the same folder
    const first = await generateTo(bare);
    expect(first.exit).toBe(0);
    return cliJson(
      bare,
      ["generate", join(first.work, "cluster.yaml"), "-o", join(first.work, "out"), "--with-secrets"],
      { env: ALL_SECRETS },
    );
  },
};

describe("every catalog code has an example that produces it", () => {
  it("lists an example for exactly the catalog's codes", () => {
    expect(Object.keys(EXAMPLES).sort()).toEqual([...ISSUE_CODES].sort());
  });

  for (const code of ISSUE_CODES)
    it(`${code}: ${ERROR_CATALOG[code].meaning}`, async () => {
      const r = await EXAMPLES[code]();
      expect(r.codes).toContain(code);
      expect(r.codes.filter((c) => !isIssueCode(c))).toEqual([]);
      expect(r.exit).toBe(exitCodeOf(code));
    });
});

describe("every issue the example specs and the fixtures produce has a catalog code", () => {
  const specs = [
    ...readdirSync(join(repo, "examples"))
      .map((d) => join(repo, "examples", d, "cluster.yaml"))
      .filter(existsSync),
    ...readdirSync(join(import.meta.dirname, "fixtures", "hostile")).map((f) =>
      join(import.meta.dirname, "fixtures", "hostile", f),
    ),
  ];

  it("finds specs to check", () => {
    expect(specs.length).toBeGreaterThan(3);
  });

  for (const path of specs)
    it(path.slice(repo.length + 1), async () => {
      const text = readFileSync(path, "utf8");
      const loaded = loadSpec(text);
      const generated = await generateChecked(text, { sourceName: "cluster.yaml" });
      const issues = [
        ...(loaded.ok ? [] : loaded.errors),
        ...loaded.warnings,
        ...(generated.ok ? [] : generated.errors),
        ...generated.warnings,
      ];
      expect(issues.filter((i) => !isIssueCode(i.code)).map((i) => `${i.code}: ${i.message}`)).toEqual([]);
    });

  it("a CliError's kind is a run code of the catalog, with the catalog's exit code", () => {
    const e = CliError.of("refused", "x");
    expect(e.kind).toBe("refused");
    expect(e.code).toBe(exitCodeOf("refused"));
    expect(ERROR_CATALOG[new CliError("y").kind].scope).toBe("run");
  });
});
