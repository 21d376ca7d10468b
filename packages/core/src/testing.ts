// fast-check arbitraries for every package's property tests (`@clusterspec/core/testing`).
// Specs are valid by construction: each network comes from its own range, so rules only fail when a test breaks one on purpose.
import fc from "fast-check";
import { formatIssues } from "./issues.js";
import { resolvePlan } from "./plan/resolve.js";
import type { ClusterPlan, PlannedNode } from "./plan/types.js";
import type { SecretValues } from "./secrets.js";
import {
  type AnySpec,
  type CloudBurstSpecInput,
  type ClusterSpec,
  type ClusterSpecInput,
  isCloudBurstSpec,
} from "./spec/schema.js";
import { validateSpec } from "./spec/validate.js";

export interface SpecShape {
  readonly controlPlanes: 1 | 3 | 5;
  readonly workers: number;
  /** External pool size (0: no pool). */
  readonly poolSize: number;
  readonly cloud: boolean;
}

const hex2 = (n: number): string => n.toString(16).padStart(2, "0");

/** A valid spec of the given shape, varied by `seed` values; deterministic. */
export function buildSpec(
  shape: SpecShape,
  vary: {
    segmentOctets?: [number, number];
    uplinkOctet?: number;
    minor?: number;
    patch?: number;
    ciliumMinor?: number;
    carriers?: readonly boolean[];
    names?: readonly string[];
    auth?: "AH" | "PASS" | "none";
    /** The control-plane VIP's explicit VRID; default 1 (its address, .5, is in the pool's range .2 up). */
    cpVrid?: number;
    btrfs?: readonly boolean[];
    /** Put the Kubernetes segment on the VLAN `wan0.<id>` instead of wan1. */
    vlan?: number;
    /** MTU of the Kubernetes interface (and of wan0 too when that interface is its VLAN and the MTU is above 1500). */
    mtu?: number;
    /** host.firewall with these SSH networks. */
    sshFrom?: readonly string[];
    cgroupMode?: "unified" | "hybrid" | "legacy";
    /** controlPlane.initNode: the name of the control plane at this index (0: the first, as the default). */
    initNode?: number;
    /** controlPlane.bootstrapped. */
    bootstrapped?: boolean;
    /**
     * The cloud pool's `ipv6` (with `shape.cloud`). `only` also makes the second nameserver IPv6 (2606:4700:4700::1111)
     * and the first one on the Kubernetes segment (.53), which the tunnel carries: an IPv6-only pool reaches no IPv4
     * nameserver outside it (cloudIpv6OnlyNameservers), and a hub endpoint by name still has one outside the tunnel.
     */
    poolIpv6?: "dual-stack" | "only";
    /**
     * The cluster's families (default `ipv4`): `dual-ipv4`/`dual-ipv6` give every node an `address6` beside its
     * IPv4 address on the Kubernetes segment (fd00:<a+100>:<b+1>::/64), the segment a `subnet6`, the uplink an IPv6
     * on-link network (fd01:<up+1>::/64) and `gateway6`, and list the pod and service networks with the named family
     * first; `ipv6` writes the IPv6 values in `address`/`subnet`/`gateway`/`vip` instead (wan0 keeps its IPv4
     * management address). With any IPv6 VIP, `auth` is dropped (VRRPv3 has none: vrrpFamiliesAndUnicast).
     */
    family?: BurstFamily;
    /** Dual stack: the control-plane VIP has an IPv6 partner (`controlPlane.vip6`). */
    cpVip6?: boolean;
    /**
     * Dual stack: each external VIP's kind, cycled over the pool: 0 IPv4, 1 a dual-stack pair (`address6`), 2 IPv6
     * alone. Default all IPv4. (An IPv6-only cluster's VIPs are all IPv6.)
     */
    vipKinds?: readonly (0 | 1 | 2)[];
  } = {},
): ClusterSpecInput {
  const [a, b] = vary.segmentOctets ?? [118, 12];
  const up = vary.uplinkOctet ?? 11;
  const family = vary.family ?? "ipv4";
  const { has4, has6, dual, ordered } = familyLayout(family);
  // canonical IPv6 by construction (no zero groups before the ::), so string comparisons of networks hold
  // a + 100: never the group 10 of the pod and service networks (fd00:10:244::/56, fd00:10:96::/112), which
  // a = 10 with b = 243 or 95 overlapped (a drawn spec refused, seen in a clean run)
  const net6 = `fd00:${a + 100}:${b + 1}::`;
  const up6 = `fd01:${up + 1}::`;
  const poolAddress6 = (j: number): string => `${up6}${(2 + j).toString(16)}`;
  const vipKind = (j: number): 0 | 1 | 2 =>
    family === "ipv6" ? 2 : dual && vary.vipKinds?.length ? (vary.vipKinds[j % vary.vipKinds.length] ?? 0) : 0;
  const cpVip6 = dual && vary.cpVip6 === true;
  const anyVip6 =
    family === "ipv6" || cpVip6 || Array.from({ length: shape.poolSize }, (_, j) => vipKind(j)).some((k) => k > 0);
  const auth = anyVip6 ? "none" : (vary.auth ?? "none");
  const total = shape.controlPlanes + shape.workers;
  const names = vary.names ?? Array.from({ length: total }, (_, i) => `node-${i + 1}`);
  const carriers = vary.carriers ?? Array.from({ length: total }, () => true);
  const anyCarrier = carriers.slice(0, total).some(Boolean);
  const minor = vary.minor ?? 34;
  // Up to 253 VIPs fit the uplink's /24 next to its gateway; larger pools get a /23.
  const wide = shape.poolSize > 253;
  const upNet = wide ? `192.168.${up & 254}` : `192.168.${up}`;
  const poolAddress = (j: number): string =>
    wide ? `192.168.${(up & 254) + ((2 + j) >> 8)}.${(2 + j) & 255}` : `192.168.${up}.${2 + j}`;
  const k8sIface = vary.vlan === undefined ? "wan1" : `wan0.${vary.vlan}`;
  const mtu = vary.mtu === undefined ? {} : { mtu: vary.mtu };
  const parentMtu = vary.vlan !== undefined && (vary.mtu ?? 0) > 1500 ? { mtu: vary.mtu } : {};
  const k8sAddress = (i: number) =>
    has4
      ? {
          address: `10.${a}.${b}.${10 + i}/24`,
          ...(dual ? { address6: `${net6}${(10 + i).toString(16)}/64` } : {}),
        }
      : { address: `${net6}${(10 + i).toString(16)}/64` };
  const nodes = names.slice(0, total).map((name, i) => ({
    name,
    roles: i < shape.controlPlanes ? ["control-plane" as const, "worker" as const] : ["worker" as const],
    carriesExternalVips: shape.poolSize > 0 && (anyCarrier ? (carriers[i] ?? false) : i === 0),
    rootFilesystem: vary.btrfs?.[i] ? ("btrfs" as const) : ("ext4" as const),
    interfaces: {
      wan0: {
        mac: `52:54:00:10:${hex2(i >> 8)}:${hex2(i & 255)}`,
        address: `198.18.${up}.${10 + i}/24`,
        gateway: `198.18.${up}.1`,
        ...parentMtu,
      },
      ...(vary.vlan === undefined
        ? {
            wan1: { mac: `52:54:00:20:${hex2(i >> 8)}:${hex2(i & 255)}`, ...k8sAddress(i), ...mtu },
          }
        : {
            [k8sIface]: { vlan: { parent: "wan0", id: vary.vlan }, ...k8sAddress(i), ...mtu },
          }),
    },
  }));
  const spec: ClusterSpecInput = {
    apiVersion: "clusterspec/v1alpha1",
    kind: "Cluster",
    name: "prop-cluster",
    kubernetes: {
      version: `v1.${minor}.${vary.patch ?? 0}`,
      podSubnet: ordered("10.244.0.0/16", "fd00:10:244::/56"),
      serviceSubnet: ordered("10.96.0.0/12", "fd00:10:96::/112"),
      nodeCidrMaskSize: 24,
      ...(has6 ? { nodeCidrMaskSize6: 64 } : {}),
      schedulableControlPlanes: shape.workers === 0,
      secrets: {
        bootstrapToken: { env: "KUBEADM_TOKEN" },
        certificateKey: { env: "KUBEADM_CERT_KEY" },
        caCertHash: { env: "KUBEADM_CA_HASH" },
      },
    },
    network: {
      segments: [
        {
          name: "internal",
          interface: k8sIface,
          subnet: has4 ? `10.${a}.${b}.0/24` : `${net6}/64`,
          ...(dual ? { subnet6: `${net6}/64` } : {}),
          onLink: [...(has4 ? [`${upNet}.0/${wide ? 23 : 24}`] : []), ...(has6 ? [`${up6}/64`] : [])],
          uplink: {
            gateway: has4 ? `${upNet}.1` : `${up6}1`,
            ...(dual ? { gateway6: `${up6}1` } : {}),
            routingTable: { id: 1, name: "vswitch" },
          },
        },
      ],
      nameservers:
        vary.poolIpv6 === "only"
          ? [has4 ? `10.${a}.${b}.53` : `${net6}53`, "2606:4700:4700::1111"]
          : family === "ipv4"
            ? ["1.1.1.1", "8.8.8.8"]
            : has4
              ? ["1.1.1.1", "2606:4700:4700::1111"]
              : ["2606:4700:4700::1111", "2001:4860:4860::8888"],
    },
    controlPlane: {
      vip: has4 ? `10.${a}.${b}.5/24` : `${net6}5/64`,
      ...(cpVip6 ? { vip6: `${net6}5/64` } : {}),
      port: 6443,
      vrid: vary.cpVrid ?? 1,
      ...(vary.initNode === undefined ? {} : { initNode: names[vary.initNode % shape.controlPlanes] }),
      ...(vary.bootstrapped === undefined ? {} : { bootstrapped: vary.bootstrapped }),
    },
    vrrp:
      auth === "none"
        ? { advertInterval: 1 }
        : { advertInterval: 1, auth: { type: auth, password: { env: "VRRP_AUTH_PASS" } } },
    ...(shape.poolSize > 0
      ? {
          externalVips: {
            addresses: Array.from({ length: shape.poolSize }, (_, j) => {
              const kind = vipKind(j);
              return kind === 0
                ? poolAddress(j)
                : kind === 2
                  ? poolAddress6(j)
                  : { address: poolAddress(j), address6: poolAddress6(j) };
            }),
          },
        }
      : {}),
    nodes,
    ...(vary.sshFrom === undefined && vary.cgroupMode === undefined
      ? {}
      : {
          host: {
            ...(vary.sshFrom === undefined ? {} : { firewall: { sshFrom: [...vary.sshFrom] } }),
            ...(vary.cgroupMode === undefined ? {} : { cgroupMode: vary.cgroupMode }),
          },
        }),
    cilium: {
      version: `1.${vary.ciliumMinor ?? 20}.0`,
      routingMode: shape.cloud ? "tunnel" : "native",
      autoDirectNodeRoutes: !shape.cloud,
    },
    ...(shape.cloud
      ? {
          cloud: {
            aws: { region: "eu-central-1", vpcCidr: "172.24.0.0/16" },
            provisioner: { url: "https://provisioner.example.com" },
            // the tunnel carries each family of the cluster (burstTunnelFamilies)
            wireguard: {
              tunnelSubnet: has4 ? "172.30.99.0/24" : "fd00:30:99::/64",
              ...(dual ? { tunnelSubnet6: "fd00:30:99::/64" } : {}),
            },
            pools: [
              {
                name: "ci-arm64",
                instanceType: "t4g.xlarge",
                architecture: "arm64",
                ami: { lookup: { owners: ["125523088429"], name: "Fedora-Cloud-Base-AmazonEC2.aarch64-*" } },
                minSize: 0,
                maxSize: 3,
                subnets: ["subnet-0123456789abcdef0"],
                securityGroups: ["sg-0123456789abcdef0"],
                taints: [{ key: "ci", value: "true", effect: "NoSchedule" }],
                labels: { "node.kubernetes.io/ci": "" },
                resources: { "github.com/fuse": "1" },
                ...(vary.poolIpv6 === undefined ? {} : { ipv6: vary.poolIpv6 }),
              },
            ],
          },
        }
      : {}),
  };
  return spec;
}

