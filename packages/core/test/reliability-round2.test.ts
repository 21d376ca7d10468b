// Issue 32 (reliability round 2), the library and spec side: inputs within the documented limits finish in linear
// work (item 7), hostile nesting and numbers are refused (item 7), the library gets exactly the YAML path's hygiene
// and issues instead of exceptions for any JS value (item 8), and noncharacters are refused (item 5).
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadSpec, type SpecIssue, validateSpec } from "@clusterspec/core";
import { buildSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { OWNED_CILIUM_KEYS } from "../src/facts/owned.js";
import { MAX_DEPTH } from "../src/spec/parse.js";
import { OWNED_CILIUM_ALIASES } from "../src/spec/sections/cilium/rules.js";
import { JOIN_PLACEHOLDERS } from "../src/spec/sections/cloud/rules.js";
import { referenceSpec, repoRoot } from "./helpers.js";

const base = readFileSync(join(repoRoot, "examples", "bare-metal-ha", "cluster.yaml"), "utf8");

/** The reference spec with `lines` (indented for `cilium.values`) added under `cilium.values`. */
const withValues = (lines: string): string => base.replace(/^cilium:\n/m, `cilium:\n  values:\n${lines}`);

/** A spec whose `cilium.values.big` is one mapping of `n` keys, or of as many as fit in `bytes`. */
const bigMapping = (n: number, bytes = Number.POSITIVE_INFINITY): string => {
  const out: string[] = ["    big:"];
  let size = base.length + 30;
  for (let i = 0; i < n; i++) {
    const line = `      key${i}: ${i}`;
    size += line.length + 1;
    if (size > bytes) break;
    out.push(line);
  }
  return withValues(`${out.join("\n")}\n`);
};

const ARRAY_SCANS = ["some", "every", "find", "findIndex", "filter", "includes", "indexOf", "forEach"] as const;

/**
 * The work `f` does in array scans (the elements every `some`/`find`/`includes`/… call may visit, summed): the
 * quadratic duplicate-key check and path lookups were such scans, one per key. A count, not a time.
 */
function arrayScanWork(f: () => unknown): number {
  let work = 0;
  const proto = Array.prototype as unknown as Record<string, (...args: unknown[]) => unknown>;
  const saved = ARRAY_SCANS.map((name) => [name, proto[name]] as const);
  for (const [name, original] of saved)
    proto[name] = function (this: unknown[], ...args: unknown[]) {
      work += this.length;
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
  try {
    f();
  } finally {
    for (const [name, original] of saved) proto[name] = original as (...args: unknown[]) => unknown;
  }
  return work;
}

describe("a large mapping parses in linear work (issue 32 item 7)", () => {
  it("doubling a mapping's keys at most doubles the array-scan work of loadSpec", () => {
    const small = bigMapping(4000);
    const large = bigMapping(8000);
    let ok = false;
    const w1 = arrayScanWork(() => loadSpec(small));
    const w2 = arrayScanWork(() => {
      ok = loadSpec(large).ok;
    });
    expect(ok).toBe(true);
    // Quadratic would be 4x; the fixed part of the spec makes the linear ratio a little under 2.
    expect(w2 / w1).toBeLessThan(2.2);
  }, 120_000);

  it("the worst spec within the limits (2 MiB, one mapping of ~100,000 keys) is read and validated", () => {
    const text = bigMapping(Number.MAX_SAFE_INTEGER, 2 * 1024 * 1024);
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(2 * 1024 * 1024);
    expect(Buffer.byteLength(text)).toBeGreaterThan(2 * 1024 * 1024 - 100);
    const r = loadSpec(text);
    expect(r.ok).toBe(true);
  }, 300_000);

  it("a duplicate key in a large mapping is still found, at its line", () => {
    const text = bigMapping(5000).replace("      key4000: 4000\n", "      key4000: 4000\n      key17: 1\n");
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.code, e.line, e.message])).toEqual([
      [
        "yaml_duplicate_key",
        text.split("\n").indexOf("      key17: 1") + 1,
        'duplicate key "key17": a key appears once per mapping',
      ],
    ]);
  });
});

