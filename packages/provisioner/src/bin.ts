// `clusterspec-provisioner`: reads the cluster spec (the same file `clusterspec generate` reads) through
// @clusterspec/core, wires the real Kubernetes, AWS and hub clients to the service, listens, and reconciles on start
// and every --reconcile-seconds. Logs are JSON lines on stdout. Exit 2 on bad configuration, naming what is wrong.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { formatIssues, loadSpec, resolvePlan } from "@clusterspec/core";
import { QueryAws } from "./aws.js";
import { WgHub } from "./hub.js";
import { OpensslIdentityVerifier, pinnedCertificate } from "./identity.js";
import { HttpKube } from "./kube.js";
import type { Logger } from "./ports.js";
import { createProvisionerServer } from "./server.js";
import { Provisioner } from "./service.js";
import { SettingsError, settingsFrom } from "./settings.js";
import { cachingFetcher } from "./sns.js";

const SA = "/var/run/secrets/kubernetes.io/serviceaccount";

export const USAGE = `usage: clusterspec-provisioner --spec cluster.yaml --account-id 123456789012 --topic-arn arn:aws:sns:… [options]
  --listen HOST:PORT            default 0.0.0.0:8443
  --tls-key FILE --tls-cert FILE  serve HTTPS directly (else plain HTTP: put it behind a TLS proxy, see --trust-proxy)
  --trust-proxy                 take the client address from X-Forwarded-For (only behind your own proxy)
  --reconcile-seconds N         default 60
  --kube-server URL --kube-token-file FILE --kube-ca-file FILE   default: the pod's ServiceAccount
  --identity-certificate FILE   AWS's instance-identity certificate, for a region none is pinned for
                                (replacing a pinned one needs --test-mode: a lab's own signing key)
  --aws-endpoint-ec2 URL --aws-endpoint-autoscaling URL          e.g. VPC endpoints
  --test-mode --test-sns-certificate FILE   trust FILE as every SNS signing certificate (tests only)`;

