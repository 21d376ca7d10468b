// The shape of a command (citty's defineCommand, without the dependency): its name, its help page, the options it
// takes besides --help, and its run function. A command module imports only what every run needs at its top:
// the dispatcher loads them all, so core, the generators and the writer are imported inside `run`.
import type { FileSystem } from "../fs.js";
import type { Command } from "../help.js";
import type { CliIO } from "../io.js";

/** One option as node:util's parseArgs reads it. */
export interface OptionDef {
  readonly type: "string" | "boolean";
  readonly short?: string;
}

export type OptionDefs = Readonly<Record<string, OptionDef>>;

/** What parseArgs gives for `O`: a string or a boolean per option, absent when not given (no defaults). */
export type OptionValues<O extends OptionDefs> = {
  readonly [K in keyof O]?: O[K]["type"] extends "boolean"
    ? boolean
    : O[K]["type"] extends "string"
      ? string
      : string | boolean;
};

export interface CommandContext<O extends OptionDefs> {
  /** The positionals after the command's name. */
  readonly args: readonly string[];
  /** The options given, each one of the command's own. */
  readonly values: OptionValues<O>;
  readonly io: CliIO;
  readonly fs: FileSystem;
}

export interface CommandDef<O extends OptionDefs = OptionDefs> {
  /** One of help.ts's COMMANDS: a command is documented before it is routed. */
  readonly name: Command;
  /** `clusterspec <name> --help` and `clusterspec help <name>` (help.ts). */
  readonly help: string;
  /** The options the command takes besides --help: any other is refused with its help page. */
  readonly options: O;
  /** The exit code; a UsageError is printed with the help page, exit 2. */
  run(context: CommandContext<O>): Promise<number> | number;
}

export const defineCommand = <const O extends OptionDefs>(def: CommandDef<O>): CommandDef<O> => def;

/** --json, the one option every command that reads a spec shares. */
export const JSON_OPTION = { json: { type: "boolean" } } as const satisfies OptionDefs;