/** Lines of `cilium.values` nesting `depth` mappings in all (the spec's root, `cilium` and `values` included). */
const nestedValues = (depth: number): string => {
  const out: string[] = [];
  for (let i = 0; i < depth - 2; i++) out.push(`${"  ".repeat(i + 2)}k${i}:`);
  return `${out.join("\n")} 1\n`;
};

describe("hostile nesting (issue 32 item 7)", () => {
  it(`a spec nested ${MAX_DEPTH} deep is read; one level more is refused at the line of the first collection beyond`, () => {
    expect(loadSpec(withValues(nestedValues(MAX_DEPTH))).ok).toBe(true);
    const text = withValues(nestedValues(MAX_DEPTH + 1));
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.code, e.path, e.line, e.message])).toEqual([
      [
        "too_deep",
        [],
        // The value of k61 is the 65th mapping: it starts at its first key, k62.
        text.split("\n").findIndex((l) => l.includes(`k${MAX_DEPTH - 2}:`)) + 1,
        "the spec nests mappings and lists more than 64 deep: no setting is that deep, write it flatter",
      ],
    ]);
  });

  it("100,000 nested flow lists (200 KB) are refused with the same message, never a stack overflow", () => {
    const text = withValues(`    a: ${"[".repeat(100_000)}${"]".repeat(100_000)}\n`);
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.code, e.line, e.message])).toEqual([
      [
        "too_deep",
        text.split("\n").findIndex((l) => l.startsWith("    a: [")) + 1,
        "the spec nests mappings and lists more than 64 deep: no setting is that deep, write it flatter",
      ],
    ]);
  });

  it("aliases that nest deeper than the text does are refused too", () => {
    const flat = (name: string, inner: string) => `${"[".repeat(40)}${inner}${"]".repeat(40)}`.replace("", `&${name} `);
    const text = withValues(`    a: ${flat("a", "1")}\n    b: ${flat("b", "*a")}\n`);
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.code, e.message])).toEqual([
      ["too_deep", "mappings and lists are nested more than 64 deep here: no setting is that deep, write it flatter"],
    ]);
  });

  it("a JS value nested 100,000 deep is refused at the path of the 65th level, never a stack overflow", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = { a: deep };
    const spec = referenceSpec() as any;
    spec.cilium.values = deep;
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    const e = r.ok ? undefined : r.errors[0];
    expect(e?.code).toBe("too_deep");
    expect(e?.path).toEqual(["cilium", "values", ...Array.from({ length: MAX_DEPTH - 2 }, () => "a")]);
  });
});

describe("numbers JSON and Go cannot hold as written (issue 32 item 7)", () => {
  it("refuses .inf, -.inf and .nan in free-form values, at their path and line", () => {
    const text = withValues("    a: .inf\n    b: -.inf\n    c: .nan\n");
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.line, e.message])).toEqual(
      [
        ["a", "Infinity"],
        ["b", "-Infinity"],
        ["c", "NaN"],
      ].map(([k, v]) => [
        `cilium.values.${k}`,
        text.split("\n").findIndex((l) => l.startsWith(`    ${k}:`)) + 1,
        `the number ${v} is not finite: JSON, Helm and the Kubernetes readers hold only finite numbers`,
      ]),
    );
  });

  it("refuses integers beyond 2^53 rather than rounding them; 2^53 - 1 is kept", () => {
    const text = withValues("    big: 12345678901234567890\n    max: 9007199254740991\n");
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.code, e.message])).toEqual([
      [
        "cilium.values.big",
        "out_of_range",
        'the integer 12345678901234567000 is beyond 2^53 (9007199254740991), where integers lose digits (this is how it reads, not what was written): write it as a string ("…") if it is text',
      ],
    ]);
    expect(loadSpec(withValues("    max: 9007199254740991\n")).ok).toBe(true);
  });
});

