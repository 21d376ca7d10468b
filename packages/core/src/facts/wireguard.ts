/** Bytes WireGuard adds over IPv4: outer IPv4 (20) + UDP (8) + WireGuard header and tag (32). */
export const WIREGUARD_OVERHEAD = 60;

/**
 * Bytes WireGuard adds over IPv6: outer IPv6 (40) + UDP (8) + WireGuard header and tag (32). wg-quick itself assumes
 * this when it sizes an interface (`set_mtu_up`: the route's MTU minus 80, wireguard-tools src/wg-quick/linux.bash).
 */
export const WIREGUARD_OVERHEAD_IPV6 = 80;

/** The host of `host:port` (`[v6]:port` unbracketed). */
function endpointHostOf(endpoint: string): string {
  const host = endpoint.slice(0, endpoint.lastIndexOf(":"));
  return host.startsWith("[") ? host.slice(1, -1) : host;
}

/**
 * The outer header the tunnel must leave room for: 60 bytes only when the hub's endpoint is an IPv4 literal (the
 * path is IPv4 for sure); a DNS name may resolve to an IPv6 address, an IPv6 literal is one, and without an
 * endpoint the family is unknown: 80, as wg-quick does.
 */
export function tunnelOverheadOf(endpoint: string | undefined): number {
  if (endpoint === undefined) return WIREGUARD_OVERHEAD_IPV6;
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(endpointHostOf(endpoint)) ? WIREGUARD_OVERHEAD : WIREGUARD_OVERHEAD_IPV6;
}

/** MTU left inside the WireGuard tunnel to the hub at `endpoint`. */
export const tunnelMtuOf = (underlayMtu: number, endpoint: string | undefined): number =>
  underlayMtu - tunnelOverheadOf(endpoint);
