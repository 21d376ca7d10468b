export { clientConfig, PERSISTENT_KEEPALIVE } from "./config.js";
export { wireguardModule } from "./module.js";
