// planChanges on the reference clusters: the spec changes with their files and lines, the steps that make each kind
// of change live (exact commands), and every message of a change that cannot be made in place or is refused.

import { exampleText } from "@clusterspec/testkit";
import { describe, expect, it } from "vitest";
import { type NodeStepPlanner, planChanges } from "../src/index.js";
import { bare, changes, edit, hybrid, lineOf, side, WORKER_K8S_4 } from "./helpers.js";

const withWorker = edit(bare, "host:", WORKER_K8S_4);

describe("the spec changes", () => {
  it("are empty, with no step, for the same spec", () => {
    expect(changes(bare, bare)).toEqual({ schemaVersion: 1, specChanges: [], steps: [], notInPlace: [], refused: [] });
  });

  it("name an appended node once, at its path and line, with every file and line it changes", () => {
    const plan = changes(bare, withWorker);
    expect(plan.specChanges.map((c) => [c.path, c.old, c.newLine])).toEqual([
      ["nodes[3]", undefined, lineOf(withWorker, "- name: k8s-4")],
    ]);
    const files = plan.specChanges[0]?.files ?? [];
    const hosts = side(withWorker).artifacts.find((a) => a.path === "nodes/k8s-1/etc/hosts")?.content ?? "";
    // every existing node's hosts file gains the new node's line, and nothing else of theirs changes
    for (const n of ["k8s-1", "k8s-2", "k8s-3"])
      expect(files.find((f) => f.path === `nodes/${n}/etc/hosts`)).toEqual({
        path: `nodes/${n}/etc/hosts`,
        lines: [lineOf(hosts, "k8s-4")],
        status: "changed",
      });
    expect(
      files.filter((f) => f.path.startsWith("nodes/k8s-") && !f.path.startsWith("nodes/k8s-4/")).map((f) => f.path),
    ).toEqual(["nodes/k8s-1/etc/hosts", "nodes/k8s-2/etc/hosts", "nodes/k8s-3/etc/hosts"]);
    const kubeadm = files.find((f) => f.path === "nodes/k8s-4/kubeadm.yaml");
    expect(kubeadm?.status).toBe("added");
    const content = side(withWorker).artifacts.find((a) => a.path === "nodes/k8s-4/kubeadm.yaml")?.content ?? "";
    expect(kubeadm?.lines).toEqual(
      content
        .trimEnd()
        .split("\n")
        .map((_, i) => i + 1),
    );
  });

  it("give each of several changes exactly its own lines, measured by regenerating with it alone", () => {
    const next = edit(
      edit(bare, "nodeCidrMaskSize: 24", "nodeCidrMaskSize: 24\n  kubelet:\n    maxPods: 150"),
      "routingMode: native",
      "routingMode: native\n  values: { debug: { enabled: true } }",
    );
    const plan = changes(bare, next);
    expect(plan.specChanges.map((c) => [c.path, c.attribution, c.files.map((f) => f.path)])).toEqual([
      ["kubernetes.kubelet.maxPods", "exact", ["nodes/k8s-1/kubeadm.yaml"]],
      ["cilium.values.debug", "exact", ["PLAN.md", "cluster/cilium-values.yaml"]],
    ]);
    const kubeadm = side(next).artifacts.find((a) => a.path === "nodes/k8s-1/kubeadm.yaml")?.content ?? "";
    expect(plan.specChanges[0]?.files[0]?.lines).toEqual([lineOf(kubeadm, "maxPods: 150")]);
    const values = side(next).artifacts.find((a) => a.path === "cluster/cilium-values.yaml")?.content ?? "";
    expect(plan.specChanges[1]?.files[1]?.lines).toEqual([lineOf(values, "debug:"), lineOf(values, "enabled: true")]);
  });

  it("share the lines of several changes when measuring them would generate too much", () => {
    const next = edit(
      edit(bare, "nodeCidrMaskSize: 24", "nodeCidrMaskSize: 24\n  kubelet:\n    maxPods: 150"),
      "routingMode: native",
      "routingMode: native\n  values: { debug: { enabled: true } }",
    );
    let generated = 0;
    const plan = planChanges(side(bare), side(next), [], {
      regenerate: () => {
        generated++;
        return undefined;
      },
      maxExactBytes: 1000,
    });
    expect(generated).toBe(0);
    expect(plan.specChanges.map((c) => [c.attribution, c.files.map((f) => f.path)])).toEqual([
      ["shared", ["PLAN.md", "cluster/cilium-values.yaml", "nodes/k8s-1/kubeadm.yaml"]],
      ["shared", ["PLAN.md", "cluster/cilium-values.yaml", "nodes/k8s-1/kubeadm.yaml"]],
    ]);
  });

  it("give a removed node's files as removed, with the old file's lines", () => {
    const plan = changes(withWorker, bare);
    expect(plan.specChanges.map((c) => [c.path, c.new, c.oldLine])).toEqual([
      ["nodes[3]", undefined, lineOf(withWorker, "- name: k8s-4")],
    ]);
    const removed = plan.specChanges[0]?.files.find((f) => f.path === "nodes/k8s-4/etc/hosts");
    expect(removed?.status).toBe("removed");
    expect(removed?.lines.length).toBeGreaterThan(0);
  });
});

