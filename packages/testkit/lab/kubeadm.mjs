// The burst lab's stand-in for `kubeadm` (put on PATH as `kubeadm` by packages/testkit/src/burst-lab.ts): records
// its arguments and, for `join --config FILE`, validates the JoinConfiguration with the strict kubeadm schema of
// @clusterspec/schemas (unknown fields are errors, as kubeadm's strict decoding has them) and records it. A config
// that does not validate makes it exit 1, as kubeadm would refuse it. `reset` is recorded and succeeds.
import { appendFileSync, readFileSync } from "node:fs";
import { checkKubernetesDocuments } from "@clusterspec/schemas/kubernetes";
import { parseAllDocuments } from "yaml";

const args = process.argv.slice(2);
const record = (entry) =>
  appendFileSync(process.env.LAB_RECORD, `${JSON.stringify({ command: "kubeadm", ...entry })}\n`);
if (args[0] === "join") {
  const at = args.indexOf("--config");
  const file = at < 0 ? undefined : args[at + 1];
  if (!file) {
    record({ args, error: "no --config" });
    process.exit(1);
  }
  const text = readFileSync(file, "utf8");
  const docs = parseAllDocuments(text).map((d) => d.toJS());
  const problems = checkKubernetesDocuments(docs);
  record({ args, config: docs, problems });
  if (problems.length > 0 || docs[0]?.kind !== "JoinConfiguration") {
    process.stderr.write(`kubeadm (lab): invalid JoinConfiguration: ${JSON.stringify(problems)}\n`);
    process.exit(1);
  }
  process.stdout.write("This node has joined the cluster (lab stand-in)\n");
} else {
  record({ args });
}
