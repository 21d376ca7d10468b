// Usage texts: one overview and one page per command (`clusterspec help <command>`, `<command> --help`).

export const COMMANDS = [
  "generate",
  "validate",
  "plan",
  "changes",
  "simulate",
  "pin-vrids",
  "explain",
  "schema",
  "help",
] as const;
export type Command = (typeof COMMANDS)[number];

export const USAGE = `clusterspec - one validated cluster spec in, every config file of the cluster out

Usage:
  clusterspec generate <spec> [-o <dir>] [--check [--base <old-spec>] [--format markdown]] [--with-secrets] [--force] [--json]
  clusterspec validate <spec> [--json]
  clusterspec plan <spec> [--json]
  clusterspec changes <old-spec> <new-spec> [--identities <file>] [--format text|markdown] [--json]
  clusterspec simulate <spec> [--down <nodes>] [--unhealthy <nodes>] [--json]
  clusterspec pin-vrids <spec> [--dry-run]
  clusterspec explain <spec> <file>[:<line>] [--json]
  clusterspec schema
  clusterspec help [<command>]
  clusterspec --help | --version

Commands:
  generate   render every file into <dir> (default: generated/ next to the spec);
             all files are rendered and checked in memory first; only changed files are
             written, all or nothing, and an unchanged folder is left untouched
  validate   check the spec and print its errors and warnings
  plan       print the human summary that generate also writes as PLAN.md
  changes    what a spec change does to each generated file, and the ordered steps that make it live
  simulate   print who holds each VIP, and each node's load, with nodes down or failing their check
  pin-vrids  write each VIP's current VRID into the spec (for specs that set externalVips.firstVrid
             or rely on list positions), so the cluster keeps its numbering
  explain    print the spec fields each line of a generated file depends on, with their lines
  schema     print the JSON Schema of the spec (for yaml-language-server)
  help       show the help of a command

<spec> is a YAML file, or - to read it from standard input.
--json prints one JSON document on stdout (docs/cli-json.md); exit codes stay the same.
Colour is used on a terminal; NO_COLOR turns it off, FORCE_COLOR on.

Exit codes: 0 ok, 1 drift (--check), 2 invalid input or usage.
`;

const SPEC = `  <spec>              the cluster spec (YAML); - reads it from standard input`;
const JSON_OPTION = `  --json              print one JSON document on stdout (docs/cli-json.md)`;
const EXIT = `Exit codes: 0 ok, 1 drift (--check), 2 invalid input or usage.`;

