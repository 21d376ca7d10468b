// Issue 16: every string field of the schema, found by walking the zod schema (string-slots.ts), gets hostile strings.
// Each one is either rejected (with its path, a line, and never an internal error) or rendered safely: every output
// then parses with its real reader: bash -n and `set -u` sourcing for shell files, keepalived -t (no stubs) for
// keepalived.conf, PyYAML and the yaml library (1.1 and 1.2) for YAML, JSON.parse for JSON, and a Go-style check
// (strconv.ParseInt(s, 0, 64), ParseFloat, yaml.v2's bools) of every plain YAML scalar. External readers run in
// batches over every distinct file, so the test stays bounded.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import {
  type Artifact,
  CloudBurstSpecSchema,
  ClusterSpecSchema,
  loadSpec,
  parseYamlDocuments,
} from "@clusterspec/core";
import { type StringSlot, schemaStringPatterns, specStringSlots } from "@clusterspec/core/testing";
import { hasTool, run, withNetns } from "@clusterspec/testkit";
import { generateChecked } from "clusterspec";
import { describe, expect, it } from "vitest";
import { isScalar, parse, parseAllDocuments, stringify, visit } from "yaml";

const fixtures = join(import.meta.dirname, "fixtures", "hostile");
type Json = Record<string, unknown>;

/** `{ env }` ↔ `{ file }` everywhere: the second variant covers the other branch of every secret reference. */
function flipSecrets(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(flipSecrets);
  if (v === null || typeof v !== "object") return v;
  const o = v as Json;
  const keys = Object.keys(o);
  if (keys.length === 1 && typeof o.env === "string") return { file: `secrets/${o.env.toLowerCase()}` };
  if (keys.length === 1 && typeof o.file === "string") return { env: "FLIPPED_SECRET" };
  return Object.fromEntries(keys.map((k) => [k, flipSecrets(o[k])]));
}

const bases = [
  { schema: ClusterSpecSchema, spec: parse(readFileSync(join(fixtures, "cluster.yaml"), "utf8")) as Json },
  { schema: ClusterSpecSchema, spec: parse(readFileSync(join(fixtures, "dual-stack.yaml"), "utf8")) as Json },
  { schema: CloudBurstSpecSchema, spec: parse(readFileSync(join(fixtures, "cloud-burst.yaml"), "utf8")) as Json },
  {
    schema: CloudBurstSpecSchema,
    spec: parse(readFileSync(join(fixtures, "dual-stack-cloud-burst.yaml"), "utf8")) as Json,
  },
].flatMap((b) => [b, { schema: b.schema, spec: flipSecrets(b.spec) as Json }]);

/** Every pattern the two schemas have, and the first occurrence of each in the base specs. */
const patterns = new Map([...schemaStringPatterns(ClusterSpecSchema), ...schemaStringPatterns(CloudBurstSpecSchema)]);
const occurrences = new Map<string, { base: Json; slot: StringSlot }>();
for (const b of bases)
  for (const slot of specStringSlots(b.schema, b.spec))
    if (!occurrences.has(slot.pattern)) occurrences.set(slot.pattern, { base: b.spec, slot });

const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype);
// Always tried: one of each kind of trouble.
const CORE = ["\0", "a\nnopreempt", "\u200b", " 10", "0o17", "<<", "$(touch PWNED)", "a".repeat(1100)];
// Rotated over the slots: every one is tried on about a fifth of them.
const EXTRA = [
  "",
  "x\r",
  "yes",
  "toString",
  "a\tb",
  "\x1b[31mred",
  "a\u2028b",
  "\u202eevil",
  "\ufeffbom",
  "\u0085",
  " ",
  "10 ",
  "0x1F",
  "1e3",
  "1_000",
  ".5",
  "0b101",
  "1:20",
  "~",
  "null",
  "on",
  "n",
  "2001-12-14",
  "`touch PWNED`",
  "x;touch PWNED",
  "a'b\"c",
  "a b",
  "#x",
  "!x",
  "{",
  "}",
  "-x",
  "&a",
  "*a",
  "%x",
  "@x",
  "a\\b",
  "$HOME",
  "../../etc/passwd",
  "constructor",
  "__proto__",
  "a".repeat(254),
  "/".repeat(1030),
];
const NAME_LIKE = /(name|parent|interface|Segment|devices\[\]|\{key\})$/;