export const arbNodeName = (): fc.Arbitrary<string> =>
  fc.stringMatching(/^[a-z][a-z0-9-]{0,10}[a-z0-9]$/).filter((s) => !s.includes("--"));

/** Every cluster family `arbClusterSpec` draws by default. */
export const CLUSTER_FAMILIES: readonly BurstFamily[] = ["ipv4", "dual-ipv4", "dual-ipv6", "ipv6"];

/**
 * Valid cluster specs: 1, 3 or 5 control planes, 0-8 workers, pools of 0-40 VIPs, Kubernetes 1.22-1.35, with or
 * without cloud (its pool's `ipv6` unset, `dual-stack` or `only`). `bootstrap: true` also varies `controlPlane.initNode` (unset or any control plane) and
 * `controlPlane.bootstrapped`; without it neither is set, so the first control plane inits.
 * `families` (default all of CLUSTER_FAMILIES) are the cluster families drawn: IPv4 half the time when it is among
 * them, dual stack with either family first (a dual-stack control-plane VIP or not, external VIPs each IPv4, a
 * dual-stack pair or IPv6 alone) and IPv6-only the rest (see buildSpec's `family`).
 */
export const arbClusterSpec = (
  options: {
    maxWorkers?: number;
    maxPool?: number;
    cloud?: boolean;
    bootstrap?: boolean;
    families?: readonly BurstFamily[];
  } = {},
): fc.Arbitrary<ClusterSpecInput> =>
  fc
    .record({
      controlPlanes: fc.constantFrom(1 as const, 3 as const, 5 as const),
      workers: fc.integer({ min: 0, max: options.maxWorkers ?? 8 }),
      poolSize: fc.integer({ min: 0, max: options.maxPool ?? 40 }),
      cloud: options.cloud === undefined ? fc.boolean() : fc.constant(options.cloud),
      a: fc.integer({ min: 1, max: 90 }),
      b: fc.integer({ min: 0, max: 255 }),
      up: fc.integer({ min: 0, max: 255 }),
      minor: fc.integer({ min: 22, max: 35 }),
      patch: fc.integer({ min: 0, max: 15 }),
      ciliumMinor: fc.integer({ min: 14, max: 20 }),
      carriers: fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
      btrfs: fc.array(fc.boolean(), { minLength: 13, maxLength: 13 }),
      auth: fc.constantFrom("AH" as const, "PASS" as const, "none" as const),
      cpVrid: fc.option(fc.integer({ min: 1, max: 255 }), { nil: undefined }),
      names: fc.uniqueArray(arbNodeName(), { minLength: 13, maxLength: 13 }),
      mtu: fc.option(fc.integer({ min: 1280, max: 9216 }), { nil: undefined, freq: 3 }),
      sshFrom: fc.option(fc.constantFrom([], ["192.0.2.0/24"], ["192.0.2.0/24", "2001:db8::/32"]), {
        nil: undefined,
        freq: 3,
      }),
      cgroupMode: fc.option(fc.constantFrom("unified" as const, "hybrid" as const, "legacy" as const), {
        nil: undefined,
        freq: 3,
      }),
      initNode: options.bootstrap
        ? fc.option(fc.integer({ min: 0, max: 4 }), { nil: undefined })
        : fc.constant(undefined),
      bootstrapped: options.bootstrap ? fc.option(fc.boolean(), { nil: undefined }) : fc.constant(undefined),
      poolIpv6: fc.constantFrom(undefined, "dual-stack" as const, "only" as const),
      // drawn last, so the fields above draw as they did before families were drawn
      family: arbFamily(options.families ?? CLUSTER_FAMILIES),
      cpVip6: fc.boolean(),
      vipKinds: fc.array(fc.constantFrom(0 as const, 1 as const, 2 as const), { minLength: 1, maxLength: 4 }),
    })
    .map((r) =>
      buildSpec(
        { controlPlanes: r.controlPlanes, workers: r.workers, poolSize: r.poolSize, cloud: r.cloud },
        {
          segmentOctets: [r.a, r.b],
          uplinkOctet: r.up,
          minor: r.minor,
          patch: r.patch,
          ciliumMinor: r.ciliumMinor,
          carriers: r.carriers,
          btrfs: r.btrfs,
          names: r.names,
          auth: r.auth,
          ...(r.cpVrid === undefined ? {} : { cpVrid: r.cpVrid }),
          ...(r.mtu === undefined ? {} : { mtu: r.mtu }),
          ...(r.sshFrom === undefined ? {} : { sshFrom: r.sshFrom }),
          ...(r.cgroupMode === undefined ? {} : { cgroupMode: r.cgroupMode }),
          ...(r.initNode === undefined ? {} : { initNode: r.initNode }),
          ...(r.bootstrapped === undefined ? {} : { bootstrapped: r.bootstrapped }),
          ...(r.poolIpv6 === undefined || !r.cloud ? {} : { poolIpv6: r.poolIpv6 }),
          family: r.family,
          cpVip6: r.cpVip6,
          vipKinds: r.vipKinds,
        },
      ),
    )
    .filter((spec) => validateSpec(spec).ok);

