// Thin, typed wrappers over ip-address: all IP/CIDR math of clusterspec goes through here.
import { Address4, Address6 } from "ip-address";

export type IpFamily = 4 | 6;
type Addr = Address4 | Address6;

/** A parsed `address/prefix`; `address` keeps the host bits (10.0.0.20/24 stays .20). */
export interface Cidr {
  readonly family: IpFamily;
  readonly address: string;
  readonly prefixLength: number;
}

const IPV4_DOTTED = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * Parsed values by text. Rules and the plan ask about the same few hundred addresses many times over (every VIP
 * against every network, every node against every segment), and ip-address parsing dominates validation at
 * 300 nodes otherwise. The parsed objects are never mutated; the caches are bounded.
 */
const CACHE_LIMIT = 50_000;
const addrCache = new Map<string, Addr | undefined>();
const netCache = new Map<string, Addr | undefined>();

function cached(cache: Map<string, Addr | undefined>, text: string, parse: (t: string) => Addr | undefined) {
  const hit = cache.get(text);
  if (hit !== undefined || cache.has(text)) return hit;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const parsed = parse(text);
  cache.set(text, parsed);
  return parsed;
}

const parseAddr = (text: string): Addr | undefined => cached(addrCache, text, parseAddrUncached);
const parseNet = (text: string): Addr | undefined => cached(netCache, text, parseNetUncached);

function parseAddrUncached(text: string): Addr | undefined {
  if (text.includes("/")) return undefined;
  // ip-address accepts a few lenient forms; only canonical dotted quads are allowed for IPv4.
  if (IPV4_DOTTED.test(text) && Address4.isValid(text)) return new Address4(text);
  if (text.includes(":") && Address6.isValid(text) && !text.includes("%")) return new Address6(text);
  return undefined;
}

function parseNetUncached(text: string): Addr | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const host = text.slice(0, slash);
  const prefix = text.slice(slash + 1);
  if (!/^(0|[1-9]\d{0,2})$/.test(prefix)) return undefined;
  const addr = parseAddr(host);
  if (!addr) return undefined;
  const bits = Number(prefix);
  if (bits > (addr instanceof Address4 ? 32 : 128)) return undefined;
  return addr instanceof Address4 ? new Address4(`${host}/${bits}`) : new Address6(`${host}/${bits}`);
}

const familyOf = (a: Addr): IpFamily => (a instanceof Address4 ? 4 : 6);

export function isIp(text: string): boolean {
  return parseAddr(text) !== undefined;
}

export function isCidr(text: string): boolean {
  return parseNet(text) !== undefined;
}

/** `10.0.0.0/24` where the address is the network itself (no host bits set). */
export function isNetworkCidr(text: string): boolean {
  const net = parseNet(text);
  return net !== undefined && net.startAddress().correctForm() === net.correctForm();
}

export function ipFamily(text: string): IpFamily {
  const a = parseAddr(text) ?? parseNet(text);
  if (!a) throw new TypeError(`not an IP address or CIDR: ${text}`);
  return familyOf(a);
}

function mustAddr(text: string): Addr {
  const a = parseAddr(text);
  if (!a) throw new TypeError(`not an IP address: ${text}`);
  return a;
}

function mustNet(text: string): Addr {
  const a = parseNet(text);
  if (!a) throw new TypeError(`not a CIDR: ${text}`);
  return a;
}

export function parseCidr(text: string): Cidr {
  const net = mustNet(text);
  return { family: familyOf(net), address: net.correctForm(), prefixLength: net.subnetMask };
}

/** Canonical text of an address (IPv6 compressed, lowercase). */
export function canonicalIp(text: string): string {
  return mustAddr(text).correctForm();
}

export function networkAddress(cidr: string): string {
  return mustNet(cidr).startAddress().correctForm();
}

/** The last address of the network: the IPv4 broadcast address. */
export function lastAddress(cidr: string): string {
  return mustNet(cidr).endAddress().correctForm();
}

/** `10.0.0.20/24` → `10.0.0.0/24`. */
export function networkOf(cidr: string): string {
  const net = mustNet(cidr);
  return `${net.startAddress().correctForm()}/${net.subnetMask}`;
}

export function addressCount(cidr: string): bigint {
  const net = mustNet(cidr);
  return net.endAddress().bigInt() - net.startAddress().bigInt() + 1n;
}

export function cidrContains(cidr: string, ip: string): boolean {
  const net = mustNet(cidr);
  const a = mustAddr(ip);
  if (familyOf(net) !== familyOf(a)) return false;
  return a.isInSubnet(net);
}

export function cidrsOverlap(a: string, b: string): boolean {
  const x = mustNet(a);
  const y = mustNet(b);
  if (familyOf(x) !== familyOf(y)) return false;
  return x.startAddress().bigInt() <= y.endAddress().bigInt() && y.startAddress().bigInt() <= x.endAddress().bigInt();
}

export function ipEquals(a: string, b: string): boolean {
  const x = mustAddr(a);
  const y = mustAddr(b);
  return familyOf(x) === familyOf(y) && x.bigInt() === y.bigInt();
}

/** Numeric order; IPv4 before IPv6. */
export function compareIps(a: string, b: string): number {
  const x = mustAddr(a);
  const y = mustAddr(b);
  if (familyOf(x) !== familyOf(y)) return familyOf(x) - familyOf(y);
  const d = x.bigInt() - y.bigInt();
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}

/** The n-th address of a network (0 is the network address). */
export function addressAt(cidr: string, n: bigint | number): string {
  const net = mustNet(cidr);
  const count = addressCount(cidr);
  const i = BigInt(n);
  if (i < 0n || i >= count) throw new RangeError(`offset ${i} outside ${cidr}`);
  return net.startAddress().offset(i).correctForm();
}

/** Address without prefix: `10.0.0.1/24` → `10.0.0.1`; a bare address is returned canonical. */
export function hostPart(text: string): string {
  const slash = text.indexOf("/");
  return canonicalIp(slash < 0 ? text : text.slice(0, slash));
}

/** The last 8 bits of an address (a prefix is ignored): the IPv4 last octet, or the low byte of an IPv6 address. */
export function lowByte(text: string): number {
  const slash = text.indexOf("/");
  return Number(mustAddr(slash < 0 ? text : text.slice(0, slash)).bigInt() & 0xffn);
}
