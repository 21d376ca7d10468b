// Changes that cannot be made on the running cluster: reported with the procedure that does make them
// (`notInPlace`, catalog code change_not_in_place), or refused when there is no safe one (`refused`,
// change_refused: exit 2, no steps). Each names the spec path and, where the spec was text, its line.
import { toDotPath as dot, instanceFamilies, kubeadmUpgradePath } from "@clusterspec/core";
import type { ClusterPlan, PlannedNode } from "@clusterspec/core/types";
import type { TreeSide } from "./node-steps.js";
import type { ChangePlan } from "./types.js";

type Path = readonly (string | number)[];
export type LineOf = (path: Path, side: "old" | "new") => number | undefined;

type NotInPlace = ChangePlan["notInPlace"][number];
type Refused = ChangePlan["refused"][number];

const REBUILD = (what: string): string[] => [
  `build a second cluster from the new spec (new machines, or nodes taken out of this cluster one by one): ${what} is fixed when kubeadm init runs`,
  "move the workloads and their data to it, then point DNS and clients at its VIPs",
  "remove the old cluster's nodes (kubeadm reset) and reuse them as new nodes of the new cluster",
];

/** The runbook that takes a node out and brings it back with a new identity (address, role). */
export function rejoinProcedure(plan: ClusterPlan, node: PlannedNode): string[] {
  const cp = node.controlPlane;
  return [
    `kubectl drain ${node.name} --ignore-daemonsets --delete-emptydir-data`,
    `on ${node.name}: kubeadm reset -f${cp ? " (removes its etcd member while the cluster is reachable)" : ""}`,
    `kubectl delete node ${node.name}`,
    ...(cp
      ? [
          `on another control plane: etcdctl member list (with /etc/kubernetes/pki/etcd certificates), and etcdctl member remove <ID> if ${node.name} is still listed`,
        ]
      : []),
    `install the new tree's nodes/${node.name}/ and join it: kubeadm join --config /kubeadm.yaml (a fresh bootstrap token${cp ? " and uploaded certificates" : ""}: kubeadm token create, kubeadm init phase upload-certs --upload-certs)`,
    ...(cp && plan.nodes.filter((n) => n.controlPlane).length <= 3
      ? ["while it is out, etcd has no failure margin: take no other control plane down"]
      : []),
  ];
}

/** Where a VIP's explicit VRID is written: beside its address, or controlPlane.vrid. */
function vridPath(addressPath: Path): Path {
  if (addressPath.at(-1) === "address") return [...addressPath.slice(0, -1), "vrid"];
  if (addressPath.join(".") === "controlPlane.vip") return ["controlPlane", "vrid"];
  return addressPath;
}

