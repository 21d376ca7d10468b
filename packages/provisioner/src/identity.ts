// The instance identity check: the PKCS7 signature IMDS serves over the identity document, verified against AWS's
// published DSA certificate for the region (pinned in certs/, see PROVENANCE.md), never against a certificate the
// request carries.
//
// node:crypto has no PKCS7/CMS verification, so this spawns `openssl smime -verify` (OpenSSL 3, a dependency of
// every distribution Node runs on). `-nointern` is the point: without it OpenSSL also looks for the signer among the
// certificates embedded in the PKCS7, and `-noverify` (needed: AWS's certificates are self-signed, not chained to a
// CA) then accepts a document signed by any self-made key. With `-nointern` the signer must be in `-certfile`: only
// AWS's certificate. Parsing PKCS7 in TypeScript instead would mean our own ASN.1 parser and DSA signed-attributes
// check: more code, in the one place a mistake is a forgery.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Verifies a detached PKCS7 signature over the identity document's bytes. */
export interface IdentityVerifier {
  verify(document: Buffer, pkcs7Base64: string): Promise<boolean>;
}

/** Region → pinned certificate file (certs/), from AWS's "Verify instance identity document" page (PROVENANCE.md). */
const OTHER = "aws-dsa-other-regions.pem";
export const PINNED_CERTIFICATES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(
    [
      "us-east-1",
      "us-east-2",
      "us-west-1",
      "us-west-2",
      "ca-central-1",
      "sa-east-1",
      "eu-central-1",
      "eu-west-1",
      "eu-west-2",
      "eu-west-3",
      "eu-north-1",
      "ap-northeast-1",
      "ap-northeast-2",
      "ap-northeast-3",
      "ap-southeast-1",
      "ap-southeast-2",
      "ap-south-1",
      "us-gov-west-1",
      "us-gov-east-1",
    ].map((r) => [r, OTHER]),
  ),
  "ap-east-1": "aws-dsa-ap-east-1.pem",
  "me-south-1": "aws-dsa-me-south-1.pem",
  "cn-north-1": "aws-dsa-china.pem",
  "cn-northwest-1": "aws-dsa-china.pem",
};

/** The pinned certificate (PEM) of a region; undefined when none is pinned (then one must be given explicitly). */
export function pinnedCertificate(region: string): string | undefined {
  const file = PINNED_CERTIFICATES[region];
  // certs/ sits next to src/ and dist/ alike
  return file === undefined ? undefined : readFileSync(new URL(`../certs/${file}`, import.meta.url), "utf8");
}

/** What openssl answered; exit 0 is the only success. */
export interface OpensslResult {
  readonly status: number | null;
  readonly stderr: string;
}

function run(command: string, args: readonly string[]): Promise<OpensslResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.setEncoding("utf8");
    child.stderr.on("data", (c: string) => {
      stderr += c;
    });
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stderr }));
  });
}

/** The PKCS7 as IMDS serves it (base64, lines removed), wrapped back into PEM lines. */
export function pkcs7Pem(base64: string): string {
  const lines = base64.match(/.{1,64}/g) ?? [];
  return `-----BEGIN PKCS7-----\n${lines.join("\n")}\n-----END PKCS7-----\n`;
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `openssl smime -verify -nointern -noverify -certfile <pinned>`: the signer must be the pinned certificate. */
export class OpensslIdentityVerifier implements IdentityVerifier {
  constructor(
    private readonly certificatePem: string,
    private readonly openssl = "openssl",
  ) {}

  async verify(document: Buffer, pkcs7Base64: string): Promise<boolean> {
    if (!BASE64.test(pkcs7Base64) || pkcs7Base64.length > 16384) return false;
    const dir = await mkdtemp(join(tmpdir(), "clusterspec-iid-"));
    try {
      const [sig, doc, cert] = ["sig.p7", "document", "aws.pem"].map((f) => join(dir, f)) as [string, string, string];
      await Promise.all([
        writeFile(sig, pkcs7Pem(pkcs7Base64), { mode: 0o600 }),
        writeFile(doc, document, { mode: 0o600 }),
        writeFile(cert, this.certificatePem, { mode: 0o600 }),
      ]);
      // -binary: the document's bytes exactly as signed (no MIME canonicalisation of line ends)
      const r = await run(this.openssl, [
        "smime",
        "-verify",
        "-binary",
        "-in",
        sig,
        "-inform",
        "PEM",
        "-content",
        doc,
        "-certfile",
        cert,
        "-nointern",
        "-noverify",
        "-out",
        "/dev/null",
      ]);
      return r.status === 0;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}
