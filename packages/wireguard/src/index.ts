export { clientConfig, PERSISTENT_KEEPALIVE, slotCidrs, tunnelSubnets } from "./config.js";
export { wireguardModule } from "./module.js";