/** IPv4 half the time (when allowed), the other families sharing the rest. */
function arbFamily(families: readonly BurstFamily[]): fc.Arbitrary<BurstFamily> {
  const [only] = families;
  if (only === undefined) throw new Error("arbClusterSpec: families is empty");
  if (families.length === 1) return fc.constant(only);
  const others = families.filter((f) => f !== "ipv4");
  return fc.oneof(
    ...(families.includes("ipv4") ? [{ arbitrary: fc.constant<BurstFamily>("ipv4"), weight: others.length }] : []),
    ...others.map((f) => ({ arbitrary: fc.constant(f), weight: 1 })),
  );
}

/** The node that runs `kubeadm init`, for tests of a cluster that is not bootstrapped yet; throws once it is. */
export function mustInitNode(plan: ClusterPlan): PlannedNode {
  if (plan.initNode === undefined)
    throw new Error(
      `no node runs kubeadm init: the cluster is bootstrapped (init node ${plan.bootstrap.initNodeName})`,
    );
  return plan.initNode;
}

/** Validates and resolves, throwing with the formatted issues: for tests whose input must be valid. */
export function mustResolve(input: unknown, sourceName = "cluster.yaml", secrets?: SecretValues): ClusterPlan {
  return resolvePlan(mustValidate(input), { sourceName, ...(secrets ? { secrets } : {}) });
}

