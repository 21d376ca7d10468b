// SNS authentication: the documented string to sign, SignatureVersion 2 (SHA256withRSA), the signing certificate only
// from the region's SNS host, the topic checked; a SubscriptionConfirmation is confirmed.
import { afterAll, describe, expect, it } from "vitest";
import { snsUrlOk, stringToSign } from "../src/sns.js";
import { TestSns, world } from "./support.js";

const w = world("cloud-burst-only");
afterAll(() => w.cleanup());

describe("SNS endpoint", () => {
  it("builds the string to sign in the documented order, Subject only when present", () => {
    const base = {
      MessageId: "m",
      TopicArn: "t",
      Message: "hi",
      Timestamp: "ts",
      SignatureVersion: "2",
      Signature: "",
      SigningCertURL: "",
    };
    expect(stringToSign({ ...base, Type: "Notification" })).toBe(
      "Message\nhi\nMessageId\nm\nTimestamp\nts\nTopicArn\nt\nType\nNotification\n",
    );
    expect(stringToSign({ ...base, Type: "Notification", Subject: "s" })).toContain(
      "MessageId\nm\nSubject\ns\nTimestamp",
    );
    expect(stringToSign({ ...base, Type: "SubscriptionConfirmation", SubscribeURL: "u", Token: "k" })).toBe(
      "Message\nhi\nMessageId\nm\nSubscribeURL\nu\nTimestamp\nts\nToken\nk\nTopicArn\nt\nType\nSubscriptionConfirmation\n",
    );
  });

  it("takes certificates only from the region's SNS host over HTTPS", () => {
    expect(snsUrlOk("https://sns.eu-central-1.amazonaws.com/x.pem", "eu-central-1", true)).toBe(true);
    for (const bad of [
      "http://sns.eu-central-1.amazonaws.com/x.pem",
      "https://sns.us-east-1.amazonaws.com/x.pem",
      "https://sns.eu-central-1.amazonaws.com.evil.example/x.pem",
      "https://evil.example/sns.eu-central-1.amazonaws.com/x.pem",
      "https://sns.eu-central-1.amazonaws.com:8443/x.pem",
      "https://user@sns.eu-central-1.amazonaws.com/x.pem",
      "https://sns.eu-central-1.amazonaws.com/x.txt",
    ])
      expect(snsUrlOk(bad, "eu-central-1", true), bad).toBe(false);
  });

  it("confirms a signed SubscriptionConfirmation by its SubscribeURL", async () => {
    const url = `https://sns.eu-central-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${w.settings.topicArn}&Token=abc`;
    const m = w.sns.sign({
      Type: "SubscriptionConfirmation",
      MessageId: "c1",
      TopicArn: w.settings.topicArn,
      Message: "You have chosen to subscribe",
      Timestamp: "2026-12-02T14:00:00.000Z",
      SubscribeURL: url,
      Token: "abc",
    });
    const r = await w.provisioner.sns(JSON.stringify(m), "SubscriptionConfirmation");
    expect(r.status).toBe(200);
    expect(w.confirmed).toEqual([url]);
  });

  it("refuses a bad signature, another topic, SignatureVersion 1 and a foreign certificate URL with 400", async () => {
    w.aws.launch("i-0000000000000aaa1", "home-ci-arm64", "172.24.1.10");
    const good = w.sns.event("i-0000000000000aaa1", "running");
    const cases: [string, object, string][] = [
      ["forged", w.sns.sign({ ...good, MessageId: "f1" }, TestSns.otherKey()), "the signature does not verify"],
      [
        "tampered",
        { ...good, Message: good.Message.replace("running", "terminated") },
        "the signature does not verify",
      ],
      ["topic", { ...good, TopicArn: `${w.settings.topicArn}-other` }, "is not ours"],
      ["v1", { ...good, SignatureVersion: "1" }, "SignatureVersion 1, not 2"],
      ["cert", { ...good, SigningCertURL: "https://evil.example/cert.pem" }, "is not on the region's SNS host"],
    ];
    for (const [name, m, reason] of cases) {
      const r = await w.provisioner.sns(JSON.stringify(m), "Notification");
      expect(r.status, name).toBe(400);
      expect(r.body, name).toContain(reason);
    }
    expect(Object.values(w.kube.holders()).filter(Boolean)).toEqual([]);
    expect((await w.provisioner.sns(JSON.stringify(good), "Notification")).status).toBe(200);
    expect(Object.values(w.kube.holders())).toContain("i-0000000000000aaa1");
  });

  it("answers 503 when the signing certificate cannot be fetched (SNS retries)", async () => {
    const m = {
      ...w.sns.event("i-0000000000000aaa2", "running"),
      SigningCertURL: "https://sns.eu-central-1.amazonaws.com/other.pem",
    };
    const r = await w.provisioner.sns(JSON.stringify(m), "Notification");
    expect(r.status).toBe(503);
  });

  it("refuses a body that is not an SNS message, or whose type header disagrees", async () => {
    expect((await w.provisioner.sns("{", "Notification")).status).toBe(400);
    const m = w.sns.event("i-0000000000000aaa3", "running");
    expect((await w.provisioner.sns(JSON.stringify(m), "SubscriptionConfirmation")).status).toBe(400);
  });
});
