// The command list the dispatcher routes by: a new command is one module in this folder and one line here (its
// help pages are in ../help.ts; test/commands.test.ts checks that the three agree).
import changes from "./changes.js";
import type { CommandDef } from "./command.js";
import explain from "./explain.js";
import generate from "./generate.js";
import help from "./help.js";
import pinVrids from "./pin-vrids.js";
import plan from "./plan.js";
import schema from "./schema.js";
import simulate from "./simulate.js";
import validate from "./validate.js";

export const COMMAND_LIST: readonly CommandDef[] = [
  generate,
  validate,
  plan,
  changes,
  simulate,
  pinVrids,
  explain,
  schema,
  help,
];