/** Sample secret values of the real shape (never used anywhere real): for checking output as it is deployed. */
export const TEST_SECRETS: Required<
  Pick<SecretValues, "vrrpPassword" | "bootstrapToken" | "certificateKey" | "caCertHash">
> &
  SecretValues = {
  vrrpPassword: "t3st-pw",
  bootstrapToken: "t3stt0.k3n0000000000000",
  certificateKey: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
  caCertHash: "sha256:fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210",
  wireguardHubPrivateKey: testWireguardKey(0),
};

/** A WireGuard key of the real shape (32 bytes in base64) that is known to everyone: tests only. */
export function testWireguardKey(n: number): string {
  // xorshift32 seeded by n: distinct n give distinct keys
  let x = (Math.imul(n + 1, 2654435761) ^ 0x9e3779b9) >>> 0 || 1;
  const bytes = Array.from({ length: 32 }, () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x & 0xff;
  });
  return btoa(String.fromCharCode(...bytes));
}

/** Test secrets for a spec: TEST_SECRETS plus one test key pair per burst slot. */
export function testSecretsFor(spec: AnySpec): SecretValues {
  const slots = spec.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0;
  const keys = (offset: number) => Array.from({ length: slots }, (_, i) => testWireguardKey(offset + i)).join("\n");
  return { ...TEST_SECRETS, wireguardPeerPrivateKeys: `${keys(1000)}\n`, wireguardPeerPublicKeys: `${keys(2000)}\n` };
}