describe("the steps", () => {
  it("add a worker: hosts files everywhere (nothing to run), then its join, and no keepalived or netifrc step without their planners", () => {
    const plan = changes(bare, withWorker);
    expect(plan.steps.map((s) => [s.index, s.node, s.kind, s.commands])).toEqual([
      [1, "k8s-1", "host", []],
      [2, "k8s-2", "host", []],
      [3, "k8s-3", "host", []],
      [4, "k8s-4", "kubeadm", ["sysctl --system", "rc-service modules restart", "kubeadm join --config /kubeadm.yaml"]],
    ]);
    expect(plan.steps[3]?.waitFor).toBe("kubectl wait --for=condition=Ready node/k8s-4 --timeout=300s");
    expect(plan.steps[3]?.files).toContain("nodes/k8s-4/kubeadm.yaml");
    expect(plan.steps.some((s) => s.kind === "keepalived" || s.kind === "netifrc")).toBe(false);
    expect(plan.unplanned).toEqual([
      { path: "nodes/k8s-4/etc/conf.d/net", node: "k8s-4" },
      { path: "nodes/k8s-4/etc/iproute2/rt_tables.d/vswitch.conf", node: "k8s-4" },
    ]);
  });

  it("merge a node planner's steps first, numbered with the rest, and count its files as installed", () => {
    const netifrc: NodeStepPlanner = (_old, next) => ({
      steps: [
        {
          node: "k8s-4",
          kind: "netifrc",
          title: "k8s-4: network",
          files: next.artifacts
            .filter((a) => /^nodes\/k8s-4\/etc\/(conf\.d\/net|iproute2)/.test(a.path))
            .map((a) => a.path),
          commands: ["rc-service net.wan1 start"],
          vipMoves: [],
          warnings: [],
        },
      ],
      notInPlace: [],
      refused: [],
    });
    const plan = changes(bare, withWorker, [netifrc]);
    expect(plan.steps.map((s) => [s.index, s.kind])).toEqual([
      [1, "netifrc"],
      [2, "host"],
      [3, "host"],
      [4, "host"],
      [5, "kubeadm"],
    ]);
    expect(plan.unplanned).toBeUndefined();
  });

  it("certSANs and apiserver flags: the kubeadm-config patch, then one control plane at a time, the VIP's master last", () => {
    const next = edit(
      bare,
      "nodeCidrMaskSize: 24",
      'nodeCidrMaskSize: 24\n  apiServer:\n    certSANs: [api.example.com]\n    extraArgs: { audit-log-maxage: "7" }',
    );
    const plan = changes(bare, next);
    const [config, ...cps] = plan.steps.filter((s) => s.kind === "kubectl" || s.kind === "kubeadm").slice(0, 4);
    expect(config?.commands).toEqual(["kubectl edit cm -n kube-system kubeadm-config"]);
    expect(config?.patch).toContain(
      "  certSANs:\n    - 10.118.12.100\n    - 10.118.12.20\n    - 10.118.12.21\n    - 10.118.12.22\n    - api.example.com\n",
    );
    expect(config?.patch).toContain('    - name: audit-log-maxage\n      value: "7"\n');
    // k8s-1 holds the control-plane VIP at rest: it goes last, and its step is the only one that moves the VIP
    expect(cps.map((s) => s.node)).toEqual(["k8s-2", "k8s-3", "k8s-1"]);
    expect(cps[0]?.commands).toEqual([
      "cp -a /etc/kubernetes /root/etc-kubernetes.before-clusterspec-change",
      "kubectl --kubeconfig /etc/kubernetes/admin.conf get cm -n kube-system kubeadm-config -o jsonpath='{.data.ClusterConfiguration}' > /etc/kubernetes/clusterspec-cluster.yaml",
      "printf 'apiVersion: kubeadm.k8s.io/v1beta4\\nkind: InitConfiguration\\nlocalAPIEndpoint:\\n  advertiseAddress: 10.118.12.21\\n  bindPort: 6443\\nnodeRegistration:\\n  name: k8s-2\\n  criSocket: unix:///run/containerd/containerd.sock\\n---\\n' | cat - /etc/kubernetes/clusterspec-cluster.yaml > /etc/kubernetes/clusterspec-reconfigure.yaml",
      "mv /etc/kubernetes/pki/apiserver.crt /etc/kubernetes/pki/apiserver.crt.old",
      "mv /etc/kubernetes/pki/apiserver.key /etc/kubernetes/pki/apiserver.key.old",
      "kubeadm init phase certs apiserver --config /etc/kubernetes/clusterspec-reconfigure.yaml",
      "kubeadm init phase control-plane apiserver --config /etc/kubernetes/clusterspec-reconfigure.yaml",
      "sleep 25",
    ]);
    expect(cps.map((s) => s.waitFor)).toEqual([
      "curl -ksf https://10.118.12.21:6443/readyz",
      "curl -ksf https://10.118.12.22:6443/readyz",
      "curl -ksf https://10.118.12.20:6443/readyz",
    ]);
    expect(cps.map((s) => s.vipMoves.map((m) => [m.vip, m.from, m.to]))).toEqual([
      [],
      [],
      [
        ["10.118.12.100", "k8s-1", "k8s-3"],
        ["10.118.12.100", "k8s-3", "k8s-1"],
      ],
    ]);
    // the check fails twice 2 s apart, then the down timer: PLAN.md's 4.61s–7.61s
    expect(cps[2]?.vipMoves[0]?.unavailableSeconds).toBeCloseTo(7.61, 2);
  });

  it("a certificate alone: the apiserver's manifest is taken away for one kubelet period and put back", () => {
    const next = edit(
      bare,
      "nodeCidrMaskSize: 24",
      "nodeCidrMaskSize: 24\n  apiServer:\n    certSANs: [api.example.com]",
    );
    const step = changes(bare, next).steps.find((s) => s.node === "k8s-2" && s.kind === "kubeadm");
    expect(step?.commands.slice(3)).toEqual([
      "mv /etc/kubernetes/pki/apiserver.crt /etc/kubernetes/pki/apiserver.crt.old",
      "mv /etc/kubernetes/pki/apiserver.key /etc/kubernetes/pki/apiserver.key.old",
      "kubeadm init phase certs apiserver --config /etc/kubernetes/clusterspec-reconfigure.yaml",
      "mv /etc/kubernetes/manifests/kube-apiserver.yaml /etc/kubernetes/kube-apiserver.yaml",
      "sleep 25",
      "mv /etc/kubernetes/kube-apiserver.yaml /etc/kubernetes/manifests/kube-apiserver.yaml",
      "sleep 25",
    ]);
  });

  it("controller-manager and scheduler flags: their manifests only, no certificate", () => {
    const next = edit(bare, "nodeCidrMaskSize: 24", 'nodeCidrMaskSize: 24\n  scheduler:\n    extraArgs: { v: "2" }');
    const step = changes(bare, next).steps.find((s) => s.node === "k8s-1" && s.kind === "kubeadm");
    expect(step?.commands.slice(3)).toEqual([
      "kubeadm init phase control-plane scheduler --config /etc/kubernetes/clusterspec-reconfigure.yaml",
      "sleep 25",
    ]);
    expect(step?.vipMoves).toEqual([]);
  });

  it("KubeletConfiguration: the kubelet-config patch, then every node's kubelet, workers first", () => {
    const plan = changes(
      withWorker,
      edit(withWorker, "nodeCidrMaskSize: 24", "nodeCidrMaskSize: 24\n  kubelet:\n    maxPods: 150"),
    );
    const steps = plan.steps.filter((s) => s.kind === "kubectl" || s.kind === "kubelet");
    expect(steps[0]?.commands).toEqual(["kubectl edit cm -n kube-system kubelet-config"]);
    expect(steps[0]?.patch).toBe("maxPods: 150\n");
    expect(steps.slice(1).map((s) => [s.node, s.commands, s.waitFor])).toEqual(
      ["k8s-4", "k8s-2", "k8s-3", "k8s-1"].map((n) => [
        n,
        ["kubeadm upgrade node phase kubelet-config", "rc-service kubelet restart"],
        `kubectl wait --for=condition=Ready node/${n} --timeout=300s`,
      ]),
    );
  });

  it("labels and taints: kubectl label/taint with exact arguments, removals with key-", () => {
    const labelled = edit(
      bare,
      "  - name: k8s-2\n    roles: [control-plane, worker]\n",
      "  - name: k8s-2\n    roles: [control-plane, worker]\n    labels: { zone: b, rack: r1 }\n    taints: [{ key: dedicated, value: infra, effect: NoSchedule }]\n",
    );
    const relabelled = edit(
      bare,
      "  - name: k8s-2\n    roles: [control-plane, worker]\n",
      "  - name: k8s-2\n    roles: [control-plane, worker]\n    labels: { zone: c }\n    taints: [{ key: dedicated, effect: NoExecute }]\n",
    );
    expect(
      changes(bare, labelled)
        .steps.filter((s) => s.kind === "kubectl")
        .map((s) => s.commands),
    ).toEqual([
      [
        "kubectl label node 'k8s-2' 'zone=b' --overwrite",
        "kubectl label node 'k8s-2' 'rack=r1' --overwrite",
        "kubectl taint node 'k8s-2' 'dedicated=infra:NoSchedule' --overwrite",
      ],
    ]);
    expect(
      changes(labelled, relabelled)
        .steps.filter((s) => s.kind === "kubectl")
        .map((s) => s.commands),
    ).toEqual([
      [
        "kubectl label node 'k8s-2' 'zone=c' --overwrite",
        "kubectl label node 'k8s-2' 'rack-'",
        "kubectl taint node 'k8s-2' 'dedicated:NoSchedule-'",
        "kubectl taint node 'k8s-2' 'dedicated:NoExecute' --overwrite",
      ],
    ]);
  });

  it("Cilium values: helm upgrade with the chart version and the values file", () => {
    const plan = changes(
      bare,
      edit(bare, "routingMode: native", "routingMode: native\n  values: { debug: { enabled: true } }"),
    );
    expect(plan.steps.map((s) => [s.node, s.kind, s.commands])).toEqual([
      [
        null,
        "helm",
        [
          "helm upgrade cilium cilium/cilium --version 1.20.0 -n kube-system -f cluster/cilium-values.yaml",
          "kubectl -n kube-system rollout status daemonset/cilium --timeout=10m",
        ],
      ],
    ]);
  });

  it("cloud pools: terraform plan then apply, user data for new instances only with the instance refresh", () => {
    const plan = changes(hybrid, edit(hybrid, "instanceType: t4g.xlarge", "instanceType: t4g.2xlarge"));
    expect(plan.steps.map((s) => [s.kind, s.commands])).toEqual([
      [
        "terraform",
        [
          "cd cloud/terraform",
          "terraform init",
          "terraform plan -out=clusterspec.tfplan",
          "terraform apply clusterspec.tfplan",
        ],
      ],
    ]);
    // a pool label: in the user data (the kubelet registers with it) and in the group's Cluster Autoscaler tags
    const relabelled = changes(hybrid, edit(hybrid, "ci.example.com/pool: ci-arm64", "ci.example.com/pool: ci"));
    expect(relabelled.steps.map((s) => [s.kind, s.files])).toEqual([
      ["terraform", ["cloud/terraform/pool-ci-arm64.tf.json"]],
      ["cloud-init", ["cloud/ci-arm64/user-data.yaml"]],
    ]);
    const cloudInit = relabelled.steps[1];
    expect(cloudInit?.title).toBe("pool ci-arm64: new user data, for new instances only");
    expect(cloudInit?.commands).toEqual([]);
    expect(cloudInit?.warnings).toEqual([
      "cloud-init runs at first boot: running instances keep their configuration. To replace them: aws autoscaling start-instance-refresh --auto-scaling-group-name 'k8s-hybrid-ci-arm64'",
    ]);
  });

  it("the WireGuard hub: wg syncconf on the hub, without dropping the tunnel", () => {
    const plan = changes(hybrid, edit(hybrid, /maxSize: 3/, "maxSize: 4"));
    const wg = plan.steps.filter((s) => s.kind === "wireguard");
    expect(wg.map((s) => s.commands)).toEqual([["wg syncconf wg0 <(wg-quick strip wg0)"]]);
    expect(wg[0]?.files).toEqual(["cloud/hub/etc/wireguard/wg0.conf"]);
  });

  it("a removed worker: drain, kubeadm reset on it, delete the Node", () => {
    const plan = changes(withWorker, bare);
    const own = plan.steps.filter((s) => s.title.startsWith("k8s-4"));
    expect(own.map((s) => [s.node, s.commands])).toEqual([
      [null, ["kubectl drain k8s-4 --ignore-daemonsets --delete-emptydir-data"]],
      ["k8s-4", ["kubeadm reset -f", "rc-service kubelet stop", "rc-update del kubelet default"]],
      [null, ["kubectl delete node k8s-4"]],
    ]);
  });
});

