// The identity check with the real openssl: a document signed by the pinned certificate's key verifies; one signed
// by a self-made key that carries its own certificate in the PKCS7 does not (it would without -nointern).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { OpensslIdentityVerifier, PINNED_CERTIFICATES, pinnedCertificate, pkcs7Pem } from "../src/identity.js";
import { identityDocument, makeCertificate, signDocument } from "./support.js";

const dir = mkdtempSync(join(tmpdir(), "clusterspec-iid-test-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("instance identity", () => {
  const aws = makeCertificate(dir, "aws");
  const forger = makeCertificate(dir, "forger");
  const doc = identityDocument("i-0123456789abcdef0", "eu-central-1");
  const verifier = new OpensslIdentityVerifier(aws.certPem);

  it("accepts a document signed by the pinned certificate's key", async () => {
    expect(await verifier.verify(Buffer.from(doc), signDocument(dir, doc, aws))).toBe(true);
  });

  it("refuses a forgery signed by a self-made key that carries its own certificate", async () => {
    const forged = signDocument(dir, doc, forger);
    expect(await verifier.verify(Buffer.from(doc), forged)).toBe(false);
    // the check the old contract prescribed (no -nointern) accepts this very forgery: exit 0
    writeFileSync(join(dir, "forged.p7"), pkcs7Pem(forged));
    writeFileSync(join(dir, "doc"), doc);
    const old = spawnSync("openssl", [
      "smime",
      "-verify",
      "-binary",
      "-in",
      join(dir, "forged.p7"),
      "-inform",
      "PEM",
      "-content",
      join(dir, "doc"),
      "-certfile",
      aws.cert,
      "-noverify",
      "-out",
      "/dev/null",
    ]);
    expect(old.status).toBe(0);
  });

  it("refuses a changed document and a garbled signature", async () => {
    const sig = signDocument(dir, doc, aws);
    expect(await verifier.verify(Buffer.from(doc.replace("i-0123456789abcdef0", "i-0fedcba9876543210")), sig)).toBe(
      false,
    );
    expect(await verifier.verify(Buffer.from(doc), "not base64!")).toBe(false);
    expect(await verifier.verify(Buffer.from(doc), sig.slice(0, 100))).toBe(false);
  });

  it("pins AWS's published certificates, each self-signed and intact", () => {
    for (const region of ["eu-central-1", "us-east-1", "ap-east-1", "me-south-1", "cn-north-1"]) {
      const pem = pinnedCertificate(region);
      expect(pem, region).toContain("BEGIN CERTIFICATE");
      const file = join(dir, `${region}.pem`);
      writeFileSync(file, pem ?? "");
      // -check_ss_sig verifies the self-signature: a copying mistake fails it
      const out = execFileSync("openssl", ["verify", "-CAfile", file, "-check_ss_sig", file], { encoding: "utf8" });
      expect(out.trim()).toBe(`${file}: OK`);
    }
    expect(pinnedCertificate("af-south-1")).toBeUndefined();
    expect(new Set(Object.values(PINNED_CERTIFICATES)).size).toBe(4);
  });
});