/** The spec of a generated cluster; throws on the cloud burst of an existing one. */
export function asClusterSpec(spec: AnySpec): ClusterSpec {
  if (isCloudBurstSpec(spec)) throw new Error("expected a cluster spec, got a cloud burst of an existing cluster");
  return spec;
}

export function mustValidate(input: unknown): ClusterSpec {
  return asClusterSpec(mustValidateAny(input));
}

export function mustValidateAny(input: unknown): AnySpec {
  const result = validateSpec(input);
  if (!result.ok) throw new Error(`spec is invalid:\n${formatIssues(result.errors)}`);
  return result.value;
}

/** A valid spec with its plan, for properties that resolve the spec again. */
export const arbSpecAndPlan = (
  options?: Parameters<typeof arbClusterSpec>[0],
): fc.Arbitrary<{ spec: ClusterSpec; plan: ClusterPlan }> =>
  arbClusterSpec(options).map((s) => {
    const spec = mustValidate(s);
    return { spec, plan: resolvePlan(spec) };
  });

export const arbPlan = (options?: Parameters<typeof arbClusterSpec>[0]): fc.Arbitrary<ClusterPlan> =>
  arbClusterSpec(options).map((s) => mustResolve(s));

export interface VrrpLabShape {
  /** Nodes running keepalived (control planes plus workers), inclusive range. */
  readonly nodes: readonly [number, number];
  /** Control-plane nodes; default drawn from 1, 3 and 5 (at most `nodes`). */
  readonly controlPlanes?: 1 | 3 | 5;
  /** External pool size, inclusive range. */
  readonly pool: readonly [number, number];
  readonly unicast?: boolean;
  readonly auth?: "AH" | "PASS" | "none";
  /** Kubernetes segment (and pool) on a VLAN interface such as `wan0.4000`. */
  readonly vlan?: boolean;
  readonly nopreempt?: boolean;
  /** Health check weight 0: a failing node's control-plane instance goes to FAULT. */
  readonly fault?: boolean;
  /** vrrp.preemptDelay (not with nopreempt); default 2, short so a lab stays within its time. */
  readonly preemptDelay?: number;
  /**
   * The cluster families to draw from (as arbClusterSpec's `families`; default IPv4 only, drawing exactly what it
   * drew before families existed). A dual-stack draw has a dual-stack control-plane VIP or not and external VIPs each
   * IPv4, a dual-stack pair or IPv6 alone (buildSpec's `cpVip6`/`vipKinds`), and always at least one pair; an IPv6-only
   * draw has only IPv6 VIPs. With any IPv6 VIP `auth` is dropped (VRRPv3 has none).
   */
  readonly families?: readonly BurstFamily[];
}

/**
 * Specs for the VRRP lab: the VRRP options are fixed by `shape` (so a handful of samples covers them all),
 * everything else (node count and names, carriers, pool size, VRIDs, health check timing) is drawn.
 */
