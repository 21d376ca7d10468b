// `clusterspec simulate <spec> [--down <nodes>] [--unhealthy <nodes>] [--json]`: the failover model (../simulate.ts).
import { resolve } from "node:path";
import { UsageError } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand, JSON_OPTION } from "./command.js";

export default defineCommand({
  name: "simulate",
  help: COMMAND_HELP.simulate,
  options: { down: { type: "string" }, unhealthy: { type: "string" }, ...JSON_OPTION },
  async run({ args, values, io, fs }) {
    if (args.length !== 1 || args[0] === "-") throw new UsageError("expected exactly one spec file");
    return (await import("../simulate.js")).runSimulate(resolve(io.cwd, args[0] ?? ""), values, io, fs);
  },
});
