import type { GeneratorModule } from "@clusterspec/core";
import { generateKeepalived } from "./generate.js";
import { summarizeKeepalived } from "./summary.js";

export { KEEPALIVED_TOKEN, keepalivedComment, keepalivedSecretToken, keepalivedToken, shellWord } from "./escape.js";
export { generateKeepalived } from "./generate.js";
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

export const keepalivedModule: GeneratorModule = {
  name: "keepalived",
  generate: generateKeepalived,
  summarize: summarizeKeepalived,
};