export const COMMAND_HELP: Readonly<Record<Command, string>> = {
  generate: `clusterspec generate - render every file of the cluster

Usage:
  clusterspec generate <spec> [-o <dir>] [--with-secrets] [--force] [--json]
  clusterspec generate <spec> [-o <dir>] --check [--base <old-spec>] [--format text|markdown|json]

Writes PLAN.md, one root-filesystem overlay per node, cluster and cloud files into <dir>. Everything is
rendered and checked in memory first; then only changed and new files are written and stale ones removed, all or
nothing (an interrupted write is finished on the next run), and an unchanged folder is left untouched.
One run writes a folder at a time: a second run on the same <dir> exits 2 naming the first (a lock beside
<dir> whose process is gone is taken over). -o at a symbolic link writes into its target.
<dir>/identities.json, when there, holds each VIP's priority order from the last run: generate and --check carry
the orders forward (a VIP keeps its master unless balance needs a move), and write the new ones there; a
malformed one, or a link there, is exit 2 with nothing written.

Options:
${SPEC}
  -o, --output <dir>  output folder (default: generated/ next to the spec; required with - as <spec>)
  --check             write nothing; exit 1 and print what differs if <dir> is not what generate would write
  --format <f>        with --check: text (unified diffs, default), markdown (a pull-request summary:
                      drifted files, PLAN.md changes first, then each file's diff folded) or json
  --base <old-spec>   with --check: add the change plan from <old-spec> to <spec> (clusterspec changes)
  --with-secrets      resolve secret references ({ env } / { file }) into the files (written 0600);
                      without it secrets render as placeholders, as in committed golden trees
  --force             overwrite files at generated paths that clusterspec did not write
${JSON_OPTION}

${EXIT}
`,
  validate: `clusterspec validate - check a spec

Usage:
  clusterspec validate <spec> [--json]

Prints each error and warning with its field path, file:line:column and the offending line; checks
everything generate checks, without writing anything.

Options:
${SPEC}
${JSON_OPTION}

${EXIT}
`,
  plan: `clusterspec plan - print the resolved plan

Usage:
  clusterspec plan <spec> [--json]

Prints PLAN.md (the human summary generate writes); with --json, the resolved plan itself.

Options:
${SPEC}
${JSON_OPTION}

${EXIT}
`,
  changes: `clusterspec changes - the change plan from one spec to another

Usage:
  clusterspec changes <old-spec> <new-spec> [--identities <file>] [--format text|markdown] [--json]

Generates both specs in memory (nothing is written) and prints the spec changes (path, old and new value,
the YAML line), each with the generated files and lines it changes; then the steps that make the change live
on the running cluster, in order, with the files to install and the exact commands for Gentoo/OpenRC, kubeadm,
kubectl, helm and terraform, the VIPs each step moves and the checks to pass between control planes; then the
changes that cannot be made in place, with their procedure. A change with no safe procedure (a new
control-plane endpoint, a Kubernetes downgrade) is refused: no steps, exit 2.

Options:
  <old-spec>          the spec the cluster runs today (e.g. git show origin/main:cluster.yaml > base.yaml)
  <new-spec>          the spec to roll out
  --identities <file> the VIP priority orders of the tree the cluster runs (its identities.json); default: the
                      generated/identities.json beside <old-spec>, if there is one. Both trees are generated from
                      them, so the new one carries them forward exactly as generate will.
  --format <f>        text (default), markdown (a pull-request review summary) or json
  --json              print one JSON document on stdout (docs/changes.schema.json)

Exit codes: 0 a plan, 2 a refused change, an invalid spec or usage.
`,
  simulate: `clusterspec simulate - who holds each VIP when nodes fail

Usage:
  clusterspec simulate <spec> [--down <nodes>] [--unhealthy <nodes>] [--json]

Starting from the cluster at rest, with the nodes of --down dead and the control-plane nodes of --unhealthy
failing their apiserver check, prints who holds each VIP (its effective priority, and whether it moved) and
each node's load, from the plan alone: the failover model behind PLAN.md's tables, which clusterspec's VRRP
lab checks against real keepalived.

Options:
${SPEC}
  --down <nodes>      nodes that are down, comma-separated (k8s-1,k8s-3)
  --unhealthy <nodes> control-plane nodes whose apiserver check fails, comma-separated
  --json              print the holders and loads as JSON (cluster, down, unhealthy, vips, nodes;
                      its own shape, not the versioned document of docs/cli-json.md)

${EXIT}
`,
  "pin-vrids": `clusterspec pin-vrids - keep a cluster's VRIDs when they start following the address

Usage:
  clusterspec pin-vrids <spec> [--dry-run]

A VIP's VRID is the last 8 bits of its address unless the spec gives one (\`vrid\`); it used to follow the VIP's
place in externalVips.addresses (from externalVips.firstVrid, now refused). This computes every VIP's VRID as the
old rule gave it and writes it into the spec: controlPlane.vrid, each address as { address, vrid }, and
firstVrid removed. Only those spans of the text change (comments and layout stay); the file is replaced at once
(a temporary file beside it, renamed over it) with its mode kept, and a symbolic link is refused. Running it
again changes nothing. A spec that is invalid with the pinned VRIDs is reported (exit 2) and nothing is written.

Options:
${SPEC}
  --dry-run           print the rewritten spec on stdout and what would be pinned on stderr; write nothing

${EXIT}
`,
  explain: `clusterspec explain - the spec fields behind each line of a generated file

Usage:
  clusterspec explain <spec> <file>[:<line>] [--json]

<file> is a path in the output folder (nodes/k8s-1/etc/keepalived/keepalived.conf); with :<line>, that line
alone. For each line, prints the spec fields it depends on with their place in <spec> (cluster.yaml:14), and
defaults as vrrp.basePriority (default 100). Measured, not declared: every field of the validated spec, defaults
and overlay patches included, is changed to other valid values and the file regenerated; a field is listed for
each line that changed. Optional fields the spec leaves out are added too, and listed as externalVips.replicas
(unset) where that changes the line (docs/explain.md says how, and what it cannot see). Nothing is written.

Options:
${SPEC}
  <file>[:<line>]     the generated file, relative to the output folder, and optionally one line of it
${JSON_OPTION}

${EXIT}
`,
  schema: `clusterspec schema - print the JSON Schema of the spec

Usage:
  clusterspec schema > cluster.schema.json

Point yaml-language-server at it: # yaml-language-server: $schema=./cluster.schema.json

${EXIT}
`,
  help: `clusterspec help - show help

Usage:
  clusterspec help [<command>]

Commands: generate, validate, plan, changes, simulate, pin-vrids, explain, schema, help.
`,
};