function valuesFor(pattern: string, index: number): string[] {
  const extra = EXTRA.filter((_, i) => (i + index) % 5 === 0);
  const protos = NAME_LIKE.test(pattern) ? PROTOTYPE_NAMES : [];
  return [...new Set([...CORE, ...extra, ...protos])];
}

/**
 * A copy of `base` with the strings at the slots replaced: values first, then keys renamed in place (keeping the
 * order), deepest first, so no rename breaks the path to another slot.
 */
function mutate(base: Json, slots: readonly StringSlot[], value: string): Json {
  const spec = structuredClone(base);
  const ordered = [
    ...slots.filter((x) => x.kind === "value"),
    ...slots.filter((x) => x.kind === "key").sort((x, y) => y.path.length - x.path.length),
  ];
  for (const slot of ordered) {
    let parent: unknown = spec;
    for (const seg of slot.path.slice(0, -1)) parent = (parent as Json)[seg as string];
    const last = slot.path[slot.path.length - 1] as string | number;
    if (slot.kind === "value") {
      (parent as Json)[last] = value;
      continue;
    }
    if (Object.hasOwn(parent as Json, value)) continue;
    const entries = Object.entries(parent as Json).map(([k, v]) => [k === last ? value : k, v] as const);
    for (const k of Object.keys(parent as Json)) delete (parent as Json)[k];
    for (const [k, v] of entries)
      Object.defineProperty(parent, k, { value: v, enumerable: true, writable: true, configurable: true });
  }
  return spec;
}

const forbidden =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: what must never pass
  /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\ufeff]/;

// ---- Go's readers, written from the Go documentation (not from core's quoting code) ----
// yaml.v2 resolve(): its bool and null tables, then strconv.ParseInt(strings.ReplaceAll(s, "_", ""), 0, 64),
// ParseFloat on its float pattern, and .inf/.nan.
const GO_BOOL = new Set(
  "y Y yes Yes YES n N no No NO true True TRUE false False FALSE on On ON off Off OFF".split(" "),
);
const GO_NULL = new Set(["", "~", "null", "Null", "NULL"]);
function goParseInt(s: string): boolean {
  const t = s.replace(/_/g, "").replace(/^[-+]/, "");
  return /^(0[xX][0-9a-fA-F]+|0[oO]?[0-7]+|0[bB][01]+|[1-9][0-9]*|0)$/.test(t);
}
const goFloat = (s: string) =>
  /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/.test(s.replace(/_/g, "")) ||
  /^[-+]?\.(inf|Inf|INF)$|^\.(nan|NaN|NAN)$/.test(s);
const goReadsAsNonString = (s: string) => GO_BOOL.has(s) || GO_NULL.has(s) || goParseInt(s) || goFloat(s);

/** Every plain (unquoted) scalar that a YAML reader took as a string, with its source text. */
function plainStrings(text: string): string[] {
  const out: string[] = [];
  for (const doc of parseAllDocuments(text, { version: "1.1" }) as unknown as Parameters<typeof visit>[0][])
    visit(doc, {
      Scalar(_, node) {
        if (isScalar(node) && node.type === "PLAIN" && typeof node.value === "string") out.push(node.source ?? "");
      },
    });
  return out;
}

const toJson = (v: unknown) =>
  JSON.parse(JSON.stringify(v, (_, x) => (x instanceof Date ? { date: x.toISOString() } : x)));

/** Every string (keys too) in a parsed document. */
function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === "string") out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (v !== null && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      out.push(k);
      strings(x, out);
    }
  return out;
}

/** The type at every leaf path, to see that a value never changes type (a string read back as a number). */
function typeShape(v: unknown, path = "", out = new Map<string, string>()): Map<string, string> {
  if (Array.isArray(v))
    v.forEach((x, i) => {
      typeShape(x, `${path}[${i}]`, out);
    });
  else if (v !== null && typeof v === "object" && !(v instanceof Date))
    for (const [k, x] of Object.entries(v)) typeShape(x, `${path}.${k}`, out);
  else out.set(path, v instanceof Date ? "date" : v === null ? "null" : typeof v);
  return out;
}

const isYaml = (p: string) => /\.ya?ml$/.test(p);
const isShell = (p: string) => /etc\/conf\.d\/[^/]+$|rc\.conf\.clusterspec$/.test(p);

interface Accepted {
  readonly label: string;
  readonly artifacts: readonly Artifact[];
}

