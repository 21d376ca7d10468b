// The burst lab's stand-ins for the Kubernetes API and the EC2 / Auto Scaling Query APIs, run inside the hub's
// network namespace (where the provisioner runs) by packages/testkit/src/burst-lab.ts. The test drives them over the
// Node IPC channel ({ op, call, ... } → { call, ok, value | error }).
//
// What is stood in, and what is checked:
// - Kubernetes (HTTPS, bearer token): only the operations the provisioner's RBAC allows. Every request's path and verb
//   must be an operation of the Kubernetes OpenAPI v3 document (the subset copied in
//   packages/schemas/data/kubernetes/openapi-v3-subset.json, see PROVENANCE.md), its query parameters must be ones
//   that operation declares, and every body must validate against that operation's request schema
//   (io.k8s.api.core.v1.Secret, unknown fields refused as the API server's strict field validation does). The server
//   semantics the provisioner relies on are kept: resourceVersion conflicts (409), 404 for what is gone, label
//   selectors of the `key=value` form.
// - EC2 DescribeInstances (2016-11-15) and Auto Scaling DescribeAutoScalingGroups (2011-01-01), AWS Query protocol:
//   POST application/x-www-form-urlencoded, a SigV4 Authorization header whose signature is recomputed here from the
//   canonical request (AWS General Reference, "Create a signed AWS API request"), Action and Version checked, list
//   parameters in the protocol's `Name.N` / `Name.member.N` form; answers in the services' XML shapes.
// Anything that does not conform is answered 400 and recorded as a violation; the lab test asserts there are none.
import { createHash, createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer as createHttp } from "node:http";
import { createServer as createHttps } from "node:https";
import Ajv from "ajv";

const cfg = JSON.parse(readFileSync(process.argv[2], "utf8"));
const openapi = JSON.parse(readFileSync(cfg.openapi, "utf8"));

const violations = [];
const requests = [];
const secrets = new Map(); // "ns/name" → object
const nodes = new Map(); // name → object
const instances = new Map(); // id → { id, state, privateIp, ipv6?, group, type, az }
let version = 100;

for (const s of cfg.secrets) secrets.set(`${s.metadata.namespace}/${s.metadata.name}`, { ...s });
for (const s of secrets.values()) s.metadata.resourceVersion = String(++version);

// ---- Kubernetes --------------------------------------------------------------------------------------------------

// formats (int64, byte, date-time) are not checked: the API server's own checks of them are not stood in
const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
// Strict field validation: the API server refuses unknown fields (fieldValidation=Strict); the schema subset marks
// objects closed where the OpenAPI document lists every property.
ajv.addSchema({ components: closed(openapi.components) }, "k8s");

/** Every object schema that lists its properties refuses others (a copy; the data file stays as upstream has it). */
function closed(node) {
  if (Array.isArray(node)) return node.map(closed);
  if (node === null || typeof node !== "object") return node;
  const out = Object.fromEntries(Object.entries(node).map(([k, v]) => [k, closed(v)]));
  if (out.type === "object" && out.properties && out.additionalProperties === undefined)
    out.additionalProperties = false;
  return out;
}

function operation(method, path) {
  for (const [template, item] of Object.entries(openapi.paths)) {
    const names = [];
    const re = new RegExp(
      `^${template.replace(/\{([^}]+)\}/g, (_, n) => {
        names.push(n);
        return "([^/]+)";
      })}$`,
    );
    const m = re.exec(path);
    if (!m) continue;
    const op = item[method.toLowerCase()];
    if (!op) return { error: `${method} is not an operation of ${template}` };
    const params = [...(item.parameters ?? []), ...(op.parameters ?? [])];
    const values = Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1])]));
    return { template, op, params, values };
  }
  return { error: `${path} is not a path of the Kubernetes API document` };
}

function requestSchema(op) {
  const ref = op.requestBody?.content?.["application/json"]?.schema?.$ref;
  return ref === undefined ? undefined : ajv.getSchema(`k8s${ref}`);
}

const selectorMatches = (selector, labels) =>
  selector === null ||
  selector
    .split(",")
    .filter(Boolean)
    .every((term) => {
      const [k, v] = term.split("=");
      return labels?.[k] === v;
    });

