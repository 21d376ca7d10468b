export { commentText, netifrcValue, token, variableName } from "./escape.js";
export { generateNetifrc, netifrcModule } from "./generate.js";
export { summarizeNetifrc } from "./summary.js";
export { renderConfdNet, renderRtTables, ruleLine, variableLines } from "./template.js";
export {
  type NetifrcInterfaceView,
  type NetifrcView,
  type NetVariable,
  type PlannedRule,
  POD_RULE_PRIORITY,
  policyRouteLines,
  policyRules,
  type RtTablesView,
  rtTablesPath,
  toNetifrcView,
  toRtTablesViews,
} from "./view.js";