const baseOutputs = new Map<Json, Map<string, Artifact>>();
async function outputsOf(base: Json): Promise<Map<string, Artifact>> {
  const cached = baseOutputs.get(base);
  if (cached) return cached;
  const r = await generateChecked(stringify(base));
  if (!r.ok) throw new Error(`hostile base spec is invalid: ${JSON.stringify(r.errors)}`);
  const out = new Map(r.artifacts.map((a) => [a.path, a]));
  // The base outputs pass the same Go-style check as every changed output below.
  for (const a of r.artifacts.filter((x) => isYaml(x.path)))
    for (const p of plainStrings(a.content))
      expect(goReadsAsNonString(p), `base ${a.path} has plain ${JSON.stringify(p)}`).toBe(false);
  baseOutputs.set(base, out);
  return out;
}

describe("hostile strings in every string field of the schema", () => {
  it("the base specs hold every string field the schemas have (add a value to fixtures/hostile/*.yaml otherwise)", () => {
    const missing = [...patterns.keys()].filter((p) => !occurrences.has(p));
    expect(missing).toEqual([]);
    expect(patterns.size).toBeGreaterThan(100);
  });

  it("every value is rejected at its field with a line, or every output parses with its real reader", async () => {
    // 1. Each value in each field on its own: rejected at that field (with a line), or accepted.
    const groups = new Map<string, { base: Json; value: string; slots: StringSlot[] }>();
    let cases = 0;
    let index = 0;
    for (const [pattern, { base, slot }] of occurrences)
      for (const value of valuesFor(pattern, index++)) {
        cases++;
        const label = `${pattern} = ${show(value)}`;
        const loaded = loadSpec(stringify(mutate(base, [slot], value)));
        const bad = forbidden.test(
          slot.type === "free" && slot.kind === "value" ? value.replace(/[\t\n]/g, " ") : value,
        );
        if (!loaded.ok) {
          expect(loaded.errors.length, label).toBeGreaterThan(0);
          for (const e of loaded.errors) expect(e.line, `${label}: ${e.message} has no line`).toBeTypeOf("number");
          const at = slot.kind === "key" ? [...slot.path.slice(0, -1), value] : slot.path;
          if (bad || value === "__proto__")
            expect(
              loaded.errors.some((e) => JSON.stringify(e.path) === JSON.stringify(at)),
              `${label}: no error at ${JSON.stringify(at)}: ${JSON.stringify(loaded.errors)}`,
            ).toBe(true);
          continue;
        }
        expect(bad, `${label} was accepted`).toBe(false);
        const key = `${bases.findIndex((b) => b.spec === base)}:${value}`;
        const group = groups.get(key) ?? { base, value, slots: [] };
        group.slots.push(slot);
        groups.set(key, group);
      }
    // 2. Every accepted value rendered, in every field that accepted it at once (halved until the spec is valid).
    const accepted: Accepted[] = [];
    let generated = 0;
    const render = async (base: Json, value: string, slots: StringSlot[]): Promise<void> => {
      const label = `${show(value)} in ${slots.map((x) => x.pattern).join(", ")}`;
      const text = stringify(mutate(base, slots, value));
      const r = loadSpec(text).ok ? await generateChecked(text) : undefined;
      generated++;
      if (!r?.ok) {
        if (slots.length > 1) {
          const half = Math.ceil(slots.length / 2);
          await render(base, value, slots.slice(0, half));
          await render(base, value, slots.slice(half));
        } else if (r) for (const e of r.errors) expect(e.message, label).toBeTypeOf("string");
        return;
      }
      accepted.push({ label, artifacts: r.artifacts });
      checkOutputs(label, await outputsOf(base), r.artifacts, base, slots, value);
    };
    for (const { base, value, slots } of groups.values()) await render(base, value, slots);
    expect(cases).toBeGreaterThan(1500);
    expect(accepted.length).toBeGreaterThan(20);
    expect(generated).toBeLessThan(cases / 5);
    await externalReaders(accepted);
  }, 600_000);
});