export const jsonLogger =
  (write: (line: string) => void = (l) => process.stdout.write(l)): Logger =>
  (level, event, fields = {}) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level, event, ...fields })}\n`);

function fail(message: string): number {
  process.stderr.write(`clusterspec-provisioner: ${message}\n`);
  return 2;
}

export async function main(argv: readonly string[]): Promise<number> {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: [...argv],
      options: {
        spec: { type: "string" },
        "account-id": { type: "string" },
        "topic-arn": { type: "string" },
        listen: { type: "string", default: "0.0.0.0:8443" },
        "tls-key": { type: "string" },
        "tls-cert": { type: "string" },
        "trust-proxy": { type: "boolean", default: false },
        "reconcile-seconds": { type: "string", default: "60" },
        "kube-server": { type: "string" },
        "kube-token-file": { type: "string", default: `${SA}/token` },
        "kube-ca-file": { type: "string", default: `${SA}/ca.crt` },
        "identity-certificate": { type: "string" },
        "aws-endpoint-ec2": { type: "string" },
        "aws-endpoint-autoscaling": { type: "string" },
        "test-mode": { type: "boolean", default: false },
        "test-sns-certificate": { type: "string" },
        help: { type: "boolean", default: false },
      },
    }).values;
  } catch (e) {
    return fail(`${(e as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const specPath = str("spec");
  const accountId = str("account-id");
  const topicArn = str("topic-arn");
  if (!specPath || !accountId || !topicArn) return fail(`--spec, --account-id and --topic-arn are required\n${USAGE}`);
  if (str("test-sns-certificate") && !values["test-mode"]) return fail("--test-sns-certificate needs --test-mode");
  const read = (what: string, file: string): string => {
    try {
      return readFileSync(file, "utf8");
    } catch (e) {
      throw new SettingsError(`${what} ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  try {
    const loaded = loadSpec(read("spec", specPath));
    if (!loaded.ok) return fail(`${specPath} is not a valid spec:\n${formatIssues(loaded.errors)}`);
    const plan = resolvePlan(loaded.value, { sourceName: specPath });
    const settings = settingsFrom(plan, { accountId, topicArn });
    const cloud = settings.cloud;
    // a pinned region's certificate is replaced only in test mode: anything else would let a flag trust any signer
    if (str("identity-certificate") && pinnedCertificate(cloud.aws.region) !== undefined && !values["test-mode"])
      return fail(
        `an AWS identity certificate is pinned for region ${cloud.aws.region}: --identity-certificate replaces it only with --test-mode`,
      );
    const identityCert = str("identity-certificate")
      ? read("identity certificate", str("identity-certificate") ?? "")
      : pinnedCertificate(cloud.aws.region);
    if (!identityCert)
      return fail(`no AWS identity certificate is pinned for region ${cloud.aws.region}: pass --identity-certificate`);
    const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
    const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
    if (!accessKeyId || !secretAccessKey) return fail("AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY must be set");
    const kubeServer =
      str("kube-server") ??
      (process.env.KUBERNETES_SERVICE_HOST
        ? `https://${process.env.KUBERNETES_SERVICE_HOST}:${process.env.KUBERNETES_SERVICE_PORT ?? "443"}`
        : undefined);
    if (!kubeServer) return fail("no Kubernetes API: pass --kube-server (or run in a pod)");
    const log = jsonLogger();
    const testCert = str("test-sns-certificate")
      ? read("SNS test certificate", str("test-sns-certificate") ?? "")
      : undefined;
    const provisioner = new Provisioner(settings, {
      kube: new HttpKube(
        {
          server: kubeServer,
          token: read("Kubernetes token", str("kube-token-file") ?? "").trim(),
          caPem: read("Kubernetes CA", str("kube-ca-file") ?? ""),
        },
        cloud.peerSecret,
        plan.name,
      ),
      aws: new QueryAws(
        cloud.aws.region,
        {
          accessKeyId,
          secretAccessKey,
          ...(process.env.AWS_SESSION_TOKEN ? { sessionToken: process.env.AWS_SESSION_TOKEN } : {}),
        },
        { ec2: str("aws-endpoint-ec2"), autoscaling: str("aws-endpoint-autoscaling") },
      ),
      hub: new WgHub(cloud.wireguard.interface),
      identity: new OpensslIdentityVerifier(identityCert),
      clock: { now: () => new Date() },
      log,
      fetchCertificate: testCert === undefined ? cachingFetcher() : async () => testCert,
      confirmSubscription: async (url) => {
        const r = await fetch(url, { redirect: "error", signal: AbortSignal.timeout(5000) });
        if (!r.ok) throw new Error(`HTTP ${r.status}`);
      },
    });
    const tlsKey = str("tls-key");
    const tlsCert = str("tls-cert");
    if ((tlsKey === undefined) !== (tlsCert === undefined)) return fail("--tls-key and --tls-cert go together");
    const server = createProvisionerServer(provisioner, {
      ...(tlsKey && tlsCert ? { tls: { key: read("TLS key", tlsKey), cert: read("TLS certificate", tlsCert) } } : {}),
      trustProxy: values["trust-proxy"] === true,
      log,
    });
    const listen = /^(.*):(\d+)$/.exec(str("listen") ?? "");
    if (!listen) return fail("--listen must be HOST:PORT");
    const seconds = Number(str("reconcile-seconds"));
    if (!Number.isInteger(seconds) || seconds < 5) return fail("--reconcile-seconds must be an integer of at least 5");
    await new Promise<void>((resolve) => server.listen(Number(listen[2]), listen[1]?.replace(/^\[|\]$/g, ""), resolve));
    log("info", "listening", {
      listen: str("listen"),
      tls: tlsKey !== undefined,
      cluster: plan.name,
      testMode: values["test-mode"] === true,
    });
    let running = false;
    const reconcile = async () => {
      if (running) return;
      running = true;
      try {
        await provisioner.reconcile();
      } catch (e) {
        log("error", "reconcile failed", { error: (e as Error).message });
      } finally {
        running = false;
      }
    };
    void reconcile();
    const timer = setInterval(() => void reconcile(), seconds * 1000);
    await new Promise<void>((resolve) => {
      const stop = () => {
        clearInterval(timer);
        server.close(() => resolve());
      };
      process.once("SIGTERM", stop);
      process.once("SIGINT", stop);
    });
    log("info", "stopped");
    return 0;
  } catch (e) {
    if (e instanceof SettingsError) return fail(e.message);
    throw e;
  }
}
