// WireGuard keys with node:crypto: X25519, base64 of the raw 32 bytes (what `wg genkey` / `wg pubkey` print).
import { createPrivateKey, createPublicKey, generateKeyPairSync } from "node:crypto";

/** PKCS#8 DER of an X25519 private key up to the 32 key bytes (RFC 8410). */
const PKCS8_X25519_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");
const fromUrl = (u: string) => Buffer.from(u, "base64url").toString("base64");

export function generateKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey } = generateKeyPairSync("x25519");
  const jwk = privateKey.export({ format: "jwk" });
  return { privateKey: fromUrl(jwk.d ?? ""), publicKey: fromUrl(jwk.x ?? "") };
}

/** `wg pubkey`: the public key of a base64 private key. */
export function publicKeyOf(privateKey: string): string {
  const raw = Buffer.from(privateKey, "base64");
  if (raw.length !== 32) throw new Error("a WireGuard private key is 32 bytes");
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, raw]), format: "der", type: "pkcs8" });
  const jwk = createPublicKey(key).export({ format: "jwk" });
  return fromUrl(jwk.x ?? "");
}

/** The PrivateKey of a wg-quick config's [Interface], if any. */
export function privateKeyOfConfig(config: string): string | undefined {
  return /^\s*PrivateKey\s*=\s*([A-Za-z0-9+/]{43}=)\s*$/m.exec(config)?.[1];
}
