// EC2 and Auto Scaling through their Query APIs with fetch and a Signature Version 4 signer on node:crypto: the two
// read-only calls the provisioner makes (ec2:DescribeInstances, autoscaling:DescribeAutoScalingGroups) do not pay
// for the AWS SDK's ~100 packages. Credentials come from the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
// optional AWS_SESSION_TOKEN): the provisioner runs on-prem, as the keyless IAM user Terraform creates
// (cloud/terraform/provisioner-iam.tf.json) with an access key the operator makes.
import { createHash, createHmac } from "node:crypto";
import type { AwsApi, AwsInstance } from "./ports.js";

export interface AwsCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (k: Buffer | string, s: string) => createHmac("sha256", k).update(s, "utf8").digest();
const enc = (s: string) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** SigV4 headers of a POST of a form body (AWS General Reference, "Signature Version 4 signing process"). */
export function signV4(
  c: AwsCredentials,
  o: { service: string; region: string; host: string; body: string; now: Date },
): Record<string, string> {
  const amzDate = o.now.toISOString().replace(/[:-]|\.\d{3}/g, "");
  const date = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded; charset=utf-8",
    host: o.host,
    "x-amz-date": amzDate,
    ...(c.sessionToken ? { "x-amz-security-token": c.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const canonical = [
    "POST",
    "/",
    "",
    ...names.map((n) => `${n}:${headers[n]}`),
    "",
    names.join(";"),
    sha256(o.body),
  ].join("\n");
  const scope = `${date}/${o.region}/${o.service}/aws4_request`;
  const toSign = ["AWS4-HMAC-SHA256", amzDate, scope, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${c.secretAccessKey}`, date), o.region), o.service), "aws4_request");
  const signature = createHmac("sha256", key).update(toSign, "utf8").digest("hex");
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${c.accessKeyId}/${scope}, SignedHeaders=${names.join(";")}, Signature=${signature}`,
  };
}

/** The text of the first <tag>…</tag> in an XML fragment (AWS Query API answers hold no CDATA or attributes there). */
function tag(xml: string, name: string): string | undefined {
  const m = new RegExp(`<${name}>([^<]*)</${name}>`).exec(xml);
  return m?.[1];
}

/** Each <item> of a list element, outermost level only. */
function items(xml: string, list: string): string[] {
  const start = xml.indexOf(`<${list}>`);
  if (start < 0) return [];
  const out: string[] = [];
  let depth = 0;
  let from = -1;
  const re = /<(\/?)(item|member)>/g;
  re.lastIndex = start;
  const end = xml.indexOf(`</${list}>`, start);
  for (let m = re.exec(xml); m && m.index < end; m = re.exec(xml)) {
    if (m[1] === "") {
      if (depth === 0) from = m.index + m[0].length;
      depth++;
    } else {
      depth--;
      if (depth === 0) out.push(xml.slice(from, m.index));
    }
  }
  return out;
}

/** DescribeInstances' reservationSet → instances (state, addresses, the Auto Scaling group tag). */
export function parseDescribeInstances(xml: string): AwsInstance[] {
  return items(xml, "reservationSet").flatMap((r) =>
    items(r, "instancesSet").map((i) => {
      const state = /<instanceState>[\s\S]*?<name>([^<]*)<\/name>/.exec(i)?.[1] ?? "unknown";
      const group = items(i, "tagSet")
        .map((t) => ({ key: tag(t, "key"), value: tag(t, "value") }))
        .find((t) => t.key === "aws:autoscaling:groupName")?.value;
      return {
        id: tag(i, "instanceId") ?? "",
        state,
        privateIp: tag(i, "privateIpAddress"),
        publicIp: tag(i, "ipAddress"),
        ipv6: [...new Set([...i.matchAll(/<ipv6Address>([^<]+)<\/ipv6Address>/g)].map((m) => m[1] ?? ""))],
        group,
      };
    }),
  );
}

/** DescribeAutoScalingGroups → the ids of the groups' instances. */
export function parseGroupInstanceIds(xml: string): string[] {
  return items(xml, "AutoScalingGroups").flatMap((g) =>
    items(g, "Instances").flatMap((i) => tag(i, "InstanceId") ?? []),
  );
}

export class QueryAws implements AwsApi {
  constructor(
    private readonly region: string,
    private readonly credentials: AwsCredentials,
    private readonly endpoints: { ec2?: string | undefined; autoscaling?: string | undefined } = {},
  ) {}

  private async call(service: "ec2" | "autoscaling", params: Record<string, string>): Promise<string> {
    const url = this.endpoints[service] ?? `https://${service}.${this.region}.amazonaws.com/`;
    const host = new URL(url).host;
    const body = Object.entries(params)
      .map(([k, v]) => `${enc(k)}=${enc(v)}`)
      .join("&");
    const headers = signV4(this.credentials, { service, region: this.region, host, body, now: new Date() });
    const r = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(8000) });
    const text = await r.text();
    if (!r.ok) throw new Error(`${service} ${params.Action}: HTTP ${r.status}: ${tag(text, "Code") ?? ""}`);
    return text;
  }

  async describeInstances(ids: readonly string[]): Promise<AwsInstance[]> {
    const out: AwsInstance[] = [];
    // an unknown id fails the whole call (InvalidInstanceID.NotFound); a filter on instance-id does not
    for (let i = 0; i < ids.length; i += 100) {
      const params: Record<string, string> = {
        Action: "DescribeInstances",
        Version: "2016-11-15",
        "Filter.1.Name": "instance-id",
      };
      ids.slice(i, i + 100).forEach((id, n) => {
        params[`Filter.1.Value.${n + 1}`] = id;
      });
      out.push(...parseDescribeInstances(await this.call("ec2", params)));
    }
    return out;
  }

  async groupInstances(groups: readonly string[]): Promise<AwsInstance[]> {
    const params: Record<string, string> = { Action: "DescribeAutoScalingGroups", Version: "2011-01-01" };
    groups.forEach((g, n) => {
      params[`AutoScalingGroupNames.member.${n + 1}`] = g;
    });
    const ids = parseGroupInstanceIds(await this.call("autoscaling", params));
    return ids.length === 0 ? [] : this.describeInstances(ids);
  }
}
