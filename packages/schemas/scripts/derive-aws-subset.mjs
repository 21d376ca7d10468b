// Adds resource types to data/aws-provider-subset-6.66.0.json (from @cdktn/provider-aws@25.7.0) or
// data/aws-provider-subset.json (from @cdktf/provider-aws@21.22.1) from those packages' generated bindings (PROVENANCE.md): for each type, the attributes and blocks its `synthesizeHclAttributes` lists, their types
// (storageClassType), and required (a config property without `?` in index.d.ts) or optional. Handles simple
// attributes, list/set/map of primitives and nested blocks (struct → single, list/set); nothing computed-only for a
// resource; a data source (data.<type>) gets its computed attributes too, a computed list of objects typed in full.
// Usage: npm pack @cdktn/provider-aws@25.7.0 && tar xzf cdktn-provider-aws-25.7.0.tgz
//        node packages/schemas/scripts/derive-aws-subset.mjs aws-provider-subset-6.66.0.json package aws_iam_policy ...
//        node packages/schemas/scripts/derive-aws-subset.mjs <file> package --check aws_iam_role   (compare with the stored entry)
//        node packages/schemas/scripts/derive-aws-subset.mjs <file> package data.aws_subnet   (a data source)
//        (the stored data sources: data.aws_subnet data.aws_ami data.aws_route_tables data.aws_route_table)
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const ADDR = "registry.terraform.io/hashicorp/aws";

const camel = (snake) => snake.replace(/_([a-z0-9])/g, (_, c) => c.toUpperCase());
const pascal = (s) => s[0].toUpperCase() + s.slice(1);

function primitive(storage) {
  const base = { string: "string", number: "number", boolean: "bool" };
  if (storage in base) return base[storage];
  throw new Error(`unknown storage class ${storage}`);
}

/** The properties of one interface of index.d.ts: name → optional. */
function interfaceProps(dts, name) {
  const start = dts.indexOf(`export interface ${name} `);
  if (start < 0) throw new Error(`no interface ${name}`);
  const body = dts.slice(start, dts.indexOf("\n}\n", start));
  const props = new Map();
  for (const m of body.matchAll(/^ {4}readonly (\w+)(\??):/gm)) props.set(m[1], m[2] === "?");
  return props;
}

