// Derives data/cilium/<version>/template-keys.json: every values key path the Cilium chart's templates read, so the
// Cilium values check accepts keys that values.schema.json and values.yaml leave out (nodePort.directRoutingDevice,
// read by cilium-configmap.yaml through `hasKey .Values.nodePort "directRoutingDevice"`). Reads the released chart
// archive (github.com/cilium/charts, PROVENANCE.md) with the system tar; writes sorted dotted paths.
// It finds `.Values.a.b` (also `$.Values.a.b`), and `hasKey|index .Values.a "b" ["c" …]` with literal string keys;
// keys read through a variable (`{{ with .Values.a }}{{ .b }}`) are not found, so the list is a lower bound. Keys that
// only templates/validate.yaml reads are left out: it reads removed options (`tunnel`, `enableK8sEventHandover`) to
// fail the install with "… has been removed".
// Usage: node packages/schemas/scripts/derive-cilium-template-keys.mjs cilium-1.20.0.tgz 1.20.0
//        node packages/schemas/scripts/derive-cilium-template-keys.mjs cilium-1.20.0.tgz 1.20.0 --check
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every key path a template text reads from .Values. */
export function templateKeyPaths(text) {
  const out = new Set();
  const segment = /^[A-Za-z0-9_]+$/;
  // .Values.AsMap is Helm's method on the values, not a key
  for (const m of text.matchAll(/\$?\.Values((?:\.[A-Za-z0-9_]+)+)/g))
    if (!m[1].startsWith(".AsMap")) out.add(m[1].slice(1));
  // hasKey .Values.a "b" / index .Values.a "b" "c": literal string keys after the map
  for (const m of text.matchAll(/\b(?:hasKey|index)\s+\$?\.Values((?:\.[A-Za-z0-9_]+)*)((?:\s+"[^"]*")+)/g)) {
    const base = m[1] ? m[1].slice(1).split(".") : [];
    const keys = [...m[2].matchAll(/"([^"]*)"/g)].map((k) => k[1]);
    // hasKey takes one key; index walks all of them
    const path = [...base, ...(m[0].startsWith("hasKey") ? keys.slice(0, 1) : keys)];
    if (path.length > 0 && path.every((p) => segment.test(p))) out.add(path.join("."));
  }
  return out;
}

function files(dir) {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

function main() {
  const [archive, version, flag] = process.argv.slice(2);
  if (!archive || !version)
    throw new Error("usage: derive-cilium-template-keys.mjs <cilium-X.Y.Z.tgz> <X.Y.Z> [--check]");
  const bytes = readFileSync(archive);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const work = mkdtempSync(join(tmpdir(), "cilium-chart-"));
  try {
    execFileSync("tar", ["xzf", archive, "-C", work]);
    const chart = join(work, "cilium");
    const keys = new Set();
    const read = [...files(join(chart, "templates")), ...files(join(chart, "files"))]
      .filter((f) => relative(chart, f) !== join("templates", "validate.yaml"))
      .sort();
    for (const f of read) for (const k of templateKeyPaths(readFileSync(f, "utf8"))) keys.add(k);
    const out = {
      source: `${basename(archive)} (sha256 ${sha256}) from github.com/cilium/charts: templates/ and files/ but templates/validate.yaml (${read.length} files)`,
      derivedBy: "packages/schemas/scripts/derive-cilium-template-keys.mjs",
      keys: [...keys].sort(),
    };
    const target = join(root, "data", "cilium", version, "template-keys.json");
    const text = `${JSON.stringify(out, null, 2)}\n`;
    if (flag === "--check") {
      const same = readFileSync(target, "utf8") === text;
      console.log(same ? `${relative(root, target)} matches` : `${relative(root, target)} differs`);
      process.exitCode = same ? 0 : 1;
    } else {
      writeFileSync(target, text);
      console.log(`${relative(root, target)}: ${out.keys.length} key paths`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
