export {
  type IdentityVerifier,
  OpensslIdentityVerifier,
  PINNED_CERTIFICATES,
  pinnedCertificate,
  pkcs7Pem,
} from "./identity.js";
export { generateKeyPair, privateKeyOfConfig, publicKeyOf } from "./keys.js";
export * from "./ports.js";
export {
  ANNOTATIONS,
  type Dependencies,
  type GetRequest,
  type Kind,
  Provisioner,
  type ReconcileReport,
  type Reply,
  type SyncOutcome,
} from "./service.js";
export {
  type Settings,
  SettingsError,
  settingsFrom,
  topicName,
} from "./settings.js";
export {
  type CertificateFetcher,
  cachingFetcher,
  parseSnsMessage,
  type SnsMessage,
  snsUrlOk,
  stringToSign,
  verifySnsMessage,
} from "./sns.js";
