export { ciliumModule, generateCilium, helmCommands, summarizeCilium, VALUES_PATH } from "./generate.js";
export { type CiliumValues, ciliumMtu, ciliumValues, OVERLAY_OVERHEAD, podMtu } from "./values.js";
