export { KEEPALIVED_TOKEN, keepalivedComment, keepalivedSecretToken, keepalivedToken, shellWord } from "./escape.js";
export { generateKeepalived, keepalivedModule } from "./generate.js";
export { poolLoads, summarizeKeepalived } from "./summary.js";
export { authConfSource, checkScriptSource, keepalivedConfSource, renderKeepalivedConf } from "./template.js";
export {
  AUTH_FILE,
  CHECK_SCRIPT,
  CHECK_SCRIPT_NAME,
  type InstanceView,
  instanceName,
  type KeepalivedView,
  toKeepalivedView,
  vipsOf,
} from "./view.js";
