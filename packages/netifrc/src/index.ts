export { commentText, netifrcValue, token, variableName } from "./escape.js";
export { generateNetifrc, netifrcModule, summarizeNetifrc } from "./generate.js";
export { type RtTablesView, renderRtTables, toRtTablesView } from "./rt-tables.js";
export { renderConfdNet, ruleLine, variableLines } from "./template.js";
export {
  type NetifrcInterfaceView,
  type NetifrcView,
  type NetVariable,
  type PlannedRule,
  POD_RULE_PRIORITY,
  policyRouteLines,
  policyRules,
  toNetifrcView,
} from "./view.js";