function kube(method, url, body) {
  const u = new URL(url, "https://kube.invalid");
  const found = operation(method, u.pathname);
  if (found.error) return { status: 404, violation: found.error };
  const { op, params, values } = found;
  for (const key of u.searchParams.keys())
    if (!params.some((p) => p.in === "query" && p.name === key))
      return { status: 400, violation: `${op.operationId}: query parameter ${key} is not declared` };
  let json;
  if (body !== "") {
    const validate = requestSchema(op);
    if (!validate) return { status: 400, violation: `${op.operationId} takes no body` };
    try {
      json = JSON.parse(body);
    } catch {
      return { status: 400, violation: `${op.operationId}: body is not JSON` };
    }
    if (!validate(json))
      return {
        status: 422,
        violation: `${op.operationId}: ${validate.errors.map((e) => `${e.instancePath} ${e.message}`).join("; ")}`,
      };
  } else if (op.requestBody?.required) return { status: 400, violation: `${op.operationId} needs a body` };
  const id = op.operationId;
  const key = `${values.namespace}/${values.name}`;
  switch (id) {
    case "listCoreV1NamespacedSecret":
      return {
        status: 200,
        json: {
          apiVersion: "v1",
          kind: "SecretList",
          metadata: { resourceVersion: String(version) },
          items: [...secrets.values()].filter(
            (s) =>
              s.metadata.namespace === values.namespace &&
              selectorMatches(u.searchParams.get("labelSelector"), s.metadata.labels),
          ),
        },
      };
    case "readCoreV1NamespacedSecret":
      return secrets.has(key) ? { status: 200, json: secrets.get(key) } : { status: 404, json: notFound(values.name) };
    case "createCoreV1NamespacedSecret": {
      const k = `${values.namespace}/${json.metadata?.name}`;
      if (json.metadata?.namespace !== undefined && json.metadata.namespace !== values.namespace)
        return { status: 400, violation: "body namespace differs from the path's" };
      if (secrets.has(k)) return { status: 409, json: { kind: "Status", reason: "AlreadyExists" } };
      const obj = {
        ...json,
        metadata: { ...json.metadata, namespace: values.namespace, resourceVersion: String(++version) },
      };
      secrets.set(k, obj);
      return { status: 201, json: obj };
    }
    case "replaceCoreV1NamespacedSecret": {
      const current = secrets.get(key);
      if (!current) return { status: 404, json: notFound(values.name) };
      if (json.metadata?.name !== values.name) return { status: 400, violation: "body name differs from the path's" };
      if (json.metadata?.resourceVersion !== current.metadata.resourceVersion)
        return { status: 409, json: { kind: "Status", reason: "Conflict" } };
      const obj = { ...json, metadata: { ...json.metadata, resourceVersion: String(++version) } };
      secrets.set(key, obj);
      return { status: 200, json: obj };
    }
    case "deleteCoreV1NamespacedSecret":
      if (!secrets.delete(key)) return { status: 404, json: notFound(values.name) };
      return { status: 200, json: { kind: "Status", status: "Success" } };
    case "listCoreV1Node":
      return { status: 200, json: { apiVersion: "v1", kind: "NodeList", metadata: {}, items: [...nodes.values()] } };
    case "readCoreV1Node":
      return nodes.has(values.name)
        ? { status: 200, json: nodes.get(values.name) }
        : { status: 404, json: notFound(values.name) };
    case "deleteCoreV1Node":
      if (!nodes.delete(values.name)) return { status: 404, json: notFound(values.name) };
      return { status: 200, json: { kind: "Status", status: "Success" } };
    default:
      return { status: 403, violation: `${id} is not an operation the provisioner's RBAC allows` };
  }
}

const notFound = (name) => ({
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  reason: "NotFound",
  details: { name },
});

function readBody(req) {
  return new Promise((resolve) => {
    let b = "";
    req.setEncoding("utf8");
    req.on("data", (c) => {
      b += c;
    });
    req.on("end", () => resolve(b));
  });
}

const kubeServer = createHttps(
  { key: readFileSync(cfg.kube.key), cert: readFileSync(cfg.kube.cert) },
  async (req, res) => {
    const body = await readBody(req);
    let r;
    if (req.headers.authorization !== `Bearer ${cfg.kube.token}`) r = { status: 401, json: { kind: "Status" } };
    else r = kube(req.method, req.url, body);
    requests.push({ api: "kube", method: req.method, url: req.url, status: r.status });
    if (r.violation) violations.push(`kube ${req.method} ${req.url}: ${r.violation}`);
    res.writeHead(r.status, { "content-type": "application/json" }).end(JSON.stringify(r.json ?? { kind: "Status" }));
  },
);

// ---- AWS Query APIs ----------------------------------------------------------------------------------------------