describe("keepalived's 1,023-byte lines", () => {
  it("the longest allowed values keep every keepalived.conf line whole, and keepalived -t (no stubs) accepts them", async () => {
    const spec = structuredClone(bases[0]?.spec) as any;
    // 1,000-character notify paths under /etc/keepalived (components below NAME_MAX), ending in a keyword's name:
    // cut at 1,023 bytes, the rest of the line would be read as that keyword.
    const longPath = (tail: string) => {
      const head = "/etc/keepalived/";
      let body = "";
      while (head.length + body.length + tail.length + 201 < 1000) body += `${"d".repeat(200)}/`;
      const path = `${head}${body}${"f".repeat(1000 - head.length - body.length - tail.length)}${tail}`;
      expect(path.length).toBe(1000);
      return path;
    };
    spec.vrrp.notify = {
      master: longPath("nopreempt"),
      backup: longPath("dont_track_primary"),
      fault: longPath("garp"),
    };
    // 63-character node names (router_id, comments), 15-byte interface names.
    const long = (n: number, c: string) => c.repeat(n);
    spec.nodes.forEach((node: any, i: number) => {
      node.name = `${long(61, "n")}-${i}`;
    });
    spec.controlPlane.initNode = spec.nodes[0].name;
    const rename = (o: Json, from: string, to: string) => {
      const entries = Object.entries(o).map(([k, v]) => [k === from ? to : k, v] as const);
      for (const k of Object.keys(o)) delete o[k];
      Object.assign(o, Object.fromEntries(entries));
    };
    const iface = "ifaceaaaaaaaaa1";
    for (const node of spec.nodes) rename(node.interfaces, "wan1", iface);
    spec.network.segments[0].interface = iface;
    spec.controlPlane.interface = iface;
    spec.externalVips.interface = iface;
    spec.cilium.devices = [iface, "wan0"];
    const r = await generateChecked(stringify(spec), { sourceName: `${"s".repeat(4000)}.yaml` });
    if (!r.ok) throw new Error(JSON.stringify(r.errors));
    const nodes = [...new Set(r.artifacts.filter((a) => a.path.endsWith("/keepalived.conf")).map((a) => a.path))];
    expect(nodes.length).toBe(3);
    let longest = 0;
    for (const p of nodes) {
      const conf = r.artifacts.find((a) => a.path === p)?.content ?? "";
      for (const line of conf.split("\n")) longest = Math.max(longest, Buffer.byteLength(line) + 1);
      expect(conf).toContain(`notify_master ${spec.vrrp.notify.master}\n`);
      expect(conf.match(/^\s*nopreempt$/m)).toBeNull();
    }
    // fgets(buf, 1024) reads at most 1,023 bytes: every line, newline included, fits.
    expect(longest).toBeLessThanOrEqual(1023);
    expect(longest).toBeGreaterThan(1000);
    if (!hasTool("keepalived") && !process.env.CI) return;
    const dir = mkdtempSync(join(tmpdir(), "cs-longest-"));
    try {
      const sets = nodes.map((p) => r.artifacts.filter((a) => a.path.startsWith(p.replace(/keepalived\.conf$/, ""))));
      const results = await keepalivedBatch(sets, dir);
      expect(results).toEqual(nodes.map(() => ({ status: 0, output: "" })));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

const show = (v: string) => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/** In-process readers: YAML 1.1 = 1.2 = no type changes, Go-style plain scalars, JSON, line structure, the value whole. */
function checkOutputs(
  label: string,
  before: Map<string, Artifact>,
  after: readonly Artifact[],
  base: Json,
  slots: readonly StringSlot[],
  value: string,
): void {
  // Only what the value changed needs reading: the base outputs were read once.
  const changed = after.filter((a) => before.get(a.path)?.content !== a.content);
  const paths = new Set(after.map((a) => a.path));
  const gone = [...before.values()].filter((a) => !paths.has(a.path) || changed.some((c) => c.path === a.path));
  const parsed = new Map<Artifact, unknown>();
  const read = (a: Artifact): unknown => {
    if (!parsed.has(a)) parsed.set(a, toJson(isYaml(a.path) ? parseYamlDocuments(a.content) : JSON.parse(a.content)));
    return parsed.get(a);
  };
  for (const a of changed) {
    const was = before.get(a.path);
    if (isYaml(a.path)) {
      const docs11 = read(a);
      const docs12 = toJson(parseAllDocuments(a.content).map((d) => (d as { toJS(): unknown }).toJS()));
      expect(docs12, `${label}: ${a.path} reads differently in YAML 1.1 and 1.2`).toEqual(docs11);
      for (const s of plainStrings(a.content))
        expect(goReadsAsNonString(s), `${label}: ${a.path} has plain ${JSON.stringify(s)}`).toBe(false);
      if (was) {
        const shapeBefore = typeShape(read(was));
        for (const [p, t] of typeShape(docs11))
          if (shapeBefore.has(p)) expect(t, `${label}: ${a.path}${p} changed type`).toBe(shapeBefore.get(p));
      }
    } else if (a.path.endsWith(".json")) {
      expect(() => read(a), `${label}: ${a.path}`).not.toThrow();
    } else if (was && a.path !== "PLAN.md") {
      // Line formats: a value never adds, removes or cuts a line.
      expect(a.content.split("\n").length, `${label}: ${a.path} line count`).toBe(was.content.split("\n").length);
      expect(forbidden.test(a.content.replace(/[\t\n]/g, " ")), `${label}: ${a.path}`).toBe(false);
    }
  }
  // The value comes back whole: where a replaced value left the YAML/JSON outputs, the new one arrived intact.
  const structured = (as: readonly Artifact[], s: string) =>
    as
      .filter((a) => isYaml(a.path) || a.path.endsWith(".json"))
      .flatMap((a) => strings(read(a)))
      .filter((x) => x === s).length;
  const replaced = slots.map((slot) =>
    slot.kind === "key"
      ? String(slot.path[slot.path.length - 1])
      : (slot.path.reduce<unknown>((v, k) => (v as Json)[k as string], base) as string),
  );
  if (value !== "" && replaced.some((o) => o !== value && structured(changed, o) < structured(gone, o)))
    expect(
      structured(changed, value),
      `${label}: ${replaced.join(", ")} left the YAML/JSON outputs, the new value did not arrive whole`,
    ).toBeGreaterThan(structured(gone, value));
}

const sha = (s: string) => createHash("sha256").update(s).digest("hex").slice(0, 16);

/** Distinct files of one kind across every accepted case, each with the first case that produced it. */
function distinct(
  accepted: readonly Accepted[],
  pick: (a: Artifact) => boolean,
): Map<string, { label: string; a: Artifact }> {
  const out = new Map<string, { label: string; a: Artifact }>();
  for (const c of accepted)
    for (const a of c.artifacts)
      if (pick(a) && !out.has(sha(a.content))) out.set(sha(a.content), { label: c.label, a });
  return out;
}

async function externalReaders(accepted: readonly Accepted[]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "cs-hostile-"));
  try {
    // PyYAML (cloud-init's reader): every distinct YAML file reads as the yaml library reads it in 1.1.
    const yamls = [...distinct(accepted, (a) => isYaml(a.path)).values()];
    writeFileSync(join(dir, "yaml.json"), JSON.stringify(yamls.map((y) => y.a.content)));
    const py = spawnSync(
      "python3",
      [
        "-c",
        `import json,sys,yaml,datetime
docs=json.load(open(sys.argv[1]))
def fix(o):
  if isinstance(o,(datetime.date,datetime.datetime)): return {"date": o.isoformat()}
  raise TypeError(repr(o))
print(json.dumps([list(yaml.safe_load_all(d)) for d in docs], default=fix))`,
        join(dir, "yaml.json"),
      ],
      { encoding: "utf8", maxBuffer: 1 << 30 },
    );
    expect(py.status, py.stderr).toBe(0);
    const pyDocs = JSON.parse(py.stdout) as unknown[];
    yamls.forEach((y, i) => {
      const mine = toJson(parseYamlDocuments(y.a.content)).map((d: unknown) => (d === undefined ? null : d));
      expect(toJson(pyDocs[i]), `${y.label}: ${y.a.path} reads differently in PyYAML`).toEqual(mine);
    });

    // Shell: bash -n, then sourced with set -u in an empty environment; nothing may run.
    const shells = [...distinct(accepted, (a) => isShell(a.path) || a.path.endsWith(".sh")).values()];
    const files = shells.map((s, i) => {
      const f = join(dir, `sh-${i}${s.a.path.endsWith(".sh") ? ".sh" : ""}`);
      writeFileSync(f, s.a.content);
      return f;
    });
    const work = join(dir, "cwd");
    mkdirSync(work);
    const script = `for f in "$@"; do bash -n "$f" || echo "SYNTAX $f"; done
for f in "$@"; do
  case "$f" in *.sh) continue ;; esac
  env -i PATH=/usr/bin:/bin bash --norc --noprofile -c 'set -u; . "$1"' _ "$f" >/dev/null 2>&1 || echo "SOURCE $f"
done`;
    const sh = spawnSync("bash", ["-c", script, "_", ...files], { encoding: "utf8", cwd: work });
    const failed = sh.stdout
      .split("\n")
      .filter(Boolean)
      .map((l) => {
        const i = files.indexOf(l.replace(/^\w+ /, ""));
        return `${l.split(" ")[0]} ${shells[i]?.label}: ${shells[i]?.a.path}`;
      });
    expect(failed).toEqual([]);
    expect(existsSync(join(work, "PWNED")), "a shell file ran a command").toBe(false);

    // keepalived -t on every distinct keepalived.conf, without stubs: the include and check script it names.
    if (!hasTool("keepalived") && !process.env.CI) return;
    const confs = [...distinct(accepted, (a) => a.path.endsWith("/keepalived.conf")).values()];
    const sets = confs.map((c) => {
      const case_ = accepted.find((x) => x.label === c.label) as Accepted;
      const node = c.a.path.split("/")[1] as string;
      return { ...c, files: case_.artifacts.filter((a) => a.path.startsWith(`nodes/${node}/etc/keepalived/`)) };
    });
    const results = await keepalivedBatch(
      sets.map((s) => s.files),
      dir,
    );
    // A script_user that is a valid name but no account here: keepalived -t can only say so (and drops the script).
    const noSuchUser = (conf: string) => {
      const user = /script_user (\S+)/.exec(conf)?.[1] ?? "root";
      return spawnSync("id", ["-u", user]).status !== 0;
    };
    const userNoise =
      /Error setting global script uid\/gid|Unable to set default user for vrrp script|track script chk_(apiserver|cilium|uplink) not found/;
    for (const [i, r] of results.entries())
      if (noSuchUser(sets[i]?.a.content ?? ""))
        results[i] = {
          status: r.status === 5 ? 0 : r.status,
          output: r.output
            .split("\n")
            .filter((l) => !userNoise.test(l))
            .join("\n"),
        };
    const bad = results.flatMap((r, i) =>
      r.status === 0 && r.output === "" ? [] : [`${sets[i]?.label}: ${r.status} ${r.output}`],
    );
    expect(bad).toEqual([]);
    expect(confs.length).toBeGreaterThan(3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Interfaces named in keepalived.conf (`interface X`, `dev X`). */
const interfacesIn = (conf: string) => [...conf.matchAll(/(?:^\s*interface|\bdev) (\S+)/gm)].map((m) => m[1] as string);

/**
 * keepalived -t for many configs in one network namespace and one private mount namespace: each config's
 * /etc/keepalived files (and notify stand-ins under /etc/keepalived) bind-mounted in turn.
 */
export async function keepalivedBatch(
  sets: readonly (readonly Pick<Artifact, "path" | "content" | "mode">[])[],
  scratch: string,
): Promise<{ status: number; output: string }[]> {
  const dirs = sets.map((files, i) => {
    const d = join(scratch, `ka-${i}`);
    mkdirSync(d, { recursive: true });
    chmodSync(d, 0o755);
    for (const f of files) {
      const rel = f.path.includes("/etc/keepalived/") ? f.path.slice(f.path.indexOf("/etc/keepalived/") + 16) : f.path;
      const target = join(d, rel);
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      writeFileSync(target, f.content);
      chmodSync(target, f.mode ?? 0o644);
    }
    const conf = files.find((f) => f.path.endsWith("/keepalived.conf"))?.content ?? "";
    for (const m of conf.matchAll(/notify_\w+ \/etc\/keepalived\/(\S+)/g)) {
      const target = join(d, m[1] as string);
      mkdirSync(dirname(target), { recursive: true, mode: 0o755 });
      writeFileSync(target, "#!/bin/sh\nexit 0\n");
      chmodSync(target, 0o755);
    }
    return d;
  });
  const ifaces = [
    ...new Set(
      sets.flatMap((files) => interfacesIn(files.find((f) => f.path.endsWith("/keepalived.conf"))?.content ?? "")),
    ),
  ];
  return withNetns(ifaces, (ns) => {
    const script = `for d in "$@"; do
  mount --bind "$d" /etc/keepalived || exit 99
  out=$(ip netns exec "${ns.name}" keepalived -t -f /etc/keepalived/keepalived.conf 2>&1); st=$?
  umount /etc/keepalived
  printf '%s\\0%s\\0' "$st" "$out"
done`;
    const r = run("unshare", ["-m", "--propagation", "private", "bash", "-c", script, "_", ...dirs]);
    const parts = r.stdout.split("\0");
    return dirs.map((_, i) => ({ status: Number(parts[2 * i] ?? -1), output: (parts[2 * i + 1] ?? "").trim() }));
  });
}
