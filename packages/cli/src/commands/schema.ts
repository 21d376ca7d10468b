// `clusterspec schema`: the spec's JSON Schema, for yaml-language-server.
import { EXIT_OK, UsageError } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand } from "./command.js";

export default defineCommand({
  name: "schema",
  help: COMMAND_HELP.schema,
  options: {},
  async run({ args, io }) {
    if (args.length > 0) throw new UsageError("schema takes no arguments");
    io.stdout(`${JSON.stringify((await import("@clusterspec/core")).specJsonSchema(), null, 2)}\n`);
    return EXIT_OK;
  },
});