describe("the library gets issues, never an exception, for any JS value (issue 32 item 8)", () => {
  const PLAIN = "a spec holds only what YAML can: plain objects, arrays, strings, finite numbers, booleans and null";
  const errorsOf = (spec: unknown) => {
    const r = validateSpec(spec);
    return r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.code, e.message]);
  };
  class Settings {
    mode = "x";
  }

  it("a Date, a Map, a class instance, undefined, a function, a bigint and a symbol: each at its path", () => {
    const spec = referenceSpec() as any;
    spec.name = new Date(0);
    spec.cilium.values = { m: new Map([["a", 1]]), c: new Settings(), u: undefined, f: () => 1, n: 1n, s: Symbol("x") };
    expect(errorsOf(spec)).toEqual([
      ["name", "not_plain_data", `this value is a Date: ${PLAIN}`],
      ["cilium.values.m", "not_plain_data", `this value is a Map: ${PLAIN}`],
      ["cilium.values.c", "not_plain_data", `this value is an instance of the class Settings: ${PLAIN}`],
      ["cilium.values.u", "not_plain_data", `this value is undefined: ${PLAIN} (leave the key out instead)`],
      ["cilium.values.f", "not_plain_data", `this value is a function: ${PLAIN}`],
      ["cilium.values.n", "not_plain_data", `this value is a bigint: ${PLAIN}`],
      ["cilium.values.s", "not_plain_data", `this value is a symbol: ${PLAIN}`],
    ]);
  });

  it("a getter is never called (one that throws included); a hole in an array is undefined", () => {
    let calls = 0;
    const spec = referenceSpec() as any;
    Object.defineProperty(spec, "name", {
      enumerable: true,
      get() {
        calls++;
        throw new Error("boom");
      },
    });
    spec.network.searchDomains = ["a.example"];
    spec.network.searchDomains[2] = "b.example";
    expect(errorsOf(spec)).toEqual([
      ["name", "not_plain_data", `this property is a getter or setter, which is never called: ${PLAIN}`],
      ["network.searchDomains.1", "not_plain_data", `this value is undefined: ${PLAIN} (leave the key out instead)`],
    ]);
    expect(calls).toBe(0);
  });

  it("inherited and non-enumerable properties are never read: an object with a prototype is refused", () => {
    const spec = referenceSpec() as any;
    const { name, ...rest } = spec;
    expect(errorsOf(Object.assign(Object.create({ name }), rest))).toEqual([
      ["", "not_plain_data", `this value is an object with its own prototype: ${PLAIN}`],
    ]);
    // A non-enumerable own `name` is not part of the spec: the schema reports it missing.
    const hidden = Object.defineProperty({ ...rest }, "name", { value: name, enumerable: false });
    expect(errorsOf(hidden).map(([path, code]) => [path, code])).toEqual([["name", "missing_key"]]);
    // A null-prototype object is plain data (what some parsers produce).
    expect(validateSpec(Object.assign(Object.create(null), spec)).ok).toBe(true);
  });

  it("a Proxy whose traps throw is an issue", () => {
    const spec = referenceSpec() as any;
    spec.cilium.values = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("trap");
        },
      },
    );
    expect(errorsOf(spec)).toEqual([
      ["cilium.values", "not_plain_data", `this value cannot be read (its traps threw): ${PLAIN}`],
    ]);
  });

  it("property: validateSpec never throws for any JS value, anywhere in a spec", () => {
    const anything = fc.anything({
      withBigInt: true,
      withBoxedValues: true,
      withDate: true,
      withMap: true,
      withSet: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
      withTypedArray: true,
      maxDepth: 4,
    });
    fc.assert(
      fc.property(anything, fc.constantFrom("name", "cilium", "nodes", "network"), (value, key) => {
        const spec = referenceSpec() as any;
        spec[key] = value;
        const r = validateSpec(spec);
        expect(typeof r.ok).toBe("boolean");
        const s = validateSpec(value);
        expect(s.ok).toBe(false);
      }),
      { numRuns: 300 },
    );
  });

  /** What a reader sees of an issue whatever the input's form: path, code and message (no line for a JS value). */
  const essence = (issues: readonly SpecIssue[]) => issues.map((i) => [i.path.join("."), i.code, i.message]);

  it("property: a JSON value in the spec gets exactly the issues its YAML text gets (the same hygiene)", () => {
    const hostileString = fc.oneof(
      fc.string(),
      fc.constantFrom("a\u0000b", "\ufffe", "x\uffff", "\u202eevil", "\ufdd0", "__proto__", "\u{10fffe}"),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        hostileString,
        fc.double(),
        fc.integer(),
        fc.constantFrom(2 ** 60, -(2 ** 60), 1e300),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 3 }),
        fc.dictionary(hostileString, tie("node"), { maxKeys: 3 }),
      ),
    })).node;
    fc.assert(
      fc.property(value, (v) => {
        // -0 and NaN are what YAML writes them as (`-0`, `.nan`); JSON has neither, the comparison holds for both.
        const spec = referenceSpec() as any;
        spec.cilium.values = { v };
        const fromJs = validateSpec(spec);
        const fromYaml = loadSpec(stringify(spec));
        expect(essence(fromJs.ok ? [] : fromJs.errors)).toEqual(essence(fromYaml.ok ? [] : fromYaml.errors));
      }),
      { numRuns: 300 },
    );
  });
});

