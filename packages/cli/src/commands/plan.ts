// `clusterspec plan <spec> [--json]`: PLAN.md, or the resolved plan itself as JSON.
import { EXIT_OK } from "../errors.js";
import { COMMAND_HELP } from "../help.js";
import { defineCommand, JSON_OPTION } from "./command.js";
import { checkSpec, formatOf, oneSpec, runOnSpec } from "./on-spec.js";

export default defineCommand({
  name: "plan",
  help: COMMAND_HELP.plan,
  options: JSON_OPTION,
  run({ args, values, io, fs }) {
    const specArg = oneSpec(args);
    const format = formatOf(values, false);
    return runOnSpec("plan", specArg, format, io, fs, async (spec) => {
      const checked = await checkSpec(spec, spec.readSpec());
      if (!checked.ok) return checked.code;
      const { result, warnings, omitted, output } = checked;
      if (format === "json") await spec.json({ ok: true, plan: output.planJson(result.plan), warnings, ...omitted });
      else io.stdout(result.artifacts.find((a) => a.path === "PLAN.md")?.content ?? "");
      return EXIT_OK;
    });
  },
});
