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

function cached<T>(cache: Map<string, T>, text: string, compute: (t: string) => T): T {
  const hit = cache.get(text);
  if (hit !== undefined || cache.has(text)) return hit as T;
  if (cache.size >= CACHE_LIMIT) cache.clear();
  const value = compute(text);
  cache.set(text, value);
  return value;
}

const parseAddr = (text: string): Addr | undefined => cached(addrCache, text, parseAddrUncached);
const parseNet = (text: string): Addr | undefined => cached(netCache, text, parseNetUncached);

/**
 * What is derived from a parsed value, by its text too: ip-address computes a network's ends, and any address's
 * number and canonical text, afresh on every call (BigInt and hex work), and validation asks them of the same
 * segment for each of 254 VIPs. Never computed for text that does not parse (mustAddr/mustNet throw first).
 */
interface AddrFacts {
  readonly canonical: string;
  readonly value: bigint;
}
interface NetFacts {
  readonly first: string;
  readonly last: string;
  readonly firstValue: bigint;
  readonly lastValue: bigint;
}
const addrFactsCache = new Map<string, AddrFacts>();
const netFactsCache = new Map<string, NetFacts>();

function addrFacts(text: string): AddrFacts {
  return cached(addrFactsCache, text, (t) => {
    const a = mustAddr(t);
    return { canonical: a.correctForm(), value: a.bigInt() };
  });
}

function netFacts(cidr: string): NetFacts {
  return cached(netFactsCache, cidr, (t) => {
    const net = mustNet(t);
    const first = net.startAddress();
    const last = net.endAddress();
    return {
      first: first.correctForm(),
      last: last.correctForm(),
      firstValue: first.bigInt(),
      lastValue: last.bigInt(),
    };
  });
}

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
  return net !== undefined && netFacts(text).first === net.correctForm();
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
  return addrFacts(text).canonical;
}

export function networkAddress(cidr: string): string {
  return netFacts(cidr).first;
}

/** The last address of the network: the IPv4 broadcast address. */
export function lastAddress(cidr: string): string {
  return netFacts(cidr).last;
}

/** `10.0.0.20/24` → `10.0.0.0/24`. */
export function networkOf(cidr: string): string {
  return `${netFacts(cidr).first}/${mustNet(cidr).subnetMask}`;
}

export function addressCount(cidr: string): bigint {
  const { firstValue, lastValue } = netFacts(cidr);
  return lastValue - firstValue + 1n;
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
  const p = netFacts(a);
  const q = netFacts(b);
  return p.firstValue <= q.lastValue && q.firstValue <= p.lastValue;
}

export function ipEquals(a: string, b: string): boolean {
  const x = mustAddr(a);
  const y = mustAddr(b);
  return familyOf(x) === familyOf(y) && addrFacts(a).value === addrFacts(b).value;
}

/** Numeric order; IPv4 before IPv6. */
export function compareIps(a: string, b: string): number {
  const x = mustAddr(a);
  const y = mustAddr(b);
  if (familyOf(x) !== familyOf(y)) return familyOf(x) - familyOf(y);
  const d = addrFacts(a).value - addrFacts(b).value;
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
  return Number(addrFacts(slash < 0 ? text : text.slice(0, slash)).value & 0xffn);
}