describe("noncharacters and lone surrogates (issue 32 item 5)", () => {
  it("refuses U+FFFE, U+FFFF, U+FDD0 and the last code points of other planes, by code point, escaped in the message", () => {
    const spec = referenceSpec() as any;
    spec.name = "a\ufffeb";
    spec.kubernetes.dnsDomain = "x\uffff";
    spec.network.searchDomains = ["\ufdd0.example", "\u{10ffff}.example"];
    spec.cilium.values = { "k\ud800": 1 };
    const r = validateSpec(spec);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      [
        "name",
        'the value contains a Unicode noncharacter (U+FFFE): spec values are printable text on one line (written "a\\ufffeb")',
      ],
      [
        "kubernetes.dnsDomain",
        'the value contains a Unicode noncharacter (U+FFFF): spec values are printable text on one line (written "x\\uffff")',
      ],
      [
        "network.searchDomains.0",
        'the value contains a Unicode noncharacter (U+FDD0): spec values are printable text on one line (written "\\ufdd0.example")',
      ],
      [
        "network.searchDomains.1",
        'the value contains a Unicode noncharacter (U+10FFFF): spec values are printable text on one line (written "\\u{10ffff}.example")',
      ],
      ["cilium.values.k\ud800", 'the key "k\\ud800" contains a lone surrogate (U+D800): keys are printable text'],
    ]);
  });

  it("refuses a noncharacter written as a YAML escape, at its line", () => {
    const text = base.replace(/^name: .*$/m, 'name: "k8s\\uFFFE"');
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.line, e.message])).toEqual([
      [
        "name",
        text.split("\n").findIndex((l) => l.startsWith("name:")) + 1,
        'the value contains a Unicode noncharacter (U+FFFE): spec values are printable text on one line (written "k8s\\ufffe")',
      ],
    ]);
  });
});

describe("the join script's placeholders in pool labels and taints (issue 32 item 5)", () => {
  it("the list is the join script's own placeholders", () => {
    const source = readFileSync(join(repoRoot, "packages", "cloud-init", "src", "join-script.ts"), "utf8");
    const declared = [...source.matchAll(/export const \w+_PLACEHOLDER = "([^"]+)"/g)].map((m) => m[1]);
    expect([...JOIN_PLACEHOLDERS].sort()).toEqual(declared.sort());
  });

  it("refuses a label or taint that holds one, at its path", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: true }) as any;
    spec.cloud.pools[0].labels = { "example.com/ip": "x__NODE_IP__y" };
    spec.cloud.pools[0].taints = [{ key: "a__NODE_NAME__b", effect: "NoSchedule" }];
    const r = validateSpec(spec);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      [
        "cloud.pools.0.labels.example.com/ip",
        "label value x__NODE_IP__y contains __NODE_IP__, a placeholder the burst node's join script replaces at boot (__NODE_IP__, __PROVIDER_ID__, __NODE_NAME__, __ZONE__, __REGION__, __INSTANCE_TYPE__): choose another label value",
      ],
      [
        "cloud.pools.0.taints.0.key",
        "taint key a__NODE_NAME__b contains __NODE_NAME__, a placeholder the burst node's join script replaces at boot (__NODE_IP__, __PROVIDER_ID__, __NODE_NAME__, __ZONE__, __REGION__, __INSTANCE_TYPE__): choose another taint key",
      ],
    ]);
  });
});

