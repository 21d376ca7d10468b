// The Gentoo package atoms PLAN.md and the host files name, in one place. Each was checked against the gentoo/gentoo
// tree: packages/host/data/gentoo-atoms.json records what was found (category, versions, KEYWORDS) with its
// provenance, and packages/host/test/gentoo-atoms.test.ts fails on an atom PLAN.md names that the record lacks.
export const GENTOO_ATOMS = {
  /** Not net-misc/keepalived: no such package exists in ::gentoo. */
  keepalived: "sys-cluster/keepalived",
  curl: "net-misc/curl",
  kubeadm: "sys-cluster/kubeadm",
  kubelet: "sys-cluster/kubelet",
  kubectl: "sys-cluster/kubectl",
  nftables: "net-firewall/nftables",
} as const;

/** The oldest keepalived the generated configuration is checked with (`keepalived -t`, the VRRP lab). */
export const KEEPALIVED_MIN_VERSION = "2.2.7";
