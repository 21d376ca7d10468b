export interface Semver {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$/;

export function parseSemver(text: string): Semver | undefined {
  const m = SEMVER.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
}

/** `v1.34.2` (the leading v optional) → {1, 34, 2}; only Kubernetes 1.x exists. */
export function parseKubernetesVersion(text: string): Semver | undefined {
  const s = parseSemver(text.startsWith("v") ? text.slice(1) : text);
  return s && s.major === 1 ? s : undefined;
}

export const formatKubernetesVersion = (v: Semver): string => `v${v.major}.${v.minor}.${v.patch}`;

/** Go duration (`1m30s`, `500ms`) → seconds. The schema has checked the syntax. */
export function durationSeconds(text: string): number {
  const unit: Record<string, number> = { ns: 1e-9, us: 1e-6, "\u00b5s": 1e-6, ms: 1e-3, s: 1, m: 60, h: 3600 };
  let total = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|\u00b5s|ms|s|m|h)/g))
    total += Number(m[1]) * (unit[m[2] ?? "s"] ?? 1);
  return Math.round(total * 1e9) / 1e9;
}
