export { ciliumModule, generateCilium, VALUES_PATH } from "./generate.js";
export { helmCommands, summarizeCilium } from "./summary.js";
export {
  type CiliumValues,
  ciliumMtu,
  ciliumValues,
  KERNEL_DEFAULT_MTU,
  mtuBudget,
  OVERLAY_OVERHEAD,
  podMtu,
} from "./values.js";