describe("owned settings under another name (issue 32 item 6)", () => {
  const errorsOf = (mutate: (s: any) => void) => {
    const spec = referenceSpec() as any;
    mutate(spec);
    const r = validateSpec(spec);
    return r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.message]);
  };

  it("refuses IPv4 forwarding under its conf names (all, default, an interface), and the / spelling", () => {
    expect(
      errorsOf((s) => {
        s.host.sysctl = {
          "net.ipv4.conf.all.forwarding": "0",
          "net.ipv4.conf.default.forwarding": "0",
          "net.ipv4.conf.wan0.forwarding": "0",
        };
      }),
    ).toEqual([
      ...["all", "default", "wan0"].map((i) => [
        `host.sysctl.net.ipv4.conf.${i}.forwarding`,
        `net.ipv4.conf.${i}.forwarding switches IPv4 forwarding under another name (conf.all.forwarding is net.ipv4.ip_forward; default and an interface's own forwarding turn it off there): net.ipv4.ip_forward is set by clusterspec itself (Kubernetes needs it on)`,
      ]),
    ]);
    // procps' `/` spelling (and its `-` prefix) is no key the schema admits.
    expect(errorsOf((s) => (s.host.sysctl = { "net/ipv4/ip_forward": "0" }))).toEqual([
      ["host.sysctl.net/ipv4/ip_forward", "invalid key: expected a sysctl key such as vm.swappiness"],
    ]);
  });

  it("refuses, in an IPv6 cluster, IPv6 forwarding and accept_ra under default and an interface's name", () => {
    const spec = parse(readFileSync(join(repoRoot, "examples", "dual-stack", "cluster.yaml"), "utf8"));
    spec.host = {
      ...spec.host,
      sysctl: {
        "net.ipv6.conf.default.forwarding": "0",
        "net.ipv6.conf.eth0.accept_ra": "2",
        "net.ipv6.conf.all.forwarding": "0",
      },
    };
    const r = validateSpec(spec);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      [
        "host.sysctl.net.ipv6.conf.default.forwarding",
        "net.ipv6.conf.default.forwarding would undo, on that interface, what clusterspec sets for an IPv6 cluster (net.ipv6.conf.all.forwarding = 1, all and default accept_ra = 0: a node forwards its pods' IPv6 and takes no router advertisements)",
      ],
      [
        "host.sysctl.net.ipv6.conf.eth0.accept_ra",
        "net.ipv6.conf.eth0.accept_ra would undo, on that interface, what clusterspec sets for an IPv6 cluster (net.ipv6.conf.all.forwarding = 1, all and default accept_ra = 0: a node forwards its pods' IPv6 and takes no router advertisements)",
      ],
      [
        "host.sysctl.net.ipv6.conf.all.forwarding",
        "net.ipv6.conf.all.forwarding is set by clusterspec itself (Kubernetes needs it on)",
      ],
    ]);
    // An IPv4-only cluster leaves IPv6 to the user.
    const v4 = referenceSpec() as any;
    v4.host.sysctl = { "net.ipv6.conf.default.forwarding": "0" };
    expect(validateSpec(v4).ok).toBe(true);
  });

  const sysctlAvailable =
    process.getuid?.() === 0 &&
    spawnSync("sh", ["-c", "command -v sysctl && command -v unshare && command -v ip"]).status === 0;

  it("procps sysctl -p in a network namespace: conf.all.forwarding = 0 switches net.ipv4.ip_forward off, default.forwarding = 0 every new interface", (ctx) => {
    if (!sysctlAvailable) return ctx.skip("needs root, procps sysctl, unshare and ip (installed by .ci/run)");
    const dir = mkdtempSync(join(tmpdir(), "relcore-sysctl-"));
    try {
      writeFileSync(join(dir, "a.conf"), "net.ipv4.ip_forward = 1\nnet.ipv4.conf.all.forwarding = 0\n");
      writeFileSync(join(dir, "b.conf"), "net.ipv4.ip_forward = 1\nnet.ipv4.conf.default.forwarding = 0\n");
      const script = [
        'sysctl -q -p "$1/a.conf"',
        "cat /proc/sys/net/ipv4/ip_forward",
        'sysctl -q -p "$1/b.conf"',
        "ip link add v0 type veth peer name v1",
        "cat /proc/sys/net/ipv4/ip_forward /proc/sys/net/ipv4/conf/v0/forwarding",
      ].join("\n");
      const r = spawnSync("unshare", ["--net", "--", "sh", "-ec", script, "sh", dir], { encoding: "utf8" });
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("0\n1\n0\n");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses Cilium values that set an owned key under another name", () => {
    expect(
      errorsOf((s) => {
        s.cilium.values = {
          k8s: { apiServerURLs: "https://10.0.0.1:6443" },
          k8sServiceHostRef: { name: "cm", key: "host" },
          extraConfig: { "kube-proxy-replacement": "false", "routing-mode": "tunnel", "unrelated-option": "x" },
        };
      }),
    ).toEqual([
      [
        "cilium.values.k8sServiceHostRef",
        "Cilium value k8sServiceHostRef sets what k8sServiceHost sets, which clusterspec derives from controlPlane.vip: set that field instead of cilium.values",
      ],
      [
        "cilium.values.k8s.apiServerURLs",
        "Cilium value k8s.apiServerURLs sets what k8sServiceHost sets, which clusterspec derives from controlPlane.vip: set that field instead of cilium.values",
      ],
      [
        "cilium.values.extraConfig.kube-proxy-replacement",
        "Cilium value extraConfig.kube-proxy-replacement sets what kubeProxyReplacement sets, which clusterspec derives from (always true: kubeadm installs no kube-proxy): set that field instead of cilium.values",
      ],
      [
        "cilium.values.extraConfig.routing-mode",
        "Cilium value extraConfig.routing-mode sets what routingMode sets, which clusterspec derives from cilium.routingMode: set that field instead of cilium.values",
      ],
    ]);
  });

  it("every alias names an owned key", () => {
    for (const key of Object.values(OWNED_CILIUM_ALIASES)) expect(Object.keys(OWNED_CILIUM_KEYS)).toContain(key);
  });
});

