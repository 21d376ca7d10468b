// `clusterspec help [<command>]`: the overview, or one command's page (the texts are in ../help.ts).
import { EXIT_OK, UsageError } from "../errors.js";
import { COMMAND_HELP, COMMANDS, type Command, USAGE } from "../help.js";
import { defineCommand } from "./command.js";

const isCommand = (c: string): c is Command => (COMMANDS as readonly string[]).includes(c);

export default defineCommand({
  name: "help",
  help: COMMAND_HELP.help,
  options: {},
  run({ args, io }) {
    if (args.length > 1) throw new UsageError("help takes at most one command");
    const topic = args[0];
    if (topic !== undefined && !isCommand(topic)) throw new UsageError(`unknown command ${topic}`);
    io.stdout(topic === undefined ? USAGE : COMMAND_HELP[topic]);
    return EXIT_OK;
  },
});
