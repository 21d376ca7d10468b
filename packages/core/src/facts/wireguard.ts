/** Bytes WireGuard adds over IPv4: outer IPv4 (20) + UDP (8) + WireGuard header and tag (32). */
export const WIREGUARD_OVERHEAD = 60;

/** MTU left inside the WireGuard tunnel. */
export const tunnelMtuOf = (underlayMtu: number): number => underlayMtu - WIREGUARD_OVERHEAD;
