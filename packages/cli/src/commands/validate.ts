// `clusterspec validate <spec> [--json]`: everything generate checks, nothing written.
import { EXIT_OK } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand, JSON_OPTION } from "./command.js";
import { checkSpec, formatOf, oneSpec, runOnSpec } from "./on-spec.js";

export default defineCommand({
  name: "validate",
  help: COMMAND_HELP.validate,
  options: JSON_OPTION,
  run({ args, values, io, fs }) {
    const specArg = oneSpec(args);
    const format = formatOf(values, false);
    return runOnSpec("validate", specArg, format, io, fs, async (spec) => {
      const checked = await checkSpec(spec, spec.readSpec());
      if (!checked.ok) return checked.code;
      const { warnings, omitted } = checked;
      if (format === "json") await spec.json({ ok: true, errors: [], warnings, ...omitted });
      else io.stdout(`${spec.out.green("✔")} ${spec.display} is valid\n`);
      return EXIT_OK;
    });
  },
});