export const arbVrrpLabSpec = (shape: VrrpLabShape): fc.Arbitrary<ClusterSpecInput> =>
  fc
    .record({
      total: fc.integer({ min: shape.nodes[0], max: shape.nodes[1] }),
      controlPlanes:
        shape.controlPlanes === undefined
          ? fc.constantFrom(1 as const, 3 as const, 5 as const)
          : fc.constant(shape.controlPlanes),
      poolSize: fc.integer({ min: shape.pool[0], max: shape.pool[1] }),
      a: fc.integer({ min: 1, max: 90 }),
      b: fc.integer({ min: 0, max: 255 }),
      up: fc.integer({ min: 0, max: 255 }),
      // 16 names as before for shapes up to 16 nodes (so their seeds draw the same specs), more for bigger ones.
      carriers: fc.array(fc.boolean(), {
        minLength: Math.max(16, shape.nodes[1]),
        maxLength: Math.max(16, shape.nodes[1]),
      }),
      names: fc.uniqueArray(arbNodeName(), {
        minLength: Math.max(16, shape.nodes[1]),
        maxLength: Math.max(16, shape.nodes[1]),
      }),
      vlan: fc.integer({ min: 2, max: 4094 }),
      interval: fc.integer({ min: 1, max: 2 }),
      fall: fc.integer({ min: 1, max: 3 }),
      rise: fc.integer({ min: 1, max: 2 }),
      // drawn last and only with `families` (a constant draws nothing), so IPv4 shapes replay their old seeds
      families:
        shape.families === undefined
          ? fc.constant(undefined)
          : fc.record({
              family: arbFamily(shape.families),
              cpVip6: fc.boolean(),
              vipKinds: fc.array(fc.constantFrom(0 as const, 1 as const, 2 as const), { minLength: 1, maxLength: 4 }),
            }),
    })
    .map((r) => {
      const controlPlanes = r.controlPlanes > r.total ? 1 : r.controlPlanes;
      const spec = buildSpec(
        { controlPlanes, workers: r.total - controlPlanes, poolSize: r.poolSize, cloud: false },
        {
          segmentOctets: [r.a, r.b],
          uplinkOctet: r.up,
          carriers: r.carriers,
          names: r.names,
          auth: shape.auth ?? "none",
          ...(shape.vlan ? { vlan: r.vlan } : {}),
          ...(r.families ?? {}),
        },
      );
      return {
        ...spec,
        vrrp: {
          ...spec.vrrp,
          unicast: shape.unicast ?? false,
          nopreempt: shape.nopreempt ?? false,
          ...(shape.nopreempt ? {} : { preemptDelay: shape.preemptDelay ?? 2 }),
          healthCheck: {
            interval: r.interval,
            timeout: 1,
            fall: r.fall,
            rise: r.rise,
            ...(shape.fault ? { weight: 0 } : {}),
          },
          readinessCheck: {
            interval: r.interval,
            timeout: 1,
            fall: r.fall,
            rise: r.rise,
            ...(shape.fault ? { weight: 0 } : {}),
          },
        },
      } as ClusterSpecInput;
    })
    .filter((spec) => {
      const valid = validateSpec(spec);
      if (!valid.ok) return false;
      const plan = mustResolve(spec);
      // A dual-stack draw has a pair whose halves the lab sees move together.
      if (plan.kubernetes.families.length > 1 && !plan.vips.some((v) => v.pair6 !== undefined)) return false;
      // At least two nodes run keepalived, so there is a failover to see.
      return new Set(plan.vips.flatMap((v) => v.order)).size >= 2;
    });

/** Adds an on-prem WireGuard hub (the first node) with its key and, optionally, static keys for every burst slot. */
export function withWireguardHub(spec: ClusterSpecInput, staticPeerKeys: boolean): ClusterSpecInput {
  const cloud = spec.cloud;
  const hub = spec.nodes[0]?.interfaces.wan1?.address?.split("/")[0];
  if (!cloud || hub === undefined) return spec;
  return {
    ...spec,
    cloud: {
      ...cloud,
      wireguard: {
        ...cloud.wireguard,
        hub,
        endpoint: "vpn.example.com:51820",
        privateKey: { env: "WG_HUB_PRIVATE_KEY" },
        publicKey: testWireguardKey(9999),
        ...(staticPeerKeys
          ? { peerKeys: { privateKeys: { file: "wg/peers.key" }, publicKeys: { file: "wg/peers.pub" } } }
          : {}),
      },
    },
  };
}

/** The family layout of a cloud-burst spec's existing cluster: IPv4, IPv6, or dual-stack with either family primary. */
export type BurstFamily = "ipv4" | "ipv6" | "dual-ipv4" | "dual-ipv6";

/**
 * Which families a layout has, and `ordered`: one value per family, the primary first (a list only in dual stack),
 * as the pod and service networks are listed (subnetFamiliesConsistent).
 */
function familyLayout(family: BurstFamily) {
  const has4 = family !== "ipv6";
  const has6 = family !== "ipv4";
  const dual = has4 && has6;
  const ordered = <T>(v4: T, v6: T): T | T[] =>
    dual ? (family === "dual-ipv6" ? [v6, v4] : [v4, v6]) : has4 ? v4 : v6;
  return { has4, has6, dual, ordered };
}

/**
 * Valid cloud-burst-only specs (existingCluster + cloud): an IPv4, IPv6 or dual-stack (either family primary) existing
 * cluster, 1-3 pools each with `ipv6` unset, `dual-stack` or `only`, with or without a hub (its endpoint an IPv4 or
 * IPv6 address or a DNS name) and static keys. Every draw is valid: the draws that a rule would refuse are mapped to
 * ones it accepts (an IPv6-only pool gets a Nitro type and no IPv4 nameserver outside the tunnel, an IPv6 endpoint
 * only pools with IPv6, a DNS endpoint a nameserver outside the on-prem networks).
 */