describe("changes that are not made in place (change_not_in_place), with path, line and procedure", () => {
  const notInPlace = (next: string, base = bare) => {
    const plan = changes(base, next);
    expect(plan.refused).toEqual([]);
    return plan.notInPlace.map((n) => ({
      path: n.path,
      line: n.line,
      code: n.code,
      reason: n.reason,
      steps: n.procedure.length,
    }));
  };

  it("the pod network", () => {
    const next = edit(bare, "podSubnet: 10.244.0.0/16", "podSubnet: 10.245.0.0/16");
    expect(notInPlace(next)).toEqual([
      {
        path: "kubernetes.podSubnet",
        line: lineOf(next, "podSubnet"),
        code: "change_not_in_place",
        reason:
          "the pod network (10.244.0.0/16 → 10.245.0.0/16) is the controller-manager's --cluster-cidr, every node's podCIDR and Cilium's IPAM pool: the running pods keep their addresses",
        steps: 3,
      },
    ]);
  });

  it("the service network", () => {
    const next = edit(bare, "serviceSubnet: 10.96.0.0/12", "serviceSubnet: 172.20.0.0/16");
    expect(notInPlace(next)).toEqual([
      {
        path: "kubernetes.serviceSubnet",
        line: lineOf(next, "serviceSubnet"),
        code: "change_not_in_place",
        reason:
          "the service network (10.96.0.0/12 → 172.20.0.0/16) holds every Service's cluster IP, the kubernetes Service address in the apiserver certificate and the DNS address in every kubelet's configuration",
        steps: 3,
      },
    ]);
  });

  it("the IPv6 half of a dual-stack pod or service network, though the primary (IPv4) one stays", () => {
    const dual = exampleText("dual-stack");
    const pods = edit(dual, '"fd00:10:244::/56"', '"fd00:10:245::/56"');
    expect(notInPlace(pods, dual)).toEqual([
      {
        path: "kubernetes.podSubnet",
        line: lineOf(pods, "podSubnet"),
        code: "change_not_in_place",
        reason:
          "the pod network (10.244.0.0/16, fd00:10:244::/56 → 10.244.0.0/16, fd00:10:245::/56) is the controller-manager's --cluster-cidr, every node's podCIDR and Cilium's IPAM pool: the running pods keep their addresses",
        steps: 3,
      },
    ]);
    const services = edit(dual, '"fd00:10:96::/112"', '"fd00:10:97::/112"');
    expect(notInPlace(services, dual).map((n) => [n.path, n.line])).toEqual([
      ["kubernetes.serviceSubnet", lineOf(services, "serviceSubnet")],
    ]);
    // the same networks are no change at all
    expect(changes(dual, dual).notInPlace).toEqual([]);
  });

  it("the cluster name", () => {
    const next = edit(bare, "name: k8s-test", "name: k8s-prod");
    expect(notInPlace(next)).toEqual([
      {
        path: "name",
        line: lineOf(next, "name: k8s-prod"),
        code: "change_not_in_place",
        reason:
          "the cluster name (k8s-test → k8s-prod) is kubeadm's clusterName and names the cloud groups' Cluster Autoscaler tags",
        steps: 3,
      },
    ]);
  });

  it("a Kubernetes upgrade: the kubeadm upgrade procedure", () => {
    const next = edit(bare, "version: v1.34.2", "version: v1.35.0");
    const [n] = changes(bare, next).notInPlace;
    expect(n?.path).toBe("kubernetes.version");
    expect(n?.line).toBe(lineOf(next, "version: v1.35.0"));
    expect(n?.reason).toBe("v1.34.2 → v1.35.0 is an upgrade: kubeadm upgrade, not a reconfiguration");
    expect(n?.procedure).toContain(
      "on k8s-1 (or any one control plane): kubeadm upgrade plan v1.35.0, then kubeadm upgrade apply v1.35.0",
    );
  });

  it("a node's Kubernetes address: drain, reset, delete and join again", () => {
    const next = edit(bare, "address: 10.118.12.22/24", "address: 10.118.12.32/24");
    const [n] = changes(bare, next).notInPlace;
    expect(n?.path).toBe("nodes[2].interfaces.wan1.address");
    expect(n?.line).toBe(lineOf(next, "10.118.12.32/24"));
    expect(n?.reason).toBe(
      "k8s-3's Kubernetes address (10.118.12.22 → 10.118.12.32) is its kubelet's node-ip, its etcd peer URL and its apiserver's advertise address, fixed at join",
    );
    expect(n?.procedure[0]).toBe("kubectl drain k8s-3 --ignore-daemonsets --delete-emptydir-data");
  });

  it("a node's role", () => {
    const next = edit(
      edit(withWorker, "roles: [worker]", "roles: [control-plane, worker]"),
      "  - name: k8s-3\n    roles: [control-plane, worker]",
      "  - name: k8s-3\n    roles: [worker]",
    );
    const plan = changes(withWorker, next);
    expect(plan.notInPlace.find((n) => n.path === "nodes[2].roles")?.reason).toBe(
      "k8s-3 stops being a control plane: kubeadm sets the role at join",
    );
    const role = plan.notInPlace.find((n) => n.path === "nodes[3].roles");
    expect(role?.reason).toBe("k8s-4 becomes a control plane: kubeadm sets the role at join");
    expect(role?.line).toBe(lineOf(next, "- name: k8s-4") + 1);
  });

  it("an explicit VRID swap: three rollouts through a free VRID", () => {
    // The example pins VRIDs 10, 11, 12 (pin-vrids kept its positional numbering).
    const pinned = bare;
    const swapped = edit(
      edit(pinned, "{ address: 10.118.11.20, vrid: 10 }", "{ address: 10.118.11.20, vrid: 11 }"),
      "{ address: 10.118.11.21, vrid: 11 }",
      "{ address: 10.118.11.21, vrid: 10 }",
    );
    const found = notInPlace(swapped, pinned).filter((n) => n.reason.includes("takes VRID"));
    expect(found.map((n) => [n.path, n.line])).toEqual([
      ["externalVips.addresses[0].vrid", lineOf(swapped, "10.118.11.20, vrid: 11")],
      ["externalVips.addresses[1].vrid", lineOf(swapped, "10.118.11.21, vrid: 10")],
    ]);
    expect(found[0]?.reason).toBe(
      "10.118.11.20 takes VRID 11 from 10.118.11.21, which stays (VRID 11 → 10): during a node-by-node rollout two configs would advertise VRID 11 with different addresses, and each would elect its own master",
    );
  });

  it("the init node moving to another member: installed for the record, never init", () => {
    // k8s-2 listed first: it becomes the first control plane, the init node of a tree without controlPlane.initNode
    const first = bare.slice(bare.indexOf("  - name: k8s-1\n"), bare.indexOf("  - name: k8s-2\n"));
    const next = edit(bare.replace(first, ""), "  - name: k8s-3\n", `${first}  - name: k8s-3\n`);
    const plan = changes(bare, next);
    expect(plan.specChanges.map((c) => [c.path, c.old, c.new])).toEqual([
      ["nodes", ["k8s-1", "k8s-2", "k8s-3"], ["k8s-2", "k8s-1", "k8s-3"]],
    ]);
    const init = plan.notInPlace.find((n) => n.reason.startsWith("the init node"));
    expect(init?.reason).toBe(
      "the init node moves from k8s-1 to k8s-2, whose kubeadm.yaml becomes an InitConfiguration although it is already a member",
    );
    expect(init?.path).toBe("nodes[0]");
    expect(init?.line).toBe(lineOf(next, "- name: k8s-2"));
  });
});

