// Issue 16, examples for every new message: control and invisible characters, prototype keys, YAML keys that are not
// text, line-length bounds (keepalived's 1,023-byte lines, sysctl, resolv.conf), validated sysctl values and URL hosts,
// and YAML output that no reader retypes.
import { formatIssues, loadSpec, parseYamlDocuments, toYaml, validateSpec } from "@clusterspec/core";
import { buildSpec } from "@clusterspec/core/testing";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAllDocuments, stringify } from "yaml";
import { readAsNonString } from "../src/serialize/yaml.js";
import { errorsAfter, referenceSpec } from "./helpers.js";

const messagesAt = (text: string) => {
  const r = loadSpec(text);
  return r.ok ? "(valid)" : r.errors.map((e) => `${e.line}: ${e.message}`).join("\n");
};

describe("control and invisible characters", () => {
  it("a NUL byte in the provisioner URL is an error at its path and line, not an internal error", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cloud.provisioner.url = "https://prov.example.com/\0x";
    const text = stringify(spec);
    const r = loadSpec(text);
    expect(r.ok).toBe(false);
    const e = r.ok ? undefined : r.errors.find((i) => i.path.join(".") === "cloud.provisioner.url");
    expect(e?.message).toBe(
      'the value contains NUL (U+0000): spec values are printable text on one line (written "https://prov.example.com/\\u0000x")',
    );
    expect(e?.line).toBe(text.split("\n").findIndex((l) => l.includes("url:")) + 1);
  });

  it("names line breaks, zero-width spaces, bidi overrides and other controls by code point", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].disk = "/dev/sda\nnopreempt";
        s.network.searchDomains = ["exa\u200bmple.com"];
        s.kubernetes.dnsDomain = "\u202eevil";
        s.vrrp.scriptUser = "\x1b[31m";
      }),
    ).toMatchInlineSnapshot(`
      "✖ the value contains an invisible formatting character (U+202E): spec values are printable text on one line (written "\\u202eevil")
        → at kubernetes.dnsDomain
      ✖ the value contains ESC (U+001B): spec values are printable text on one line (written "\\u001b[31m")
        → at vrrp.scriptUser
      ✖ the value contains a zero-width space (U+200B): spec values are printable text on one line (written "exa\\u200bmple.com")
        → at network.searchDomains[0]
      ✖ the value contains a line break (U+000A): spec values are printable text on one line (written "/dev/sda\\nnopreempt")
        → at nodes[0].disk"
    `);
  });

  it("checks keys too, and allows tabs and line breaks only inside free-form values (a PEM certificate)", () => {
    const r = validateSpec({
      ...referenceSpec(),
      cilium: { ...referenceSpec().cilium, values: { "bad\u0007key": 1, tls: { ca: "-----BEGIN\nA\tB\n-----END" } } },
    });
    expect(r.ok ? [] : r.errors.map((e) => [e.path.join("."), e.message])).toEqual([
      [
        "cilium.values.bad\u0007key",
        'the key "bad\\u0007key" contains a control character (U+0007): keys are printable text',
      ],
    ]);
  });

  it("never throws on any string in any position, and always names a path", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 20 }), fc.boolean(), (s, asKey) => {
        const spec = referenceSpec() as any;
        if (asKey) spec.nodes[0].interfaces[s] = { mac: "52:54:00:00:00:01" };
        else spec.nodes[0].name = s;
        const r = validateSpec(spec);
        if (!r.ok) for (const e of r.errors) expect(e.message.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("prototype keys", () => {
  it("a VLAN whose parent is toString is an error, not a silently skipped VLAN", () => {
    expect(
      errorsAfter((s) => {
        s.nodes[0].interfaces["wan0.7"] = { vlan: { parent: "toString", id: 7 }, address: "10.118.7.20/24" };
      }),
    ).toMatchInlineSnapshot(`
      "✖ VLAN parent toString is not an interface of node k8s-1
        → at nodes[0].interfaces["wan0.7"].vlan.parent"
    `);
  });

  it("every Object.prototype name works as an interface reference only when that interface exists", () => {
    for (const name of Object.getOwnPropertyNames(Object.prototype)) {
      const missing = validateSpec(
        (() => {
          const s = referenceSpec() as any;
          s.nodes[0].interfaces["wan0.7"] = { vlan: { parent: name, id: 7 }, address: "10.118.7.20/24" };
          return s;
        })(),
      );
      expect(missing.ok, name).toBe(false);
      const segment = referenceSpec() as any;
      segment.network.segments[0].interface = name;
      expect(validateSpec(segment).ok, `segment interface ${name}`).toBe(false);
    }
  });

  it("a __proto__ key is refused wherever it appears", () => {
    expect(messagesAt("apiVersion: clusterspec/v1alpha1\ncilium:\n  values:\n    __proto__: { a: 1 }\n")).toContain(
      '4: the key "__proto__" is not allowed: it names an object\'s prototype, not a setting',
    );
  });
});

describe("YAML keys that are not text", () => {
  it("1e3:, 0x1f:, true: and null: are errors with path and line, not renamed", () => {
    const text = stringify(referenceSpec()).replace(
      "  - name: k8s-1\n",
      "  - name: k8s-1\n    labels:\n      1e3: a\n      0x1f: b\n      true: c\n      null: d\n",
    );
    expect(messagesAt(text)).toMatchInlineSnapshot(`
      "58: the key "1e3" is read as the number 1000, not as text: keys are names, quote it ("1e3": ...) if it is one
      59: the key "0x1f" is read as the number 31, not as text: keys are names, quote it ("0x1f": ...) if it is one
      60: the key "true" is read as the boolean true, not as text: keys are names, quote it ("true": ...) if it is one
      61: the key "null" is read as null, not as text: keys are names, quote it ("null": ...) if it is one"
    `);
    // Quoted, they are names like any other.
    const r = loadSpec(
      text
        .replace("1e3:", '"1e3":')
        .replace("0x1f:", '"0x1f":')
        .replace("true:", '"true":')
        .replace("null:", '"null":'),
    );
    expect(r.ok ? [] : r.errors.map((e) => e.message).filter((m) => m.includes("read as"))).toEqual([]);
  });

  it("a collection as a key is an error", () => {
    expect(messagesAt("name: x\n? [a, b]\n: 1\n")).toContain("2: a key is a collection here, not text: keys are names");
  });
});

describe("YAML aliases", () => {
  it("an alias inside the node its anchor marks is an error at the alias's line, not a stack overflow", () => {
    const text = stringify(referenceSpec()).replace(/^kubernetes:\n/m, "kubernetes: &k\n  self: *k\n");
    const aliasLine = text.split("\n").indexOf("  self: *k") + 1;
    expect(aliasLine).toBeGreaterThan(1);
    expect(messagesAt(text)).toBe(
      `${aliasLine}: this value contains itself (a YAML alias *name inside the node its anchor &name marks): a spec is a tree, write the value out`,
    );
  });

  it("a value that contains itself through an array, passed to validateSpec by other tooling, is the same error", () => {
    const spec = referenceSpec() as { network: { nameservers: unknown[] } };
    spec.network.nameservers.push(spec.network);
    const r = validateSpec(spec);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors.map((e) => [e.path.join("."), e.code])).toEqual([["network.nameservers.2", "reference_cycle"]]);
  });

  it("an alias to a node it is not inside is an ordinary shared value", () => {
    const text = stringify(referenceSpec()).replace(/^( +)nameservers:\n/m, "$1nameservers: &dns\n");
    const r = loadSpec(`${text}x-dns: *dns\n`);
    // The spec is a tree; the only complaint is the unknown top-level key, not a cycle.
    expect(r.ok ? [] : r.errors.map((e) => e.code)).not.toContain("reference_cycle");
    expect(loadSpec(text).ok).toBe(true);
  });
});

describe("line-length bounds", () => {
  it("notify scripts fit one keepalived line (1,000 characters), with the reason", () => {
    expect(
      errorsAfter((s) => {
        s.vrrp.notify = { master: `/${"a".repeat(1000)}`, backup: `/${"a".repeat(999)}` };
      }),
    ).toMatchInlineSnapshot(`
      "✖ notify script paths are at most 1000 characters: keepalived reads a config line in 1,023-byte pieces, and the rest of a longer line would be read as a new keyword, got "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."
        → at vrrp.notify.master"
    `);
  });

  it("sysctl keys and values are bounded, and values are never trimmed", () => {
    expect(
      errorsAfter((s) => {
        s.host.sysctl = {
          "vm.swappiness": " 10",
          "vm.overcommit_memory": " ",
          "vm.max_map_count": "",
          "kernel.core_pattern": "a".repeat(1025),
          [`net.${"a".repeat(252)}`]: 1,
        };
      }),
    ).toMatchInlineSnapshot(`
      "✖ sysctl values are written as given: words of letters, digits, '.', '_', ':', '-' separated by single spaces, not empty, no leading or trailing space (sysctl would trim it silently), got " 10"
        → at host.sysctl["vm.swappiness"]
      ✖ sysctl values are written as given: words of letters, digits, '.', '_', ':', '-' separated by single spaces, not empty, no leading or trailing space (sysctl would trim it silently)
        → at host.sysctl["vm.overcommit_memory"]
      ✖ sysctl values are written as given: words of letters, digits, '.', '_', ':', '-' separated by single spaces, not empty, no leading or trailing space (sysctl would trim it silently)
        → at host.sysctl["vm.max_map_count"]
      ✖ sysctl values are at most 1024 characters (the kernel takes one page per write; sysctl.conf lines stay below procps' 4,096), got "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa..."
        → at host.sysctl["kernel.core_pattern"]
      ✖ invalid key: sysctl keys are at most 255 characters
        → at host.sysctl["net.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"]"
    `);
  });

  it("search domains: at most 6 (glibc MAXDNSRCH), each a DNS name of at most 253 characters", () => {
    expect(
      errorsAfter((s) => {
        s.network.searchDomains = [
          "a.example",
          "b.example",
          "c.example",
          "d.example",
          "e.example",
          "f.example",
          "g.example",
        ];
      }),
    ).toMatchInlineSnapshot(`
      "✖ at most 6 search domains: glibc reads 6 from resolv.conf (MAXDNSRCH) and ignores the rest
        → at network.searchDomains"
    `);
    expect(
      errorsAfter((s) => {
        s.network.searchDomains = [`${"a".repeat(64)}.example`];
      }),
    ).toContain("a DNS label is at most 63 characters");
  });
});

describe("URL hosts and endpoints", () => {
  const urlErrors = (url: string) => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cloud.provisioner.url = url;
    const r = validateSpec(spec);
    return r.ok ? "(valid)" : formatIssues(r.errors);
  };

  it("a provisioner URL host is a DNS name or an IP address, as written", () => {
    for (const host of [
      "pro;v.example.com",
      "prov!.example.com",
      "a&b.example.com",
      "*.example.com",
      "pr\u00f6v.example.com",
      "-a.example.com",
      "a..b",
      `${"a".repeat(64)}.example.com`,
      "user:pw@prov.example.com",
      "prov.example.com:99999",
    ])
      expect(urlErrors(`https://${host}/x`), host).toContain("the provisioner URL's host must be a DNS name");
    for (const host of ["prov.example.com", "10.0.0.1", "prov-1.example.com:8443"])
      expect(urlErrors(`https://${host}/x`), host).toBe("(valid)");
  });

  it("U+200B in a URL host is refused (the URL parser would drop it silently)", () => {
    expect(urlErrors("https://prov\u200b.example.com")).toContain("U+200B");
  });

  it("a WireGuard endpoint host is a DNS name of LDH labels", () => {
    const spec = buildSpec({ controlPlanes: 3, workers: 0, poolSize: 0, cloud: true }) as any;
    spec.cloud.wireguard.endpoint = "a..b:51820";
    const r = validateSpec(spec);
    expect(r.ok ? "(valid)" : formatIssues(r.errors)).toContain(
      "expected a valid IP address or DNS name before the port",
    );
  });
});