export const arbCloudBurstSpec = (): fc.Arbitrary<CloudBurstSpecInput> =>
  fc
    .record({
      k8s: fc.integer({ min: 1, max: 90 }),
      minor: fc.integer({ min: 22, max: 35 }),
      pools: fc.uniqueArray(
        fc.record({
          name: arbNodeName(),
          maxSize: fc.integer({ min: 1, max: 6 }),
          podAccess: fc.boolean(),
          arm: fc.boolean(),
          /** An x86_64 pool's type: Nitro (c7i) or Xen (m4, IMDS over IPv4 only); an IPv6-only pool is always Nitro. */
          xen: fc.boolean(),
          ipv6: fc.constantFrom(undefined, "dual-stack" as const, "only" as const),
        }),
        { minLength: 1, maxLength: 3, selector: (p) => p.name },
      ),
      family: fc.constantFrom<BurstFamily>("ipv4", "ipv6", "dual-ipv4", "dual-ipv6"),
      /** In a dual-stack cluster: which family the endpoint, the hub and the on-prem nameserver use. */
      endpointV6: fc.boolean(),
      hubV6: fc.boolean(),
      nameserverV6: fc.boolean(),
      /** The second nameserver, outside the on-prem networks: IPv6 or IPv4 (IPv6 when a pool is IPv6-only). */
      outsideV6: fc.boolean(),
      /** An IPv6 tunnel network beside the IPv4 one although the cluster runs IPv4 only. */
      extraTunnel6: fc.boolean(),
      nameservers: fc.integer({ min: 1, max: 2 }),
      hub: fc.constantFrom("none" as const, "provisioner" as const, "static" as const),
      hubEndpoint: fc.constantFrom("dns" as const, "ipv4" as const, "ipv6" as const),
      dnsEndpoint: fc.boolean(),
    })
    .map((r): CloudBurstSpecInput => {
      const { has4, has6, dual, ordered } = familyLayout(r.family);
      const net4 = `10.${r.k8s}.0`;
      const net6 = `fd00:118:${r.k8s}:`;
      const inV6 = (pick: boolean) => (dual ? pick : has6);
      const anyOnly = r.pools.some((p) => p.ipv6 === "only");
      const anyOff = r.pools.some((p) => p.ipv6 === undefined);
      // an IPv6 endpoint needs IPv6 on every pool (cloudPoolsReachHub), an IPv4 one no IPv6-only pool (cloudIpv6OnlyPools)
      const hubEndpoint =
        (r.hubEndpoint === "ipv6" && anyOff) || (r.hubEndpoint === "ipv4" && anyOnly) ? "dns" : r.hubEndpoint;
      const hasHub = r.hub !== "none";
      // a DNS name needs a nameserver outside the tunnel (burstHubEndpointResolvable)
      const nameserverCount = hasHub && hubEndpoint === "dns" ? 2 : r.nameservers;
      // an IPv6-only pool's instances reach a nameserver outside the tunnel over IPv6 (burstIpv6OnlyNameservers)
      const outside = r.outsideV6 || anyOnly ? "2606:4700:4700::1111" : "1.1.1.1";
      const onPremNameserver = inV6(r.nameserverV6) ? `${net6}:53` : `${net4}.53`;
      return {
        apiVersion: "clusterspec/v1alpha1",
        kind: "Cluster",
        name: "burst-prop",
        existingCluster: {
          endpoint: r.dnsEndpoint
            ? "api.home.example:6443"
            : inV6(r.endpointV6)
              ? `[${net6}:100]:6443`
              : `${net4}.100:6443`,
          caCertHash: { env: "KUBEADM_CA_HASH" },
          kubernetesVersion: `v1.${r.minor}.1`,
          podSubnet: ordered("10.244.0.0/16", "fd00:10:244::/56"),
          serviceSubnet: ordered("10.96.0.0/12", "fd00:10:96::/112"),
          onPremNetworks: [...(has4 ? [`${net4}.0/24`] : []), ...(has6 ? [`${net6}:/64`] : [])],
          nameservers: [onPremNameserver, outside].slice(0, nameserverCount),
        },
        cloud: {
          aws: { region: "eu-central-1", vpcCidr: "172.24.0.0/16" },
          provisioner: { url: "https://provisioner.example.com" },
          wireguard: {
            // the tunnel carries each family of the cluster (burstTunnelFamilies)
            tunnelSubnet: has4 ? "172.30.99.0/24" : "fd00:30:99::/64",
            ...(has4 && (has6 || r.extraTunnel6) ? { tunnelSubnet6: "fd00:30:99::/64" } : {}),
            ...(!hasHub
              ? {}
              : {
                  hub: inV6(r.hubV6) ? `${net6}:10` : `${net4}.10`,
                  endpoint:
                    hubEndpoint === "dns"
                      ? "vpn.example.com:51820"
                      : hubEndpoint === "ipv4"
                        ? "203.0.113.10:51820"
                        : "[2001:db8::10]:51820",
                  privateKey: { env: "WG_HUB_PRIVATE_KEY" },
                  publicKey: testWireguardKey(9999),
                }),
            ...(r.hub === "static"
              ? { peerKeys: { privateKeys: { file: "wg/peers.key" }, publicKeys: { file: "wg/peers.pub" } } }
              : {}),
          },
          pools: r.pools.map((p) => ({
            name: p.name,
            // AWS launches only Nitro types into IPv6-only subnets (cloudIpv6OnlyPools)
            instanceType: p.arm ? "t4g.xlarge" : p.xen && p.ipv6 !== "only" ? "m4.large" : "c7i.xlarge",
            architecture: p.arm ? ("arm64" as const) : ("x86_64" as const),
            ami: { id: "ami-0123456789abcdef0" },
            maxSize: p.maxSize,
            subnets: ["subnet-0123456789abcdef0"],
            securityGroups: ["sg-0123456789abcdef0"],
            imds: { podAccess: p.podAccess },
            taints: [{ key: "ci", value: "true", effect: "NoSchedule" as const }],
            ...(p.ipv6 === undefined ? {} : { ipv6: p.ipv6 }),
          })),
        },
      };
    });