const sha256 = (s) => createHash("sha256").update(s, "utf8").digest("hex");
const hmac = (k, s) => createHmac("sha256", k).update(s, "utf8").digest();
const uriEncode = (s) =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** SigV4 as AWS documents it, recomputed from the request as received. */
function checkSignature(req, body, service) {
  const auth =
    /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
      String(req.headers.authorization ?? ""),
    );
  if (!auth) return "no SigV4 Authorization header";
  const [, keyId, date, region, svc, signedHeaders, signature] = auth;
  if (keyId !== cfg.aws.accessKeyId) return "unknown access key";
  if (region !== cfg.aws.region || svc !== service) return `credential scope ${region}/${svc}`;
  const amzDate = String(req.headers["x-amz-date"] ?? "");
  if (!amzDate.startsWith(date)) return "x-amz-date does not match the scope date";
  const names = signedHeaders.split(";");
  if (!names.includes("host") || !names.includes("x-amz-date")) return "host and x-amz-date must be signed";
  const u = new URL(req.url, "http://x");
  const query = [...u.searchParams]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)])
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const canonical = [
    req.method,
    u.pathname.split("/").map(uriEncode).join("/"),
    query,
    ...names.map(
      (n) =>
        `${n}:${String(req.headers[n] ?? "")
          .trim()
          .replace(/\s+/g, " ")}`,
    ),
    "",
    signedHeaders,
    sha256(body),
  ].join("\n");
  const toSign = ["AWS4-HMAC-SHA256", amzDate, `${date}/${region}/${svc}/aws4_request`, sha256(canonical)].join("\n");
  const key = hmac(hmac(hmac(hmac(`AWS4${cfg.aws.secretAccessKey}`, date), region), svc), "aws4_request");
  return createHmac("sha256", key).update(toSign, "utf8").digest("hex") === signature
    ? undefined
    : "signature mismatch";
}

/** `Name.1`, `Name.2`, … (or `Name.member.1`, …) of a Query request, in order; gaps are a protocol error. */
function list(params, prefix) {
  const out = [];
  for (let n = 1; params.has(`${prefix}.${n}`); n++) out.push(params.get(`${prefix}.${n}`));
  return out;
}

const xml = (s) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;");
const STATE_CODES = { pending: 0, running: 16, "shutting-down": 32, terminated: 48, stopping: 64, stopped: 80 };

function instanceXml(i) {
  return `<item><instanceId>${i.id}</instanceId><imageId>ami-0123456789abcdef0</imageId><instanceState><code>${STATE_CODES[i.state]}</code><name>${i.state}</name></instanceState><privateIpAddress>${i.privateIp}</privateIpAddress>${(i.ipv6 ?? []).map((a) => `<ipv6Address>${a}</ipv6Address>`).join("")}<instanceType>${i.type}</instanceType><placement><availabilityZone>${i.az}</availabilityZone></placement><tagSet><item><key>aws:autoscaling:groupName</key><value>${xml(i.group)}</value></item></tagSet></item>`;
}

function ec2(params) {
  if (params.get("Version") !== "2016-11-15") return { status: 400, violation: "EC2 Version must be 2016-11-15" };
  if (params.get("Action") !== "DescribeInstances")
    return { status: 400, violation: `EC2 ${params.get("Action")} is not allowed to the provisioner` };
  const allowed = /^(Action|Version|InstanceId\.\d+|Filter\.\d+\.(Name|Value\.\d+)|MaxResults|NextToken)$/;
  for (const k of params.keys()) if (!allowed.test(k)) return { status: 400, violation: `EC2 parameter ${k}` };
  let ids = list(params, "InstanceId");
  for (let f = 1; params.has(`Filter.${f}.Name`); f++) {
    const name = params.get(`Filter.${f}.Name`);
    const values = list(params, `Filter.${f}.Value`);
    if (name !== "instance-id") return { status: 400, violation: `EC2 filter ${name} not stood in` };
    ids = ids.length === 0 ? values : ids.filter((i) => values.includes(i));
  }
  const found = ids.flatMap((id) => instances.get(id) ?? []);
  const reservations = found
    .map(
      (i) =>
        `<item><reservationId>r-${i.id.slice(2)}</reservationId><ownerId>${cfg.aws.accountId}</ownerId><instancesSet>${instanceXml(i)}</instancesSet></item>`,
    )
    .join("");
  return {
    status: 200,
    text: `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>00000000-0000-0000-0000-000000000000</requestId><reservationSet>${reservations}</reservationSet></DescribeInstancesResponse>`,
  };
}

