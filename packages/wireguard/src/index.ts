export {
  clientConfig,
  generateWireguard,
  hubConfig,
  PEER_SECRETS_PATH,
  PERSISTENT_KEEPALIVE,
  peerSecrets,
  summarizeWireguard,
  wireguardModule,
} from "./generate.js";
export { type IniSection, renderWireguardConfig } from "./ini-file.js";
