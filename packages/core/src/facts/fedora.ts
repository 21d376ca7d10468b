// Fedora releases past their end of life: their mirrors are archived, so a burst node booting one cannot install its
// packages and never joins. A small dated table; the comparison date is passed in (generators read no clock).

export interface FedoraEol {
  readonly release: number;
  /** End of life, YYYY-MM-DD (UTC). */
  readonly eol: string;
}

/**
 * End-of-life dates of recent Fedora releases, compiled on FEDORA_EOL_AS_OF from the Fedora Project's list of
 * end-of-life releases (https://docs.fedoraproject.org/en-US/releases/eol/) and, for Fedora 42, its EOL notice of
 * 2026-05-28. Releases newer than the last row had no EOL date yet then.
 */
export const FEDORA_EOL: readonly FedoraEol[] = [
  { release: 37, eol: "2023-12-05" },
  { release: 38, eol: "2024-05-21" },
  { release: 39, eol: "2024-11-26" },
  { release: 40, eol: "2025-05-13" },
  { release: 41, eol: "2025-12-15" },
  { release: 42, eol: "2026-05-28" },
];

/** The day the table was compiled: PLAN.md compares against it unless a later date is passed in. */
export const FEDORA_EOL_AS_OF = "2026-12-01";

export const FEDORA_EOL_SOURCE = "https://docs.fedoraproject.org/en-US/releases/eol/";

/**
 * The Fedora release an AMI name filter names, if it names exactly one: the two-digit field between separators in
 * `Fedora-Cloud-Base-AmazonEC2.x86_64-43-*` or `Fedora-Cloud-Base-39-1.5.x86_64-hvm-*` (the architecture's `_64` and
 * `aarch64` do not count: they follow `_` or a letter; nor does the compose number's minor, `14` in `-40-1.14.`, which
 * follows a digit and a dot). Undefined for a filter without "Fedora" or without a release.
 */
export function fedoraReleaseOf(amiName: string): number | undefined {
  if (!/fedora/i.test(amiName)) return undefined;
  const releases = new Set([...amiName.matchAll(/(?:^|-|(?<!\d)\.)(\d{2})(?=[-.*]|$)/g)].map((m) => Number(m[1])));
  return releases.size === 1 ? [...releases][0] : undefined;
}

/**
 * The first Fedora release with versioned Kubernetes packages (kubernetesX.Y, cri-oX.Y: one stream per minor), which
 * burst nodes install; before it Fedora had one unversioned kubernetes package that moves with the release.
 */
export const FEDORA_VERSIONED_KUBERNETES_SINCE = 41;

/** Whether an AMI name filter may match images of several Fedora releases: a Fedora name with a wildcard and no release. */
export function fedoraNameSpansReleases(amiName: string): boolean {
  return /fedora/i.test(amiName) && /[*?]/.test(amiName) && fedoraReleaseOf(amiName) === undefined;
}

// fedoraPastEol, the comparison of a release with this table, is in contract.ts (the one module that compares versions).