describe("the init node of a bootstrapped cluster (controlPlane.bootstrapped)", () => {
  it("moving is reported: it changes no node", () => {
    const first = bare.slice(bare.indexOf("  - name: k8s-1\n"), bare.indexOf("  - name: k8s-2\n"));
    const reordered = edit(bare.replace(first, ""), "  - name: k8s-3\n", `${first}  - name: k8s-3\n`);
    const mark = (text: string) => edit(text, "  vrid: 5\n", "  vrid: 5\n  bootstrapped: true\n");
    const plan = planChanges(side(mark(bare)), side(mark(reordered)));
    expect(plan.refused).toEqual([]);
    expect(plan.notInPlace.map((n) => [n.path, n.reason])).toEqual([
      [
        "nodes[0]",
        "the cluster is bootstrapped: kubeadm init ran once, on k8s-1; naming k8s-2 as the init node changes no node (every kubeadm.yaml joins)",
      ],
    ]);
  });
});

describe("changes that are refused (change_refused: no steps)", () => {
  const refused = (next: string) => {
    const plan = changes(bare, next);
    expect(plan.steps).toEqual([]);
    return plan.refused;
  };

  it("a new control-plane VIP", () => {
    const next = edit(bare, "vip: 10.118.12.100/24", "vip: 10.118.12.101/24");
    expect(refused(next)).toEqual([
      {
        path: "controlPlane.vip",
        line: lineOf(next, "vip: 10.118.12.101/24"),
        code: "change_refused",
        reason:
          "the control-plane endpoint (10.118.12.100:6443 → 10.118.12.101:6443) is in every node's kubeconfigs, the kubeadm-config ConfigMap and the cluster-info discovery data: no in-place procedure keeps the cluster reachable; keep the endpoint, or build a new cluster (a DNS name as the endpoint makes the next move possible)",
      },
    ]);
  });

  it("a new control-plane port (the endpoint too)", () => {
    const next = edit(bare, "port: 6443", "port: 8443");
    expect(refused(next).map((r) => [r.path, r.line, r.reason.split(":")[0]])).toEqual([
      ["controlPlane.port", lineOf(next, "port: 8443"), "the control-plane endpoint (10.118.12.100"],
    ]);
  });

  it("a Kubernetes downgrade", () => {
    const next = edit(bare, "version: v1.34.2", "version: v1.34.1");
    expect(refused(next).map((r) => [r.path, r.line, r.reason])).toEqual([
      [
        "kubernetes.version",
        lineOf(next, "version: v1.34.1"),
        "v1.34.2 → v1.34.1 is a downgrade: kubeadm does not downgrade a cluster",
      ],
    ]);
  });

  it("a skipped minor version", () => {
    const old = edit(bare, "version: v1.34.2", "version: v1.33.4");
    const next = edit(bare, "version: v1.34.2", "version: v1.35.0");
    const plan = changes(old, next);
    expect(plan.steps).toEqual([]);
    expect(plan.refused.map((r) => r.reason)).toEqual([
      "v1.33.4 → v1.35.0 skips a minor version: kubeadm upgrades one minor at a time (and kubeadm API kubeadm.k8s.io/v1beta4 → kubeadm.k8s.io/v1beta4 has no upgrade path across more): go to v1.34 first",
    ]);
  });

  it("a new node that would run kubeadm init: a second cluster", () => {
    const next = edit(bare, "  - name: k8s-1\n", "  - name: k8s-9\n");
    const plan = changes(bare, next);
    expect(plan.steps).toEqual([]);
    expect(plan.refused.map((r) => [r.path, r.line, r.reason])).toEqual([
      [
        "nodes[0]",
        lineOf(next, "- name: k8s-9"),
        "k8s-9 is new and its kubeadm.yaml is now the InitConfiguration (the init node was k8s-1): kubeadm init there would start a second cluster; name an existing control plane as the init node and mark the cluster bootstrapped, so that k8s-9 joins",
      ],
    ]);
  });
});