describe("YAML output that no reader retypes", () => {
  it("quotes every string Go's strconv or a YAML 1.1/1.2 reader would take as a number, bool, null or merge key", () => {
    const risky = [
      "0o17",
      "0x1F",
      "0b101",
      "1_000",
      ".5",
      "1e3",
      "+1",
      "-0",
      "yes",
      "No",
      "on",
      "OFF",
      "y",
      "n",
      "~",
      "null",
      "",
      "1:20",
      "2001-12-14",
      "<<",
      ".inf",
      "NaN",
      "a\tb",
    ];
    const text = toYaml(Object.fromEntries(risky.map((s, i) => [`k${i}`, s])));
    for (const s of risky) expect(text).not.toMatch(new RegExp(`: ${s.replace(/[.+*?^$()[\]{}|\\]/g, "\\$&")}$`, "m"));
    expect(parseYamlDocuments(text)[0]).toEqual(Object.fromEntries(risky.map((s, i) => [`k${i}`, s])));
    expect((parseAllDocuments(text)[0] as any).toJS()).toEqual(Object.fromEntries(risky.map((s, i) => [`k${i}`, s])));
  });

  it("round-trips a key << (YAML 1.1 merge key) and any string key or value", () => {
    expect(toYaml({ "<<": "x", a: "<<" })).toBe('"<<": x\na: "<<"\n');
    fc.assert(
      fc.property(
        fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constantFrom(...["<<", "0o17", "1_000", "yes", "~"])), {
          noNullPrototype: true,
        }),
        (v) => {
          expect(parseYamlDocuments(toYaml(v))[0] ?? {}).toEqual(v);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("readAsNonString leaves ordinary words and versions alone", () => {
    for (const s of ["k8s-1", "v1.34.2", "1.20.0", "wan0.7", "10.0.0.1", "cluster.local", "IfNotPresent", "10%"])
      expect(readAsNonString(s), s).toBe(false);
  });
});
