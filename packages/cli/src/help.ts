// Usage texts: one overview and one page per command (`clusterspec help <command>`, `<command> --help`).

export const COMMANDS = ["generate", "validate", "plan", "simulate", "schema", "help"] as const;
export type Command = (typeof COMMANDS)[number];

export const USAGE = `clusterspec - one validated cluster spec in, every config file of the cluster out

Usage:
  clusterspec generate <spec> [-o <dir>] [--check [--format markdown]] [--with-secrets] [--force] [--json]
  clusterspec validate <spec> [--json]
  clusterspec plan <spec> [--json]
  clusterspec simulate <spec> [--down <nodes>] [--unhealthy <nodes>] [--json]
  clusterspec schema
  clusterspec help [<command>]
  clusterspec --help | --version

Commands:
  generate   render every file into <dir> (default: generated/ next to the spec);
             all files are rendered and checked in memory first; only changed files are
             written, all or nothing, and an unchanged folder is left untouched
  validate   check the spec and print its errors and warnings
  plan       print the human summary that generate also writes as PLAN.md
  simulate   print who holds each VIP, and each node's load, with nodes down or failing their check
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
  clusterspec generate <spec> [-o <dir>] --check [--format text|markdown|json]

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
  schema: `clusterspec schema - print the JSON Schema of the spec

Usage:
  clusterspec schema > cluster.schema.json

Point yaml-language-server at it: # yaml-language-server: $schema=./cluster.schema.json

${EXIT}
`,
  help: `clusterspec help - show help

Usage:
  clusterspec help [<command>]

Commands: generate, validate, plan, simulate, schema, help.
`,
};
