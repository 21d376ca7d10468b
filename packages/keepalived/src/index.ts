export { KEEPALIVED_TOKEN, keepalivedComment, keepalivedSecretToken, keepalivedToken, shellWord } from "./escape.js";
export { generateKeepalived, keepalivedModule } from "./generate.js";
export { poolLoads, summarizeKeepalived } from "./summary.js";
export {
  authConfSource,
  checkScriptSource,
  keepalivedConfSource,
  openrcConfSource,
  readinessScriptSource,
  renderKeepalivedConf,
  uplinkScriptSource,
} from "./template.js";
export {
  AUTH_FILE,
  CHECK_SCRIPT,
  CHECK_SCRIPT_NAME,
  CILIUM_HEALTH_PORT,
  ciliumHealthPort,
  type InstanceView,
  instanceName,
  type KeepalivedView,
  OPENRC_CONF,
  READINESS_SCRIPT,
  READINESS_SCRIPT_NAME,
  toKeepalivedView,
  UPLINK_SCRIPT,
  UPLINK_SCRIPT_NAME,
  vipsOf,
} from "./view.js";