/** The `const attrs = { ... }` entries after `marker` in index.js. */
function attrsAfter(js, marker) {
  const start = js.indexOf(marker);
  if (start < 0) throw new Error(`no ${marker}`);
  const from = js.indexOf("const attrs = {", start);
  // up to the comment after the object: a top-level function indents its closing brace by 4, a method by 8
  const body = js.slice(from, js.indexOf("// remove undefined attributes", from));
  const out = [];
  for (const m of body.matchAll(
    /(\w+): \{\s*value: ([^\n]*),\s*isBlock: (true|false),\s*type: "(\w+)",\s*storageClassType: "(\w+)",/g,
  ))
    out.push({ name: m[1], value: m[2], isBlock: m[3] === "true", type: m[4], storage: m[5] });
  return out;
}

function block(js, dts, marker, iface) {
  const props = interfaceProps(dts, iface);
  const attributes = {};
  const block_types = {};
  for (const a of attrsAfter(js, marker)) {
    const optional = props.get(camel(a.name));
    if (optional === undefined) throw new Error(`${iface}: no property ${camel(a.name)} for ${a.name}`);
    if (a.isBlock) {
      const fn = /(\w+)ToHclTerraform/.exec(a.value)?.[1];
      const nested = block(js, dts, `function ${fn}ToHclTerraform(struct)`, pascal(fn));
      const mode = a.type === "struct" ? "single" : a.type;
      block_types[a.name] = { nesting_mode: mode, block: nested, ...(optional ? {} : { min_items: 1 }) };
      if (a.type === "list" && !/List$/.test(a.storage)) block_types[a.name].max_items = 1;
      continue;
    }
    const type = a.type === "simple" ? primitive(a.storage) : [a.type, primitive(a.storage.replace(/(List|Map)$/, ""))];
    attributes[a.name] = { type, ...(optional ? { optional: true } : { required: true }) };
  }
  return {
    ...(Object.keys(attributes).length ? { attributes } : {}),
    ...(Object.keys(block_types).length ? { block_types } : {}),
  };
}

export function derive(pkgDir, type) {
  const dir = join(pkgDir, "lib", type.replace(/^aws_/, "").replaceAll("_", "-"));
  const js = readFileSync(join(dir, "index.js"), "utf8");
  const dts = readFileSync(join(dir, "index.d.ts"), "utf8");
  const cls = pascal(camel(type.replace(/^aws_/, "")));
  return { version: 0, block: block(js, dts, "synthesizeHclAttributes() {", `${cls}Config`) };
}

const GETTER_TYPES = {
  String: "string",
  Boolean: "bool",
  Number: "number",
  StringMap: ["map", "string"],
  List: ["list", "string"],
  NumberList: ["list", "number"],
};

/**
 * The type of the attribute a getter reads, from the getter (or cdktf's constructor initializer) below its comment:
 * `get<Kind>Attribute('<name>')` a primitive, list or map; `new cdktn.StringMap(this, '<name>')` a map of strings;
 * `new <X>List(this, "<name>", <wrapsSet>)` a list (or set) of objects whose attributes the class
 * `<X>OutputReference` lists the same way. Anything else is `dynamic`, which the bindings do not spell out.
 */
function getterType(js, owner, name, getter) {
  const kind = /this\.get(\w+?)Attribute\('(\w+)'\)/.exec(getter);
  if (kind) {
    if (kind[2] !== name) throw new Error(`${owner}: getter of ${name} reads ${kind[2]}`);
    const t = GETTER_TYPES[kind[1]];
    if (t === undefined) throw new Error(`${owner}: unknown getter kind ${kind[1]} of ${name}`);
    return t;
  }
  const map = /new cdkt[nf]\.StringMap\(this, "(\w+)"\)/.exec(getter);
  if (map && map[1] === name) return ["map", "string"];
  const list = /new (\w+)List\(this, "(\w+)", (true|false)\)/.exec(getter);
  if (list && list[2] === name) {
    const cls = `${list[1]}OutputReference`;
    const start = js.indexOf(`class ${cls} extends`);
    if (start < 0) throw new Error(`${owner}: no class ${cls} for ${name}`);
    const attributes = {};
    for (const a of computedComments(js.slice(start, js.indexOf("\nexports.", start))))
      attributes[a.name] = getterType(js, cls, a.name, a.getter);
    return [list[3] === "true" ? "set" : "list", ["object", attributes]];
  }
  return "dynamic";
}

/** The `// <name> - computed: …` comments of a class body, each with the three lines after it. */
function computedComments(body) {
  return [
    ...body.matchAll(
      // the getter follows its comment (cdktf puts a complex attribute's comment on its constructor initializer)
      /^ +\/\/ (\w+) - computed: (true|false), optional: (true|false), required: (true|false)\n(?=((?:[^\n]*\n){3}))/gm,
    ),
  ].map(([, name, computed, , , getter]) => ({ name, computed: computed === "true", getter }));
}

/**
 * A data source (`data_source_schemas`): lib/data-aws-<name>/, class DataAws<Name>. Besides the configurable
 * attributes and blocks (as for resources), the attributes a data source only reads (what `self.<name>` in a
 * postcondition may use) with `computed: true`: the bindings mark each attribute of the class with a comment
 * `// <name> - computed: <bool>, optional: <bool>, required: <bool>` above its getter, which gives its type
 * (getterType: a computed list of objects, like aws_route_table's `routes`, with each object's attributes).
 */
export function deriveDataSource(pkgDir, type) {
  const dir = join(pkgDir, "lib", `data-${type.replaceAll("_", "-")}`);
  const js = readFileSync(join(dir, "index.js"), "utf8");
  const dts = readFileSync(join(dir, "index.d.ts"), "utf8");
  const cls = pascal(camel(`data_${type}`));
  const derived = block(js, dts, "synthesizeHclAttributes() {", `${cls}Config`);
  // cdktn (CDK Terrain) or cdktf bindings
  const start = js.search(new RegExp(`class ${cls} extends cdkt[nf]\\.TerraformDataSource`));
  if (start < 0) throw new Error(`no class ${cls}`);
  const body = js.slice(start, js.indexOf("synthesizeAttributes() {", start));
  const attributes = { ...(derived.attributes ?? {}) };
  for (const { name, computed, getter } of computedComments(body)) {
    if (!computed || derived.block_types?.[name]) continue;
    if (attributes[name]) {
      attributes[name] = { ...attributes[name], computed: true };
      continue;
    }
    attributes[name] = { type: getterType(js, type, name, getter), computed: true };
  }
  return { version: 0, block: { ...derived, attributes } };
}

const sorted = (v) =>
  Array.isArray(v)
    ? v.map(sorted)
    : v && typeof v === "object"
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, sorted(v[k])]),
        )
      : v;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [subsetFile, pkgDir, ...rest] = process.argv.slice(2);
  const subsetPath = join(root, "data", subsetFile);
  const check = rest[0] === "--check";
  const types = check ? rest.slice(1) : rest;
  const subset = JSON.parse(readFileSync(subsetPath, "utf8"));
  const provider = subset.provider_schemas[ADDR];
  let failed = false;
  for (const name of types) {
    // data.aws_subnet: a data source (data_source_schemas), otherwise a resource type
    const type = name.replace(/^data\./, "");
    const isData = name !== type;
    if (isData) provider.data_source_schemas ??= {};
    const resources = isData ? provider.data_source_schemas : provider.resource_schemas;
    const derived = isData ? deriveDataSource(pkgDir, type) : derive(pkgDir, type);
    if (check) {
      const same = JSON.stringify(sorted(derived)) === JSON.stringify(sorted(resources[type]));
      console.log(`${type}: ${same ? "same as stored" : "DIFFERS"}`);
      if (!same) {
        failed = true;
        console.log(JSON.stringify(sorted(derived)), "\n", JSON.stringify(sorted(resources[type])));
      }
    } else resources[type] = sorted(derived);
  }
  // the stored file's layout: one-space indent, types in the order they were added
  if (!check) writeFileSync(subsetPath, `${JSON.stringify(subset, null, 1)}\n`);
  process.exitCode = failed ? 1 : 0;
}