/**
 * Secret values of the real shape, distinct for every reference a spec makes (one key per burst slot), for
 * checking where each one ends up. `seed` varies them.
 */
export function distinctSecretsFor(spec: AnySpec, seed: number): SecretValues {
  const slots = spec.cloud?.pools.reduce((n, p) => n + p.maxSize, 0) ?? 0;
  const keys = (offset: number) =>
    `${Array.from({ length: slots }, (_, i) => testWireguardKey(seed * 97 + offset + i)).join("\n")}\n`;
  const hex = (n: number) => Array.from({ length: 64 }, (_, i) => ((n + i * 7) % 16).toString(16)).join("");
  return {
    vrrpPassword: `V%${(seed % 1679616).toString(36).padStart(4, "0")}=`,
    bootstrapToken: `${String(seed % 1000000).padStart(6, "0")}.${hex(seed).slice(0, 16)}`,
    certificateKey: hex(seed + 1),
    caCertHash: `sha256:${hex(seed + 2)}`,
    wireguardHubPrivateKey: testWireguardKey(seed * 97 + 1),
    wireguardPeerPrivateKeys: keys(10),
    wireguardPeerPublicKeys: keys(50),
  };
}

export { precompiledTemplates } from "./generated/precompiled-templates.js";
// - the VRRP lab (packages/testkit, keepalived's vrrp-lab test) matches `ip addr` output to planned VIPs
export { canonicalIp } from "./ip.js";
// - examples/examples.test.ts keeps docs/spec-reference.md in step with the schema
export { renderSpecReference } from "./json-schema.js";
// Core internals that tests in other packages need and cannot reach through the public API. Tests inside
// packages/core import internals by relative path; nothing else belongs here.
// - packages/cli/test/generated-sources.test.ts writes the precompiled template table, precompiled-templates.test.ts checks it
export { lineTemplateSources } from "./line-template.js";
// - examples/spec-reference.test.ts validates every example of docs/spec-reference.md and each "required when"
export { CONDITIONALLY_REQUIRED, SPEC_SHAPES } from "./spec/reference-examples.js";
// - packages/cli/test/hostile-strings.test.ts feeds hostile strings into every string position of the schema
export { type StringSlot, schemaStringPatterns, specStringSlots } from "./spec/string-slots.js";

/**
 * The spec with its external VIPs moved to a VLAN of wan0 (`wan0.<vlan>`, 203.0.113.0/24) whose segment has an uplink
 * table and nothing else (no `sources`, no `onLink`), the first segment's uplink and on-link networks removed, and
 * `cilium.devices` left to its default: the case where the uplink's sources and Cilium's devices are derived and
 * accept_local on a VLAN matters. `mtu: null` leaves the VLAN's MTU unset.
 * - packages/core/test/bare-metal-round2.test.ts (the rules' messages), examples/boot-order.test.ts (the boot order)
 */
export function withExternalVipsOnVlan(
  spec: ClusterSpecInput,
  vlan = 4000,
  mtu: number | null = 1400,
): ClusterSpecInput {
  const out = structuredClone(spec);
  const name = `wan0.${vlan}`;
  const internal = out.network.segments[0];
  if (internal) {
    delete internal.uplink;
    internal.onLink = [];
  }
  out.network.segments.push({
    name: "public",
    interface: name,
    subnet: "203.0.113.0/24",
    uplink: { gateway: "203.0.113.1", routingTable: { id: 2, name: "pub" } },
  });
  if (out.externalVips)
    out.externalVips.addresses = [
      { address: "203.0.113.20", vrid: 10 },
      { address: "203.0.113.21", vrid: 11 },
    ];
  out.nodes.forEach((n, i) => {
    n.interfaces[name] = {
      vlan: { parent: "wan0", id: vlan },
      address: `203.0.113.${10 + i}/24`,
      ...(mtu === null ? {} : { mtu }),
    };
  });
  if (out.cilium) delete out.cilium.devices;
  return out;
}
