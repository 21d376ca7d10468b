// The command line, minus the process: argv in, exit code out. main.ts owns process.* (citty runMain/runCommand split).
// This file only parses the command line and routes it to the command's module (commands/).
import { parseArgs } from "node:util";
// Only what every run needs is imported here: --help and --version load nothing else. The command modules import
// core, the generators and the writer inside their run functions, and `diff` only for --check.
import type { CommandDef, OptionDefs } from "./commands/command.js";
import { COMMAND_LIST } from "./commands/index.js";
import { EXIT_INTERNAL, EXIT_INVALID, EXIT_OK, UsageError } from "./errors.js";
import { nodeFileSystem } from "./fs.js";
import { USAGE } from "./help.js";
import type { CliIO } from "./io.js";
import { Redaction } from "./redact.js";

export { USAGE } from "./help.js";
export type { CliIO } from "./io.js";

/** Every command's options (one parse for all: an option of another command is named as such), --help, --version. */
const OPTIONS: OptionDefs = Object.assign({}, ...COMMAND_LIST.map((c) => c.options), {
  help: { type: "boolean", short: "h" },
  version: { type: "boolean", short: "v" },
});

function parse(argv: readonly string[]) {
  return parseArgs({
    args: [...argv],
    allowPositionals: true,
    strict: true,
    options: OPTIONS,
  });
}

const commandNamed = (c: string | undefined): CommandDef | undefined => COMMAND_LIST.find((d) => d.name === c);

export async function runCli(argv: readonly string[], given: CliIO): Promise<number> {
  // Every byte printed goes through the one redaction that knows the secrets this run resolved (redact.ts).
  const redaction = given.redaction ?? new Redaction();
  const io: CliIO = {
    ...given,
    redaction,
    stdout: (text) => given.stdout(redaction.apply(text)),
    stderr: (text) => given.stderr(redaction.apply(text)),
  };
  try {
    return await dispatch(argv, io);
  } catch (e) {
    // A bug, not bad input: the stack is shown so it can be reported, redacted like everything else. The exit code
    // is 2, as for any run that stopped without doing its work: exit codes are 0, 1 (drift) and 2 only.
    const stack = await (io.stackOf ?? (async (x: unknown) => (x as Error)?.stack ?? String(x)))(e);
    io.stderr(
      `clusterspec: internal error${(e as Error)?.name === "InternalError" ? "" : " (unexpected)"}, please report it:\n${stack}\n`,
    );
    return EXIT_INTERNAL;
  }
}

async function dispatch(argv: readonly string[], io: CliIO): Promise<number> {
  const fs = io.fs ?? nodeFileSystem;
  const named = argv.find((a) => !a.startsWith("-"));
  const usage = (message: string) => {
    io.stderr(`clusterspec: ${message}\n\n${commandNamed(named)?.help ?? USAGE}`);
    return EXIT_INVALID;
  };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  const [name, ...rest] = positionals;
  if (values.version && name === undefined) {
    io.stdout(`${io.version}\n`);
    return EXIT_OK;
  }
  const command = commandNamed(name);
  if (name !== undefined && command === undefined) {
    const { didYouMean } = await import("@clusterspec/core");
    const hint = didYouMean(
      name,
      COMMAND_LIST.map((c) => c.name),
    );
    return usage(`unknown command ${name}${hint ? ` (did you mean ${hint}?)` : ""}`);
  }
  if (values.help) {
    io.stdout(command === undefined ? USAGE : command.help);
    return EXIT_OK;
  }
  if (command === undefined) {
    io.stderr(USAGE);
    return EXIT_INVALID;
  }
  const extra = Object.keys(values).filter((k) => !Object.hasOwn(command.options, k));
  if (extra.length > 0) return usage(`${command.name} does not take --${extra.join(", --")}`);
  try {
    return await command.run({ args: rest, values, io, fs });
  } catch (e) {
    if (e instanceof UsageError) return usage(e.message);
    throw e;
  }
}