describe("names that differ only by case (issue 32 item 9)", () => {
  it("node and pool names, the only spec values in generated paths, are lowercase: an uppercase one is refused at its line", () => {
    const text = base.replace("name: k8s-2", "name: K8s-1");
    const r = loadSpec(text);
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.line, e.message])).toEqual([
      [
        "nodes.1.name",
        text.split("\n").findIndex((l) => l.includes("name: K8s-1")) + 1,
        "node name must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, got \"K8s-1\"",
      ],
    ]);
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 2, cloud: true }) as any;
    spec.cloud.pools[0].name = "Arm";
    const p = validateSpec(spec);
    expect(p.ok ? [] : p.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      [
        "cloud.pools.0.name",
        "pool name must be an RFC 1123 label: lowercase letters, digits and '-', starting and ending with a letter or digit, got \"Arm\"",
      ],
    ]);
  });
});

describe("line breaks of classic Mac OS (issue 32 item 7)", () => {
  it("refuses a text with lone carriage returns at its first one, instead of calling it empty", () => {
    const mac = `# a comment\r${base.replaceAll("\n", "\r")}`;
    const r = loadSpec(mac);
    expect(r.ok).toBe(false);
    expect(r.ok ? [] : r.errors).toEqual([
      {
        path: [],
        message:
          "the spec has a carriage return without a line feed on line 1 (line breaks of classic Mac OS): save it with LF or CRLF line endings",
        severity: "error",
        code: "yaml_syntax",
        line: 1,
      },
    ]);
    // the line is counted by line feeds before it; CRLF is a line break, not a lone CR
    const late = `${base.replaceAll("\n", "\r\n")}extra: 1\rmore: 2\n`;
    const rLate = loadSpec(late);
    expect(rLate.ok ? undefined : rLate.errors[0]?.line).toBe(base.split("\n").length);
    expect(loadSpec(base.replaceAll("\n", "\r\n")).ok).toBe(true);
  });
});
