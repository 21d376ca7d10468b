// The one catalog of problem codes: what each means and the exit code a run that fails with it ends with.
// `SpecIssue.code` is typed from it, the CLI's failures (`CliError.kind`) too, and docs/cli-json.md's list and
// docs/cli-json.schema.json's enum are checked against it (packages/core/test/error-catalog.test.ts).

/** The CLI's exit codes: 0, 1 and 2 only (CI scripts and the golden-review workflow tell drift from "stopped"). */
export const EXIT_OK = 0;
/** `generate --check` found drift. */
export const EXIT_DRIFT = 1;
/** Invalid input or usage: every code of the catalog. */
export const EXIT_INVALID = 2;
/**
 * A bug in clusterspec (an uncaught exception, an InternalError): 2 as for any run that stopped without doing its
 * work (nothing written, nothing compared), told apart by its message ("clusterspec: internal error") and stack.
 * Not sysexits' 70: a script that branches on 1 (drift) and 2 would take 70 for neither.
 */
export const EXIT_INTERNAL = 2;

export type ExitCode = typeof EXIT_OK | typeof EXIT_DRIFT | typeof EXIT_INVALID | typeof EXIT_INTERNAL;

export interface CatalogEntry {
  /** `spec`: a problem of the spec (it has a path into it); `run`: a failure outside the spec (an empty path). */
  readonly scope: "spec" | "run";
  /** One line for docs/cli-json.md. */
  readonly meaning: string;
  /** The exit code of a run that fails with this code as an error. */
  readonly exit: ExitCode;
}

/** Every code a SpecIssue or a `--json` error may carry, in the order the docs list them. */
export const ERROR_CATALOG = {
  yaml_syntax: { scope: "spec", exit: EXIT_INVALID, meaning: "the text is not valid YAML" },
  yaml_duplicate_key: { scope: "spec", exit: EXIT_INVALID, meaning: "a key appears twice in one mapping" },
  yaml_key_not_string: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a mapping key that is not a string (a number, a list, a mapping, null, an alias to one)",
  },
  empty_spec: { scope: "spec", exit: EXIT_INVALID, meaning: "the spec is empty" },
  missing_key: { scope: "spec", exit: EXIT_INVALID, meaning: "a required key is missing" },
  unknown_key: { scope: "spec", exit: EXIT_INVALID, meaning: "a key the schema does not know (with a suggestion)" },
  removed_key: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a key clusterspec no longer reads: the message says what replaces it and how to migrate",
  },
  invalid_type: { scope: "spec", exit: EXIT_INVALID, meaning: "a value of the wrong type" },
  invalid_value: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a value the schema refuses (not one of the allowed values, an unsupported version, a refinement)",
  },
  invalid_format: { scope: "spec", exit: EXIT_INVALID, meaning: "a string not of its format (an IP, a CIDR, a name)" },
  invalid_key: { scope: "spec", exit: EXIT_INVALID, meaning: "a key not of the form its mapping requires" },
  out_of_range: { scope: "spec", exit: EXIT_INVALID, meaning: "a number, string or list too small or too large" },
  reference_cycle: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a value that contains itself (a YAML alias inside the node its anchor marks): validation stops there",
  },
  rule: { scope: "spec", exit: EXIT_INVALID, meaning: "a cross-field rule" },
  secret: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a secret reference that cannot be resolved or whose value has the wrong shape (`--with-secrets`)",
  },
  overlay: { scope: "spec", exit: EXIT_INVALID, meaning: "an overlay that does not apply to the generated files" },
  upstream_schema: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning:
      "a generated file with free-form content (overlays, `cilium.values`, `kubernetes.kubelet`) fails its upstream schema",
  },
  output_limit: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "a limit of a target that only shows once the output exists (EC2's 16 KiB of user data)",
  },
  change_not_in_place: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning:
      "a spec change `clusterspec changes` cannot make on the running cluster (pod or service network, cluster name, a Kubernetes upgrade, a VRID swap, a node's address or role): reported with its procedure as a warning, the plan is still given",
  },
  change_refused: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning:
      "a spec change with no safe procedure (the control-plane endpoint, a Kubernetes downgrade or skipped minor, a new node as the init node): `changes` prints no steps",
  },
  filesystem: {
    scope: "run",
    exit: EXIT_INVALID,
    meaning: "a file or folder that cannot be read or written (said in words)",
  },
  missing_output: { scope: "run", exit: EXIT_INVALID, meaning: "`--check` on a folder that does not exist" },
  refused: {
    scope: "run",
    exit: EXIT_INVALID,
    meaning:
      "an entry clusterspec did not write stands where a generated file goes, or a file it reads back beside the output (journal, stage, lock, manifest, record) cannot be proven its own",
  },
  locked: { scope: "run", exit: EXIT_INVALID, meaning: "another run is writing the folder" },
  identities: {
    scope: "run",
    exit: EXIT_INVALID,
    meaning:
      "the output folder's identities.json (the VIP priority orders carried forward) is not what clusterspec writes: the message names the file and the field",
  },
  usage: { scope: "run", exit: EXIT_INVALID, meaning: "the command line cannot be run as given (no standard input)" },
  cli: { scope: "run", exit: EXIT_INVALID, meaning: "any other failure of the command (an unknown node name)" },
  too_deep: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning: "mappings and lists nested deeper than 64 (docs/input-limits.md): nothing else is checked",
  },
  not_plain_data: {
    scope: "spec",
    exit: EXIT_INVALID,
    meaning:
      "a library input value that YAML cannot hold (a Date, a Map, a class instance, undefined, a function, a getter)",
  },
} as const satisfies Readonly<Record<string, CatalogEntry>>;

/** Every code of the catalog. */
export type IssueCode = keyof typeof ERROR_CATALOG;
/** The codes of problems in the spec: `SpecIssue.code`. */
export type SpecIssueCode = {
  [K in IssueCode]: (typeof ERROR_CATALOG)[K]["scope"] extends "spec" ? K : never;
}[IssueCode];
/** The codes of failures outside the spec: the CLI's `CliError.kind`. */
export type FailureCode = Exclude<IssueCode, SpecIssueCode>;

export const ISSUE_CODES = Object.keys(ERROR_CATALOG) as readonly IssueCode[];

export const isIssueCode = (code: unknown): code is IssueCode =>
  typeof code === "string" && Object.hasOwn(ERROR_CATALOG, code);

/** The exit code of a run that fails with `code`. */
export const exitCodeOf = (code: IssueCode): ExitCode => ERROR_CATALOG[code].exit;

/** The tables of codes in docs/cli-json.md (between its `codes` markers), rendered from the catalog, padded as biome formats them. */
export function renderCodeTable(): string {
  const table = (scope: CatalogEntry["scope"]) => {
    const rows = ISSUE_CODES.filter((c) => ERROR_CATALOG[c].scope === scope).map((c) => {
      const e: CatalogEntry = ERROR_CATALOG[c];
      return [`\`${c}\``, e.meaning, String(e.exit)];
    });
    const header = ["code", "meaning", "exit"];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
    const line = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(" | ")} |`;
    return [line(header), line(widths.map((w) => "-".repeat(w))), ...rows.map(line)];
  };
  return [...table("spec"), "", "Failures outside the spec (an empty `path`):", "", ...table("run")].join("\n");
}