export function notInPlaceChanges(
  old: TreeSide,
  next: TreeSide,
  lineOf: LineOf,
): { notInPlace: NotInPlace[]; refused: Refused[] } {
  const notInPlace: NotInPlace[] = [];
  const refused: Refused[] = [];
  const at = (path: Path, side: "old" | "new" = "new") => {
    const line = lineOf(path, side);
    return line === undefined ? {} : { line };
  };
  const report = (path: Path, reason: string, procedure: string[], side: "old" | "new" = "new") =>
    notInPlace.push({ path: dot(path), reason, procedure, code: "change_not_in_place", ...at(path, side) });
  const refuse = (path: Path, reason: string, side: "old" | "new" = "new") =>
    refused.push({ path: dot(path), reason, code: "change_refused", ...at(path, side) });
  const a = old.plan;
  const b = next.plan;

  // The lists, not only the primary family's network: adding, changing or dropping the IPv6 network of a dual-stack
  // cluster is as much a rebuild as changing the IPv4 one.
  const podA = a.kubernetes.podSubnets.join(", ");
  const podB = b.kubernetes.podSubnets.join(", ");
  if (podA !== podB)
    report(
      ["kubernetes", "podSubnet"],
      `the pod network (${podA} → ${podB}) is the controller-manager's --cluster-cidr, every node's podCIDR and Cilium's IPAM pool: the running pods keep their addresses`,
      REBUILD("the pod network"),
    );
  const serviceA = a.kubernetes.serviceSubnets.join(", ");
  const serviceB = b.kubernetes.serviceSubnets.join(", ");
  if (serviceA !== serviceB)
    report(
      ["kubernetes", "serviceSubnet"],
      `the service network (${serviceA} → ${serviceB}) holds every Service's cluster IP, the kubernetes Service address in the apiserver certificate and the DNS address in every kubelet's configuration`,
      REBUILD("the service network"),
    );
  if (a.name !== b.name)
    report(
      ["name"],
      `the cluster name (${a.name} → ${b.name}) is kubeadm's clusterName and names the cloud groups' Cluster Autoscaler tags`,
      REBUILD("the cluster name"),
    );

  const va = a.kubernetes.version;
  const upgrade = kubeadmUpgradePath(va, b.kubernetes.version);
  if (upgrade !== "same") {
    const path = ["kubernetes", "version"];
    const change = `${a.kubernetes.versionText} → ${b.kubernetes.versionText}`;
    if (upgrade === "downgrade" || upgrade === "other-major")
      refuse(
        path,
        upgrade === "downgrade"
          ? `${change} is a downgrade: kubeadm does not downgrade a cluster`
          : `${change} changes the major version: kubeadm has no upgrade path across it`,
      );
    else if (upgrade === "skips-minor")
      refuse(
        path,
        `${change} skips a minor version: kubeadm upgrades one minor at a time (and kubeadm API ${a.kubernetes.kubeadmApiVersion} → ${b.kubernetes.kubeadmApiVersion} has no upgrade path across more): go to v${va.major}.${va.minor + 1} first`,
      );
    else
      report(path, `${change} is an upgrade: kubeadm upgrade, not a reconfiguration`, [
        `on every node: emerge the new sys-cluster/kubeadm (the tree's package.accept_keywords)`,
        `on ${b.bootstrap.initNodeName} (or any one control plane): kubeadm upgrade plan ${b.kubernetes.versionText}, then kubeadm upgrade apply ${b.kubernetes.versionText}`,
        "on each other control plane, one at a time: kubeadm upgrade node, then wait for its /readyz",
        "on each node, one at a time: kubectl drain <node> --ignore-daemonsets; emerge the new kubelet and kubectl; rc-service kubelet restart; kubectl uncordon <node>",
        ...(a.kubernetes.kubeadmApiVersion === b.kubernetes.kubeadmApiVersion
          ? []
          : [
              `kubeadm upgrade migrates the stored configuration from ${a.kubernetes.kubeadmApiVersion} to ${b.kubernetes.kubeadmApiVersion}`,
            ]),
      ]);
  }

  if (a.controlPlane.endpoint !== b.controlPlane.endpoint)
    refuse(
      a.controlPlane.vip.address !== b.controlPlane.vip.address ? ["controlPlane", "vip"] : ["controlPlane", "port"],
      `the control-plane endpoint (${a.controlPlane.endpoint} → ${b.controlPlane.endpoint}) is in every node's kubeconfigs, the kubeadm-config ConfigMap and the cluster-info discovery data: no in-place procedure keeps the cluster reachable; keep the endpoint, or build a new cluster (a DNS name as the endpoint makes the next move possible)`,
    );

  // An explicit VRID swap: two VIPs that stay exchange numbers (or one takes another's): while the nodes are
  // updated one by one, old and new configs advertise the same VRID with different addresses.
  const vipsA = new Map(a.vips.map((v) => [v.address, v]));
  // VRIDs are per interface and family: a dual-stack pair holds its VRID in both.
  const byVrid = new Map(
    a.vips.flatMap((v) => instanceFamilies(v).map((f) => [`${v.interface}/${f}/${v.vrid}`, v] as const)),
  );
  for (const v of b.vips) {
    const was = vipsA.get(v.address);
    if (!was || was.vrid === v.vrid) continue;
    const holder = instanceFamilies(v)
      .map((f) => byVrid.get(`${v.interface}/${f}/${v.vrid}`))
      .find((x) => x !== undefined);
    const other = holder && b.vips.find((x) => x.address === holder.address);
    if (!other || holder === was) continue;
    report(
      vridPath(v.specPath),
      `${v.address} takes VRID ${v.vrid} from ${other.address}, which stays (VRID ${holder.vrid} → ${other.vrid}): during a node-by-node rollout two configs would advertise VRID ${v.vrid} with different addresses, and each would elect its own master`,
      [
        `first change: give ${v.address} a VRID no VIP on ${v.interface} uses, and roll that out`,
        `second change: give ${other.address} its new VRID ${other.vrid}, and roll that out`,
        `last change: give ${v.address} VRID ${v.vrid}, and roll that out`,
      ],
    );
  }

  // kubeadm init runs once: a tree that names a new node as the one to init would start a second cluster.
  const oldNames = new Set(a.nodes.map((n) => n.name));
  const was = a.bootstrap.initNodeName;
  const now = b.bootstrap.initNodeName;
  if (was !== now) {
    const initPath: Path = b.bootstrap.initNodeDefaulted
      ? ["nodes", b.nodes.findIndex((n) => n.name === now)]
      : ["controlPlane", "initNode"];
    if (!oldNames.has(now) && !b.bootstrap.bootstrapped)
      refuse(
        initPath,
        `${now} is new and its kubeadm.yaml is now the InitConfiguration (the init node was ${was}): kubeadm init there would start a second cluster; name an existing control plane as the init node and mark the cluster bootstrapped, so that ${now} joins`,
      );
    else if (b.bootstrap.bootstrapped)
      report(
        initPath,
        `the cluster is bootstrapped: kubeadm init ran once, on ${was}; naming ${now} as the init node changes no node (every kubeadm.yaml joins)`,
        [
          "nothing to run on the cluster",
          `keep ${was} as the init node, so that the spec records where the cluster began`,
        ],
      );
    else
      report(
        initPath,
        `the init node moves from ${was} to ${now}, whose kubeadm.yaml becomes an InitConfiguration although it is already a member`,
        [
          `never run kubeadm init on ${now}: it is installed for the record only`,
          "mark the cluster bootstrapped in the spec, so that every node's kubeadm.yaml is a JoinConfiguration",
        ],
      );
  }

  // A node's identity in the cluster (its address, its role) is fixed at join.
  for (const [j, n] of b.nodes.entries()) {
    const was = a.nodes.find((x) => x.name === n.name);
    if (!was) continue;
    if (was.internalAddress !== n.internalAddress)
      report(
        ["nodes", j, "interfaces", n.internalInterface, "address"],
        `${n.name}'s Kubernetes address (${was.internalAddress} → ${n.internalAddress}) is its kubelet's node-ip${n.controlPlane ? ", its etcd peer URL and its apiserver's advertise address" : ""}, fixed at join`,
        rejoinProcedure(b, n),
      );
    if (was.controlPlane !== n.controlPlane)
      report(
        ["nodes", j, "roles"],
        `${n.name} ${n.controlPlane ? "becomes" : "stops being"} a control plane: kubeadm sets the role at join`,
        rejoinProcedure(b, n),
      );
  }
  return { notInPlace, refused };
}
