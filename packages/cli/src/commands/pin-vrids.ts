// `clusterspec pin-vrids <spec> [--dry-run]`: writes each VIP's current VRID into the spec (../pin-vrids.ts).
import { UsageError } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand } from "./command.js";
import { oneSpec, runOnSpec } from "./on-spec.js";

export default defineCommand({
  name: "pin-vrids",
  help: COMMAND_HELP["pin-vrids"],
  options: { "dry-run": { type: "boolean" } },
  run({ args, values, io, fs }) {
    const specArg = oneSpec(args);
    const dryRun = values["dry-run"] === true;
    if (specArg === "-" && !dryRun)
      throw new UsageError("pin-vrids rewrites a spec file: give its path, or add --dry-run");
    // Text only: the JSON command name is never printed.
    return runOnSpec("validate", specArg, "text", io, fs, async (spec) =>
      (await import("../pin-vrids.js")).runPinVrids(spec, dryRun),
    );
  },
});
