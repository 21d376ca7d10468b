// SNS message authentication, as AWS documents it ("Verifying the signatures of Amazon SNS messages"): the
// signing certificate is fetched only from an `https://sns.<region>.amazonaws.com/…pem` URL, the string to sign is
// the message's fields in the documented order (one `Name\nvalue\n` pair each), and SignatureVersion 2 is
// SHA256withRSA (the generated topic sets signature_version = 2; version 1, SHA1, is refused).
import { createVerify, X509Certificate } from "node:crypto";

export interface SnsMessage {
  readonly Type: string;
  readonly MessageId: string;
  readonly TopicArn: string;
  readonly Subject?: string;
  readonly Message: string;
  readonly Timestamp: string;
  readonly SignatureVersion: string;
  readonly Signature: string;
  readonly SigningCertURL: string;
  readonly SubscribeURL?: string;
  readonly Token?: string;
  readonly UnsubscribeURL?: string;
}

/** Fetches (and may cache) a signing certificate; only called with a URL that passed signingCertUrlOk. */
export type CertificateFetcher = (url: string) => Promise<string>;

const NOTIFICATION_FIELDS = ["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] as const;
const CONFIRMATION_FIELDS = ["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"] as const;

/** The string SNS signs: the type's fields in order, `Name\nvalue\n` each; Subject only when present. */
export function stringToSign(m: SnsMessage): string {
  const fields = m.Type === "Notification" ? NOTIFICATION_FIELDS : CONFIRMATION_FIELDS;
  let out = "";
  for (const f of fields) {
    const v = m[f];
    if (v === undefined) {
      if (f === "Subject") continue;
      throw new Error(`${f} is missing`);
    }
    out += `${f}\n${v}\n`;
  }
  return out;
}

/** An HTTPS URL on the region's SNS host, ending in .pem (no user info, no port). */
export function snsUrlOk(url: string, region: string, pem: boolean): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  const host = region.startsWith("cn-") ? `sns.${region}.amazonaws.com.cn` : `sns.${region}.amazonaws.com`;
  return (
    u.protocol === "https:" &&
    u.hostname === host &&
    u.port === "" &&
    u.username === "" &&
    u.password === "" &&
    (!pem || u.pathname.endsWith(".pem"))
  );
}

const REQUIRED = [
  "Type",
  "MessageId",
  "TopicArn",
  "Message",
  "Timestamp",
  "SignatureVersion",
  "Signature",
  "SigningCertURL",
];

/** The message's JSON, or a reason it is not an SNS message. */
export function parseSnsMessage(body: string): SnsMessage | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return "the body is not JSON";
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) return "the body is not a JSON object";
  const o = json as Record<string, unknown>;
  for (const k of REQUIRED) if (typeof o[k] !== "string") return `${k} is missing`;
  for (const k of ["Subject", "SubscribeURL", "Token", "UnsubscribeURL"])
    if (o[k] !== undefined && o[k] !== null && typeof o[k] !== "string") return `${k} is not a string`;
  // SNS sends "Subject": null when there is none; the string to sign leaves it out
  if (o.Subject === null) delete o.Subject;
  return o as unknown as SnsMessage;
}

export type SnsCheck = { ok: true } | { ok: false; retry: boolean; reason: string };

/** Signature version, topic, certificate URL and signature: every check AWS documents. */
export async function verifySnsMessage(
  m: SnsMessage,
  expected: { topicArn: string; region: string },
  fetchCertificate: CertificateFetcher,
): Promise<SnsCheck> {
  if (m.SignatureVersion !== "2")
    return { ok: false, retry: false, reason: `SignatureVersion ${m.SignatureVersion}, not 2` };
  if (m.TopicArn !== expected.topicArn) return { ok: false, retry: false, reason: `topic ${m.TopicArn} is not ours` };
  if (!snsUrlOk(m.SigningCertURL, expected.region, true))
    return { ok: false, retry: false, reason: `SigningCertURL ${m.SigningCertURL} is not on the region's SNS host` };
  let pem: string;
  try {
    pem = await fetchCertificate(m.SigningCertURL);
  } catch (e) {
    return { ok: false, retry: true, reason: `signing certificate not fetched: ${(e as Error).message}` };
  }
  let text: string;
  try {
    text = stringToSign(m);
  } catch (e) {
    return { ok: false, retry: false, reason: (e as Error).message };
  }
  let ok = false;
  try {
    const cert = new X509Certificate(pem);
    const v = createVerify("RSA-SHA256");
    v.update(text, "utf8");
    ok = v.verify(cert.publicKey, Buffer.from(m.Signature, "base64"));
  } catch {
    ok = false;
  }
  return ok ? { ok: true } : { ok: false, retry: false, reason: "the signature does not verify" };
}

/**
 * Certificates by URL, fetched with fetch() once and kept (SNS rotates them rarely; a new URL is a new entry). In test
 * mode the command passes a fetcher that answers the test certificate instead.
 */
export function cachingFetcher(get: (url: string) => Promise<string> = httpsGet): CertificateFetcher {
  const cache = new Map<string, Promise<string>>();
  return (url) => {
    let p = cache.get(url);
    if (!p) {
      p = get(url);
      cache.set(url, p);
      p.catch(() => cache.delete(url));
    }
    return p;
  };
}

async function httpsGet(url: string): Promise<string> {
  const r = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(5000) });
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  const text = await r.text();
  if (!text.includes("-----BEGIN CERTIFICATE-----")) throw new Error("not a PEM certificate");
  return text;
}