function autoscaling(params) {
  if (params.get("Version") !== "2011-01-01")
    return { status: 400, violation: "Auto Scaling Version must be 2011-01-01" };
  if (params.get("Action") !== "DescribeAutoScalingGroups")
    return { status: 400, violation: `Auto Scaling ${params.get("Action")} is not allowed to the provisioner` };
  const allowed = /^(Action|Version|AutoScalingGroupNames\.member\.\d+|MaxRecords|NextToken)$/;
  for (const k of params.keys()) if (!allowed.test(k)) return { status: 400, violation: `Auto Scaling parameter ${k}` };
  const names = list(params, "AutoScalingGroupNames.member");
  const groups = names
    .filter((g) => cfg.aws.groups.includes(g))
    .map((g) => {
      const members = [...instances.values()]
        .filter((i) => i.group === g && i.state !== "terminated")
        .map(
          (i) =>
            `<member><InstanceId>${i.id}</InstanceId><InstanceType>${i.type}</InstanceType><AvailabilityZone>${i.az}</AvailabilityZone><LifecycleState>InService</LifecycleState><HealthStatus>Healthy</HealthStatus><ProtectedFromScaleIn>false</ProtectedFromScaleIn></member>`,
        )
        .join("");
      return `<member><AutoScalingGroupName>${xml(g)}</AutoScalingGroupName><MinSize>0</MinSize><MaxSize>3</MaxSize><DesiredCapacity>0</DesiredCapacity><Instances>${members}</Instances></member>`;
    })
    .join("");
  return {
    status: 200,
    text: `<?xml version="1.0" encoding="UTF-8"?>\n<DescribeAutoScalingGroupsResponse xmlns="http://autoscaling.amazonaws.com/doc/2011-01-01/"><DescribeAutoScalingGroupsResult><AutoScalingGroups>${groups}</AutoScalingGroups></DescribeAutoScalingGroupsResult><ResponseMetadata><RequestId>00000000-0000-0000-0000-000000000000</RequestId></ResponseMetadata></DescribeAutoScalingGroupsResponse>`,
  };
}

// one listener per service, each at path "/" like the real regional endpoints
const awsServer = (service) =>
  createHttp(async (req, res) => {
    const body = await readBody(req);
    let r;
    const type = String(req.headers["content-type"] ?? "");
    if (req.url !== "/") r = { status: 404, violation: `no operation at ${req.url}` };
    else if (req.method !== "POST" || !type.startsWith("application/x-www-form-urlencoded"))
      r = { status: 400, violation: "the Query protocol POSTs a form" };
    else {
      const bad = checkSignature(req, body, service);
      if (bad) r = { status: 403, violation: `SigV4: ${bad}` };
      else {
        const params = new URLSearchParams(body);
        r = service === "ec2" ? ec2(params) : autoscaling(params);
      }
    }
    requests.push({ api: service, method: req.method, url: req.url, body, status: r.status });
    if (r.violation) violations.push(`aws ${req.url}: ${r.violation}`);
    res
      .writeHead(r.status, { "content-type": "text/xml" })
      .end(r.text ?? `<Response><Errors><Error><Code>InvalidRequest</Code></Error></Errors></Response>`);
  });
const ec2Server = awsServer("ec2");
const autoscalingServer = awsServer("autoscaling");

// ---- control ----------------------------------------------------------------------------------------------------

const ops = {
  state: () => ({
    secrets: [...secrets.values()],
    nodes: [...nodes.values()],
    instances: [...instances.values()],
    violations,
    requests: requests.length,
  }),
  launch: ({ instance }) => {
    instances.set(instance.id, instance);
  },
  setState: ({ id, state }) => {
    const i = instances.get(id);
    if (!i) throw new Error(`no instance ${id}`);
    i.state = state;
  },
  /** The Node object the kubelet registers after `kubeadm join` (the test gives name, providerID, labels, taints). */
  registerNode: ({ node }) => {
    nodes.set(node.metadata.name, { apiVersion: "v1", kind: "Node", ...node });
  },
  close: () => {
    kubeServer.close();
    ec2Server.close();
    autoscalingServer.close();
    setTimeout(() => process.exit(0), 50);
  },
};

process.on("message", async (m) => {
  try {
    const value = await ops[m.op](m);
    process.send({ call: m.call, ok: true, value });
  } catch (e) {
    process.send({ call: m.call, ok: false, error: e.message });
  }
});

kubeServer.listen(cfg.kube.port, "127.0.0.1", () =>
  ec2Server.listen(cfg.aws.ec2Port, "127.0.0.1", () =>
    autoscalingServer.listen(cfg.aws.autoscalingPort, "127.0.0.1", () => process.send({ ready: true })),
  ),
);
